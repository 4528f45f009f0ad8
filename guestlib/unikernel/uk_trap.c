/* Exceptions (CPL 0): any of the 32 exception vectors ends the domain
 * (except a fault a probe of uk_probe.c expects, which resumes it). The
 * report names the exception, where it happened (RIP, CPL, error code, CR2
 * for a page fault) and the registers, then the domain's verdict is FAIL
 * with the exception's name as the reason. */
#include "guestlib/unikernel/uk_kernel.h"

#define VEC_PAGE_FAULT 14u

static const char *const names[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
    "#BR bound range", "#UD invalid opcode", "#NM device not available",
    "#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
    "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check",
    "#MC machine check", "#XM SIMD error", "#VE virtualization",
    "#CP control protection", "reserved 22", "reserved 23", "reserved 24",
    "reserved 25", "reserved 26", "reserved 27", "#HV", "#VC", "#SX security",
    "reserved 31",
};

static void field(const char *name, uint64_t v)
{
    uk_console_puts(name);
    uk_console_hex(v);
}

static void print_registers(const struct uk_frame *f)
{
    field("unikernel:  rax=", f->rax); field(" rbx=", f->rbx); field(" rcx=", f->rcx);
    field(" rdx=", f->rdx);
    field("\nunikernel:  rsi=", f->rsi); field(" rdi=", f->rdi); field(" rbp=", f->rbp);
    field(" rsp=", f->rsp);
    field("\nunikernel:  r8=", f->r8); field(" r9=", f->r9); field(" r10=", f->r10);
    field(" r11=", f->r11);
    field("\nunikernel:  r12=", f->r12); field(" r13=", f->r13); field(" r14=", f->r14);
    field(" r15=", f->r15);
    field("\nunikernel:  rflags=", f->rflags);
    uk_console_puts("\n");
}

void uk_trap(struct uk_frame *f)
{
    const char *name = names[f->vector & 31];

    if (uk_probe_resume && (f->cs & 3) == 0) {     /* a probe's fault: caught */
        uk_probe_fault = f->vector + 1;
        f->rip = uk_probe_resume;
        uk_probe_resume = 0;
        return;
    }

    uk_console_puts("unikernel: exception ");
    uk_console_puts(name);
    uk_console_puts(" (vector ");
    uk_console_dec(f->vector);
    field(") at rip=", f->rip);
    uk_console_puts(" cpl ");
    uk_console_dec(f->cs & 3);
    field(" error code ", f->error);
    if (f->vector == VEC_PAGE_FAULT) {
        uint64_t cr2;
        __asm__ volatile("mov %%cr2, %0" : "=r"(cr2));
        field(" cr2=", cr2);
    }
    uk_console_puts("\n");
    print_registers(f);
    uk_end(0, name);
}
