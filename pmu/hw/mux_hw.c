/* Interval multiplexing on the hardware PMU (see pmu/hw/mux_hw.h). */
#include "pmu/hw/mux_hw.h"

#include "lib/mem.h"

#define CLOCK_NAME "mux-clock"

static struct pmu_event clock_event(enum pmu_slot_kind slot, unsigned int index)
{
    struct pmu_event ev = {
        .source = PMU_EVENT_HW, .arch = PMU_ARCH_INSTRUCTIONS, .event_select = 0xc0,
        .umask = 0, .user = true, .kernel = true, .hypervisor = false, .fixed_index = 0,
        .gp_ok = true, .slot = slot, .slot_index = (uint8_t)index,
    };
    memcpy(ev.name, CLOCK_NAME, sizeof(CLOCK_NAME));
    return ev;
}

/* The highest-numbered GP counter nobody holds, or -1. */
static int free_gp_top(unsigned int gp, uint32_t held)
{
    for (int i = (int)gp - 1; i >= 0; i--)
        if (!(held & (1u << i)))
            return i;
    return -1;
}

enum mux_hw_err mux_hw_layout(const struct pmu_desc *d, const struct mux_hw_held *held,
                              struct mux_hw_layout *out)
{
    unsigned int gp = d->gp_counters < PMU_MAX_GP ? d->gp_counters : PMU_MAX_GP;
    uint32_t fixed = d->fixed_mask & ((1u << PMU_MAX_FIXED) - 1) & ~held->fixed_mask;
    uint32_t gp_held = held->gp_mask;
    *out = (struct mux_hw_layout){ 0 };
    if (fixed & 1u) {
        out->clock = clock_event(PMU_SLOT_FIXED, 0);
        fixed &= ~1u;
    } else {
        int top = free_gp_top(gp, gp_held);
        if (top < 0 || !(d->events_available & (1u << PMU_ARCH_INSTRUCTIONS)))
            return MUX_HW_NO_CLOCK;
        out->clock = clock_event(PMU_SLOT_GP, (unsigned int)top);
        gp_held |= 1u << top;
    }
    for (unsigned int i = 0; i < gp; i++)
        if (!(gp_held & (1u << i)))
            out->gp_map[out->for_sets.gp++] = (uint8_t)i;
    out->for_sets.fixed_mask = fixed;
    return MUX_HW_OK;
}

enum mux_hw_err mux_hw_check_turns(const struct pmu_hw *hw, const struct mux_hw_layout *l,
                                   const struct mux_row_config *cfg)
{
    uint64_t longest = cfg->interval - (cfg->subs - 1) * cfg->sub;
    bool fixed = l->clock.slot == PMU_SLOT_FIXED;
    uint64_t limit = fixed ? hw->fixed_width_mask : hw->gp_width_mask;
    if (!fixed && !hw->full_width && limit > PMU_LEGACY_MAX_PERIOD)
        limit = PMU_LEGACY_MAX_PERIOD;     /* a legacy write preloads at most -2^31 */
    return longest <= limit ? MUX_HW_OK : MUX_HW_TURN_TOO_LONG;
}

const char *mux_hw_err_text(enum mux_hw_err err)
{
    switch (err) {
    case MUX_HW_OK: return "ok";
    case MUX_HW_NO_CLOCK:
        return "no counter is free to count the turns' instructions (fixed counter 0 "
               "held or absent, and no free general-purpose counter)";
    case MUX_HW_TURN_TOO_LONG:
        return "a turn is longer than the clock counter can count to its PMI";
    }
    return "unknown error";
}

/* Every counter event of list on the physical counter the plan gave it. */
static void place_events(struct mux_hw *m, const struct mux_row_config *cfg,
                         const struct pmu_event_list *list, const struct mux_hw_layout *l)
{
    unsigned int k = 0;         /* index among the counter events: the plan's */
    for (unsigned int e = 0; e < cfg->count; e++) {
        if (cfg->set_of[e] == MUX_ROW_ALWAYS)
            continue;
        struct pmu_event ev = list->events[e];
        bool fixed = cfg->plan.on_fixed[k];
        ev.slot = fixed ? PMU_SLOT_FIXED : PMU_SLOT_GP;
        ev.slot_index = fixed ? (uint8_t)ev.fixed_index : l->gp_map[cfg->plan.gp_index[k]];
        m->placed[e] = ev;
        k++;
    }
}

/* The count of ctx counter i (the backend's read: live MSRs). */
static uint64_t live_count(struct mux_hw *m, const struct pmu_backend *be, unsigned int i)
{
    return be->ops->read(be->self, &m->ctx, i);
}

