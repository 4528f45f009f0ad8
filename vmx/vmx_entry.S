/* VM entry and exit (SDM Vol. 3C, 27 "VM Entries" and 28 "VM Exits").
 *
 * int vmx_enter_guest(struct guest_regs *regs, int launched, uint64_t *entry_tsc)
 *   Saves the callee-saved registers, records RSP as the VMCS host RSP,
 *   writes the entry's TSC to *entry_tsc, loads the guest's general
 *   registers from *regs and executes
 *   VMLAUNCH (launched == 0) or VMRESUME. On a VM exit the processor
 *   jumps to vmx_exit_point with RSP = host RSP; the guest registers are
 *   stored back into *regs and the function returns 0. If the entry
 *   instruction itself fails it returns 1 (VMfailInvalid) or 2
 *   (VMfailValid, reason in the VM-instruction error field).
 * Single-stepping (pmu/soft/pmu_step.c): TF is cleared before the entry
 * (the guest's RFLAGS come from the VMCS; Vertigo's steps end here), and
 * the exit sets it again first thing when the stretch before the entry was
 * stepped (the step area's step_exits; VM exit clears RFLAGS, SDM Vol. 3C
 * 28.5.3), so every instruction Vertigo runs between the two is counted,
 * or, while stepping is armed, when the exit's TSC is at or past the step
 * area's exit_tsc (the run ended close enough to an overflow of a counter
 * that counts Vertigo for it to fall in the exit path) and the run did not
 * end at its timer deadline where that deadline was the overflow (the step
 * area's to_overflow: the guest's run took it). The TSC read comes before
 * any branch but the armed test, so the path up to it is the same length
 * at every armed exit (vmx/vmx_timer.c measures armed runs up to it); an
 * unarmed exit runs the stub's first four instructions only, as it did
 * before the TSC read was added: with several Bochs CPUs the TSC moves by
 * whole round-robin turns, and pmu.sh's two-CPU check that
 * instructions:ukh equals the guest's TSC difference failed in two CI runs
 * of three while that path was three instructions longer. POPFQ that
 * sets TF traps only after the next instruction (SDM Vol. 3B 18.3.1.4).
 * The layout of struct guest_regs (vmm/vcpu.h) is fixed: rax rcx rdx rbx
 * (rsp slot unused) rbp rsi rdi r8..r15, 8 bytes each. */
#include "boot/percpu_step.h"

#define VMCS_HOST_RSP 0x6c14
#define VMCS_EXIT_REASON 0x4402
#define EXIT_PREEMPTION_TIMER 52    /* basic exit reason (SDM Vol. 3D, Appendix C) */
#define RFLAGS_TF     (1 << RFLAGS_TF_BIT)

#define R_RAX 0
#define R_RCX 8
#define R_RDX 16
#define R_RBX 24
#define R_RBP 40
#define R_RSI 48
#define R_RDI 56
#define R_R8  64
#define R_R9  72
#define R_R10 80
#define R_R11 88
#define R_R12 96
#define R_R13 104
#define R_R14 112
#define R_R15 120

    .text
    .code64
    .globl vmx_enter_guest
