/* Names for the guest's virtual PMU records (see guest_pmu_text.h). The
 * bits are the architectural PMU's (SDM Vol. 3B 20.2.1.1 event selects,
 * 20.2.2 fixed-counter control; events of table 20-1). */
#include "host-tools/guest_pmu_text.h"

#include <stdbool.h>
#include <stdio.h>

#include "vertigo/log_format.h"

#define EVTSEL_USR      (1u << 16)
#define EVTSEL_OS       (1u << 17)
#define EVTSEL_INT      (1u << 20)
/* Bits that change what is counted beyond event and unit mask: edge,
 * pin control, AnyThread, invert, counter mask. */
#define EVTSEL_QUALIFIERS ((1u << 18) | (1u << 19) | (1u << 21) | (1u << 23) | 0xff000000u)
#define FIXED_OS        0x1u
#define FIXED_USR       0x2u
#define FIXED_PMI       0x8u

static const struct {
    uint16_t code;              /* (umask << 8) | event select */
    const char *name;
} arch_events[] = {
    { 0x003c, "cycles" }, { 0x00c0, "instructions" }, { 0x013c, "ref-cycles" },
    { 0x4f2e, "cache-references" }, { 0x412e, "cache-misses" }, { 0x00c4, "branches" },
    { 0x00c5, "branch-misses" },
};

static const char *const fixed_events[] = { "instructions", "cycles", "ref-cycles" };

void guest_pmu_counter_text(uint8_t counter, char out[GUEST_PMU_TEXT_MAX])
{
    if (counter < LOG_GUEST_COUNTER_FIXED)
        snprintf(out, GUEST_PMU_TEXT_MAX, "gp%u", counter);
    else
        snprintf(out, GUEST_PMU_TEXT_MAX, "fixed%u", counter - LOG_GUEST_COUNTER_FIXED);
}

static const char *arch_name(uint32_t evtsel)
{
    if (evtsel & EVTSEL_QUALIFIERS)
        return NULL;
    for (size_t i = 0; i < sizeof(arch_events) / sizeof(arch_events[0]); i++)
        if (arch_events[i].code == (evtsel & 0xffffu))
            return arch_events[i].name;
    return NULL;
}

/* ":u", ":k", ":uk", or ":none" when neither mode counts. */
static const char *modes(bool user, bool kernel)
{
    return user ? (kernel ? ":uk" : ":u") : (kernel ? ":k" : ":none");
}

static void gp_event(uint32_t evtsel, char out[GUEST_PMU_TEXT_MAX])
{
    const char *name = arch_name(evtsel);
    const char *m = modes(evtsel & EVTSEL_USR, evtsel & EVTSEL_OS);
    const char *pmi = (evtsel & EVTSEL_INT) ? "+pmi" : "";
    if (name) {
        snprintf(out, GUEST_PMU_TEXT_MAX, "%s%s%s", name, m, pmi);
        return;
    }
    uint32_t raw = evtsel & (0xffffu | EVTSEL_QUALIFIERS);
    snprintf(out, GUEST_PMU_TEXT_MAX, raw > 0xffffu ? "raw 0x%08x%s%s" : "raw 0x%04x%s%s", raw, m,
             pmi);
}

void guest_pmu_event_text(uint8_t counter, uint64_t control, char out[GUEST_PMU_TEXT_MAX])
{
    if (counter < LOG_GUEST_COUNTER_FIXED) {
        gp_event((uint32_t)control, out);
        return;
    }
    unsigned int j = counter - LOG_GUEST_COUNTER_FIXED;
    const char *name = j < sizeof(fixed_events) / sizeof(fixed_events[0]) ? fixed_events[j] : NULL;
    const char *m = modes(control & FIXED_USR, control & FIXED_OS);
    const char *pmi = (control & FIXED_PMI) ? "+pmi" : "";
    if (name)
        snprintf(out, GUEST_PMU_TEXT_MAX, "%s%s%s", name, m, pmi);
    else
        snprintf(out, GUEST_PMU_TEXT_MAX, "fixed-event-%u%s%s", j, m, pmi);
}

const char *guest_pmu_delivery_name(uint8_t delivery)
{
    static const char *const names[] = { "nmi", "vector", "masked" };
    return delivery < sizeof(names) / sizeof(names[0]) ? names[delivery] : NULL;
}
