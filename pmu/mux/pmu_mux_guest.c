/* The guest's interval multiplexing sessions (pmu/mux/pmu_mux_guest.h). */
#include "pmu/mux/pmu_mux_guest.h"

#include "pmu/mux/mux_session.h"
#include "pmu/run/pmu_config.h"
#include "pmu/mux/pmu_mux.h"
#include "pmu/backend/pmu_kind.h"
#include "pmu/mux/mux_part.h"
#include "pmu/run/pmu_run.h"
#include "pmu/backend/pmu_session.h"
#include "lib/console.h"
#include "lib/format.h"
#include "vmm/hv_cmdline.h"
#include "lib/mem.h"
#include "lib/spinlock.h"

static struct spinlock lock = SPINLOCK_INIT;
static struct vcpu *owner;              /* the VCPU whose session runs, or NULL */

/* The run's backend's own session (pmu/mux/mux_part.h), or NULL when it
 * counts every event all along. */
static const struct mux_own_session *own_session(void)
{
    return pmu_config.kind->mux->own;
}

/* A session on the backend's own counters: counters left for the sets
 * (-VERTIGO_EBUSY: the others hold them all) and turns it can count
 * (-VERTIGO_ERANGE); 0 when cfg (NULL: not planned yet) may run. */
static int64_t own_check(const struct vcpu *v, const struct mux_row_config *cfg)
{
    char refusal[64];
    const struct mux_own_session *own = own_session();
    if (!own)
        return 0;
    fmt_snprintf(refusal, sizeof(refusal), "pmu: vcpu %u: multiplexing session refused: ",
                 v->id);
    if (!cfg)
        return own->layout(&pmu_config, hv_cmdline(), refusal) ? 0 : -VERTIGO_EBUSY;
    return own->check_turns(&pmu_config, cfg, refusal) ? 0 : -VERTIGO_ERANGE;
}

/* Parses m's events and builds the run's schedule from them, as the
 * command line's are: the number of sets or the error (said on the
 * console). pmu_config is left as it was on an error. */
static int64_t plan(const struct vcpu *v, const struct vertigo_mux *m, struct pmu_event_list *list,
                    struct mux_row_config *cfg)
{
    struct pmu_event_caps caps;
    struct pmu_event_error err;
    char why[128];
    pmu_config_caps(&caps);
    caps.desc.gp_counters = PMU_EVENT_LIST_MAX;     /* the schedule limits the counters */
    caps.unplaced = own_session() != NULL;
    if (pmu_event_list_parse(m->events, &caps, list, &err) != PMU_EVERR_NONE) {
        pmu_event_error_format(&err, why, sizeof(why));
        printk("pmu: vcpu %u: multiplexing session refused: %s\n", v->id, why);
        return mux_session_event_error(err.code);
    }
    int64_t r = own_check(v, NULL);
    if (r)
        return r;
    struct mux_counters counters = pmu_mux_counters(&pmu_config);
    enum mux_err me = mux_session_plan_on(cfg, list, &counters, m->interval, m->subinterval);
    if (me != MUX_OK) {
        printk("pmu: vcpu %u: multiplexing session refused: interval %lu, sub-interval %lu "
               "over %u counters: %s\n", v->id, m->interval, m->subinterval,
               pmu_mux_counter_count(&pmu_config), mux_err_text(me));
        return mux_session_error(me);
    }
    r = own_check(v, cfg);
    return r ? r : cfg->sets;
}

/* Makes the planned session the run's counting session and starts it on
 * v: the number of sets, or -VERTIGO_ENOSYS if v's backend refused it. */
static int64_t begin(struct vcpu *v, const struct vertigo_mux *m, const struct pmu_event_list *list,
                     const struct mux_row_config *cfg)
{
    enum pmu_status st = pmu_run_program(v, list, NULL);
    if (st != PMU_OK) {
        printk("pmu: vcpu %u: multiplexing session refused: %s\n", v->id, pmu_status_text(st));
        return -VERTIGO_ENOSYS;
    }
    pmu_config.list = *list;
    pmu_config.mux_cfg = *cfg;
    memcpy(pmu_config.count_text, m->events, sizeof(pmu_config.count_text));
    pmu_config.mux = true;
    pmu_config.has_events = true;
    v->pmu.counting = true;
    v->pmu.count_events = list->count;
    pmu_mux_vcpu_begin(v, &pmu_config.mux_cfg);
    owner = v;
    printk("pmu: vcpu %u: multiplexing session of the guest: %s (%u events", v->id, m->events,
           list->count);
    pmu_mux_announce(&pmu_config, cfg);
    printk(")\n");
    return cfg->sets;
}

/* Why v cannot start a session now (-VERTIGO_EBUSY), or NULL. */
static const char *busy_reason(const struct vcpu *v)
{
    if (owner)
        return "the guest's multiplexing session runs";
    if (pmu_config.has_events)
        return "the command line's counting session runs";
    if (v->pmu.pv.count)
        return "the VCPU's paravirtual counters count";   /* they own its context */
    return NULL;
}

int64_t pmu_mux_guest_start(struct vcpu *v, const struct vertigo_mux *m)
{
    static struct pmu_event_list list;      /* under lock: too big for the stack */
    static struct mux_row_config cfg;
    if (pmu_config.backend == PMU_SESSION_NONE) {
        printk("pmu: vcpu %u: multiplexing session refused: no PMU backend runs\n", v->id);
        return -VERTIGO_ENOSYS;
    }
    spin_lock(&lock);
    const char *busy = busy_reason(v);
    if (busy)
        printk("pmu: vcpu %u: multiplexing session refused: %s\n", v->id, busy);
    int64_t r = busy ? -VERTIGO_EBUSY : plan(v, m, &list, &cfg);
    if (r > 0)
        r = begin(v, m, &list, &cfg);
    spin_unlock(&lock);
    return r;
}

int64_t pmu_mux_guest_stop(struct vcpu *v)
{
    static const struct pmu_event_list none;
    spin_lock(&lock);
    if (owner != v) {
        spin_unlock(&lock);
        return -VERTIGO_EINVAL;
    }
    uint64_t rows = pmu_mux_vcpu_stop(v);
    pmu_log_event_names(&v->pmu.ctx);       /* the rows' event ids, named */
    pmu_run_program(v, &none, NULL);
    v->pmu.count_events = 0;
    pmu_config.has_events = false;
    pmu_config.mux = false;
    pmu_config.list = none;
    pmu_config.count_text[0] = '\0';
    owner = NULL;
    spin_unlock(&lock);
    return (int64_t)rows;
}
