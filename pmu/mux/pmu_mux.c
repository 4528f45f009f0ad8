/* Interval multiplexing sessions in the VM-exit loop (pmu/mux/pmu_mux.h). */
#include "pmu/mux/pmu_mux.h"

#include "pmu/mux/mux_options.h"
#include "pmu/mux/mux_session.h"
#include "pmu/pmu_arch.h"
#include "pmu/backend/pmu_kind.h"
#include "pmu/mux/mux_part.h"
#include "lib/console.h"
#include "lib/format.h"
#include "vmm/domain/domain.h"
#include "vmm/log/log_hv.h"
#include "lib/mem.h"

/* pmu.interval.exact=on: each row is followed by the exact counts of the
 * same interval (the software backend counts every event all along). */
static bool exact_reference;

#define REFUSAL "pmu: no counting session: "

/* The run's backend's part (pmu/mux/mux_part.h); c has a backend. */
static const struct mux_part *part_of(const struct pmu_config *c)
{
    return c->kind->mux;
}

/* The backend's own session, or NULL when it counts every event all along. */
static const struct mux_own_session *own_session(void)
{
    return part_of(&pmu_config)->own;
}

struct mux_counters pmu_mux_counters(const struct pmu_config *c)
{
    return part_of(c)->counters(c);
}

unsigned int pmu_mux_counter_count(const struct pmu_config *c)
{
    struct mux_counters k = pmu_mux_counters(c);
    return k.gp + (unsigned int)__builtin_popcount(k.fixed_mask);
}

/* A session on the backend's own counters: no exact reference (each
 * counter counts only the set on it), and the backend's layout. */
static bool own_allows(struct pmu_config *c, const char *cmdline)
{
    const struct mux_own_session *own = part_of(c)->own;
    if (!own)
        return true;
    if (exact_reference) {
        printk(REFUSAL "pmu.interval.exact=on needs the software backend (a hardware counter "
               "counts only while its set is on it)\n");
        return false;
    }
    return own->layout(c, cmdline, REFUSAL);
}

bool pmu_mux_configure(struct pmu_config *c, const char *cmdline)
{
    struct mux_options o;
    char why[96];
    if (!mux_options_read(cmdline, &o, why, sizeof(why))) {
        printk(REFUSAL "%s\n", why);
        return false;
    }
    uint64_t n = o.interval, sub = o.subinterval;
    exact_reference = o.exact;
    if (!own_allows(c, cmdline))
        return false;
    struct mux_counters counters = pmu_mux_counters(c);
    enum mux_err err = mux_session_plan_on(&c->mux_cfg, &c->list, &counters, n, sub);
    if (err != MUX_OK) {
        printk(REFUSAL "pmu.interval=%lu pmu.subinterval=%lu over %u counters: %s\n", n, sub,
               pmu_mux_counter_count(c), mux_err_text(err));
        return false;
    }
    const struct mux_own_session *own = part_of(c)->own;
    return !own || own->check_turns(c, &c->mux_cfg, REFUSAL);
}

void pmu_mux_describe(const struct pmu_config *c, const struct mux_row_config *cfg, char *buf,
                      size_t size)
{
    fmt_snprintf(buf, size, ", %u sets over %u counters", cfg->plan.set_count,
                 pmu_mux_counter_count(c));
    const struct mux_own_session *own = part_of(c)->own;
    if (own)
        own->describe(c, buf + strlen(buf), size - strlen(buf));
    size_t len = strlen(buf);
    fmt_snprintf(buf + len, size - len, ", interval %lu, turn %lu instructions", cfg->interval,
                 cfg->sub);
}

static void read_counts(const struct vcpu *v, uint64_t *counts)
{
    const struct vcpu_pmu *p = &v->pmu;
    for (unsigned int e = 0; e < p->mux.rows.cfg->count; e++)
        counts[e] = pmu_read_event(&p->be, &p->ctx, &p->sw, e);
}

/* Only the counts the turn's end reads (mux_row_reads). */
static void read_needed(const struct vcpu *v, uint64_t *counts)
{
    const struct vcpu_pmu *p = &v->pmu;
    uint8_t ids[MUX_ROW_EVENTS_MAX];
    unsigned int n = mux_row_reads(&p->mux.rows, ids);
    for (unsigned int i = 0; i < n; i++)
        counts[ids[i]] = pmu_read_event(&p->be, &p->ctx, &p->sw, ids[i]);
}

/* The log ids of the rows' entries (entry k is the context's event k),
 * for the rows of v this CPU writes next (include/vertigo/log_format.h,
 * LOG_REC_INTERVAL_EVENTS). */
static void log_row_events(const struct vcpu *v, const struct mux_row_config *cfg)
{
    struct log_interval_events ie = { .domain = v->domain->id, .vcpu = v->id,
                                      .count = cfg->count };
    for (unsigned int e = 0; e < cfg->count && e < LOG_INTERVAL_EVENTS_MAX; e++)
        ie.ids[e] = v->pmu.ctx.log_ids[e];
    log_hv_interval_events(&ie);
}

