/* Interval multiplexing on the hardware backend in the VM-exit loop (see
 * pmu/hw/pmu_mux_hw.h). */
#include "pmu/hw/pmu_mux_hw.h"
#include "pmu/hw/hw_vcpu.h"

#include "pmu/pmu_arch.h"
#include "pmu/mux/pmu_mux.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/mem.h"

/* ---- Configuration ------------------------------------------------------- */

/* The run's layout (pmu_mux_hw_layout): the counters sample.events= of
 * the command line takes (left to sampling), the clock and the counters
 * left for the sets. */
static struct mux_hw_held reserved;
static struct mux_hw_layout layout;

/* The counters events takes, placed as a sampling session's would be. */
static struct mux_hw_held held_by(const struct pmu_event_list *events)
{
    struct mux_hw_held held = { 0, 0 };
    for (unsigned int i = 0; i < events->count; i++) {
        const struct pmu_event *ev = &events->events[i];
        if (ev->source != PMU_EVENT_HW)
            continue;
        if (ev->slot == PMU_SLOT_GP)
            held.gp_mask |= 1u << ev->slot_index;
        else if (ev->slot == PMU_SLOT_FIXED)
            held.fixed_mask |= 1u << ev->slot_index;
    }
    return held;
}

/* sample.events= of the command line, placed on the whole PMU: the
 * counters reserved for sampling (none if absent or bad; the sampling
 * session says why when it starts). */
static struct mux_hw_held reserve_sampling(const struct pmu_config *c, const char *cmdline)
{
    static char text[PMU_SESSION_EVENTS_MAX];
    static struct pmu_event_list list;
    struct pmu_event_caps caps;
    struct mux_hw_held none = { 0, 0 };
    pmu_event_caps_hw(&caps, &c->desc);
    if (!cmdline_get(cmdline, "sample.events", text, sizeof(text)) ||
        pmu_event_list_parse(text, &caps, &list, NULL) != PMU_EVERR_NONE)
        return none;
    return held_by(&list);
}

bool pmu_mux_hw_layout(struct pmu_config *c, const char *cmdline, const char *refusal)
{
    reserved = reserve_sampling(c, cmdline);
    enum mux_hw_err err = mux_hw_layout(&c->desc, &reserved, &layout);
    if (err == MUX_HW_OK)
        return true;
    printk("%s%s\n", refusal, mux_hw_err_text(err));
    return false;
}

bool pmu_mux_hw_check_turns(const struct pmu_config *c, const struct mux_row_config *cfg,
                            const char *refusal)
{
    static struct pmu_hw described;     /* widths and write mode only */
    pmu_hw_describe(&described, &c->desc, pmu_arch_perf_capabilities());
    enum mux_hw_err err = mux_hw_check_turns(&described, &layout, cfg);
    if (err == MUX_HW_OK)
        return true;
    printk("%s%s (%s, %lu instructions)\n", refusal, mux_hw_err_text(err),
           layout.clock.slot == PMU_SLOT_FIXED ? "fixed counter 0"
                                                      : "a general-purpose counter",
           cfg->interval - (cfg->subs - 1) * cfg->sub);
    return false;
}

/* ---- The session --------------------------------------------------------- */

static struct pmu_hw *hw_of(struct vcpu *v)
{
    return v->pmu.be.self;
}

/* v runs an interval session on the hardware backend. */
static bool runs_on_hw(const struct vcpu *v)
{
    return v->pmu.mux.on && v->pmu.be.ops == &pmu_hw_ops;
}

/* Both contexts' fixed counters keep their fields and, while Vertigo
 * runs, both one's :h counters count (each context's load writes only
 * its own). */
static void share_controls(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (pmu_hw_share(hw_of(v), &p->ctx, &hw_vcpu_of(p)->mux.ctx))
        hw_vcpu_of(p)->mux.load_failures++;
}

