/* The decoder's payload CRC32C in three lanes (see logdec_crc.h).
 *
 * In the register (the CRC before its final inversion), bytes B after
 * bytes A give reg(A B) = reg_from(reg(A), B) = reg_from(0, B) ^
 * shift_|B|(reg(A)), where shift_n moves a register past n zero bytes:
 * a linear map over GF(2), so it is the XOR of four table entries, one
 * per byte of the register. A stripe of three lanes is three
 * independent chains (the first from the running register, the others
 * from 0), joined as shift(shift(a) ^ b) ^ c. Two stripe sizes: a long
 * one that covers nearly all of a full block's payload (the hypervisor
 * stages blocks of 4,096 bytes, header included) in one stripe, so one
 * join; then short ones; then one chain for the last bytes. */
#include "host-tools/logdec_crc.h"

#include <stdbool.h>
#include <string.h>

#include "lib/log_crc.h"

#define LONG_LANE    1312u               /* a stripe: 3,936 bytes */
#define SHORT_LANE   256u                /* a stripe: 768 bytes */
#define STEP_BYTES   8u                  /* one CRC32 instruction */
#define UNROLL       4u                  /* steps per lane in one pass of the loop */
#define REG_BITS     32u
#define BYTE_VALUES  256u
_Static_assert(LONG_LANE % (UNROLL * STEP_BYTES) == 0 && SHORT_LANE % (UNROLL * STEP_BYTES) == 0,
               "whole passes per lane");

#if defined(__x86_64__)

/* A lane length's shift: table[k][v], the register whose byte k is v
 * (others 0) moved past `lane` zero bytes. Built on first use from the
 * byte-table CRC. */
struct lane_shift {
    uint32_t table[4][BYTE_VALUES];
};
static struct lane_shift long_shift, short_shift;
static bool shifts_ready;

static void build_shift(struct lane_shift *s, size_t lane)
{
    static const uint8_t zeros[LONG_LANE];
    uint32_t bit[REG_BITS];
    for (unsigned int i = 0; i < REG_BITS; i++)      /* log_crc32c_bytewise inverts in and out */
        bit[i] = ~log_crc32c_bytewise(~(1u << i), zeros, lane);
    for (unsigned int k = 0; k < 4; k++)
        for (unsigned int v = 0; v < BYTE_VALUES; v++) {
            uint32_t r = 0;
            for (unsigned int j = 0; j < 8; j++)
                r ^= (v >> j & 1u) ? bit[8 * k + j] : 0;
            s->table[k][v] = r;
        }
}

static inline uint32_t shift(const struct lane_shift *s, uint32_t r)
{
    return s->table[0][r & 0xffu] ^ s->table[1][(r >> 8) & 0xffu] ^
           s->table[2][(r >> 16) & 0xffu] ^ s->table[3][r >> 24];
}

/* A payload's 8 bytes at any alignment, read by the CRC32 instruction
 * itself (its memory operand): no separate load. */
typedef uint64_t __attribute__((may_alias, aligned(1))) unaligned_u64;
#define CRC_STEP(reg, at) __asm__("crc32q %1, %0" : "+r"(reg) : "m"(*(const unaligned_u64 *)(at)))

/* The register after the whole stripes of lanes of `lane` bytes in
 * [*p, *p + *len), from reg; *p and *len move past them. */
static inline __attribute__((always_inline)) uint32_t
stripes(uint32_t reg, const uint8_t **p, size_t *len, size_t lane, const struct lane_shift *s)
{
    const uint8_t *q = *p;
    for (; *len >= 3 * lane; *len -= 3 * lane, q += 3 * lane) {
        uint64_t a = reg, b = 0, c = 0;
        for (const uint8_t *at = q, *lane_end = q + lane; at != lane_end; at += UNROLL * STEP_BYTES) {
#pragma GCC unroll 4
            for (unsigned int i = 0; i < UNROLL * STEP_BYTES; i += STEP_BYTES) {
                CRC_STEP(a, at + i);
                CRC_STEP(b, at + lane + i);
                CRC_STEP(c, at + 2 * lane + i);
            }
        }
        reg = shift(s, shift(s, (uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
    }
    *p = q;
    return reg;
}

/* The register after [p, p + len) from reg, one chain. */
static uint32_t chain(uint32_t reg, const uint8_t *p, size_t len)
{
    uint64_t c = reg;
    for (const uint8_t *end = p + (len & ~(size_t)(STEP_BYTES - 1)); p != end; p += STEP_BYTES)
        CRC_STEP(c, p);
    return ~log_crc32c(~(uint32_t)c, p, len % STEP_BYTES);
}

uint32_t logdec_crc32c(const void *buf, size_t len)
{
    if (len < 3 * SHORT_LANE || !log_crc32c_hw_available())
        return log_crc32c(0, buf, len);
    if (!shifts_ready) {
        build_shift(&long_shift, LONG_LANE);
        build_shift(&short_shift, SHORT_LANE);
        shifts_ready = true;
    }
    const uint8_t *p = buf;
    uint32_t reg = stripes(~0u, &p, &len, LONG_LANE, &long_shift);
    reg = stripes(reg, &p, &len, SHORT_LANE, &short_shift);
    return ~chain(reg, p, len);
}

#else

uint32_t logdec_crc32c(const void *buf, size_t len)
{
    return log_crc32c(0, buf, len);
}

#endif
