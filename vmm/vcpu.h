/* Virtual CPUs and domains: the portable objects. Hardware state lives in
 * the embedded struct vcpu_vmx / struct domain_vmx that only vmx/ opens. */
#ifndef VMM_VCPU_H
#define VMM_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/smp.h"
#include "pmu/pmu.h"
#include "vmm/exit_stats.h"
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

/* A VCPU's PMU state (vmx/vmx_pmu.c wires it to the exit loop): what it
 * counts, its software events, and the backend of the CPU it runs on. */
struct vcpu_pmu {
    struct pmu_ctx ctx;
    struct swevent_counts sw;       /* counted on every exit, session or not */
    struct pmu_backend be;          /* ops NULL: no session on this VCPU */
    bool counting;                  /* a session runs on this VCPU */
    bool entered_halted;            /* the last entry resumed a halted guest */
    uint8_t exit_cpl;               /* guest CPL at the last exit */
    uint64_t user_step_ticks;       /* software step while in user mode */
    uint64_t halted_ticks;          /* guest ticks not counted: the VCPU was halted */
    uint64_t overflows;             /* overflows detected */
    /* Sampling session (vmx/sample.c) */
    unsigned int count_events;      /* ctx events of the counting session (pmu.events) */
    uint32_t sample_mask;           /* bit i: ctx counter i samples on overflow */
    uint32_t sample_generation;     /* session generation applied to this VCPU */
    uint32_t stack_depth;           /* return addresses per sample */
    uint64_t timer_ticks;           /* timer sampling: guest ticks per sample, 0: off */
};

struct vcpu {
    unsigned int id;                /* index within the domain */
    unsigned int cpu;               /* physical CPU it runs on */
    uint32_t apic_id;               /* the guest sees the physical APIC IDs */
    struct domain *domain;
    struct guest_regs regs;
    struct exit_stats stats;
    bool stopped;                   /* no longer scheduled */
    struct vcpu_pmu pmu;
    struct vcpu_vmx vmx;
};

struct domain {
    unsigned int id;
    unsigned int vcpu_count;
    struct vcpu vcpus[MAX_CPUS];
    enum guest_verdict verdict;     /* reported by the guest (hypercall) */
    char verdict_text[64];
    struct domain_vmx vmx;
};

#endif
