/* The tables of RIP-only samples (host-tools/logdec_fast.h): the masks
 * PEXT takes for zigzag varints, and the shapes: for
 * each TSC delta of dn bytes and RIP of rn bytes (1..8 each) whose body
 * of len = dn + 4 + rn bytes is at most LOGDEC_FAST_RIP_BODY_MAX, the
 * pattern of its continuation bits -- dn - 1 set and one clear for the
 * delta, four clear for the flags, domain, VCPU and event, rn - 1 set and
 * one clear for the RIP -- names that record's frame (a sample's type and
 * len), dn and len - dn. The pattern tells dn (its first clear bit) and,
 * but for a one-byte RIP, rn; the length in the frame settles the rest,
 * so each pattern has one entry. Every other pattern keeps a frame of 0,
 * which no record's matches (a length of 0 cuts the pattern to 0, the
 * shape of a 6-byte body). */
#include "host-tools/logdec_fast.h"

struct logdec_fast_tables logdec_fast_tables = {
    .groups_high = LOGDEC_FAST_GROUP_MASKS(~1ull),
};

/* A pattern of n set bits. */
static uint32_t ones(unsigned int n)
{
    return (1u << n) - 1u;
}

void logdec_fast_shapes_build(void)
{
    static bool built;
    if (built)
        return;
    for (unsigned int dn = 1; dn <= LOGDEC_FAST_VARINT_MAX; dn++)
        for (unsigned int rn = 1; rn <= LOGDEC_FAST_VARINT_MAX; rn++) {
            unsigned int len = dn + LOGDEC_FAST_RIP_HEAD + rn;
            if (len > LOGDEC_FAST_RIP_BODY_MAX)
                continue;
            uint32_t key = ones(dn - 1u) | ones(rn - 1u) << (dn + LOGDEC_FAST_RIP_HEAD);
            logdec_fast_tables.shapes[key] = (struct logdec_fast_shape){
                .frame = (uint16_t)(LOG_REC_SAMPLE | len << 8),
                .delta_len = (uint8_t)dn,
                .raw_len = (uint8_t)(len - dn),
            };
        }
    built = true;
}
