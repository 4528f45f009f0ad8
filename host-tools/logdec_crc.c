/* Slicing-by-8 CRC32C: table k maps a byte to its CRC contribution k
 * bytes further back, so eight bytes are folded per step. */
#include "host-tools/logdec_crc.h"

#include <stdbool.h>
#include <string.h>

#include "vmm/log_crc.h"

#define SLICES 8

static uint32_t tables[SLICES][256];
static bool tables_ready;

static void build_tables(void)
{
    memcpy(tables[0], log_crc32c_table, sizeof(tables[0]));
    for (unsigned k = 1; k < SLICES; k++)
        for (unsigned n = 0; n < 256; n++)
            tables[k][n] = (tables[k - 1][n] >> 8) ^ tables[0][tables[k - 1][n] & 0xffu];
    tables_ready = true;
}

static uint32_t fold8(uint32_t crc, const uint8_t *p)
{
    uint32_t lo, hi;
    memcpy(&lo, p, 4);      /* little-endian host (x86) */
    memcpy(&hi, p + 4, 4);
    lo ^= crc;
    return tables[7][lo & 0xff] ^ tables[6][(lo >> 8) & 0xff] ^
           tables[5][(lo >> 16) & 0xff] ^ tables[4][lo >> 24] ^
           tables[3][hi & 0xff] ^ tables[2][(hi >> 8) & 0xff] ^
           tables[1][(hi >> 16) & 0xff] ^ tables[0][hi >> 24];
}

uint32_t logdec_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (!tables_ready)
        build_tables();
    crc = ~crc;
    for (; len >= SLICES; len -= SLICES, p += SLICES)
        crc = fold8(crc, p);
    while (len--)
        crc = tables[0][(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    return ~crc;
}