/* Builds the context of set s, its events in member order, then the
 * clock with a period of `left` instructions, without touching an MSR.
 * The period makes the backend treat the clock as it treats a sampling
 * counter: preloaded with -left, an instruction Vertigo emulates moves it
 * one closer to its wrap (so the PMI still comes at the turn's end), the
 * wrap is re-armed with -left, which the next turn's preload then usually
 * finds in place (no second write). */
static void build_ctx(struct mux_hw *m, unsigned int s, uint64_t left)
{
    const struct mux_row_config *cfg = m->row.cfg;
    struct pmu_event_list list = { 0 };
    uint64_t periods[MUX_ROW_EVENTS_MAX + 1] = { 0 };
    for (unsigned int i = cfg->first[s]; i < cfg->first[s + 1]; i++)
        list.events[list.count++] = m->placed[cfg->members[i]];
    periods[list.count] = left;
    list.events[list.count++] = m->clock;
    pmu_ctx_init(&m->ctx, &list, periods);
    m->live = s;
    m->clock_seen = 0;
}

/* Loads set s with the clock due after `left` instructions; the counting
 * counters keep the values they hold (pmu_hw_count_from_held), so the
 * clock is the only counter value written. */
static enum pmu_status load_set(struct mux_hw *m, const struct pmu_backend *be, unsigned int s,
                                uint64_t left)
{
    build_ctx(m, s, left);
    enum pmu_status st = be->ops->program(be->self, &m->ctx);
    if (st != PMU_OK)
        return st;
    pmu_hw_count_from_held(be->self, &m->ctx);
    return be->ops->load(be->self, &m->ctx);
}

enum pmu_status mux_hw_begin(struct mux_hw *m, const struct mux_row_config *cfg,
                             const struct pmu_event_list *list, const struct mux_hw_layout *l,
                             const struct pmu_backend *be, const uint64_t *counts, uint64_t tsc)
{
    uint64_t start[MUX_ROW_EVENTS_MAX];
    memset(m, 0, sizeof(*m));
    m->clock = l->clock;
    place_events(m, cfg, list, l);
    for (unsigned int e = 0; e < cfg->count; e++)
        start[e] = cfg->set_of[e] == MUX_ROW_ALWAYS ? counts[e] : 0;
    mux_row_begin(&m->row, cfg, start, tsc);
    return load_set(m, be, m->row.active, mux_row_left(&m->row));
}

bool mux_hw_due(struct mux_hw *m, const struct pmu_backend *be)
{
    be->ops->overflow(be->self, &m->ctx);   /* GLOBAL_STATUS: wraps accounted, bits cleared */
    uint64_t clock = live_count(m, be, mux_hw_clock_index(m));
    mux_row_retire(&m->row, clock - m->clock_seen);
    m->clock_seen = clock;
    return mux_row_due(&m->row);
}

/* counts[e] of every counter event: the turns before, plus the live
 * set's count now. */
static void fill_counts(struct mux_hw *m, const struct pmu_backend *be, uint64_t *counts)
{
    const struct mux_row_config *cfg = m->row.cfg;
    for (unsigned int e = 0; e < cfg->count; e++)
        if (cfg->set_of[e] != MUX_ROW_ALWAYS)
            counts[e] = m->acc[e];
    for (unsigned int i = cfg->first[m->live], n = 0; i < cfg->first[m->live + 1]; i++, n++)
        counts[cfg->members[i]] += live_count(m, be, n);
}

/* The live set leaves the counters: its counts so far become its base. */
static void fold_live(struct mux_hw *m, const uint64_t *counts)
{
    const struct mux_row_config *cfg = m->row.cfg;
    for (unsigned int i = cfg->first[m->live]; i < cfg->first[m->live + 1]; i++)
        m->acc[cfg->members[i]] = counts[cfg->members[i]];
}

bool mux_hw_turn(struct mux_hw *m, const struct pmu_backend *be, uint64_t *counts,
                 uint64_t tsc, struct log_interval *row)
{
    fill_counts(m, be, counts);
    bool ended = mux_row_turn(&m->row, counts, tsc, row);
    if (mux_row_due(&m->row))
        return ended;           /* the run passed another boundary: the caller goes on */
    fold_live(m, counts);
    be->ops->save(be->self, &m->ctx);
    if (m->row.active != m->live)
        m->rotations++;
    if (load_set(m, be, m->row.active, mux_row_left(&m->row)) != PMU_OK)
        m->load_failures++;     /* an MSR faulted: the next set may not count */
    return ended;
}

bool mux_hw_finish(struct mux_hw *m, const struct pmu_backend *be, uint64_t *counts,
                   uint64_t tsc, struct log_interval *row)
{
    mux_hw_due(m, be);
    fill_counts(m, be, counts);
    return mux_row_finish(&m->row, counts, tsc, row);
}
