/* Per-CPU identity: GS base points at this CPU's struct percpu while
 * Vertigo runs (the VMCS host-state GS base restores it on every exit). */
#include "boot/percpu.h"

#include "lib/cpu.h"
#include "lib/msr.h"

static struct percpu percpu_area[MAX_CPUS];

#define CHECK_OFFSET(field, offset) \
    _Static_assert(__builtin_offsetof(struct percpu, field) == (offset), #field)
CHECK_OFFSET(step.armed, PERCPU_STEP_ARMED);
CHECK_OFFSET(step.step_exits, PERCPU_STEP_EXITS);
CHECK_OFFSET(step.count, PERCPU_STEP_COUNT);
CHECK_OFFSET(step.next, PERCPU_STEP_NEXT);
CHECK_OFFSET(step.at_exit, PERCPU_STEP_AT_EXIT);
CHECK_OFFSET(step.exit_tsc, PERCPU_STEP_EXIT_TSC);
CHECK_OFFSET(step.exit_read, PERCPU_STEP_EXIT_READ);
CHECK_OFFSET(step.exit_stepped, PERCPU_STEP_EXIT_STEPPED);
CHECK_OFFSET(step.to_overflow, PERCPU_STEP_TO_OVERFLOW);
CHECK_OFFSET(step.rips, PERCPU_STEP_RIPS);

void percpu_init(unsigned int cpu)
{
    struct percpu *pc = &percpu_area[cpu];
    pc->self = pc;
    pc->cpu_index = cpu;
    wrmsr(MSR_IA32_GS_BASE, (uint64_t)pc);
}

struct percpu *percpu_of(unsigned int cpu)
{
    return &percpu_area[cpu];
}

unsigned int smp_cpu_index(void)
{
    unsigned int idx;
    __asm__ volatile("movl %%gs:%c1, %0" : "=r"(idx)
                     : "i"(__builtin_offsetof(struct percpu, cpu_index)));
    return idx;
}
