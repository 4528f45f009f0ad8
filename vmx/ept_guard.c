/* Guest accesses to guest-physical memory that is not mapped for it:
 * Vertigo's own memory (or nothing at all). Vertigo reports each access
 * and makes it fail the way the guest can survive:
 *  - user mode (CPL 3, e.g. an mmap of /dev/mem): #GP, the process gets
 *    SIGSEGV;
 *  - kernel mode: #GP, which the kernel's user-copy fix-up turns into
 *    -EFAULT for read()/write() on /dev/mem. A failed copy *into* such
 *    memory is retried byte by byte (fix-up again), then Linux zero-fills
 *    the destination's tail with a plain memset that has no fix-up. So
 *    from the third kernel write fault in a row on one page of Vertigo's
 *    memory, the page is diverted to a scratch "sink" page for a short
 *    window bounded by the VMX-preemption timer (shared through
 *    vmx/vmx_timer.h), instead of oopsing the guest. Vertigo's memory is
 *    never written either way. The windows live in the domain's shared
 *    EPT (vmx/ept_sink.h: locked, budgeted, and invalidated on every CPU
 *    before it next enters the guest). */
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/heap.h"
#include "pmu/pmu_loop.h"
#include "vmx/apic_guard.h"
#include "vmx/ept_guard.h"
#include "vmx/ept_sink.h"
#include "vmx/exit.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vmx_timer.h"

#define EPT_REPORT_LIMIT   16
#define SINK_WINDOW_TSC    8192ull     /* a 4 KiB memset, and little more */
#define SINK_AFTER_FAULTS  2           /* #GPs before the sink opens */

static struct ept_sink sink;     /* domain 0's */

static const char *access_text(uint64_t q)
{
    if (q & EPT_QUAL_FETCH)
        return "instruction fetch";
    if (q & EPT_QUAL_WRITE)
        return "write";
    return "read";
}

static bool is_vertigo_memory(uint64_t gpa)
{
    extern char __image_start[], __image_end[];
    struct phys_range heap = heap_range();
    return (gpa >= (uint64_t)__image_start && gpa < (uint64_t)__image_end) ||
           (gpa >= heap.base && gpa < heap.end);
}

static void report(struct vcpu *v, const struct vmx_exit *e, uint64_t gpa, const char *outcome)
{
    static unsigned int reported;
    uint64_t q = e->qualification;
    if (reported++ >= EPT_REPORT_LIMIT)
        return;
    printk("ept: vcpu %u: guest %s of GPA %#lx (%s), linear %s%#lx, rip %#lx, CPL %u: %s\n",
           v->id, access_text(q), gpa,
           is_vertigo_memory(gpa) ? "Vertigo's memory" : "unmapped",
           (q & EPT_QUAL_GLA_VALID) ? "" : "(none) ",
           (q & EPT_QUAL_GLA_VALID) ? vmcs_read(VMCS_GUEST_LINEAR_ADDR) : 0,
           e->rip, vmx_guest_cpl(), outcome);
}

void ept_guard_init(struct domain *d, const struct phys_range *hidden, size_t count)
{
    ept_sink_init(&sink, &d->vmx.ept, heap_alloc_pages(1), hidden, (unsigned int)count);
}

void ept_guard_before_entry(struct vcpu *v)
{
    if (ept_sink_stale(&sink, v->id))
        invept(INVEPT_SINGLE_CONTEXT, v->domain->vmx.eptp);
}

static bool open_sink(struct vcpu *v, uint64_t page)
{
    if (!(vmx_config.pin_available & PIN_PREEMPTION_TIMER) || !sink.scratch_hpa)
        return false;   /* no way to bound the window */
    enum ept_sink_status st = ept_sink_open(&sink, v->id, page);
    if (st != EPT_SINK_OPENED && st != EPT_SINK_SHARED)
        return false;
    ept_guard_before_entry(v);
    vmx_timer_request(v, VMX_TIMER_SINK, SINK_WINDOW_TSC);
    return true;
}

/* Other CPUs may hold the closed window's translation: each invalidates
 * before its next entry, and is made to exit now (a kick). */
static __attribute__((noinline)) void close_sink(struct vcpu *v)
{
    vmx_timer_cancel(v, VMX_TIMER_SINK);
    if (!ept_sink_close(&sink, v->id))
        domain_end(v->domain, GUEST_END_ERROR, "cannot close the EPT sink window");
    ept_guard_before_entry(v);
    pmu_kick_others(v);
    v->vmx.last_fault_page = ~0ull;
}

/* The timer is shared (vmx/vmx_timer.h): an expiry may be another
 * owner's (a PMU step, the most frequent timer exit), so the window closes
 * only when its own deadline has passed. Closing it is out of line, so the
 * usual case returns without building a stack frame. */
void handle_preemption_timer(struct vcpu *v, const struct vmx_exit *e)
{
    (void)e;
    if (ept_sink_window(&sink, v->id) && vmx_timer_expired(v, VMX_TIMER_SINK))
        close_sink(v);
}

void handle_ept_violation(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t q = e->qualification;
    uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDR);
    uint64_t page = gpa & ~(PAGE_SIZE - 1);

    if (apic_guard_ept_write(v, e, gpa))
        return;
    if (vmcs_read(VMCS_IDT_VECTORING_INFO) & INTR_INFO_VALID) {
        report(v, e, gpa, "stopping the guest");
        vmx_dump_guest(v, e);
        domain_end(v->domain, GUEST_END_ERROR, "EPT violation during event delivery");
    }
    bool kernel_write = vmx_guest_cpl() == 0 && (q & EPT_QUAL_WRITE);
    bool same_page = kernel_write && page == v->vmx.last_fault_page;
    v->vmx.fault_streak = same_page ? v->vmx.fault_streak + 1 : 1;
    v->vmx.last_fault_page = kernel_write ? page : ~0ull;
    if (kernel_write && v->vmx.fault_streak > SINK_AFTER_FAULTS &&
        !ept_sink_window(&sink, v->id) && open_sink(v, page)) {
        report(v, e, gpa, "diverted to a scratch page");
        return;     /* retry the access against the sink */
    }
    report(v, e, gpa, "injecting #GP");
    /* Re-establish NMI blocking an IRET that faulted had lifted (SDM Vol.
     * 3C 28.2.3, "NMI unblocking due to IRET"). */
    if (q & EPT_QUAL_NMI_UNBLOCKING)
        vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
                   vmcs_read(VMCS_GUEST_INTERRUPTIBILITY) | INTERRUPTIBILITY_NMI);
    vmx_inject_gp();
}
