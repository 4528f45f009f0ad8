/* The unikernel runtime's entry and its assembly parts (CPL 0): the boot
 * stack, loading the GDT and TSS, the exception stubs, the INT 0x80 system
 * call gate and the IRETQ into the program at CPL 3. See uk_kernel.h. */

#include "guestlib/unikernel/uk_selectors.h"

    .section .text.boot, "ax"
    .globl _start
/* Vertigo enters here at CPL 0 with RSP = 0 and RDI = the start-info page. */
_start:
    cli
    lea     uk_kernel_stack_top(%rip), %rsp
    xor     %ebp, %ebp
    call    uk_start            /* does not return */
1:  hlt
    jmp     1b

    .text
/* void uk_load_gdt(const void *gdtr, uint16_t tss_selector): LGDT, reload
 * CS with a far return and the data segments, then LTR. */
    .globl uk_load_gdt
uk_load_gdt:
    lgdt    (%rdi)
    pushq   $UK_KERNEL_CS
    lea     1f(%rip), %rax
    pushq   %rax
    lretq
1:  mov     $UK_KERNEL_DS, %eax
    mov     %eax, %ds
    mov     %eax, %es
    mov     %eax, %ss
    xor     %eax, %eax
    mov     %eax, %fs
    mov     %eax, %gs
    ltr     %si
    ret

/* void uk_enter_user(uint64_t rip, uint64_t rsp): IRETQ to CPL 3 with
 * interrupts off (there are none to take) and IOPL 0. */
    .globl uk_enter_user
uk_enter_user:
    mov     $UK_USER_DS, %eax
    mov     %eax, %ds
    mov     %eax, %es
    pushq   $UK_USER_DS
    pushq   %rsi
    pushq   $0x2
    pushq   $UK_USER_CS
    pushq   %rdi
    xor     %eax, %eax
    xor     %esi, %esi
    xor     %edi, %edi
    iretq

/* Saves the general registers in struct uk_frame order (RAX at the top). */
.macro SAVE_REGS
    push    %rax
    push    %rbx
    push    %rcx
    push    %rdx
    push    %rsi
    push    %rdi
    push    %rbp
    push    %r8
    push    %r9
    push    %r10
    push    %r11
    push    %r12
    push    %r13
    push    %r14
    push    %r15
.endm

/* Exception stubs: the CPU pushes an error code for vectors 8, 10-14, 17,
 * 21, 29 and 30; the others push 0 in its place. */
.macro TRAP vector
    .p2align 4
uk_trap_\vector:
    .if (\vector == 8) || (\vector >= 10 && \vector <= 14) || (\vector == 17) || \
        (\vector == 21) || (\vector == 29) || (\vector == 30)
    .else
    pushq   $0
    .endif
    pushq   $\vector
    jmp     uk_trap_common
.endm

    .irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    TRAP \v
    .endr

uk_trap_common:
    SAVE_REGS
    mov     %rsp, %rdi
    mov     %rsp, %rbx          /* the frame (RBX is restored from it) */
    and     $-16, %rsp
    call    uk_trap             /* returns only for a probe's fault */
    mov     %rbx, %rsp
    pop     %r15
    pop     %r14
    pop     %r13
    pop     %r12
    pop     %r11
    pop     %r10
    pop     %r9
    pop     %r8
    pop     %rbp
    pop     %rdi
    pop     %rsi
    pop     %rdx
    pop     %rcx
    pop     %rbx
    pop     %rax
    add     $16, %rsp           /* vector and error code */
    iretq

/* INT 0x80 from the program: RAX = uk_syscall(RAX, RDI, RSI, RDX); every
 * other register as it was. Runs on the TSS's RSP0 stack. */
    .globl uk_syscall_entry
uk_syscall_entry:
    push    %rbx
    push    %rcx
    push    %rdx
    push    %rsi
    push    %rdi
    push    %r8
    push    %r9
    push    %r10
    push    %r11
    mov     %rdx, %rcx
    mov     %rsi, %rdx
    mov     %rdi, %rsi
    mov     %rax, %rdi
    call    uk_syscall
    pop     %r11
    pop     %r10
    pop     %r9
    pop     %r8
    pop     %rdi
    pop     %rsi
    pop     %rdx
    pop     %rcx
    pop     %rbx
    iretq

    .section .rodata
    .p2align 3
    .globl uk_trap_entries
uk_trap_entries:
    .irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .quad uk_trap_\v
    .endr

    .bss
    .p2align 12
    .space 16384
    .globl uk_kernel_stack_top
uk_kernel_stack_top:
    .space 4096
    .globl uk_fault_stack_top
uk_fault_stack_top:

    .section .note.GNU-stack, "", @progbits
