/* The decoder's payload CRC32C in three lanes (see logdec_crc.h).
 *
 * In the register (the CRC before its final inversion), bytes B after
 * bytes A give reg(A B) = reg_from(reg(A), B) = reg_from(0, B) ^
 * shift_|B|(reg(A)), where shift_n moves a register past n zero bytes:
 * a linear map over GF(2), so it is the XOR of four table entries, one
 * per byte of the register. A stripe of three lanes of LANE_BYTES is
 * three independent chains (the first from the running register, the
 * others from 0), joined as shift(shift(a) ^ b) ^ c. */
#include "host-tools/logdec_crc.h"

#include <stdbool.h>
#include <string.h>

#include "lib/log_crc.h"

#define LANE_BYTES   256u                /* a stripe: 768 bytes */
#define STRIPE_BYTES (3u * LANE_BYTES)
#define REG_BITS     32u
#define BYTE_VALUES  256u

#if defined(__x86_64__)

/* shift_table[k][v]: the register whose byte k is v (others 0) moved past
 * LANE_BYTES zero bytes. Built on first use from the byte-table CRC. */
static uint32_t shift_table[4][BYTE_VALUES];
static bool shift_ready;

static void build_shift_table(void)
{
    static const uint8_t zeros[LANE_BYTES];
    uint32_t bit[REG_BITS];
    for (unsigned int i = 0; i < REG_BITS; i++)      /* log_crc32c_bytewise inverts in and out */
        bit[i] = ~log_crc32c_bytewise(~(1u << i), zeros, sizeof(zeros));
    for (unsigned int k = 0; k < 4; k++)
        for (unsigned int v = 0; v < BYTE_VALUES; v++) {
            uint32_t r = 0;
            for (unsigned int j = 0; j < 8; j++)
                r ^= (v >> j & 1u) ? bit[8 * k + j] : 0;
            shift_table[k][v] = r;
        }
    shift_ready = true;
}

static inline uint32_t shift(uint32_t r)
{
    return shift_table[0][r & 0xffu] ^ shift_table[1][(r >> 8) & 0xffu] ^
           shift_table[2][(r >> 16) & 0xffu] ^ shift_table[3][r >> 24];
}

/* A payload's 8 bytes at any alignment, read by the CRC32 instruction
 * itself (its memory operand): no separate load. */
typedef uint64_t __attribute__((may_alias, aligned(1))) unaligned_u64;
#define CRC_STEP(reg, at) __asm__("crc32q %1, %0" : "+r"(reg) : "m"(*(const unaligned_u64 *)(at)))

/* The register after the whole stripes of [*p, *p + *len), from reg. */
static uint32_t stripes(uint32_t reg, const uint8_t **p, size_t *len)
{
    const uint8_t *q = *p;
    for (; *len >= STRIPE_BYTES; *len -= STRIPE_BYTES, q += STRIPE_BYTES) {
        uint64_t a = reg, b = 0, c = 0;
        for (unsigned int i = 0; i < LANE_BYTES; i += 2 * sizeof(uint64_t)) {
            CRC_STEP(a, q + i);
            CRC_STEP(b, q + LANE_BYTES + i);
            CRC_STEP(c, q + 2 * LANE_BYTES + i);
            CRC_STEP(a, q + i + sizeof(uint64_t));
            CRC_STEP(b, q + LANE_BYTES + i + sizeof(uint64_t));
            CRC_STEP(c, q + 2 * LANE_BYTES + i + sizeof(uint64_t));
        }
        reg = shift(shift((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
    }
    *p = q;
    return reg;
}

uint32_t logdec_crc32c(const void *buf, size_t len)
{
    if (len < STRIPE_BYTES || !log_crc32c_hw_available())
        return log_crc32c(0, buf, len);
    if (!shift_ready)
        build_shift_table();
    const uint8_t *p = buf;
    uint32_t reg = stripes(~0u, &p, &len);
    return log_crc32c(~reg, p, len);     /* the tail, continuing the register */
}

#else

uint32_t logdec_crc32c(const void *buf, size_t len)
{
    return log_crc32c(0, buf, len);
}

#endif
