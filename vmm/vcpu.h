/* Virtual CPUs and domains: the portable objects. Hardware state lives in
 * the embedded struct vcpu_vmx / struct domain_vmx that only vmx/ opens,
 * PMU state in the embedded struct vcpu_pmu that only pmu/ opens. */
#ifndef VMM_VCPU_H
#define VMM_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/smp.h"
#include "pmu/pmu_vcpu.h"
#include "vmm/domain/domain_console.h"
#include "vmm/exit_stats.h"
#include "vmm/guest/guest_orc.h"
#include "vmx/vcpu_vmx.h"

/* Guest general-purpose registers not kept in the VMCS. The order is
 * fixed: vmx/vmx_entry.S addresses the fields by offset. */
struct guest_regs {
    uint64_t rax, rcx, rdx, rbx, unused_rsp, rbp, rsi, rdi;
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
};

enum guest_verdict {
    GUEST_VERDICT_NONE,
    GUEST_VERDICT_PASS,
    GUEST_VERDICT_FAIL,
};

struct domain;
struct domain_vhw;

struct vcpu {
    unsigned int id;                /* index within the domain */
    unsigned int cpu;               /* physical CPU it runs on */
    uint32_t apic_id;               /* the guest sees the physical APIC IDs */
    struct domain *domain;
    struct guest_regs regs;
    struct exit_stats stats;
    bool stopped;                   /* no longer scheduled */
    bool waits_for_sipi;            /* an AP its domain's kernel has not started */
    uint32_t sipi_state;            /* an AP's INIT/SIPI progress (vmm/domain/smp_guest.c) */
    uint8_t sipi_vector;            /* the STARTUP IPI's vector */
    struct vcpu_pmu pmu;
    struct vcpu_vmx vmx;
};

struct domain {
    unsigned int id;
    char name[16];                  /* dom.N.name=, "domN" by default */
    unsigned int vcpu_count;
    struct vcpu vcpus[MAX_CPUS];
    bool ended;                     /* domain_end ran (several domains only) */
    bool restart_on_reboot;         /* dom.N.on_reboot=restart (vmm/domain/domain.h) */
    unsigned int restarts;          /* times it restarted so far */
    enum guest_verdict verdict;     /* reported by the guest (hypercall) */
    char verdict_text[64];
    struct guest_kernel_unwind kernel_unwind;   /* declared by the guest (HC_KERNEL_ORC) */
    struct domain_console console;  /* HC_CONSOLE_WRITE output, cut into lines */
    struct domain_vhw *vhw;         /* a Linux domain's virtual hardware
                                     * (vmm/domain/domain_vhw.h); NULL: none */
    struct domain_vmx vmx;
};

#endif
