/* The sampling hypercalls' argument checks and handlers (see
 * pmu/sample/sample_hypercalls.h). */
#include "pmu/sample/sample_hypercalls.h"

#include "lib/mem.h"
#include "lib/smp.h"
#include "pmu/sample/sample_guest.h"
#include "vertigo/log_format.h"
#include "vmm/guest/guest_orc.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"

#define SESSION_PERIOD_MAX (1ull << 48)     /* the ABI's largest period */
#define SESSION_TIMER_HZ_MAX 100000u        /* the ABI's largest timer_hz */
#define SESSION_FLAGS (VERTIGO_SESSION_TIMER | VERTIGO_SESSION_USER_STACK | \
                       VERTIGO_SESSION_PROCESS | VERTIGO_SESSION_FREQ)

int64_t sample_session_check(const struct vertigo_session *s)
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

int64_t sample_symbols_check(const struct vertigo_symbols_chunk *c)
{
    if (c->kind < LOG_SYM_KALLSYMS || c->kind >= LOG_SYM_KIND_COUNT)
        return -VERTIGO_EINVAL;
    if (c->len > VERTIGO_SYMBOLS_CHUNK_MAX || c->last > 1 || c->reserved)
        return -VERTIGO_EINVAL;
    return 0;
}

static int64_t hc_session_start(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_session s;
    int64_t r = hypercall_copy_in(read, ctx, a->arg[0], &s, sizeof(s));
    if (r)
        return r;
    r = sample_session_check(&s);
    if (r)
        return r;
    return sample_guest_start(a->vcpu, &s);
}

static int64_t hc_session_stop(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    (void)read, (void)ctx;
    return sample_guest_stop(a->vcpu);
}

/* The chunk's data, one buffer per CPU (a VCPU's call runs on its CPU). */
static uint8_t chunk_data[MAX_CPUS][VERTIGO_SYMBOLS_CHUNK_MAX];

static int64_t hc_symbols(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_symbols_chunk c;
    uint8_t *data = chunk_data[a->vcpu ? a->vcpu->cpu % MAX_CPUS : 0];
    int64_t r = hypercall_copy_in(read, ctx, a->arg[0], &c, sizeof(c));
    if (r)
        return r;
    r = sample_symbols_check(&c);
    if (r)
        return r;
    r = c.len ? hypercall_copy_in(read, ctx, c.data, data, c.len) : 0;
    if (r)
        return r;
    return sample_guest_symbols(a->vcpu, &c, data);
}

static int64_t hc_kernel_orc(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_kernel_orc orc;
    int64_t r = hypercall_copy_in(read, ctx, a->arg[0], &orc, sizeof(orc));
    if (!r)
        r = guest_orc_check(&orc);
    if (r)
        return r;
    return sample_guest_kernel_orc(a->vcpu, &orc, read, ctx);
}

static const struct hypercall_def sample_calls[] = {
    { VERTIGO_HC_SESSION_START, true, hc_session_start },
    { VERTIGO_HC_SESSION_STOP, true, hc_session_stop },
    { VERTIGO_HC_SYMBOLS, true, hc_symbols },
    { VERTIGO_HC_KERNEL_ORC, true, hc_kernel_orc },
};

bool sample_hypercalls_register(void)
{
    return hypercall_register(sample_calls, sizeof(sample_calls) / sizeof(sample_calls[0]));
}
