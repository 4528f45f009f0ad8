/* Decoding CPUID leaf 0AH (SDM Vol. 2A, CPUID "Architectural Performance
 * Monitoring Leaf"; Vol. 3B, 20.2.1-20.2.5 for versions 1-5). */
#include "pmu/backend/pmu_desc.h"

#include "lib/format.h"
#include "lib/mem.h"

static const char *const arch_event_names[PMU_ARCH_EVENT_COUNT] = {
    "cycles", "instructions", "ref-cycles", "cache-references",
    "cache-misses", "branches", "branch-misses", "topdown-slots",
};

const char *pmu_arch_event_name(enum pmu_arch_event ev)
{
    return (unsigned int)ev < PMU_ARCH_EVENT_COUNT ? arch_event_names[ev] : "?";
}

void pmu_cpuid_decode(uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx,
                      struct pmu_desc *out)
{
    memset(out, 0, sizeof(*out));
    out->version = (uint8_t)eax;
    if (!out->version)
        return;
    out->gp_counters = (uint8_t)(eax >> 8);
    out->gp_width = (uint8_t)(eax >> 16);

    /* EBX bit i set means architectural event i is not available; only
     * the first EAX[31:24] bits are meaningful. */
    uint32_t vector_len = eax >> 24;
    if (vector_len > PMU_ARCH_EVENT_COUNT)
        vector_len = PMU_ARCH_EVENT_COUNT;
    uint32_t valid = vector_len >= 32 ? 0xffffffffu : (1u << vector_len) - 1;
    out->events_available = ~ebx & valid;

    if (out->version < 2)
        return;     /* fixed counters are described from version 2 on */
    uint32_t fixed_count = edx & 0x1f;
    out->fixed_width = (uint8_t)(edx >> 5);
    /* Version 5: fixed counter i exists if ECX bit i is set or i < EDX[4:0]. */
    uint32_t mask = fixed_count >= 32 ? 0xffffffffu : (1u << fixed_count) - 1;
    if (out->version >= 5)
        mask |= ecx;
    out->fixed_mask = mask;
    out->fixed_counters = 0;
    for (uint32_t i = 0; i < 32; i++)
        if (mask & (1u << i))
            out->fixed_counters = (uint8_t)(i + 1);
}

int pmu_desc_format(const struct pmu_desc *d, char *buf, unsigned int size)
{
    if (!d->version)
        return fmt_snprintf(buf, size, "cpuid 0xa: no architectural PMU");
    int n = fmt_snprintf(buf, size,
                         "cpuid 0xa: version %u, %u GP counters x %u bits, "
                         "%u fixed counters x %u bits (mask %#x), events:",
                         d->version, d->gp_counters, d->gp_width,
                         d->fixed_counters, d->fixed_width, d->fixed_mask);
    for (int ev = 0; ev < PMU_ARCH_EVENT_COUNT; ev++) {
        if (!(d->events_available & (1u << ev)))
            continue;
        unsigned int used = n < 0 ? 0 : (unsigned int)n;
        n += fmt_snprintf(buf + (used < size ? used : size),
                          used < size ? size - used : 0, " %s", arch_event_names[ev]);
    }
    return n;
}
