/* Hypercall dispatch: validates every argument, never trusts a guest
 * pointer (each is read with the caller's access rights, and one that is
 * unmapped, non-canonical, supervisor-only for a user-mode caller or
 * device memory gets its own error), and answers unknown numbers with
 * -VERTIGO_ENOSYS. */
#include "vmm/hypercall.h"

#include "vertigo/hypercall.h"
#include "vertigo/log_format.h"
#include "vmm/guest/guest_orc.h"
#include "lib/mem.h"
#include "vmm/vcpu.h"

#define VERDICT_REASON_MAX 63
#define SESSION_PERIOD_MAX (1ull << 48)     /* the ABI's largest period */
#define SESSION_TIMER_HZ_MAX 100000u        /* the ABI's largest timer_hz */
#define SESSION_FLAGS (VERTIGO_SESSION_TIMER | VERTIGO_SESSION_USER_STACK | \
                       VERTIGO_SESSION_PROCESS | VERTIGO_SESSION_FREQ)
#define KERNEL_CPL         0u

static int64_t hc_version(void)
{
    return ((int64_t)VERTIGO_HYPERCALL_VERSION << 32) | VERTIGO_FEATURES;
}

/* Without PMU wiring there is no session: zero events, no step to set. */
static int64_t hc_pmu_read(const struct hypercall_args *a)
{
    if (a->pmu)
        return a->pmu->read(a->pmu->ctx, a->arg[0]);
    return a->arg[0] == VERTIGO_PMU_EVENT_COUNT ? 0 : -VERTIGO_EINVAL;
}

static int64_t hc_pmu_step(const struct hypercall_args *a)
{
    return a->pmu ? a->pmu->set_step(a->pmu->ctx, a->arg[0]) : -VERTIGO_EINVAL;
}

int64_t hypercall_access_error(enum guest_access access)
{
    switch (access) {
    case GUEST_ACCESS_OK:
        return 0;
    case GUEST_ACCESS_SUPERVISOR:
        return -VERTIGO_EACCES;
    case GUEST_ACCESS_NOT_RAM:
        return -VERTIGO_EMMIO;
    default:
        return -VERTIGO_EFAULT;
    }
}

/* Copies a guest argument: 0 or the error for the pointer. */
static int64_t copy_in(guest_copy_fn read, void *ctx, uint64_t gva, void *buf, size_t len)
{
    return hypercall_access_error(read(ctx, gva, buf, len));
}

/* Reads a NUL-terminated guest string byte by byte (it may cross pages):
 * 0 or the error for the first byte that cannot be read. */
static int64_t read_guest_string(guest_copy_fn read, void *ctx, uint64_t gva,
                                 char *out, size_t size)
{
    for (size_t i = 0; i + 1 < size; i++) {
        int64_t r = copy_in(read, ctx, gva + i, &out[i], 1);
        if (r)
            return r;
        if (!out[i])
            return 0;
    }
    out[size - 1] = '\0';
    return 0;
}

/* The reason is printed on Vertigo's console, whose lines decide the run:
 * a control byte (a newline would start a line of the guest's choosing)
 * becomes '?'. */
static void sanitize_reason(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            *s = '?';
}

static int64_t hc_set_verdict(struct domain *d, const struct hypercall_args *a,
                              guest_copy_fn read, void *ctx)
{
    char reason[VERDICT_REASON_MAX + 1] = "";
    if (a->arg[0] > 1)
        return -VERTIGO_EINVAL;
    int64_t r = a->arg[1] ? read_guest_string(read, ctx, a->arg[1], reason, sizeof(reason)) : 0;
    if (r)
        return r;
    sanitize_reason(reason);
    d->verdict = a->arg[0] == 0 ? GUEST_VERDICT_PASS : GUEST_VERDICT_FAIL;
    memcpy(d->verdict_text, reason, sizeof(d->verdict_text));
    d->verdict_text[sizeof(d->verdict_text) - 1] = '\0';
    return 0;
}

