/* Trapped APIC writes (see vmx/apic_guard.h). */
#include "vmx/apic_guard.h"

#include "boot/apic.h"
#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/vhw/mmio_decode.h"
#include "vmm/page_alloc.h"
#include "vmm/domain/smp_guest.h"
#include "vmx/apic_store_cache.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"

#define MAX_INSN 15
/* LVT entry bits software writes (SDM Vol. 3A 11.5.1): vector 7:0,
 * delivery mode 10:8, mask 16; bit 12 (delivery status) is read-only. */
#define LVT_WRITABLE        0x000107ffu
#define LVT_DELIVERY_STATUS 0x00001000u

/* LVTPC per VCPU (index: VCPU id; one domain, VCPUs never migrate). */
static struct lvtpc_guard {
    bool owned;                 /* Vertigo's PMI uses this CPU's LVTPC */
    bool shadow_valid;          /* shadow holds the guest's view */
    uint32_t shadow;            /* the guest's LVTPC value */
    uint32_t vertigo_value;     /* what Vertigo keeps in the real LVTPC */
} lvtpc_guards[MAX_CPUS];

static struct lvtpc_guard *lvtpc_of(const struct vcpu *v)
{
    return &lvtpc_guards[v->id % MAX_CPUS];
}

void apic_guard_lvtpc_claim(struct vcpu *v, uint32_t vertigo_value)
{
    struct lvtpc_guard *g = lvtpc_of(v);
    if (!g->shadow_valid) {
        g->shadow = apic_read_lvtpc() & LVT_WRITABLE;
        g->shadow_valid = true;
    }
    g->vertigo_value = vertigo_value;
    __atomic_store_n(&g->owned, true, __ATOMIC_RELEASE);
}

bool apic_guard_lvtpc_owned(const struct vcpu *v)
{
    return __atomic_load_n(&lvtpc_of(v)->owned, __ATOMIC_ACQUIRE);
}

uint32_t apic_guard_lvtpc_shadow(const struct vcpu *v)
{
    const struct lvtpc_guard *g = lvtpc_of(v);
    return g->shadow_valid ? g->shadow : apic_read_lvtpc() & LVT_WRITABLE;
}

static void lvtpc_record(struct vcpu *v, uint32_t value)
{
    struct lvtpc_guard *g = lvtpc_of(v);
    g->shadow = value & LVT_WRITABLE;
    g->shadow_valid = true;
}

/* A guest xAPIC LVTPC write: the APIC's while Vertigo has not claimed it,
 * the shadow's in any case. */
static void lvtpc_guest_write(struct vcpu *v, uint32_t value)
{
    lvtpc_record(v, value);
    if (!lvtpc_of(v)->owned)
        apic_write_lvtpc(value);
}

void apic_guard_lvtpc_guest_set(struct vcpu *v, uint32_t value)
{
    lvtpc_guest_write(v, value);
}

/* After a guest SVR write: software-disabling the APIC sets every LVT
 * mask bit, and re-enabling it leaves them set (SDM Vol. 3A 11.4.7.2), so
 * Vertigo's LVTPC is written again (ignored while the APIC is disabled). */
static void lvtpc_after_svr(struct vcpu *v)
{
    const struct lvtpc_guard *g = lvtpc_of(v);
    if (g->owned)
        apic_write_lvtpc(g->vertigo_value);
}

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

static void xapic_write(struct vcpu *v, uint64_t base, uint32_t offset, uint32_t value)
{
    switch (offset) {
    case XAPIC_REG_ICR_LOW: {
        uint32_t dest = *(volatile uint32_t *)(base + XAPIC_REG_ICR_HIGH) >> 24;
        if (!emulate_startup_ipi(v, value, dest))
            apic_write_xapic(offset, value);
        return;
    }
    case XAPIC_REG_LVT_PMI:
        lvtpc_guest_write(v, value);
        return;
    case XAPIC_REG_SVR:
        apic_write_xapic(offset, value);
        lvtpc_after_svr(v);
        return;
    default:
        apic_write_xapic(offset, value);
    }
}

/* The store at the exit's RIP: remembered (vmx/apic_store_cache.h) if it
 * still holds, else fetched and decoded, and remembered. */
static void decode_apic_store(struct vcpu *v, const struct vmx_exit *e, struct mmio_store *st)
{
    uint64_t cr0 = vmcs_read(VMCS_GUEST_CR0), cr3 = vmcs_read(VMCS_GUEST_CR3);
    if (apic_store_cache_find(v, e->rip, cr0, cr3, vmcs_read(VMCS_GUEST_CR4), st))
        return;
    uint8_t insn[MAX_INSN];
    struct guest_page_proof proof;
    bool proved;
    size_t n = guest_virt_fetch_proved(v, e->rip, insn, MAX_INSN, &proof, &proved);
    if (!mmio_decode_store(insn, n, st)) {
        printk("apic: vcpu %u: cannot decode the APIC write at rip %#lx\n", v->id, e->rip);
        vmx_dump_guest(v, e);
        domain_end(v->domain, GUEST_END_ERROR, "undecodable APIC write");
    }
    if (proved)
        apic_store_cache_add(v, e->rip, &proof, insn, st);
}

bool apic_guard_ept_write(struct vcpu *v, const struct vmx_exit *e, uint64_t gpa)
{
    uint64_t base = apic_mmio_base();
    if (gpa < base || gpa >= base + PAGE_SIZE || !(e->qualification & EPT_QUAL_WRITE))
        return false;

    struct mmio_store st;
    decode_apic_store(v, e, &st);
    uint32_t value = st.from_register ? (uint32_t)vmx_gpr_read(v, st.reg) : st.immediate;
    xapic_write(v, base, (uint32_t)(gpa - base), value);
    struct vmx_exit done = *e;
    done.instruction_len = st.length;
    vmx_skip_instruction(v, &done);
    return true;
}

enum msr_access_result apic_guard_x2apic_icr(struct vcpu *v, uint32_t msr, uint64_t value)
{
    if (emulate_startup_ipi(v, (uint32_t)value, (uint32_t)(value >> 32)))
        return MSR_ACCESS_DONE;
    return wrmsr_safe(msr, value) == 0 ? MSR_ACCESS_DONE : MSR_ACCESS_GP;
}

/* x2APIC mode: the MSR #GPs outside x2APIC mode and for reserved bits
 * (SDM Vol. 3A 11.12.1.3), as the hardware would. */
enum msr_access_result apic_guard_x2apic_lvtpc(struct vcpu *v, uint32_t msr, uint64_t value)
{
    if (!apic_guard_lvtpc_owned(v)) {
        if (wrmsr_safe(msr, value) != 0)
            return MSR_ACCESS_GP;
    } else if (!apic_x2apic_mode() ||
               (value & ~(uint64_t)(LVT_WRITABLE | LVT_DELIVERY_STATUS))) {
        return MSR_ACCESS_GP;
    }
    lvtpc_record(v, (uint32_t)value);
    return MSR_ACCESS_DONE;
}

enum msr_access_result apic_guard_x2apic_svr(struct vcpu *v, uint32_t msr, uint64_t value)
{
    if (wrmsr_safe(msr, value) != 0)
        return MSR_ACCESS_GP;
    lvtpc_after_svr(v);
    return MSR_ACCESS_DONE;
}
