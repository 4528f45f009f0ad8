/* Trapped APIC writes (see vmx/apic_guard.h). */
#include "vmx/apic_guard.h"

#include "boot/apic.h"
#include "boot/cpu.h"
#include "vmm/console.h"
#include "vmm/domain.h"
#include "vmm/mmio_decode.h"
#include "vmm/page_alloc.h"
#include "vmm/smp_guest.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"

#define MAX_INSN 15

/* INIT and STARTUP are emulated; returns false for any other IPI. */
static bool emulate_startup_ipi(struct vcpu *v, uint32_t icr_low, uint32_t dest)
{
    uint32_t mode = APIC_ICR_DELIVERY_MODE(icr_low);
    uint32_t shorthand = APIC_ICR_SHORTHAND(icr_low);
    if (mode != APIC_DM_INIT && mode != APIC_DM_STARTUP)
        return false;
    if (mode == APIC_DM_INIT && !(icr_low & APIC_ICR_LEVEL_ASSERT))
        return true;    /* INIT de-assert: nothing to do */
    struct domain *d = v->domain;
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        struct vcpu *t = &d->vcpus[i];
        bool hit = shorthand == APIC_SHORTHAND_NONE ? t->apic_id == dest
                 : shorthand == APIC_SHORTHAND_ALL_BUT_SELF ? t != v
                 : shorthand == APIC_SHORTHAND_ALL;
        if (!hit)
            continue;
        if (mode == APIC_DM_INIT)
            vcpu_signal_init(d, t->apic_id);
        else
            vcpu_signal_sipi(d, t->apic_id, (uint8_t)icr_low);
    }
    return true;
}

/* Reads the instruction bytes at the guest RIP: all 15 in one walk when
 * they are mapped, else as many as are (an instruction at the end of the
 * last mapped page). */
static size_t fetch_instruction(struct vcpu *v, uint64_t rip, uint8_t *buf)
{
    if (guest_virt_read(v, rip, buf, MAX_INSN))
        return MAX_INSN;
    size_t n = 0;
    while (n < MAX_INSN && guest_virt_read(v, rip + n, buf + n, 1))
        n++;
    return n;
}

bool apic_guard_ept_write(struct vcpu *v, const struct vmx_exit *e, uint64_t gpa)
{
    uint64_t base = apic_mmio_base();
    if (gpa < base || gpa >= base + PAGE_SIZE || !(e->qualification & EPT_QUAL_WRITE))
        return false;

    uint8_t insn[MAX_INSN];
    struct mmio_store st;
    size_t n = fetch_instruction(v, e->rip, insn);
    if (!mmio_decode_store(insn, n, &st)) {
        printk("apic: vcpu %u: cannot decode the APIC write at rip %#lx\n", v->id, e->rip);
        vmx_dump_guest(v, e);
        domain_end(v->domain, GUEST_END_ERROR, "undecodable APIC write");
    }
    uint32_t value = st.from_register ? (uint32_t)vmx_gpr_read(v, st.reg) : st.immediate;
    uint32_t offset = (uint32_t)(gpa - base);
    if (offset == XAPIC_REG_ICR_LOW) {
        uint32_t dest = *(volatile uint32_t *)(base + XAPIC_REG_ICR_HIGH) >> 24;
        if (!emulate_startup_ipi(v, value, dest))
            apic_write_xapic(offset, value);
    } else {
        apic_write_xapic(offset, value);
    }
    struct vmx_exit done = *e;
    done.instruction_len = st.length;
    vmx_skip_instruction(&done);
    return true;
}

enum msr_access_result apic_guard_x2apic_icr(struct vcpu *v, uint32_t msr, uint64_t value)
{
    if (emulate_startup_ipi(v, (uint32_t)value, (uint32_t)(value >> 32)))
        return MSR_ACCESS_DONE;
    return wrmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}