int64_t hypercall_session_check(const struct vertigo_session *s)
{
    bool timer = (s->flags & VERTIGO_SESSION_TIMER) != 0;
    size_t events_len = strnlen(s->events, sizeof(s->events));
    bool process = (s->flags & VERTIGO_SESSION_PROCESS) != 0;
    bool freq = (s->flags & VERTIGO_SESSION_FREQ) != 0;
    if (s->abi_version != VERTIGO_SESSION_ABI || (s->flags & ~SESSION_FLAGS) || (freq && timer))
        return -VERTIGO_EINVAL;
    if (process != (s->process_cr3 != 0))      /* the flag and its page-table root go together */
        return -VERTIGO_EINVAL;
    if (s->stack_depth > VERTIGO_STACK_MAX || events_len == sizeof(s->events))
        return -VERTIGO_EINVAL;
    if (timer)
        return s->timer_hz && s->timer_hz <= SESSION_TIMER_HZ_MAX ? 0 : -VERTIGO_EINVAL;
    uint64_t period_max = freq ? VERTIGO_SESSION_FREQ_MAX : SESSION_PERIOD_MAX;
    uint64_t period_min = freq ? 1 : VERTIGO_SESSION_PERIOD_MIN;
    if (s->period < period_min || s->period > period_max || !events_len)
        return -VERTIGO_EINVAL;
    return 0;
}

int64_t hypercall_symbols_check(const struct vertigo_symbols_chunk *c)
{
    if (c->kind < LOG_SYM_KALLSYMS || c->kind >= LOG_SYM_KIND_COUNT)
        return -VERTIGO_EINVAL;
    if (c->len > VERTIGO_SYMBOLS_CHUNK_MAX || c->last > 1 || c->reserved)
        return -VERTIGO_EINVAL;
    return 0;
}

static const struct hypercall_sampling *sampling_of(const struct hypercall_args *a)
{
    return a->pmu ? a->pmu->sampling : NULL;
}

static int64_t hc_session_start(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_session s;
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    int64_t r = copy_in(read, ctx, a->arg[0], &s, sizeof(s));
    if (r)
        return r;
    r = hypercall_session_check(&s);
    if (r)
        return r;
    const struct hypercall_sampling *sm = sampling_of(a);
    return sm ? sm->start(sm->ctx, &s) : -VERTIGO_ENOSYS;
}

static int64_t hc_session_stop(const struct hypercall_args *a)
{
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    const struct hypercall_sampling *sm = sampling_of(a);
    return sm ? sm->stop(sm->ctx) : -VERTIGO_EINVAL;
}

static int64_t hc_symbols(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_symbols_chunk c;
    const struct hypercall_sampling *sm = sampling_of(a);
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    if (!sm)
        return -VERTIGO_ENOSYS;
    int64_t r = copy_in(read, ctx, a->arg[0], &c, sizeof(c));
    if (r)
        return r;
    r = hypercall_symbols_check(&c);
    if (r)
        return r;
    r = c.len ? copy_in(read, ctx, c.data, sm->buffer, c.len) : 0;
    if (r)
        return r;
    return sm->symbols(sm->ctx, &c, sm->buffer);
}

static int64_t hc_kernel_orc(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_kernel_orc orc;
    const struct hypercall_sampling *sm = sampling_of(a);
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    int64_t r = copy_in(read, ctx, a->arg[0], &orc, sizeof(orc));
    if (!r)
        r = guest_orc_check(&orc);
    if (r)
        return r;
    return sm && sm->kernel_orc ? sm->kernel_orc(sm->ctx, &orc, read, ctx) : -VERTIGO_ENOSYS;
}

/* ---- Paravirtual counters -------------------------------------------------- */

static const struct hypercall_pv *pv_of(const struct hypercall_args *a)
{
    return a->pmu ? a->pmu->pv : NULL;
}

/* The page is guest-physical: Vertigo writes it before every entry, and a
 * guest-virtual address would mean nothing once the guest switches CR3. */
static int64_t hc_pv_page(const struct hypercall_args *a)
{
    const struct hypercall_pv *pv = pv_of(a);
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    if (a->arg[0] & (VERTIGO_PV_PAGE_BYTES - 1))
        return -VERTIGO_EINVAL;
    return pv ? pv->page(pv->ctx, a->arg[0]) : -VERTIGO_ENOSYS;
}

int64_t hypercall_pv_program_check(const struct vertigo_pv_program *p)
{
    if (p->abi_version != VERTIGO_PV_ABI || p->reserved)
        return -VERTIGO_EINVAL;
    return strnlen(p->events, sizeof(p->events)) < sizeof(p->events) ? 0 : -VERTIGO_EINVAL;
}

static int64_t hc_pv_program(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_pv_program p;
    const struct hypercall_pv *pv = pv_of(a);
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    int64_t r = copy_in(read, ctx, a->arg[0], &p, sizeof(p));
    if (!r)
        r = hypercall_pv_program_check(&p);
    if (r)
        return r;
    return pv ? pv->program(pv->ctx, &p) : -VERTIGO_ENOSYS;
}

