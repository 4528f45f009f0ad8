/* INIT/SIPI emulation for a guest's APs (see vmm/domain/smp_guest.h). */
#include "vmm/domain/smp_guest.h"

#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_private.h"
#include "lib/mem.h"
#include "boot/start.h"
#include "vmm/vmx_hooks.h"

enum ap_state {
    AP_IDLE,            /* no VCPU yet, or not INITed */
    AP_WAIT_SIPI,       /* the guest sent INIT */
    AP_STARTING,        /* the guest sent SIPI: enter it */
    AP_RUNNING,
};

struct ap_mailbox {
    volatile uint32_t state;
    struct vcpu *vcpu;
    uint8_t vector;
};

static struct ap_mailbox mailbox[MAX_CPUS];

void vcpu_ap_assign(struct vcpu *v)
{
    mailbox[v->cpu].vcpu = v;
}

void vcpu_sipi_state(uint8_t vector, struct linux_boot_state *st)
{
    static const struct linux_boot_segment data = { 0, 0, 0xffff, 0x93 };
    memset(st, 0, sizeof(*st));
    st->cs = (struct linux_boot_segment){ (uint16_t)(vector << 8), (uint64_t)vector << 12,
                                          0xffff, 0x9b };
    st->ds = st->es = st->ss = st->fs = st->gs = data;
    st->tr = (struct linux_boot_segment){ 0, 0, 0xffff, 0x8b };
    st->ldtr = (struct linux_boot_segment){ 0, 0, 0xffff, 0x10082 };  /* unusable */
    st->gdt_limit = 0xffff;
    st->idt_limit = 0xffff;
    st->cr0 = CR0_ET;
    st->rflags = 0x2;
}

static struct vcpu *vcpu_by_apic(struct domain *d, uint32_t apic_id)
{
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        if (d->vcpus[i].apic_id == apic_id)
            return &d->vcpus[i];
    return NULL;
}

void vcpu_signal_init(struct domain *d, uint32_t apic_id)
{
    struct vcpu *v = vcpu_by_apic(d, apic_id);
    if (!v || v->id == 0)
        return;
    struct ap_mailbox *m = &mailbox[v->cpu];
    if (m->state == AP_IDLE)
        __atomic_store_n(&m->state, AP_WAIT_SIPI, __ATOMIC_RELEASE);
}

void vcpu_signal_sipi(struct domain *d, uint32_t apic_id, uint8_t vector)
{
    struct vcpu *v = vcpu_by_apic(d, apic_id);
    if (!v || v->id == 0)
        return;
    struct ap_mailbox *m = &mailbox[v->cpu];
    if (m->state != AP_WAIT_SIPI)
        return;     /* a second SIPI, or one without INIT: ignored like hardware */
    m->vector = vector;
    __atomic_store_n(&m->state, AP_STARTING, __ATOMIC_RELEASE);
}

static bool domains_may_run;

void vcpu_aps_may_run_domains(void)
{
    __atomic_store_n(&domains_may_run, true, __ATOMIC_RELEASE);
}

bool vcpu_ap_sipi_taken(unsigned int cpu, struct linux_boot_state *st)
{
    struct ap_mailbox *m = &mailbox[cpu];
    if (__atomic_load_n(&m->state, __ATOMIC_ACQUIRE) != AP_STARTING)
        return false;
    m->state = AP_RUNNING;
    vcpu_sipi_state(m->vector, st);
    m->vcpu->waits_for_sipi = false;
    printk("smp: CPU %u starts VCPU %u at %#x:0000 (SIPI vector %#x)\n", cpu, m->vcpu->id,
           m->vector << 8, m->vector);
    return true;
}

/* Another domain's first VCPU on this CPU, once it may run. */
static struct vcpu *other_domain(unsigned int cpu)
{
    if (!__atomic_load_n(&domains_may_run, __ATOMIC_ACQUIRE))
        return NULL;
    return domains_first_vcpu(cpu);
}

__attribute__((noreturn)) void vcpu_ap_idle(unsigned int cpu)
{
    struct linux_boot_state st;
    struct vcpu *other = NULL;

    while (!vcpu_ap_sipi_taken(cpu, &st) && !(other = other_domain(cpu)))
        cpu_relax();
    struct vcpu *v = other ? other : mailbox[cpu].vcpu;
    if (!vmx_cpu_enable())
        domain_end(v->domain, GUEST_END_ERROR, "VMXON failed on an AP");
    vmx_vcpu_run(v, other ? other->domain->vmx.boot_state : &st);
}
