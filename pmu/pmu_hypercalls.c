/* The PMU's hypercalls for a VCPU (vmm/hypercall.h validates them first):
 * VERTIGO_HC_PMU_READ and _STEP on its counting session, and the sampling
 * calls VERTIGO_HC_SESSION_START/_STOP and VERTIGO_HC_SYMBOLS. */
#include "pmu/pmu_loop.h"

#include "pmu/pmu_config.h"
#include "pmu/pmu_cpu.h"
#include "pmu/pmu_pmi.h"
#include "pmu/sample_session.h"
#include "vmm/console.h"
#include "vmm/heap.h"
#include "vmm/log_emit.h"
#include "vmm/log_hv.h"
#include "vmm/sampler.h"
#include "vmm/spinlock.h"

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
    if (!v->pmu.counting || !pmu_config_soft())
        return -VERTIGO_EINVAL;
    uint64_t previous = v->pmu.user_step_ticks ? v->pmu.user_step_ticks : dflt;
    v->pmu.user_step_ticks = ticks;
    pmu_cpu_of(v->cpu)->soft.config.step_ticks = dflt;      /* the next entry chooses */
    return (int64_t)(previous & (uint64_t)INT64_MAX);
}

/* ---- Sampling sessions and symbols ------------------------------------------ */

static int64_t hc_start(void *ctx, const struct vertigo_session *s)
{
    int64_t r = sample_session_start(s, "the guest");
    if (r == 0)
        pmu_pmi_kick_others(ctx);
    return r;
}

static int64_t hc_stop(void *ctx)
{
    int64_t r = sample_session_stop();
    if (r >= 0)
        pmu_pmi_kick_others(ctx);
    return r;
}

static bool emit_symbols(void *ctx, const struct log_symbols *rec)
{
    (void)ctx;
    struct log_ring *ring = log_hv_ring();
    return ring && log_emit_symbols(ring, pmu_arch_tsc(), rec);
}

static int64_t hc_symbols(void *ctx, const struct vertigo_symbols_chunk *c, const uint8_t *data)
{
    struct vcpu *v = ctx;
    uint32_t dropped = 0;
    spin_lock(&symbols_lock);
    int64_t r = sampler_symbols_ship(&symbols, v->domain->id, c, data, emit_symbols, NULL,
                                     &dropped);
    spin_unlock(&symbols_lock);
    if (dropped)
        printk("sample: %u symbol records dropped (log full or off)\n", dropped);
    return r;
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

const struct hypercall_pmu *pmu_hypercalls(struct vcpu *v)
{
    static struct hypercall_pmu calls[MAX_CPUS];
    static struct hypercall_sampling sampling[MAX_CPUS];
    static uint8_t buffers[MAX_CPUS][VERTIGO_SYMBOLS_CHUNK_MAX];
    unsigned int cpu = v->cpu % MAX_CPUS;
    sampling[cpu] = (struct hypercall_sampling){
        .start = hc_start, .stop = hc_stop, .symbols = hc_symbols, .kernel_orc = hc_kernel_orc,
        .ctx = v, .buffer = buffers[cpu],
    };
    calls[cpu] = (struct hypercall_pmu){
        .read = hc_read, .set_step = hc_set_step, .ctx = v, .sampling = &sampling[cpu],
    };
    return &calls[cpu];
}