/* The software events' counts now (the session's always-counted events). */
static void read_always(const struct vcpu *v, uint64_t *counts)
{
    const struct vcpu_pmu *p = &v->pmu;
    const struct mux_row_config *cfg = p->mux.rows.cfg;
    for (unsigned int i = 0; i < cfg->always_count; i++) {
        unsigned int e = cfg->always[i];
        counts[e] = pmu_read_event(&p->be, &p->ctx, &p->sw, e);
    }
}

/* The session's counter events in v's context count what they counted on
 * the counters so far (VERTIGO_HC_PMU_READ, the end-of-run totals). */
static void keep_counts(struct vcpu *v, const uint64_t *counts)
{
    struct vcpu_pmu *p = &v->pmu;
    const struct mux_row_config *cfg = p->mux.rows.cfg;
    for (unsigned int e = 0; e < cfg->count && e < p->ctx.count; e++)
        if (cfg->set_of[e] != MUX_ROW_ALWAYS)
            p->ctx.counters[e].accum = counts[e];
}

void pmu_mux_hw_begin(struct vcpu *v, const struct pmu_event_list *list,
                      const struct mux_row_config *cfg)
{
    struct vcpu_pmu *p = &v->pmu;
    uint64_t counts[MUX_ROW_EVENTS_MAX] = { 0 };
    p->mux.rows.cfg = cfg;           /* the schedule, for the calls that read it */
    read_always(v, counts);
    /* list: the session's events, the command line's or the guest's */
    if (mux_hw_begin(&hw_vcpu_of(p)->mux, cfg, list, &layout, &p->be, counts,
                     pmu_arch_tsc()) != PMU_OK)
        hw_vcpu_of(p)->mux.load_failures++;
    share_controls(v);
}

void pmu_mux_hw_enter(struct vcpu *v, struct pmu_entry_plan *plan)
{
    const struct pmu_ctx *m = &hw_vcpu_of(&v->pmu)->mux.ctx;
    if (!runs_on_hw(v))
        return;
    plan->guest_global_ctrl |= pmu_hw_guest_enable_mask(m);
    plan->host_global_ctrl |= pmu_hw_host_enable_mask(m);
}

/* The turns that ended: each interval's row to the log. */
static void end_turns(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    uint64_t counts[MUX_ROW_EVENTS_MAX];
    if (!mux_hw_due(&hw_vcpu_of(p)->mux, &p->be))
        return;
    uint64_t tsc = pmu_arch_exit_tsc(v);
    do {
        read_always(v, counts);
        if (mux_hw_turn(&hw_vcpu_of(p)->mux, &p->be, counts, tsc, &p->mux.row))
            pmu_mux_write_row(v, &p->mux.row);
    } while (mux_row_due(&hw_vcpu_of(p)->mux.row));
    keep_counts(v, counts);
    share_controls(v);
}

void pmu_mux_hw_exit(struct vcpu *v)
{
    if (runs_on_hw(v))
        end_turns(v);
}

void pmu_mux_hw_emulated(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!runs_on_hw(v))
        return;
    p->be.ops->emulated_instruction(p->be.self, &hw_vcpu_of(p)->mux.ctx, p->exit_cpl);
    end_turns(v);
}

void pmu_mux_hw_save_session(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!runs_on_hw(v) || !hw_vcpu_of(p)->mux.ctx.loaded)
        return;
    if (p->be.ops->save(p->be.self, &hw_vcpu_of(p)->mux.ctx) != PMU_OK)
        hw_vcpu_of(p)->mux.load_failures++;
}

void pmu_mux_hw_load_session(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    if (!runs_on_hw(v) || hw_vcpu_of(p)->mux.ctx.loaded)
        return;
    if (p->be.ops->load(p->be.self, &hw_vcpu_of(p)->mux.ctx) != PMU_OK)
        hw_vcpu_of(p)->mux.load_failures++;
    share_controls(v);
}

uint64_t pmu_mux_hw_busy(const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    uint64_t mine = pmu_hw_owned_mask(&p->ctx);
    return runs_on_hw(v) ? mine | pmu_hw_owned_mask(&hw_vcpu_const(p)->mux.ctx) : mine;
}

