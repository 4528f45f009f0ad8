/* CRC32C (Castagnoli), byte-at-a-time with a table built by the compiler:
 * each entry is eight reflected shift/XOR steps of its index. */
#include "vmm/log_crc.h"

#define CRC_STEP(c)  (((c) >> 1) ^ (LOG_CRC32C_POLY & (0u - ((c) & 1u))))
#define CRC_ENTRY(n) CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP( \
                     CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP((uint32_t)(n)))))))))
#define CRC_ROW4(n)  CRC_ENTRY(n), CRC_ENTRY((n) + 1), CRC_ENTRY((n) + 2), CRC_ENTRY((n) + 3)
#define CRC_ROW16(n) CRC_ROW4(n), CRC_ROW4((n) + 4), CRC_ROW4((n) + 8), CRC_ROW4((n) + 12)
#define CRC_ROW64(n) CRC_ROW16(n), CRC_ROW16((n) + 16), CRC_ROW16((n) + 32), CRC_ROW16((n) + 48)

const uint32_t log_crc32c_table[256] = {
    CRC_ROW64(0), CRC_ROW64(64), CRC_ROW64(128), CRC_ROW64(192),
};

uint32_t log_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    crc = ~crc;
    while (len--)
        crc = log_crc32c_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    return ~crc;
}
