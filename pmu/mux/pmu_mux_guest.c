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
#include "vmm/domain/domain_config.h"

/* A domain's session: the VCPU that started it and what it counts. */
struct guest_session {
    struct vcpu *owner;                 /* NULL: the domain runs none */
    struct pmu_event_list list;
    struct mux_row_config cfg;
    char text[PMU_SESSION_EVENTS_MAX];
};

static struct spinlock lock = SPINLOCK_INIT;
static struct guest_session sessions[DOMAIN_MAX];
static const struct pmu_event_list no_events;

static struct guest_session *session_of(const struct vcpu *v)
{
    return &sessions[v->domain->id % DOMAIN_MAX];
}

/* The session v runs, or NULL. Only v's own CPU makes v the owner or
 * ends its session, so v's CPU asks without the lock (another VCPU of the
 * domain may change the owner meanwhile, never to or from v). */
static const struct guest_session *owned_by(const struct vcpu *v)
{
    const struct guest_session *s = session_of(v);
    return __atomic_load_n(&s->owner, __ATOMIC_RELAXED) == v ? s : NULL;
}

/* Under the lock. */
static void set_owner(struct guest_session *s, struct vcpu *v)
{
    __atomic_store_n(&s->owner, v, __ATOMIC_RELAXED);
}

struct pmu_counting pmu_counting_of(const struct vcpu *v)
{
    const struct guest_session *s = v ? owned_by(v) : NULL;
    if (s)
        return (struct pmu_counting){ true, true, &s->list, &s->cfg, s->text };
    if (!pmu_config.has_events)
        return (struct pmu_counting){ false, false, &no_events, NULL, "" };
    return (struct pmu_counting){ true, pmu_config.mux, &pmu_config.list, &pmu_config.mux_cfg,
                                  pmu_config.count_text };
}

/* "pmu: vcpu N: " for domain 0's VCPUs, "pmu: domain D vcpu N: " for
 * another domain's: the start of every line about v's sessions. */
static const char *who(const struct vcpu *v, char *buf, unsigned int size)
{
    if (v->domain->id)
        fmt_snprintf(buf, size, "pmu: domain %u vcpu %u: ", v->domain->id, v->id);
    else
        fmt_snprintf(buf, size, "pmu: vcpu %u: ", v->id);
    return buf;
}

#define WHO_MAX 48

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
    char refusal[WHO_MAX + 40], w[WHO_MAX];
    const struct mux_own_session *own = own_session();
    if (!own)
        return 0;
    fmt_snprintf(refusal, sizeof(refusal), "%smultiplexing session refused: ",
                 who(v, w, sizeof(w)));
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
    char why[128], w[WHO_MAX];
    pmu_config_caps(&caps);
    caps.desc.gp_counters = PMU_EVENT_LIST_MAX;     /* the schedule limits the counters */
    caps.unplaced = own_session() != NULL;
    if (pmu_event_list_parse(m->events, &caps, list, &err) != PMU_EVERR_NONE) {
        pmu_event_error_format(&err, why, sizeof(why));
        printk("%smultiplexing session refused: %s\n", who(v, w, sizeof(w)), why);
        return mux_session_event_error(err.code);
    }
    int64_t r = own_check(v, NULL);
    if (r)
        return r;
    struct mux_counters counters = pmu_mux_counters(&pmu_config);
    enum mux_err me = mux_session_plan_on(cfg, list, &counters, m->interval, m->subinterval);
    if (me != MUX_OK) {
        printk("%smultiplexing session refused: interval %lu, sub-interval %lu over %u "
               "counters: %s\n", who(v, w, sizeof(w)), m->interval, m->subinterval,
               pmu_mux_counter_count(&pmu_config), mux_err_text(me));
        return mux_session_error(me);
    }
    r = own_check(v, cfg);
    return r ? r : cfg->sets;
}

/* Makes the planned session (in v's domain's slot s) v's counting session
 * and starts it: the number of sets, or -VERTIGO_ENOSYS if v's backend
 * refused it. */
