/* The PMU's hypercalls for a VCPU (vmm/hypercall.h validates them first):
 * VERTIGO_HC_PMU_READ and _STEP on its counting session, the sampling
 * calls VERTIGO_HC_SESSION_START/_STOP and VERTIGO_HC_SYMBOLS, and the
 * paravirtual counters' VERTIGO_HC_PV_* and the guest's multiplexing
 * sessions' VERTIGO_HC_MUX_*. */
#include "pmu/pmu_loop.h"

#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/mux/pmu_mux_guest.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/pv/pmu_pv.h"
#include "pmu/hw/pmu_pv_hw.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_session.h"
#include "lib/console.h"
#include "vmm/domain/domain_config.h"
#include "vmm/heap.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_hv.h"
#include "pmu/sample/sampler.h"
#include "lib/spinlock.h"

static struct sampler_symbols symbols;
static struct spinlock symbols_lock = SPINLOCK_INIT;

/* ---- The counting session ------------------------------------------------- */

static int64_t hc_read(void *ctx, uint64_t index)
{
    struct vcpu *v = ctx;
    unsigned int n = v->pmu.counting ? v->pmu.ctx.count : 0;
    if (index == VERTIGO_PMU_EVENT_COUNT)
        return n;
    if (index >= n)
        return -VERTIGO_EINVAL;
    return (int64_t)(pmu_read_event(&v->pmu.be, &v->pmu.ctx, &v->pmu.sw, (unsigned int)index) &
                     (uint64_t)INT64_MAX);
}

static int64_t hc_set_step(void *ctx, uint64_t ticks)
{
    struct vcpu *v = ctx;
    uint64_t dflt = pmu_config.step_ticks;
    /* A session's events or paravirtual counters: the guest's virtual PMU
     * alone (the VCPU counts for it with no event) is no session. */
    bool session = v->pmu.ctx.count > 0 || v->pmu.pv.count > 0;
    if (!v->pmu.counting || !session || !pmu_config_soft())
        return -VERTIGO_EINVAL;
    uint64_t previous = v->pmu.user_step_ticks ? v->pmu.user_step_ticks : dflt;
    v->pmu.user_step_ticks = ticks;
    pmu_cpu_of(v->cpu)->soft.config.step_ticks = dflt;      /* the next entry chooses */
    return (int64_t)(previous & (uint64_t)INT64_MAX);
}

/* ---- Sampling sessions and symbols ------------------------------------------ */

/* A domain's kernel samples its own domain unless sample.control= grants
 * it the machine. */
static int64_t hc_start(void *ctx, const struct vertigo_session *s)
{
    const struct vcpu *v = ctx;
    uint32_t d = v->domain->id;
    int64_t r = sample_session_start(s, "the guest",
                                     sample_domain_controls_machine(d) ? SAMPLE_OWNER_MACHINE : d);
    if (r == 0)
        pmu_pmi_kick_others(ctx);
    return r;
}

static int64_t hc_stop(void *ctx)
{
    int64_t r = sample_session_stop_by(((const struct vcpu *)ctx)->domain->id);
    if (r >= 0)
        pmu_pmi_kick_others(ctx);
    return r;
}

static bool emit_symbols(void *ctx, const struct log_symbols *rec)
{
    (void)ctx;
    return log_hv_domain_symbols(rec);
}

/* Symbol records each domain lost (its share of the log full, or no
 * log): said once when it starts, counted, and totalled at its end, so a
 * flooding guest cannot make Vertigo print a line per call. */
static uint64_t symbols_dropped[DOMAIN_MAX];

static int64_t hc_symbols(void *ctx, const struct vertigo_symbols_chunk *c, const uint8_t *data)
{
    struct vcpu *v = ctx;
    uint32_t dropped = 0, d = v->domain->id % DOMAIN_MAX;
    spin_lock(&symbols_lock);
    int64_t r = sampler_symbols_ship(&symbols, v->domain->id, c, data, emit_symbols, NULL,
                                     &dropped);
    bool first = dropped && !symbols_dropped[d];
    symbols_dropped[d] += dropped;
    spin_unlock(&symbols_lock);
    if (first)
        printk("sample: domain %u: symbol records dropped (its share of the log full, or the "
               "log off); the count follows at its end\n", v->domain->id);
    return r;
}

void sample_symbols_report(const struct domain *d)
{
    uint64_t n = __atomic_load_n(&symbols_dropped[d->id % DOMAIN_MAX], __ATOMIC_RELAXED);
    if (n)
        printk("sample: domain %u: %lu symbol records dropped\n", d->id, n);
}

/* ---- The guest kernel's unwind tables ------------------------------------- */

static struct spinlock orc_lock = SPINLOCK_INIT;

