/* The "cpu:" line of the platform report: vendor, family/model/stepping
 * (SDM Vol. 2A, CPUID leaf 1 "Version Information") and brand string. */
#include "lib/cpu.h"
#include "boot/platform.h"
#include "lib/console.h"
#include "lib/mem.h"

static void cpu_vendor(char vendor[13])
{
    struct cpuid_regs r = cpuid(0, 0);
    memcpy(vendor + 0, &r.ebx, 4);
    memcpy(vendor + 4, &r.edx, 4);
    memcpy(vendor + 8, &r.ecx, 4);
    vendor[12] = '\0';
}

static void cpu_brand(char brand[49])
{
    brand[0] = '\0';
    if (cpuid(0x80000000, 0).eax < 0x80000004)
        return;
    for (uint32_t i = 0; i < 3; i++) {
        struct cpuid_regs r = cpuid(0x80000002 + i, 0);
        memcpy(brand + i * 16 + 0, &r.eax, 4);
        memcpy(brand + i * 16 + 4, &r.ebx, 4);
        memcpy(brand + i * 16 + 8, &r.ecx, 4);
        memcpy(brand + i * 16 + 12, &r.edx, 4);
    }
    brand[48] = '\0';
}

bool cpu_report(void)
{
    char vendor[13], brand[49];
    cpu_vendor(vendor);
    cpu_brand(brand);

    uint32_t sig = cpuid(1, 0).eax;
    uint32_t family = (sig >> 8) & 0xf, model = (sig >> 4) & 0xf;
    if (family == 0xf)
        family += (sig >> 20) & 0xff;
    if (family == 0x6 || family >= 0xf)
        model |= ((sig >> 16) & 0xf) << 4;

    const char *b = brand;
    while (*b == ' ')
        b++;
    printk("cpu: %s family %#x model %#x stepping %u \"%s\"\n",
           vendor, family, model, sig & 0xf, b);
    return memcmp(vendor, "GenuineIntel", 12) == 0;
}
