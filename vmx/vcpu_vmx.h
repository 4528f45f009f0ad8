/* The VT-x part of a VCPU and of a domain (opaque to generic code). */
#ifndef VMX_VCPU_VMX_H
#define VMX_VCPU_VMX_H

#include <stdbool.h>
#include <stdint.h>

#include "vmx/ept.h"

struct linux_boot_state;

/* Users of the VMX-preemption timer (vmx/vmx_timer.h). */
enum vmx_timer_owner {
    VMX_TIMER_SINK,             /* EPT guard sink window */
    VMX_TIMER_PMU,              /* software PMU step / overflow point */
    VMX_TIMER_SAMPLE,           /* timer sampling (pmu/sample/sample_session.c) */
    VMX_TIMER_SLICE,            /* end of the VCPU's time slice (vmx/vmx_sched.c) */
    VMX_TIMER_VLAPIC,           /* the VCPU's virtual APIC timer (vmx/exit_vhw.c) */
    VMX_TIMER_WAKE,             /* another VCPU of the CPU wakes (vmx/vmx_sched.c) */
    VMX_TIMER_CONSOLE,          /* domains' console lines wait for the UART (vmx/vmx_run.c) */
    VMX_TIMER_OWNERS
};

/* Per-VCPU preemption-timer state (vmx/vmx_timer.c). Deadlines are
 * absolute on the VCPU's guest clock, so an exit adds its ticks once
 * instead of taking them off every owner's deadline. */
/* DR0-DR3 and DR6 while the VCPU is switched out (vmx/vcpu_debugregs.c);
 * saved is false until its first switch out. */
struct vcpu_debugregs {
    uint64_t dr[4];
    uint64_t dr6;
    bool saved;
};

/* The paths from the entry's TSC read to the exit's, each of its own
 * length (vmx/vmx_timer.c exit_path): plain; single-stepped on both sides
 * of the run (pmu/soft/pmu_step.h, each step a #DB round trip); and, with
 * single-stepping armed, up to the TSC read of the exit stub (which then
 * decides whether to step the exit path). */
#define VMX_TIMER_PATHS 3u

struct vmx_timer_state {
    uint64_t clock;                         /* guest ticks measured so far */
    uint64_t deadline[VMX_TIMER_OWNERS];    /* clock at which each owner expires;
                                             * UINT64_MAX: none */
    /* The nearest deadline of the owners other than VMX_TIMER_PMU (which
     * asks again at almost every entry, as the virtual APIC's timer does
     * in a domain with virtual hardware): kept
     * between entries, following their requests and cancels, and found
     * again only when the nearest of them moved later (others_known
     * false; vmx/vmx_timer.h). */
    uint64_t others_nearest;
    bool others_known;          /* others_nearest holds (zeroed state: not yet) */
    uint32_t loaded;            /* timer value loaded at the last entry */
    uint32_t loaded_run;        /* of it, what the guest's run may use up:
                                 * loaded less the entry's own ticks */
    uint64_t root_ticks[VMX_TIMER_PATHS];   /* smallest TSC delta minus guest
                                 * ticks seen: the entry/exit path's own ticks,
                                 * per path (vmx/vmx_timer.c exit_path) */
    uint32_t root_agreed[VMX_TIMER_PATHS];  /* measured runs since
                                 * root_ticks[i] last changed */
    uint64_t lazy_deadline;     /* lazy: the ticks to the deadline the value in
                                 * the VMCS was loaded for (if lazy_loaded) */
    bool armed;                 /* the timer ran during the last entry */
    bool measuring;             /* armed, and the exit saves its value */
    bool lazy_loaded;           /* the VMCS holds the value for lazy_deadline */
    bool lazy;                  /* armed, the value not saved: the run is its
                                 * TSC delta less root_ticks (vmx/vmx_timer.c) */
};

