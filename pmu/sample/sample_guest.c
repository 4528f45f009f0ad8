/* What the sampling hypercalls do with their validated arguments (see
 * pmu/sample/sample_guest.h): sessions a domain's kernel starts and
 * stops, its symbol chunks shipped into the log, its kernel's unwind
 * tables. */
#include "pmu/sample/sample_guest.h"

#include "lib/console.h"
#include "lib/spinlock.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/sample/sample_session.h"
#include "pmu/sample/sampler.h"
#include "vmm/domain/domain_config.h"
#include "vmm/heap.h"
#include "vmm/log/log_hv.h"
#include "vmm/page_alloc.h"
#include "vmm/vcpu.h"

static struct sampler_symbols symbols;
static struct spinlock symbols_lock = SPINLOCK_INIT;

/* ---- Sampling sessions and symbols ------------------------------------------ */

/* A domain's kernel samples its own domain unless sample.control= grants
 * it the machine. */
int64_t sample_guest_start(struct vcpu *v, const struct vertigo_session *s)
{
    uint32_t d = v->domain->id;
    int64_t r = sample_session_start(s, "the guest",
                                     sample_domain_controls_machine(d) ? SAMPLE_OWNER_MACHINE : d);
    if (r == 0)
        pmu_pmi_kick_others(v);
    return r;
}

int64_t sample_guest_stop(struct vcpu *v)
{
    int64_t r = sample_session_stop_by(v->domain->id);
    if (r >= 0)
        pmu_pmi_kick_others(v);
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

int64_t sample_guest_symbols(struct vcpu *v, const struct vertigo_symbols_chunk *c,
                             const uint8_t *data)
{
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

int64_t sample_guest_kernel_orc(struct vcpu *v, const struct vertigo_kernel_orc *a,
                                guest_copy_fn read, void *read_ctx)
{
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