static int64_t begin(struct vcpu *v, const struct vertigo_mux *m, struct guest_session *s)
{
    char w[WHO_MAX];
    enum pmu_status st = pmu_run_program(v, &s->list, NULL);
    if (st != PMU_OK) {
        printk("%smultiplexing session refused: %s\n", who(v, w, sizeof(w)),
               pmu_status_text(st));
        return -VERTIGO_ENOSYS;
    }
    size_t n = strnlen(m->events, sizeof(m->events));   /* NUL-terminated: checked */
    n = n < sizeof(s->text) ? n : sizeof(s->text) - 1;
    memcpy(s->text, m->events, n);
    s->text[n] = '\0';
    v->pmu.counting = true;
    v->pmu.count_events = s->list.count;
    pmu_log_event_names(&v->pmu.ctx);       /* the rows' event ids, named */
    pmu_mux_vcpu_begin(v, &s->list, &s->cfg);
    set_owner(s, v);
    pmu_run_counting_changed(v);            /* a sampling session follows */
    /* One printk: another CPU's line could come between two */
    char schedule[PMU_MUX_DESCRIPTION_MAX];
    pmu_mux_describe(&pmu_config, &s->cfg, schedule, sizeof(schedule));
    printk("%smultiplexing session of the guest: %s (%u events%s)\n", who(v, w, sizeof(w)),
           s->text, s->list.count, schedule);
    return s->cfg.sets;
}

/* Why v cannot start a session now (-VERTIGO_EBUSY), or NULL; the VCPU
 * that runs its domain's session into *holder. */
static const char *busy_reason(const struct vcpu *v, const struct vcpu **holder)
{
    *holder = session_of(v)->owner;
    if (*holder == v)
        return "the VCPU's multiplexing session runs";
    if (*holder)
        return "its domain's multiplexing session runs on vcpu ";     /* one per domain */
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
    char w[WHO_MAX];
    if (pmu_config.backend == PMU_SESSION_NONE) {
        printk("%smultiplexing session refused: no PMU backend runs\n", who(v, w, sizeof(w)));
        return -VERTIGO_ENOSYS;
    }
    spin_lock(&lock);
    const struct vcpu *holder;
    const char *busy = busy_reason(v, &holder);
    if (busy && holder && holder != v)
        printk("%smultiplexing session refused: %s%u (one at a time per domain)\n",
               who(v, w, sizeof(w)), busy, holder->id);
    else if (busy)
        printk("%smultiplexing session refused: %s\n", who(v, w, sizeof(w)), busy);
    int64_t r = busy ? -VERTIGO_EBUSY : plan(v, m, &list, &cfg);
    if (r > 0) {
        struct guest_session *s = session_of(v);
        s->list = list;
        s->cfg = cfg;
        r = begin(v, m, s);
    }
    spin_unlock(&lock);
    return r;
}

/* Ends v's session (s) and frees its domain's slot: the rows written. */
static uint64_t end(struct vcpu *v, struct guest_session *s)
{
    uint64_t rows = pmu_mux_vcpu_stop(v);
    pmu_log_event_names(&v->pmu.ctx);       /* the rows' event ids, named */
    pmu_run_program(v, &no_events, NULL);
    v->pmu.count_events = 0;
    set_owner(s, NULL);
    pmu_run_counting_changed(v);
    return rows;
}

int64_t pmu_mux_guest_stop(struct vcpu *v)
{
    spin_lock(&lock);
    struct guest_session *s = session_of(v);
    int64_t r = s->owner == v ? (int64_t)end(v, s) : -VERTIGO_EINVAL;
    spin_unlock(&lock);
    return r;
}

void pmu_mux_guest_vcpu_start(struct vcpu *v)
{
    spin_lock(&lock);
    struct guest_session *s = session_of(v);
    if (s->owner == v) {
        char w[WHO_MAX];
        set_owner(s, NULL);
        printk("%sthe guest's multiplexing session ended with its boot\n", who(v, w, sizeof(w)));
    }
    spin_unlock(&lock);
}
