/* 32-bit entry from a multiboot2 loader, and the switch to long mode.
 *
 * Machine state at entry (Multiboot2 spec, 3.3 "I386 machine state"):
 * protected mode, paging off, EAX = 0x36d76289, EBX = physical address of
 * the boot information, interrupts off, no usable stack.
 *
 * We check the magic, clear .bss, check for long mode, identity-map the
 * first 4 GiB with 2 MiB pages, enable PAE + EFER.LME + paging (SDM Vol. 3A,
 * 10.8.5 "Initializing IA-32e Mode") and jump to 64-bit code, which calls
 * boot_main(magic, info_phys) on a clean stack. */
#include "boot/layout.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289
#define MSR_EFER   0xc0000080
#define EFER_LME   (1 << 8)
#define CR0_PE_PG  0x80000001
#define CR4_PAE    (1 << 5)
#define PTE_P_RW   0x3
#define PDE_2M     0x83          /* present, writable, page size */

    .section .text.boot32, "ax"
    .code32
    .globl boot_entry32
boot_entry32:
    cli
    cld
    mov     %eax, %esi              /* magic */
    mov     %ebx, %ebp              /* info */

    /* Clear .bss (our stacks and page tables live there). */
    mov     $__bss_start, %edi
    mov     $__bss_end, %ecx
    sub     %edi, %ecx
    shr     $2, %ecx
    xor     %eax, %eax
    rep stosl

    mov     $boot_stack_top, %esp

    cmp     $MB2_BOOTLOADER_MAGIC, %esi
    jne     .Lnot_multiboot2

    /* Long mode support: CPUID 0x80000001 EDX bit 29. */
    mov     $0x80000000, %eax
    cpuid
    cmp     $0x80000001, %eax
    jb      .Lno_long_mode
    mov     $0x80000001, %eax
    cpuid
    bt      $29, %edx
    jnc     .Lno_long_mode

    /* PML4[0] -> PDPT; PDPT[0..3] -> four page directories of 2 MiB pages. */
    mov     $boot_pdpt, %eax
    or      $PTE_P_RW, %eax
    mov     %eax, boot_pml4
    xor     %ecx, %ecx
1:  mov     %ecx, %eax
    shl     $12, %eax
    add     $boot_pd, %eax
    or      $PTE_P_RW, %eax
    mov     %eax, boot_pdpt(, %ecx, 8)
    inc     %ecx
    cmp     $4, %ecx
    jne     1b

    xor     %ecx, %ecx              /* entry index 0..2047 */
2:  mov     %ecx, %eax
    shl     $21, %eax               /* low 32 bits of the 2 MiB frame */
    or      $PDE_2M, %eax
    mov     %ecx, %edx
    shr     $11, %edx               /* high bits: entries >= 2048 would be >= 4 GiB */
    mov     %eax, boot_pd(, %ecx, 8)
    mov     %edx, boot_pd+4(, %ecx, 8)
    inc     %ecx
    cmp     $2048, %ecx
    jne     2b

    mov     %cr4, %eax
    or      $CR4_PAE, %eax
    mov     %eax, %cr4
    mov     $boot_pml4, %eax
    mov     %eax, %cr3
    mov     $MSR_EFER, %ecx
    rdmsr
    or      $EFER_LME, %eax
    wrmsr
    mov     %cr0, %eax
    or      $CR0_PE_PG, %eax
    mov     %eax, %cr0

    lgdt    boot_gdt_ptr
    ljmp    $BOOT_CS64, $boot_entry64

.Lnot_multiboot2:
    mov     $msg_not_mb2, %ebx
    jmp     .Lfail32
.Lno_long_mode:
    mov     $msg_no_lm, %ebx
.Lfail32:
    /* Print to the debug port and COM1 without initialising anything,
     * then end the run with failure the way the emulators understand. */
    movb    (%ebx), %al
    test    %al, %al
    jz      3f
    outb    %al, $0xe9
    mov     $0x3f8, %dx
    outb    %al, %dx
    inc     %ebx
    jmp     .Lfail32
3:  mov     $RUN_EXIT_QEMU_FAIL, %al
    outb    %al, $0xf4
4:  hlt
    jmp     4b

    .code64
boot_entry64:
    mov     $BOOT_DS64, %ax
    mov     %ax, %ds
    mov     %ax, %es
    mov     %ax, %ss
    xor     %eax, %eax
    mov     %ax, %fs
    mov     %ax, %gs
    mov     $boot_stack_top, %rsp
    mov     %esi, %edi              /* arg 0: magic (zero-extended) */
    mov     %ebp, %esi              /* arg 1: info physical address */
    xor     %ebp, %ebp              /* end of the frame-pointer chain */
    call    boot_main
5:  hlt
    jmp     5b

    .section .rodata
msg_not_mb2:
    .asciz "vertigo: not loaded by a multiboot2 boot loader (bad magic in EAX); boot it with GRUB's multiboot2 command\n"
msg_no_lm:
    .asciz "vertigo: this CPU has no 64-bit long mode; Vertigo needs an x86-64 CPU with Intel VT-x\n"

    .balign 8
boot_gdt:
    .quad 0
    .quad 0x00af9a000000ffff        /* BOOT_CS64: 64-bit code, DPL 0 */
    .quad 0x00cf92000000ffff        /* BOOT_DS64: data, DPL 0 */
boot_gdt_end:
boot_gdt_ptr:
    .short boot_gdt_end - boot_gdt - 1
    .long boot_gdt

    .section .bss
    .balign 4096
boot_pml4:  .skip 4096
boot_pdpt:  .skip 4096
boot_pd:    .skip 4 * 4096
    .globl boot_stack_top
boot_stack: .skip BOOT_STACK_SIZE
boot_stack_top:
