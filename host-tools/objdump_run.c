/* Running objdump on code bytes (see objdump_run.h). */
#include "host-tools/objdump_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_LEN 512u

bool objdump_code(const uint8_t *bytes, size_t len, uint64_t vma,
                  bool (*each)(void *ctx, uint64_t addr, const char *text), void *ctx)
{
    char path[] = "/tmp/vertigo-code-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    bool written = write(fd, bytes, len) == (ssize_t)len;
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "objdump -D -b binary -m i386:x86-64 --no-show-raw-insn -w "
             "--adjust-vma=0x%" PRIx64 " '%s' 2>/dev/null", vma, path);
    FILE *p = written ? popen(cmd, "r") : NULL;
    char line[LINE_MAX_LEN];
    size_t count = 0;
    bool ok = p != NULL;
    while (ok && fgets(line, sizeof(line), p)) {
        char *end;
        uint64_t addr = strtoull(line, &end, 16);
        if (end == line || end[0] != ':' || end[1] != '\t')
            continue;
        line[strcspn(line, "\n")] = '\0';
        ok = each(ctx, addr, end + 2);
        count++;
    }
    if (p && pclose(p) != 0)
        ok = false;
    unlink(path);
    return ok && count;
}