static void *heap_bytes(size_t bytes)
{
    uint64_t pa = heap_alloc_pages((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
    return pa ? (void *)(uintptr_t)pa : NULL;   /* the heap is identity-mapped */
}

static int64_t hc_kernel_orc(void *ctx, const struct vertigo_kernel_orc *a, guest_copy_fn read,
                             void *read_ctx)
{
    struct vcpu *v = ctx;
    struct guest_kernel_unwind *ku = &v->domain->kernel_unwind;
    spin_lock(&orc_lock);
    int64_t r = guest_kernel_unwind_declare(ku, a, read, read_ctx, heap_bytes);
    spin_unlock(&orc_lock);
    if (r)
        printk("sample: domain %u: kernel unwind tables refused (error %ld)\n",
               v->domain->id, -r);
    else if (ku->kind == GUEST_KERNEL_UNWIND_ORC)
        printk("sample: domain %u: kernel ORC tables: %u of %u entries kept (text %#lx-%#lx), "
               "%lu KiB\n", v->domain->id, ku->orc->count, a->count, a->text_start, a->text_end,
               (unsigned long)(ku->mem_bytes >> 10));
    else
        printk("sample: domain %u: kernel stacks by frame pointers\n", v->domain->id);
    return r;
}

/* ---- Paravirtual counters ------------------------------------------------ */

static int64_t hc_pv_page(void *ctx, uint64_t gpa)
{
    struct vcpu *v = ctx;
    void *host = NULL;
    if (gpa) {
        int64_t r = hypercall_access_error(pmu_arch_guest_ram_page(v, gpa, &host));
        if (r)
            return r;
    }
    v->pmu.pv.tsc_counts_events = pmu_config.tsc_counts_instructions &&
                                  v->domain->vcpu_count == 1;
    pmu_pv_set_page(&v->pmu.pv, host, v->id);
    return 0;
}

/* The counters count the guest's runs the software backend measures, or
 * sit on hardware counters Vertigo's session leaves free (pmu/hw/pv_hw.h),
 * from the VCPU's first program on if it had no counting session. */
static int64_t hc_pv_program(void *ctx, const struct vertigo_pv_program *prog)
{
    struct vcpu *v = ctx;
    struct pmu_event_caps caps;
    const char *why = NULL;
    bool hw = pmu_config.backend == PMU_SESSION_HW;
    if ((!pmu_config_soft() && !hw) ||
        (!v->pmu.counting && pmu_run_start_counting(v) != PMU_OK))
        return -VERTIGO_ENOSYS;
    pmu_config_caps(&caps);
    int64_t r = hw ? pmu_pv_hw_program(v, prog->events, &why)
                   : pmu_pv_program(&v->pmu.pv, prog->events, &caps, &why);
    if (r < 0) {
        printk("pmu: vcpu %u: paravirtual counters refused: %s\n", v->id, why);
        return r;
    }
    if (hw)
        return r;
    pmu_run_modes_changed(v);
    if (r > 0)
        pmu_arch_rdpmc_exiting(v, true);    /* RDPMC of VERTIGO_PV_RDPMC + i */
    return r;
}

static int64_t hc_pv_read(void *ctx, uint64_t index)
{
    return pmu_pv_read(&((struct vcpu *)ctx)->pmu.pv, index);
}

static int64_t hc_pv_vector(void *ctx, uint64_t vector)
{
    struct vcpu *v = ctx;
    const char *why = NULL;
    int64_t r = pmu_pv_set_vector(&v->pmu.pv, vector, &why);
    if (r < 0)
        printk("pmu: vcpu %u: overflow vector %lu refused: %s\n", v->id, vector, why);
    return r;
}

/* ---- Interval multiplexing sessions of the guest -------------------------- */

static int64_t hc_mux_start(void *ctx, const struct vertigo_mux *m)
{
    return pmu_mux_guest_start(ctx, m);
}

static int64_t hc_mux_stop(void *ctx)
{
    return pmu_mux_guest_stop(ctx);
}

const struct hypercall_pmu *pmu_hypercalls(struct vcpu *v)
{
    static struct hypercall_pmu calls[MAX_CPUS];
    static struct hypercall_sampling sampling[MAX_CPUS];
    static struct hypercall_pv pv[MAX_CPUS];
    static struct hypercall_mux mux[MAX_CPUS];
    static uint8_t buffers[MAX_CPUS][VERTIGO_SYMBOLS_CHUNK_MAX];
    unsigned int cpu = v->cpu % MAX_CPUS;
    sampling[cpu] = (struct hypercall_sampling){
        .start = hc_start, .stop = hc_stop, .symbols = hc_symbols, .kernel_orc = hc_kernel_orc,
        .ctx = v, .buffer = buffers[cpu],
    };
    pv[cpu] = (struct hypercall_pv){
        .page = hc_pv_page, .program = hc_pv_program, .read = hc_pv_read,
        .vector = hc_pv_vector, .ctx = v,
    };
    mux[cpu] = (struct hypercall_mux){ .start = hc_mux_start, .stop = hc_mux_stop, .ctx = v };
    calls[cpu] = (struct hypercall_pmu){
        .read = hc_read, .set_step = hc_set_step, .ctx = v, .sampling = &sampling[cpu],
        .pv = &pv[cpu], .mux = &mux[cpu],
    };
    return &calls[cpu];
}
