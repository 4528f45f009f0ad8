/* Exceptions taken in Vertigo itself. Faults listed in the exception
 * table (probing instructions) resume at their fix-up; NMIs go to
 * nmi_handle(); every other vector dumps state and ends the run with a
 * failure status: Vertigo never hangs or reboots silently. */
#include "boot/traps.h"

#include "lib/cpu.h"
#include "boot/run_end.h"
#include "lib/smp.h"
#include "lib/console.h"

struct extable_entry {
    uint64_t fault_rip;
    uint64_t fixup_rip;
};

extern const struct extable_entry __extable_start[], __extable_end[];

static const char *const exception_names[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
    "#BR bound range", "#UD invalid opcode", "#NM device not available",
    "#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
    "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check",
    "#MC machine check", "#XM SIMD error", "#VE virtualization exception",
    "#CP control protection", "reserved 22", "reserved 23", "reserved 24",
    "reserved 25", "reserved 26", "reserved 27", "#HV hypervisor injection",
    "#VC VMM communication", "#SX security", "reserved 31",
};

static int extable_fixup(struct trap_frame *frame)
{
    for (const struct extable_entry *e = __extable_start; e < __extable_end; e++) {
        if (e->fault_rip == frame->rip) {
            frame->rip = e->fixup_rip;
            return 1;
        }
    }
    return 0;
}

static void backtrace(uint64_t rbp)
{
    printk("  backtrace (frame pointers):");
    for (int depth = 0; depth < 16 && rbp >= 0x1000 && (rbp & 7) == 0; depth++) {
        const uint64_t *frame = (const uint64_t *)rbp;
        printk(" %#lx", frame[1]);
        if (frame[0] <= rbp)
            break;
        rbp = frame[0];
    }
    printk("\n");
}

void trap_dump(const struct trap_frame *f)
{
    printk("  rip=%#018lx cs=%#lx rflags=%#lx rsp=%#018lx ss=%#lx\n",
           f->rip, f->cs, f->rflags, f->rsp, f->ss);
    printk("  rax=%#018lx rbx=%#018lx rcx=%#018lx rdx=%#018lx\n",
           f->rax, f->rbx, f->rcx, f->rdx);
    printk("  rsi=%#018lx rdi=%#018lx rbp=%#018lx r8 =%#018lx\n",
           f->rsi, f->rdi, f->rbp, f->r8);
    printk("  r9 =%#018lx r10=%#018lx r11=%#018lx r12=%#018lx\n",
           f->r9, f->r10, f->r11, f->r12);
    printk("  r13=%#018lx r14=%#018lx r15=%#018lx\n", f->r13, f->r14, f->r15);
    printk("  cr0=%#lx cr2=%#lx cr3=%#lx cr4=%#lx\n",
           read_cr0(), read_cr2(), read_cr3(), read_cr4());
    backtrace(f->rbp);
}

void trap_dispatch(struct trap_frame *frame)
{
    if (frame->vector == VEC_NMI) {
        nmi_handle(frame);
        return;
    }
    if (frame->vector == VEC_DEBUG && step_trap_handle(frame))
        return;
    if ((frame->vector == VEC_GP_FAULT || frame->vector == VEC_INVALID_OPCODE) &&
        extable_fixup(frame))
        return;

    const char *name = frame->vector < 32 ? exception_names[frame->vector]
                                          : "unexpected interrupt";
    printk("\nvertigo: CPU %u: exception %lu (%s), error code %#lx\n",
           smp_cpu_index(), frame->vector, name, frame->error_code);
    trap_dump(frame);
    run_end(RUN_FAIL, "unhandled exception in the hypervisor");
}