vmx_enter_guest:
    push    %rbp
    push    %rbx
    push    %r12
    push    %r13
    push    %r14
    push    %r15
    push    %rdi                    /* regs pointer, found again at exit */

    mov     $VMCS_HOST_RSP, %rax
    vmwrite %rsp, %rax
    jbe     .Lwrite_failed

    pushfq                          /* no single-stepping into the guest */
    andq    $~RFLAGS_TF, (%rsp)
    popfq
    /* The entry's TSC, read after the last step: the #DB slow path, which
     * writes a sample of Vertigo at an overflow's step, never runs inside
     * the run the timer measures from here (vmx/vmx_timer.c), where its
     * instructions would count as the guest's. */
    mov     %rdx, %rcx
    rdtsc
    shlq    $32, %rdx
    orq     %rdx, %rax
    movq    %rax, (%rcx)

    mov     %esi, %eax              /* launched? keep it in flags below */
    mov     %rdi, %rsi              /* rsi = regs while loading */
    test    %eax, %eax
    mov     R_RAX(%rsi), %rax
    mov     R_RCX(%rsi), %rcx
    mov     R_RDX(%rsi), %rdx
    mov     R_RBX(%rsi), %rbx
    mov     R_RBP(%rsi), %rbp
    mov     R_RDI(%rsi), %rdi
    mov     R_R8(%rsi), %r8
    mov     R_R9(%rsi), %r9
    mov     R_R10(%rsi), %r10
    mov     R_R11(%rsi), %r11
    mov     R_R12(%rsi), %r12
    mov     R_R13(%rsi), %r13
    mov     R_R14(%rsi), %r14
    mov     R_R15(%rsi), %r15
    mov     R_RSI(%rsi), %rsi       /* last: mov does not change flags */
    jnz     .Lresume
    vmlaunch
    jmp     .Lentry_failed
.Lresume:
    vmresume
.Lentry_failed:
    /* Only reached when VMLAUNCH/VMRESUME failed: CF or ZF says how. */
    mov     $1, %eax
    mov     $2, %ecx
    cmovz   %ecx, %eax
    jmp     .Lreturn
.Lwrite_failed:
    mov     $1, %eax
    mov     $2, %ecx
    cmovz   %ecx, %eax
.Lreturn:
    add     $8, %rsp                /* drop the regs pointer */
    pop     %r15
    pop     %r14
    pop     %r13
    pop     %r12
    pop     %rbx
    pop     %rbp
    ret

    .globl vmx_exit_point
vmx_exit_point:
    /* RSP = host RSP: the regs pointer is on top of the stack. */
    push    %rdi
    mov     8(%rsp), %rdi
    mov     %rax, R_RAX(%rdi)
    mov     %rcx, R_RCX(%rdi)
    mov     %rdx, R_RDX(%rdi)
    mov     %rbx, R_RBX(%rdi)
    mov     %rbp, R_RBP(%rdi)
    mov     %rsi, R_RSI(%rdi)
    mov     %r8, R_R8(%rdi)
    mov     %r9, R_R9(%rdi)
    mov     %r10, R_R10(%rdi)
    mov     %r11, R_R11(%rdi)
    mov     %r12, R_R12(%rdi)
    mov     %r13, R_R13(%rdi)
    mov     %r14, R_R14(%rdi)
    mov     %r15, R_R15(%rdi)
    pop     %rax                    /* the guest's rdi */
    mov     %rax, R_RDI(%rdi)
    movq    %gs:PERCPU_STEP_COUNT, %rax
    movq    %rax, %gs:PERCPU_STEP_AT_EXIT
    cmpl    $0, %gs:PERCPU_STEP_ARMED  /* unarmed: 4 instructions, as before */
    je      .Lexit_done
    movl    $0, %gs:PERCPU_STEP_EXIT_STEPPED
    cmpl    $0, %gs:PERCPU_STEP_EXITS
    jne     .Lstep_exit
    rdtsc                           /* the run came near an overflow? */
    shlq    $32, %rdx
    orq     %rdx, %rax
    movq    %rax, %gs:PERCPU_STEP_EXIT_READ
    cmpq    %gs:PERCPU_STEP_EXIT_TSC, %rax
    jb      .Lexit_done
    cmpl    $0, %gs:PERCPU_STEP_TO_OVERFLOW
    je      .Lstep_exit
    mov     $VMCS_EXIT_REASON, %eax /* the run reached the overflow? */
    vmread  %rax, %rax
    cmpw    $EXIT_PREEMPTION_TIMER, %ax
    je      .Lexit_done
.Lstep_exit:
    movl    $1, %gs:PERCPU_STEP_EXIT_STEPPED
    movq    $-1, %gs:PERCPU_STEP_NEXT  /* replayed from the ring at sync */
    pushfq
    orq     $RFLAGS_TF, (%rsp)
    popfq
.Lexit_done:
    xor     %eax, %eax
    jmp     .Lreturn