/* Trapping the guest's changes of privilege level (vmx/mode_trap.c). */
struct vmx_mode_traps {
    bool on;                    /* every user<->kernel change exits */
    bool halts;                 /* a HLT exits, and so does an interrupt
                                 * that wakes the halted guest (implied by on) */
    bool guest_sce;             /* EFER.SCE as the guest set it (shadowed) */
    bool iret_watch;            /* the entry set virtual-NMI blocking itself
                                 * to exit after the guest's next IRET */
    uint32_t pending_intr;      /* an interrupt taken at an exit, to inject
                                 * (VM-entry interruption info; 0: none) */
    bool interrupts_exit;       /* interrupt exiting and acknowledge-on-exit
                                 * as vmx/mode_trap.c last set them */
    bool hlt_exits;             /* HLT exiting set by vmx/mode_trap.c */
    /* statistics */
    uint64_t syscalls, sysrets, exceptions, interrupts, irets, hlts;
};

struct vcpu_vmx {
    uint64_t vmcs_pa;
    bool launched;
    uint16_t vpid;
    uint32_t pending_nmis;      /* NMIs to reflect into the guest */
    uint32_t root_nmis;         /* guest NMIs taken in root mode (NMI handler
                                 * adds, the entry path exchanges to 0) */
    uint32_t vcpu_nmis;         /* NMIs of its own virtual PMU, queued alike */
    uint32_t ipi_nmis;          /* NMI IPIs another VCPU of its domain sent it */
    uint32_t ipi_posted;        /* set after a bit of ipi_vectors: one load tells */
    uint32_t ipi_vectors[8];    /* fixed IPIs another VCPU of its domain sent it,
                                 * a bit per vector, for its virtual APIC's IRR */
    bool guest_in_nmi;          /* we injected an NMI the guest has not IRETed */
    uint64_t nmis_injected;     /* NMIs injected so far */
    uint64_t cr0_shadow;        /* the guest's view of CR0 / CR4 */
    uint64_t cr4_shadow;
    uint64_t exit_tsc;          /* TSC at the last exit */
    uint32_t exit_reason;       /* the last exit's basic reason */
    bool rip_moved;             /* the last exit's handler moved RIP past the
                                 * guest's instruction: it emulated it
                                 * (vmx_skip_instruction, SYSCALL/SYSRET) */
    uint64_t entry_tsc;         /* TSC at the last entry */
    uint64_t last_fault_page;   /* GPA page of the last kernel write we refused */
    uint32_t fault_streak;      /* kernel write faults in a row on that page */
    struct vmx_timer_state timer;
    struct vmx_mode_traps traps;
    bool asleep;                /* halted until wake_tsc or an interrupt */
    uint64_t wake_tsc;          /* TSC at which it wakes (UINT64_MAX: never) */
    uint64_t syscall_msrs[6];   /* STAR, LSTAR, CSTAR, SFMASK, KERNEL_GS_BASE,
                                 * TSC_AUX while switched out (vmx/vmx_sched.c) */
    uint64_t cr2;               /* its CR2 while switched out (vmx/vmx_sched.c) */
    struct vcpu_debugregs debugregs;    /* its DR0-DR3, DR6 while switched out */
    void *fpu_area;             /* its XSAVE state while switched out, and */
    uint64_t xcr0;              /* its XCR0 (vmx/vcpu_fpu.c) */
    uint64_t spec_ctrl;         /* its IA32_SPEC_CTRL while switched out (vmx/vcpu_spec.c) */
    bool restart;               /* starts over after this exit (vmx/vcpu_restart.h) */
    bool tsc_offsetting;        /* its VMCS has "use TSC offsetting" on
                                 * (vhw_tsc_offset_load; vmcs_setup: off) */
};

struct domain_vmx {
    struct ept ept;
    uint64_t eptp;
    uint64_t msr_bitmap_pa;
    uint64_t io_bitmap_pa;      /* two consecutive pages: A (0-0x7fff), B */
    const struct linux_boot_state *boot_state;  /* a private domain's start state */
    uint64_t ram_hpa;           /* a private domain's RAM: guest-physical [0, ram_bytes) */
    uint64_t ram_bytes;         /* ... at host-physical ram_hpa (0 for domain 0) */
};

#endif
