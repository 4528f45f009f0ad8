/* The kernel's GNU build id from its ELF notes (guestlib/kernel_build_id.c),
 * as the agent reads /sys/kernel/notes: the build id found among other
 * notes, and notes that are cut short or too long give none. */
#include "tests/unit/unit.h"

#include <string.h>

#include "guestlib/kernel_build_id.h"

/* Appends one note (name padded to 4, descriptor padded to 4) at *len. */
static void note(uint8_t *buf, size_t *len, uint32_t type, const char *name, const uint8_t *desc,
                 uint32_t descsz)
{
    uint32_t namesz = (uint32_t)strlen(name) + 1, hdr[3] = { namesz, descsz, type };
    memcpy(buf + *len, hdr, sizeof(hdr));
    *len += sizeof(hdr);
    memset(buf + *len, 0, (namesz + 3u) & ~3u);
    memcpy(buf + *len, name, namesz);
    *len += (namesz + 3u) & ~3u;
    memset(buf + *len, 0, (descsz + 3u) & ~3u);
    memcpy(buf + *len, desc, descsz);
    *len += (descsz + 3u) & ~3u;
}

TEST(build_id_among_other_notes)
{
    static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                    13, 14, 15, 0xff };
    static const uint8_t xen[6] = { 1, 2, 3, 4, 5, 6 };
    uint8_t buf[256];
    size_t len = 0;
    char hex[KERNEL_BUILD_ID_HEX];
    note(buf, &len, 6, "Xen", xen, sizeof(xen));
    note(buf, &len, 3, "Linux", xen, 4);          /* type 3, but not GNU's */
    note(buf, &len, 3, "GNU", id, sizeof(id));
    CHECK_EQ(kernel_build_id_parse(buf, len, hex), 20);
    CHECK_STR(hex, "deadbeef0102030405060708090a0b0c0d0e0fff");
    /* cut inside the build id's descriptor: none */
    CHECK_EQ(kernel_build_id_parse(buf, len - 4, hex), 0);
    /* a descriptor size running past the end: none, nothing read past it */
    uint32_t huge = 0xfffffff0u;
    memcpy(buf + 4, &huge, sizeof(huge));
    CHECK_EQ(kernel_build_id_parse(buf, len, hex), 0);
}

TEST(no_build_id_or_an_oversized_one)
{
    static const uint8_t big[24] = { 0 };
    uint8_t buf[128] = { 0 };
    size_t len = 0;
    char hex[KERNEL_BUILD_ID_HEX];
    CHECK_EQ(kernel_build_id_parse(buf, 0, hex), 0);
    note(buf, &len, 3, "GNU", big, sizeof(big));  /* longer than SHA-1 */
    CHECK_EQ(kernel_build_id_parse(buf, len, hex), 0);
    CHECK_EQ(kernel_build_id_read("/nonexistent/notes", hex), 0);
}
