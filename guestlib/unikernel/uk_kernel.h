/* The unikernel runtime's CPL-0 side: what crt0.S and the C files that run
 * in kernel mode share (start, descriptor tables, page tables, traps,
 * system calls, console). Compiled without SSE (-mgeneral-regs-only) so the
 * kernel side never touches the program's vector registers. */
#ifndef GUESTLIB_UNIKERNEL_UK_KERNEL_H
#define GUESTLIB_UNIKERNEL_UK_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "include/vertigo/unikernel.h"
#include "guestlib/unikernel/uk_abi.h"
#include "guestlib/unikernel/uk_selectors.h"
#include "include/vertigo/hypercall.h"

/* Registers pushed by crt0.S's trap and system-call entries, lowest
 * address first, then what the CPU pushed. */
struct uk_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss;
};

/* crt0.S */
void uk_enter_user(uint64_t rip, uint64_t rsp) __attribute__((noreturn));
void uk_load_gdt(const void *gdtr, uint16_t tss_selector);
extern const uint64_t uk_trap_entries[32];   /* address of each vector's stub */
void uk_syscall_entry(void);
extern uint8_t uk_kernel_stack_top[], uk_fault_stack_top[];

/* uk_desc.c: GDT with user segments and the TSS, IDT (exceptions, 0x80). */
void uk_desc_init(void);

/* uk_paging.c: identity map of [2 MiB, mem) with user-accessible pages.
 * 0, or a reason when mem cannot be mapped. */
const char *uk_paging_init(uint64_t mem_bytes);
/* Maps the 2 MiB page at guest-physical `addr` (2 MiB-aligned, below the
 * runtime's 4 GiB map) for user mode at the same virtual address. */
void uk_paging_map_large(uint64_t addr);

/* uk_console.c: kernel-mode console output by hypercall. */
void uk_console_write(const char *s, size_t len);
void uk_console_puts(const char *s);
void uk_console_hex(uint64_t v);
void uk_console_dec(uint64_t v);

/* uk_end.c: the domain's verdict, then power off. */
void uk_end(int pass, const char *reason) __attribute__((noreturn));

/* uk_trap.c, called by crt0.S: ends the domain, except for a fault of a
 * probe (uk_probe.c), where it returns to resume the probe. */
void uk_trap(struct uk_frame *f);

/* uk_probe.c: UK_SYS_PROBE. A fault at CPL 0 while uk_probe_resume is set
 * resumes there with uk_probe_fault = vector + 1. */
extern volatile uint64_t uk_probe_resume, uk_probe_fault;
int64_t uk_probe(uint64_t kind, uint64_t a, uint64_t b);
/* uk_syscall.c, called by crt0.S: RAX = uk_syscall(RAX, RDI, RSI, RDX). */
int64_t uk_syscall(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2);

#endif