void pmu_mux_vcpu_begin(struct vcpu *v, const struct pmu_event_list *list,
                        const struct mux_row_config *cfg)
{
    uint64_t counts[MUX_ROW_EVENTS_MAX];
    const struct mux_own_session *own = own_session();
    v->pmu.mux.written = 0;
    log_row_events(v, cfg);
    if (own) {
        own->begin(v, list, cfg);
        v->pmu.mux.on = true;
        return;
    }
    v->pmu.mux.rows.cfg = cfg;
    read_counts(v, counts);
    mux_row_begin(&v->pmu.mux.rows, cfg, counts, pmu_arch_tsc());
    memcpy(v->pmu.mux.exact_mark, counts, sizeof(counts));
    v->pmu.mux.on = true;
}

void pmu_mux_vcpu_start(struct vcpu *v)
{
    if (!pmu_config.mux || !pmu_config.has_events || !v->pmu.counting)
        return;                 /* no session, or it was refused */
    pmu_mux_vcpu_begin(v, &pmu_config.list, &pmu_config.mux_cfg);
}

uint64_t pmu_mux_deadline(const struct vcpu *v)
{
    return v->pmu.mux.on ? mux_row_left(&v->pmu.mux.rows) : PMU_NO_DEADLINE;
}

/* pmu.interval.exact=on: the exact counts of the row just written, each
 * event's count now (counts: all of them) less its count when the
 * interval began (mark, which becomes the next interval's); sw: room. */
static void write_exact(const struct vcpu *v, uint64_t *mark, const uint64_t *counts,
                        struct log_swcounters *sw)
{
    sw->domain = v->domain->id;
    sw->vcpu = v->id;
    sw->count = v->pmu.mux.rows.cfg->count;
    for (unsigned int e = 0; e < sw->count; e++) {
        sw->counters[e] = (struct log_counter_value){ e, counts[e] - mark[e] };
        mark[e] = counts[e];
    }
    log_hv_swcounters(sw);
}

void pmu_mux_write_row(struct vcpu *v, struct log_interval *row)
{
    row->domain = v->domain->id;
    row->vcpu = v->id;
    log_hv_interval(row);
    v->pmu.mux.written++;
    if (exact_reference) {
        uint64_t counts[MUX_ROW_EVENTS_MAX];
        read_counts(v, counts);
        write_exact(v, v->pmu.mux.exact_mark, counts, &v->pmu.mux.exact);
    }
}

void pmu_mux_turns_due(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    uint64_t counts[MUX_ROW_EVENTS_MAX];
    uint64_t tsc = pmu_arch_exit_tsc(v);
    while (mux_row_due(&p->mux.rows)) {
        read_needed(v, counts);
        if (mux_row_turn(&p->mux.rows, counts, tsc, &p->mux.row))
            pmu_mux_write_row(v, &p->mux.row);
    }
}

/* The domain's end runs on one CPU, once: the copies live here, off the
 * stack (the state is copied so the VCPU's own stays as it ran). */
static struct mux_row_state final_state;
static struct log_interval final_row;
static uint64_t final_mark[MUX_ROW_EVENTS_MAX];
static struct log_swcounters final_exact;

/* Counted all along: the unfinished interval's row from a copy of the
 * state, with its exact counts when asked for. */
static bool finish_read(const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    uint64_t counts[MUX_ROW_EVENTS_MAX];
    final_state = p->mux.rows;
    read_counts(v, counts);
    if (!mux_row_finish(&final_state, counts, pmu_arch_exit_tsc(v), &final_row))
        return false;
    final_row.domain = v->domain->id;
    final_row.vcpu = v->id;
    log_hv_interval(&final_row);
    if (exact_reference) {
        memcpy(final_mark, p->mux.exact_mark, sizeof(final_mark));
        write_exact(v, final_mark, counts, &final_exact);
    }
    return true;
}

/* On the backend's own counters: from a copy of its state, as above. */
static bool finish_own(const struct mux_own_session *own, const struct vcpu *v)
{
    if (!own->finish(v, &final_row))
        return false;
    final_row.domain = v->domain->id;
    final_row.vcpu = v->id;
    log_hv_interval(&final_row);
    return true;
}

/* The last row (if any) and the VCPU's line; true if there was one. */
static bool finish(const struct vcpu *v)
{
    const struct vcpu_pmu *p = &v->pmu;
    const struct mux_own_session *own = own_session();
    const struct mux_row_state *st = own ? own->rows(v) : &p->mux.rows;
    log_row_events(v, st->cfg);     /* the domain's end may write it on another CPU */
    bool last = own ? finish_own(own, v) : finish_read(v);
    printk("pmu: vcpu %u: %lu interval rows of %lu instructions (turns of %lu) and %s "
           "of %lu; skid at most %lu instructions\n", v->id, p->mux.written,
           st->cfg->interval, st->cfg->sub, last ? "a last one" : "no last one",
           last ? final_row.instructions : 0, st->skid_max);
    if (own)
        own->report(v);
    return last;
}

void pmu_mux_finish(const struct vcpu *v)
{
    if (v->pmu.mux.on)
        finish(v);
}

uint64_t pmu_mux_vcpu_stop(struct vcpu *v)
{
    if (!v->pmu.mux.on)
        return 0;
    bool last = finish(v);
    const struct mux_own_session *own = own_session();
    if (own)
        own->save(v);           /* its counters leave the CPU with it */
    v->pmu.mux.on = false;
    return v->pmu.mux.written + (last ? 1 : 0);
}
