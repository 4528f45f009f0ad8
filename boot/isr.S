/* Interrupt and exception entry stubs. Each stub pushes a dummy error code
 * when the CPU does not push one (SDM Vol. 3A, 7.3 "Sources of Interrupts",
 * table 7-1), then its vector, then trap_common saves the general registers
 * in the layout of struct trap_frame (boot/traps.h) and calls
 * trap_dispatch(frame). */
#include "boot/percpu_step.h"

    .text
    .code64

.macro ISR_NOERR vec
    .globl isr_\vec
isr_\vec:
    pushq   $0
    pushq   $\vec
    jmp     trap_common
.endm

.macro ISR_ERR vec
    .globl isr_\vec
isr_\vec:
    pushq   $\vec
    jmp     trap_common
.endm

ISR_NOERR 0
ISR_NOERR 2
ISR_NOERR 3
ISR_NOERR 4
ISR_NOERR 5
ISR_NOERR 6
ISR_NOERR 7
ISR_ERR   8
ISR_NOERR 9
ISR_ERR   10
ISR_ERR   11
ISR_ERR   12
ISR_ERR   13
ISR_ERR   14
ISR_NOERR 15
ISR_NOERR 16
ISR_ERR   17
ISR_NOERR 18
ISR_NOERR 19
ISR_NOERR 20
ISR_ERR   21
ISR_NOERR 22
ISR_NOERR 23
ISR_NOERR 24
ISR_NOERR 25
ISR_NOERR 26
ISR_NOERR 27
ISR_NOERR 28
ISR_ERR   29
ISR_ERR   30
ISR_NOERR 31
/* #DB. While this CPU single-steps Vertigo for the software PMU
 * (pmu/soft/pmu_step.c) each trap is one retired instruction (single-step
 * traps come after the instruction, SDM Vol. 3B 18.3.1.4): count it, keep
 * the RIP it returns to in the ring and return, unless the count reached
 * step_next, where the C slow path takes the overflow. Anything else is a
 * real #DB for trap_dispatch. Interrupt-gate delivery clears TF and IRETQ
 * restores it (SDM Vol. 3A 7.12.1.3). */
    .globl isr_1
isr_1:
    cmpl    $0, %gs:PERCPU_STEP_ARMED
    je      .Ldebug_trap
    pushq   %rax
    pushq   %rbx
    movq    %gs:PERCPU_STEP_COUNT, %rax
    incq    %rax
    movq    %rax, %gs:PERCPU_STEP_COUNT
    movq    16(%rsp), %rbx          /* the RIP the trap returns to */
    pushq   %rax
    andl    $PERCPU_STEP_RIP_MASK, %eax
    movq    %rbx, %gs:PERCPU_STEP_RIPS(,%rax,8)
    popq    %rax
    cmpq    %gs:PERCPU_STEP_NEXT, %rax
    popq    %rbx
    popq    %rax                    /* POP leaves the flags alone */
    jae     .Ldebug_trap
    iretq
.Ldebug_trap:
    pushq   $0
    pushq   $1
    jmp     trap_common

/* Spurious/unexpected external vectors share one stub. */
ISR_NOERR 255

trap_common:
    pushq   %rax
    pushq   %rbx
    pushq   %rcx
    pushq   %rdx
    pushq   %rsi
    pushq   %rdi
    pushq   %rbp
    pushq   %r8
    pushq   %r9
    pushq   %r10
    pushq   %r11
    pushq   %r12
    pushq   %r13
    pushq   %r14
    pushq   %r15
    cld
    mov     %rsp, %rdi
    call    trap_dispatch
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %r11
    popq    %r10
    popq    %r9
    popq    %r8
    popq    %rbp
    popq    %rdi
    popq    %rsi
    popq    %rdx
    popq    %rcx
    popq    %rbx
    popq    %rax
    add     $16, %rsp               /* vector and error code */
    iretq

    .section .rodata
    .balign 8
    .globl isr_table
isr_table:
    .quad isr_0, isr_1, isr_2, isr_3, isr_4, isr_5, isr_6, isr_7
    .quad isr_8, isr_9, isr_10, isr_11, isr_12, isr_13, isr_14, isr_15
    .quad isr_16, isr_17, isr_18, isr_19, isr_20, isr_21, isr_22, isr_23
    .quad isr_24, isr_25, isr_26, isr_27, isr_28, isr_29, isr_30, isr_31
    .globl isr_spurious
isr_spurious:
    .quad isr_255
