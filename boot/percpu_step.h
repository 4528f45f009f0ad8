/* The single-step area of struct percpu (boot/percpu.h): the state the
 * #DB fast path (boot/isr.S) and the VM-exit stub (vmx/vmx_entry.S) keep
 * while Vertigo single-steps itself for the software PMU (the policy is
 * pmu/soft/pmu_step.c). The assembly reaches the fields through GS at the
 * offsets below; boot/smp.c checks them against the structure at compile
 * time. Included by C and assembly. */
#ifndef BOOT_PERCPU_STEP_H
#define BOOT_PERCPU_STEP_H

#define PERCPU_STEP_ARMED     8     /* uint32_t: #DB traps are Vertigo's steps */
#define PERCPU_STEP_EXITS     12    /* uint32_t: the VM-exit stub sets TF */
#define PERCPU_STEP_COUNT     16    /* uint64_t: steps taken on this CPU */
#define PERCPU_STEP_NEXT      24    /* uint64_t: step at which the slow path runs */
#define PERCPU_STEP_AT_EXIT   32    /* uint64_t: STEP_COUNT at the last VM exit */
#define PERCPU_STEP_EXIT_TSC  40    /* uint64_t: armed, the stub steps an exit at this TSC or later */
#define PERCPU_STEP_EXIT_READ 48    /* uint64_t: the TSC the stub read at the last VM exit */
#define PERCPU_STEP_EXIT_STEPPED 56 /* uint32_t: the stub set TF at the last VM exit */
#define PERCPU_STEP_TO_OVERFLOW 60  /* uint32_t: the run's timer deadline is such an overflow */
#define PERCPU_STEP_RIPS      64    /* uint64_t[PERCPU_STEP_RIP_COUNT]: RIP after step n */
#define PERCPU_STEP_RIP_COUNT 256   /* a power of two */
#define PERCPU_STEP_RIP_MASK  (PERCPU_STEP_RIP_COUNT - 1)

#define RFLAGS_TF_BIT         8     /* EFLAGS.TF (SDM Vol. 1, 3.4.3.3) */

#ifndef __ASSEMBLY__
#include <stdint.h>

/* At offset PERCPU_STEP_ARMED of struct percpu. */
struct percpu_step {
    uint32_t armed;             /* #DB traps are Vertigo's steps */
    uint32_t step_exits;        /* the VM-exit stub sets TF (armed, and the
                                 * stretch before the entry was stepped) */
    uint64_t count;             /* steps taken on this CPU */
    uint64_t next;              /* step at which the slow path runs */
    uint64_t at_exit;           /* count at the last VM exit */
    /* While armed, the stub also steps the exit path of an unstepped
     * stretch when the TSC it reads (exit_read) is exit_tsc or later (an
     * overflow of Vertigo's may then fall inside that path), unless the
     * run ended at its timer deadline and that deadline was the overflow
     * (to_overflow: the guest's run took it), and says whether it stepped. */
    uint64_t exit_tsc;
    uint64_t exit_read;
    uint32_t exit_stepped;
    uint32_t to_overflow;
    uint64_t rips[PERCPU_STEP_RIP_COUNT];   /* RIP after step n, at n & MASK */
};
#endif

#endif