/* Without paravirtual counters there are none to read, as HC_PMU_READ
 * answers without a session. */
static int64_t hc_pv_read(const struct hypercall_args *a)
{
    const struct hypercall_pv *pv = pv_of(a);
    return pv ? pv->read(pv->ctx, a->arg[0]) : -VERTIGO_EINVAL;
}

static int64_t hc_pv_vector(const struct hypercall_args *a)
{
    const struct hypercall_pv *pv = pv_of(a);
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    return pv && pv->vector ? pv->vector(pv->ctx, a->arg[0]) : -VERTIGO_ENOSYS;
}

/* ---- Interval multiplexing sessions ---------------------------------------- */

static const struct hypercall_mux *mux_of(const struct hypercall_args *a)
{
    return a->pmu ? a->pmu->mux : NULL;
}

int64_t hypercall_mux_check(const struct vertigo_mux *m)
{
    size_t len = strnlen(m->events, sizeof(m->events));
    if (m->abi_version != VERTIGO_MUX_ABI || m->reserved)
        return -VERTIGO_EINVAL;
    return len && len < sizeof(m->events) ? 0 : -VERTIGO_EINVAL;
}

static int64_t hc_mux_start(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_mux m;
    const struct hypercall_mux *mux = mux_of(a);
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    int64_t r = copy_in(read, ctx, a->arg[0], &m, sizeof(m));
    if (!r)
        r = hypercall_mux_check(&m);
    if (r)
        return r;
    return mux ? mux->start(mux->ctx, &m) : -VERTIGO_ENOSYS;
}

static int64_t hc_mux_stop(const struct hypercall_args *a)
{
    const struct hypercall_mux *mux = mux_of(a);
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    return mux ? mux->stop(mux->ctx) : -VERTIGO_EINVAL;
}

static int64_t hc_console_write(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    const struct hypercall_domain *dom = a->domain;
    uint64_t len = a->arg[1];
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    if (len == 0 || len > VERTIGO_CONSOLE_WRITE_MAX)
        return -VERTIGO_EINVAL;
    if (!dom || !dom->console)
        return -VERTIGO_ENOSYS;
    int64_t r = copy_in(read, ctx, a->arg[0], dom->buffer, len);
    return r ? r : dom->console(dom->ctx, dom->buffer, len);
}

static int64_t hc_power_off(const struct hypercall_args *a)
{
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    if (!a->domain)
        return -VERTIGO_ENOSYS;
    a->domain->power_off(a->domain->ctx);
    return 0;
}

int64_t hypercall_dispatch(struct domain *d, const struct hypercall_args *a,
                           guest_copy_fn read, void *read_ctx)
{
    switch (a->nr) {
    case VERTIGO_HC_VERSION:
        return hc_version();
    case VERTIGO_HC_SET_VERDICT:
        return hc_set_verdict(d, a, read, read_ctx);
    case VERTIGO_HC_PMU_READ:
        return hc_pmu_read(a);
    case VERTIGO_HC_PMU_STEP:
        return hc_pmu_step(a);
    case VERTIGO_HC_SESSION_START:
        return hc_session_start(a, read, read_ctx);
    case VERTIGO_HC_SESSION_STOP:
        return hc_session_stop(a);
    case VERTIGO_HC_SYMBOLS:
        return hc_symbols(a, read, read_ctx);
    case VERTIGO_HC_KERNEL_ORC:
        return hc_kernel_orc(a, read, read_ctx);
    case VERTIGO_HC_PV_PAGE:
        return hc_pv_page(a);
    case VERTIGO_HC_PV_PROGRAM:
        return hc_pv_program(a, read, read_ctx);
    case VERTIGO_HC_PV_READ:
        return hc_pv_read(a);
    case VERTIGO_HC_PV_VECTOR:
        return hc_pv_vector(a);
    case VERTIGO_HC_MUX_START:
        return hc_mux_start(a, read, read_ctx);
    case VERTIGO_HC_MUX_STOP:
        return hc_mux_stop(a);
    case VERTIGO_HC_CONSOLE_WRITE:
        return hc_console_write(a, read, read_ctx);
    case VERTIGO_HC_POWER_OFF:
        return hc_power_off(a);
    default:
        return -VERTIGO_ENOSYS;
    }
}
