/* The PDEP probe for log_varint_put_wide (see vmm/log_varint.h). */
#include "vmm/log_varint.h"

#define CPUID_LEAF_MAX          0u
#define CPUID_LEAF_EXTENDED     7u
#define CPUID_7_EBX_BMI2        (1u << 8)

bool log_varint_pdep;

#if defined(__x86_64__)
static void cpuid(uint32_t leaf, uint32_t *eax, uint32_t *ebx)
{
    uint32_t ecx = 0, edx;
    *eax = leaf;
    __asm__ volatile("cpuid" : "+a"(*eax), "=b"(*ebx), "+c"(ecx), "=d"(edx));
}

void log_varint_probe(void)
{
    uint32_t max, ebx, eax;
    cpuid(CPUID_LEAF_MAX, &max, &ebx);
    if (max < CPUID_LEAF_EXTENDED)
        return;
    cpuid(CPUID_LEAF_EXTENDED, &eax, &ebx);
    log_varint_pdep = (ebx & CPUID_7_EBX_BMI2) != 0;
}
#else
void log_varint_probe(void)
{
}
#endif
