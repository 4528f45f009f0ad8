/* Scheduling VCPUs on a physical CPU: the portable policy (the VMCS switch
 * itself is vmx/vmx_sched.c). Each CPU has a round-robin list of the VCPUs
 * that run on it. A VCPU is runnable, halted (executed HLT with nothing
 * pending: it gives up the rest of its slice and runs again only when
 * woken) or ended (its domain is over). A slice ends when the VCPU used
 * `slice_ticks` of guest time; the next runnable VCPU after it in the list
 * runs then. Nothing here runs on its own: the VMX layer asks after each
 * exit. Portable and host-tested. */
#ifndef VMM_SCHED_H
#define VMM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#define SCHED_CPU_MAX 8u        /* VCPUs on one physical CPU: one per domain */

enum sched_state {
    SCHED_RUNNABLE,
    SCHED_HALTED,
    SCHED_ENDED,
};

struct vcpu;

struct sched_cpu {
    struct vcpu *vcpus[SCHED_CPU_MAX];
    enum sched_state state[SCHED_CPU_MAX];
    unsigned int count;
    unsigned int current;       /* index of the VCPU on the CPU now */
    uint64_t slice_ticks;       /* guest TSC ticks per slice */
};

/* Adds v to the CPU's list (the first one added runs first). False if the
 * list is full. */
bool sched_add(struct sched_cpu *s, struct vcpu *v);

/* True if more than one VCPU of the CPU has not ended: only then are
 * slices, HLT exits and interrupt forwarding needed. */
bool sched_shared(const struct sched_cpu *s);

/* The index of v in the list, or -1. */
int sched_index(const struct sched_cpu *s, const struct vcpu *v);

void sched_set_state(struct sched_cpu *s, const struct vcpu *v, enum sched_state state);
enum sched_state sched_state_of(const struct sched_cpu *s, const struct vcpu *v);

/* The VCPU to run after the current one: the next runnable one in round
 * robin order after it, the current one if it is the only runnable one,
 * or NULL if none is runnable. Makes it current. */
struct vcpu *sched_pick(struct sched_cpu *s);

/* The VCPU on the CPU now. */
struct vcpu *sched_current(const struct sched_cpu *s);

#endif
