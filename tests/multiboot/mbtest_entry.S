/* Entry of mbtest, the project's multiboot test kernel (tests/multiboot/
 * mbtest.c): its multiboot header (MB_VERSION 1, the Multiboot 0.6.96
 * header; 2, a Multiboot2 header with an information request), then the
 * 32-bit entry the loader jumps to in protected mode with paging off:
 * EAX the boot magic, EBX the boot information's address. */
#define MB1_MAGIC 0x1badb002
#define MB1_FLAGS 0x00000003            /* page-aligned modules, memory information */
#define MB2_MAGIC 0xe85250d6

    .section .multiboot, "a"
#if MB_VERSION == 1
    .align 4
    .long MB1_MAGIC, MB1_FLAGS, -(MB1_MAGIC + MB1_FLAGS)
#else
    .align 8
mb2_header:
    .long MB2_MAGIC, 0, mb2_end - mb2_header, -(MB2_MAGIC + (mb2_end - mb2_header))
    /* information request: command line, modules, basic memory, memory map */
    .align 8
    .short 1, 0
    .long 24
    .long 1, 3, 4, 6
    .align 8
    .short 0, 0                         /* end tag */
    .long 8
mb2_end:
#endif

    .text
    .code32
    .globl start
start:
    cli
    mov $stack_top, %esp
    push %ebx                           /* the boot information */
    push %eax                           /* the boot magic */
    call mbtest_main
1:  hlt                                 /* not reached: mbtest exits through port 0xf4 */
    jmp 1b

/* The #DB and timer handlers: every register saved, the C function
 * called (the #DB one with the frame), IRET. */
    .globl mbtest_debug_entry
mbtest_debug_entry:
    pushal
    push %esp
    call mbtest_debug
    add $4, %esp
    popal
    iret

    .globl mbtest_timer_entry
mbtest_timer_entry:
    pushal
    call mbtest_timer
    popal
    iret

    .bss
    .align 16
    .space 16384
stack_top:

    .section .note.GNU-stack, "", @progbits
