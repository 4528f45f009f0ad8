/* New programmings of a virtual PMU's counters (see pmu/vpmu/vpmu_prog.h). */
#include "pmu/vpmu/vpmu_prog.h"

#include <stdbool.h>

#define FIXED_MODES (VPMU_FIXED_OS | VPMU_FIXED_USR)

static bool seen_before(const struct vpmu_prog_seen *seen, const struct vpmu_prog *prog)
{
    for (unsigned int i = 0; i < seen->count; i++)
        if (seen->seen[i].counter == prog->counter && seen->seen[i].control == prog->control)
            return true;
    return false;
}

/* Takes prog into out[n] if it is new; returns the new n. */
static unsigned int note(struct vpmu_prog_seen *seen, struct vpmu_prog prog, struct vpmu_prog *out,
                         unsigned int n)
{
    if (seen_before(seen, &prog))
        return n;
    if (seen->count == VPMU_PROG_SEEN_MAX) {
        seen->not_logged++;
        return n;
    }
    seen->seen[seen->count++] = prog;
    out[n] = prog;
    return n + 1;
}

unsigned int vpmu_prog_new(const struct vpmu *p, struct vpmu_prog_seen *seen,
                           struct vpmu_prog out[VPMU_PROG_NEW_MAX])
{
    unsigned int n = 0;
    for (unsigned int k = 0; k < p->config.gp_counters; k++)
        if (p->evtsel[k] & VPMU_EVTSEL_EN)
            n = note(seen, (struct vpmu_prog){ (uint8_t)k, p->evtsel[k] }, out, n);
    for (unsigned int j = 0; j < p->config.fixed_counters; j++) {
        uint64_t field = (p->fixed_ctrl >> (4 * j)) & 0xfu;
        if (field & FIXED_MODES)
            n = note(seen, (struct vpmu_prog){ (uint8_t)(LOG_GUEST_COUNTER_FIXED + j), field }, out, n);
    }
    return n;
}
