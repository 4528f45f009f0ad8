/* CRC32C (Castagnoli): the SSE4.2 CRC32 instruction where the CPU has it
 * (it computes exactly this polynomial, reflected, without the initial
 * and final inversion, SDM Vol. 2A "CRC32"), else byte-at-a-time with a
 * table built by the compiler: each entry is eight reflected shift/XOR
 * steps of its index. The instruction works on general registers, so it
 * is allowed in the hypervisor (-mgeneral-regs-only) and needs no FPU or
 * SSE state. */
#include "lib/log_crc.h"

#define CRC_STEP(c)  (((c) >> 1) ^ (LOG_CRC32C_POLY & (0u - ((c) & 1u))))
#define CRC_ENTRY(n) CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP( \
                     CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP((uint32_t)(n)))))))))
#define CRC_ROW4(n)  CRC_ENTRY(n), CRC_ENTRY((n) + 1), CRC_ENTRY((n) + 2), CRC_ENTRY((n) + 3)
#define CRC_ROW16(n) CRC_ROW4(n), CRC_ROW4((n) + 4), CRC_ROW4((n) + 8), CRC_ROW4((n) + 12)
#define CRC_ROW64(n) CRC_ROW16(n), CRC_ROW16((n) + 16), CRC_ROW16((n) + 32), CRC_ROW16((n) + 48)

static const uint32_t log_crc32c_table[256] = {
    CRC_ROW64(0), CRC_ROW64(64), CRC_ROW64(128), CRC_ROW64(192),
};

uint32_t log_crc32c_bytewise(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    crc = ~crc;
    while (len--)
        crc = log_crc32c_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)

#define CPUID_LEAF_FEATURES   1u
#define CPUID_1_ECX_SSE4_2    (1u << 20)

enum crc_hw_state { CRC_HW_UNKNOWN, CRC_HW_ABSENT, CRC_HW_PRESENT };

/* Learnt on the first call. Racing first calls (an NMI producer, another
 * CPU) all store the same answer, so no lock is needed. */
static volatile uint8_t hw_state = CRC_HW_UNKNOWN;

static bool probe_sse42(void)
{
    uint32_t eax = CPUID_LEAF_FEATURES, ebx, ecx = 0, edx;
    __asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
    return (ecx & CPUID_1_ECX_SSE4_2) != 0;
}

bool log_crc32c_hw_available(void)
{
    uint8_t s = hw_state;
    if (s == CRC_HW_UNKNOWN) {
        s = probe_sse42() ? CRC_HW_PRESENT : CRC_HW_ABSENT;
        hw_state = s;
    }
    return s == CRC_HW_PRESENT;
}

/* Eight bytes per instruction, then a 4-, 2- and 1-byte tail (at most
 * one of each). */
static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = (uint32_t)~crc;
    for (; len >= sizeof(uint64_t); len -= sizeof(uint64_t), p += sizeof(uint64_t)) {
        uint64_t w;
        __builtin_memcpy(&w, p, sizeof(w));
        __asm__("crc32q %1, %0" : "+r"(c) : "rm"(w));
    }
    uint32_t c32 = (uint32_t)c;
    if (len & sizeof(uint32_t)) {
        uint32_t w;
        __builtin_memcpy(&w, p, sizeof(w));
        __asm__("crc32l %1, %0" : "+r"(c32) : "rm"(w));
        p += sizeof(uint32_t);
    }
    if (len & sizeof(uint16_t)) {
        uint16_t w;
        __builtin_memcpy(&w, p, sizeof(w));
        __asm__("crc32w %1, %0" : "+r"(c32) : "rm"(w));
        p += sizeof(uint16_t);
    }
    if (len & 1u)
        __asm__("crc32b %1, %0" : "+r"(c32) : "rm"(*p));
    return ~c32;
}

uint32_t log_crc32c(uint32_t crc, const void *buf, size_t len)
{
    if (log_crc32c_hw_available())
        return crc_hw(crc, buf, len);
    return log_crc32c_bytewise(crc, buf, len);
}

#else

bool log_crc32c_hw_available(void)
{
    return false;
}

uint32_t log_crc32c(uint32_t crc, const void *buf, size_t len)
{
    return log_crc32c_bytewise(crc, buf, len);
}

#endif
