/* MSR and RDPMC accesses that may raise #GP, for probing hardware.
 * Each faulting instruction has an exception-table entry (section
 * .extable: pairs of {faulting RIP, fix-up RIP}); trap_dispatch resumes at
 * the fix-up, which returns -1. */
    .text
    .code64

/* int rdmsr_safe(uint32_t msr, uint64_t *value) */
    .globl rdmsr_safe
rdmsr_safe:
    mov     %edi, %ecx
1:  rdmsr
    shl     $32, %rdx
    or      %rdx, %rax
    mov     %rax, (%rsi)
    xor     %eax, %eax
    ret
2:  mov     $-1, %eax
    ret
    .pushsection .extable, "a"
    .quad 1b, 2b
    .popsection

/* int wrmsr_safe(uint32_t msr, uint64_t value) */
    .globl wrmsr_safe
wrmsr_safe:
    mov     %edi, %ecx
    mov     %esi, %eax
    mov     %rsi, %rdx
    shr     $32, %rdx
3:  wrmsr
    xor     %eax, %eax
    ret
4:  mov     $-1, %eax
    ret
    .pushsection .extable, "a"
    .quad 3b, 4b
    .popsection

/* int rdpmc_safe(uint32_t counter, uint64_t *value) */
    .globl rdpmc_safe
rdpmc_safe:
    mov     %edi, %ecx
5:  rdpmc
    shl     $32, %rdx
    or      %rdx, %rax
    mov     %rax, (%rsi)
    xor     %eax, %eax
    ret
6:  mov     $-1, %eax
    ret
    .pushsection .extable, "a"
    .quad 5b, 6b
    .popsection

/* int xsetbv_safe(uint32_t xcr, uint64_t value): for a guest's XSETBV,
 * whose operands only the hardware can fully validate. */
    .globl xsetbv_safe
xsetbv_safe:
    mov     %edi, %ecx
    mov     %esi, %eax
    mov     %rsi, %rdx
    shr     $32, %rdx
7:  xsetbv
    xor     %eax, %eax
    ret
8:  mov     $-1, %eax
    ret
    .pushsection .extable, "a"
    .quad 7b, 8b
    .popsection