bool pmu_mux_hw_finish(const struct vcpu *v, struct log_interval *row)
{
    static struct mux_hw final;     /* the domain's end runs once, on one CPU */
    uint64_t counts[MUX_ROW_EVENTS_MAX];
    final = hw_vcpu_const(&v->pmu)->mux;          /* the VCPU's own state stays as it ran */
    read_always(v, counts);
    return mux_hw_finish(&final, &v->pmu.be, counts, pmu_arch_exit_tsc(v), row);
}

/* ---- A sampling session beside it ---------------------------------------- */

/* The hardware PMU reduced to the counters reserved for sampling (the
 * general-purpose ones are the lowest: sample.events= was placed from
 * counter 0 up). */
static void reserved_caps(struct pmu_event_caps *caps)
{
    const struct mux_hw_held *r = &reserved;
    pmu_event_caps_hw(caps, &pmu_config.desc);
    caps->desc.gp_counters = (uint8_t)__builtin_ctz(~r->gp_mask);
    caps->desc.fixed_mask &= r->fixed_mask;
}

bool pmu_mux_hw_sampling_list(const struct pmu_event_list *counted, const char *sampling,
                              struct pmu_event_list *list, char *why, unsigned int why_size)
{
    static struct pmu_event_list events;
    struct pmu_event_caps caps;
    struct pmu_event_error err;
    *list = *counted;
    if (!sampling || !sampling[0])
        return true;
    if (!reserved.gp_mask && !reserved.fixed_mask) {
        fmt_snprintf(why, why_size, "the interval session holds every hardware counter "
                     "(sample.events= on the command line reserves some for sampling)");
        return false;
    }
    reserved_caps(&caps);
    if (pmu_event_list_parse(sampling, &caps, &events, &err) != PMU_EVERR_NONE) {
        int n = pmu_event_error_format(&err, why, why_size);
        if (n >= 0 && (unsigned int)n < why_size)
            fmt_snprintf(why + n, why_size - (unsigned int)n, " (on the counters "
                         "sample.events= reserved)");
        return false;
    }
    if (list->count + events.count > PMU_EVENT_LIST_MAX) {
        fmt_snprintf(why, why_size, "more than %u events with the interval session's",
                     PMU_EVENT_LIST_MAX);
        return false;
    }
    for (unsigned int i = 0; i < events.count; i++)
        list->events[list->count++] = events.events[i];
    return true;
}

/* ---- The hardware backend's part in multiplexing (pmu/mux/mux_part.h) ---- */

static struct mux_counters counters(const struct pmu_config *c)
{
    (void)c;                    /* the run's layout, made from it */
    return layout.for_sets;
}

static void describe(const struct pmu_config *c, char *buf, size_t size)
{
    (void)c;
    fmt_snprintf(buf, size, " (turns counted on %s %u)",
                 layout.clock.slot == PMU_SLOT_FIXED ? "fixed counter" : "general-purpose counter",
                 layout.clock.slot_index);
}

static const struct mux_row_state *rows(const struct vcpu *v)
{
    return &hw_vcpu_const(&v->pmu)->mux.row;
}

static void report(const struct vcpu *v)
{
    if (hw_vcpu_const(&v->pmu)->mux.load_failures)
        printk("pmu: vcpu %u: %lu loads or saves of the session's counters faulted (a PMU "
               "MSR access): its rows are unreliable\n", v->id, hw_vcpu_const(&v->pmu)->mux.load_failures);
}

static void save(struct vcpu *v)
{
    pmu_mux_hw_save(v);
}

static void load(struct vcpu *v)
{
    pmu_mux_hw_load(v);
}

static const struct mux_own_session own = {
    .layout = pmu_mux_hw_layout,
    .check_turns = pmu_mux_hw_check_turns,
    .describe = describe,
    .begin = pmu_mux_hw_begin,
    .finish = pmu_mux_hw_finish,
    .rows = rows,
    .report = report,
    .save = save,
    .load = load,
    .sampling_list = pmu_mux_hw_sampling_list,
};

const struct mux_part pmu_mux_hw_part = { .counters = counters, .own = &own };
