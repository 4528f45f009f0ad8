/* Offsets of the single-step fields of struct percpu (boot/percpu.h), for
 * the assembly that reaches them through GS: the #DB fast path
 * (boot/isr.S) and the VM-exit stub (vmx/vmx_entry.S). boot/smp.c checks
 * them against the structure at compile time. Included by C and assembly. */
#ifndef BOOT_PERCPU_STEP_H
#define BOOT_PERCPU_STEP_H

#define PERCPU_STEP_ARMED     8     /* uint32_t: #DB traps are Vertigo's steps */
#define PERCPU_STEP_COUNT     16    /* uint64_t: steps taken on this CPU */
#define PERCPU_STEP_NEXT      24    /* uint64_t: step at which the slow path runs */
#define PERCPU_STEP_AT_EXIT   32    /* uint64_t: STEP_COUNT at the last VM exit */
#define PERCPU_STEP_RIPS      40    /* uint64_t[PERCPU_STEP_RIP_COUNT]: RIP after step n */
#define PERCPU_STEP_RIP_COUNT 256   /* a power of two */
#define PERCPU_STEP_RIP_MASK  (PERCPU_STEP_RIP_COUNT - 1)

#define RFLAGS_TF_BIT         8     /* EFLAGS.TF (SDM Vol. 1, 3.4.3.3) */

#endif
