/* CPU exceptions and interrupts taken while Vertigo runs (not guest
 * exits): descriptor tables, the trap frame, and the dispatcher. */
#ifndef BOOT_TRAPS_H
#define BOOT_TRAPS_H

#include <stdbool.h>
#include <stdint.h>

/* Saved by boot/isr.S; lowest address first. */
struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector;
    uint64_t error_code;
    uint64_t rip, cs, rflags, rsp, ss;   /* pushed by the CPU */
};

#define VEC_DIVIDE_ERROR   0
#define VEC_DEBUG          1
#define VEC_NMI            2
#define VEC_BREAKPOINT     3
#define VEC_INVALID_OPCODE 6
#define VEC_DOUBLE_FAULT   8
#define VEC_GP_FAULT       13
#define VEC_PAGE_FAULT     14
#define VEC_MACHINE_CHECK  18

/* Loads this CPU's GDT (with its TSS and IST stacks) and the shared IDT.
 * `cpu` indexes the per-CPU descriptor tables. */
void traps_init_cpu(unsigned int cpu);

/* Called by boot/isr.S for every vector. Fixes up faults listed in the
 * exception table, hands NMIs to nmi_handle(), and ends the run with a
 * register dump for anything else. */
void trap_dispatch(struct trap_frame *frame);

/* NMI hook, implemented by the owner of NMIs (vmm/nmi.c). Returns after
 * handling; the NMI path must not take locks. */
void nmi_handle(struct trap_frame *frame);

/* A #DB the single-step fast path (boot/isr.S) handed on: true if it was
 * Vertigo's own step (pmu/soft/pmu_step.c), false for a real #DB. */
bool step_trap_handle(struct trap_frame *frame);

/* Prints every register of a trap frame plus control registers and a
 * frame-pointer backtrace. */
void trap_dump(const struct trap_frame *frame);

/* Host-state bases the VMCS needs (SDM Vol. 3C, 25.5 "Host-State Area"). */
uint64_t traps_tss_base(unsigned int cpu);
uint64_t traps_gdt_base(unsigned int cpu);
uint64_t traps_idt_base(void);

#endif
