/* Application-processor start-up code. A SIPI starts an AP in real mode
 * at vector * 4 KiB (SDM Vol. 3A, 9.4.4 "MP Initialization Example"), so
 * this code is copied to AP_TRAMPOLINE_BASE below 1 MiB and runs there:
 * real mode -> protected mode -> long mode with the boot CPU's page tables,
 * then calls ap_entry(cpu) on the stack the boot CPU prepared. It only
 * uses absolute addresses inside the copy. */
#include "boot/ap_boot.h"

#define REL(sym) (AP_TRAMPOLINE_BASE + ((sym) - ap_trampoline_start))

    .section .rodata
    .balign 16
    .globl ap_trampoline_start, ap_trampoline_end
ap_trampoline_start:
    .code16
    cli
    cld
    xor     %ax, %ax
    mov     %ax, %ds
    lgdtl   REL(tramp_gdt_ptr)
    mov     %cr0, %eax
    or      $1, %eax
    mov     %eax, %cr0
    ljmpl   $0x18, $REL(tramp_pm32)

    .code32
tramp_pm32:
    mov     $0x10, %ax
    mov     %ax, %ds
    mov     %ax, %es
    mov     %ax, %ss
    mov     %cr4, %eax
    or      $0x20, %eax             /* PAE */
    mov     %eax, %cr4
    mov     REL(tramp_cr3), %eax
    mov     %eax, %cr3
    mov     $0xc0000080, %ecx       /* EFER.LME */
    rdmsr
    or      $0x100, %eax
    wrmsr
    mov     %cr0, %eax
    or      $0x80000000, %eax       /* PG */
    mov     %eax, %cr0
    ljmp    $0x08, $REL(tramp_lm64)

    .code64
tramp_lm64:
    mov     REL(tramp_stack), %rsp
    mov     REL(tramp_cpu), %edi
    mov     REL(tramp_entry), %rax
    xor     %ebp, %ebp
    call    *%rax
1:  hlt
    jmp     1b

    .balign 8
tramp_gdt:
    .quad 0
    .quad 0x00af9a000000ffff        /* 0x08: 64-bit code (same as Vertigo's GDT) */
    .quad 0x00cf92000000ffff        /* 0x10: data */
    .quad 0x00cf9a000000ffff        /* 0x18: 32-bit code */
tramp_gdt_ptr:
    .short 31
    .long REL(tramp_gdt)
    .balign 8
    .globl ap_tramp_cr3, ap_tramp_stack, ap_tramp_entry, ap_tramp_cpu
tramp_cr3:   .long 0
             .long 0
tramp_stack: .quad 0
tramp_entry: .quad 0
tramp_cpu:   .long 0
ap_trampoline_end:

    .globl ap_tramp_params_offset
    .set ap_tramp_params_offset, tramp_cr3 - ap_trampoline_start
