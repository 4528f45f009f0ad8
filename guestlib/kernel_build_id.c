/* The kernel's GNU build id from its ELF notes (see kernel_build_id.h).
 * A note is three 32-bit words (name size, descriptor size, type), the
 * name and the descriptor, each padded to 4 bytes. */
#include "guestlib/kernel_build_id.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOTE_HEADER 12u
#define NT_GNU_BUILD_ID_TYPE 3u
#define NOTES_MAX 4096u          /* /sys/kernel/notes holds a few notes */

static uint32_t word_at(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, sizeof(w));
    return w;
}

static size_t pad4(size_t n)
{
    return (n + 3u) & ~(size_t)3u;
}

size_t kernel_build_id_parse(const uint8_t *notes, size_t len, char hex[KERNEL_BUILD_ID_HEX])
{
    for (size_t off = 0; off <= len && len - off >= NOTE_HEADER;) {
        uint32_t namesz = word_at(notes + off), descsz = word_at(notes + off + 4);
        uint32_t type = word_at(notes + off + 8);
        size_t name = off + NOTE_HEADER, rest = len - name;
        if (pad4(namesz) > rest || pad4(descsz) > rest - pad4(namesz))
            return 0;
        size_t desc = name + pad4(namesz);
        if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(notes + name, "GNU", 4)) {
            if (descsz == 0 || descsz > KERNEL_BUILD_ID_MAX)
                return 0;
            for (uint32_t i = 0; i < descsz; i++)
                snprintf(hex + 2 * i, 3, "%02x", notes[desc + i]);
            return descsz;
        }
        off = desc + pad4(descsz);
    }
    return 0;
}

size_t kernel_build_id_read(const char *path, char hex[KERNEL_BUILD_ID_HEX])
{
    uint8_t notes[NOTES_MAX];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t len = 0;
    ssize_t n;
    while (len < sizeof(notes) && (n = read(fd, notes + len, sizeof(notes) - len)) > 0)
        len += (size_t)n;
    close(fd);
    return kernel_build_id_parse(notes, len, hex);
}
