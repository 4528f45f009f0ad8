/* Round-robin scheduling of a CPU's VCPUs (see vmm/domain/sched.h). */
#include "vmm/domain/sched.h"

#include <stddef.h>

bool sched_add(struct sched_cpu *s, struct vcpu *v)
{
    if (s->count == SCHED_CPU_MAX)
        return false;
    s->vcpus[s->count] = v;
    s->state[s->count] = SCHED_RUNNABLE;
    s->count++;
    return true;
}

bool sched_shared(const struct sched_cpu *s)
{
    unsigned int alive = 0;
    for (unsigned int i = 0; i < s->count; i++)
        alive += s->state[i] != SCHED_ENDED;
    return alive > 1;
}

int sched_index(const struct sched_cpu *s, const struct vcpu *v)
{
    for (unsigned int i = 0; i < s->count; i++)
        if (s->vcpus[i] == v)
            return (int)i;
    return -1;
}

/* An end is final, and any CPU may mark one (its domain ended there)
 * while the CPU that owns the list changes the same VCPU's state: so the
 * change is a compare-and-swap from a state that is not the end. A test
 * and a plain store could store RUNNABLE just after another CPU's ENDED,
 * and the ended domain's VCPU would run on. */
void sched_set_state(struct sched_cpu *s, const struct vcpu *v, enum sched_state state)
{
    int i = sched_index(s, v);
    if (i < 0)
        return;
    enum sched_state old = __atomic_load_n(&s->state[i], __ATOMIC_RELAXED);
    while (old != SCHED_ENDED &&
           !__atomic_compare_exchange_n(&s->state[i], &old, state, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
        ;       /* old now holds the state another CPU stored */
}

enum sched_state sched_state_of(const struct sched_cpu *s, const struct vcpu *v)
{
    int i = sched_index(s, v);
    return i >= 0 ? __atomic_load_n(&s->state[i], __ATOMIC_RELAXED) : SCHED_ENDED;
}

struct vcpu *sched_pick(struct sched_cpu *s)
{
    for (unsigned int k = 1; k <= s->count; k++) {
        unsigned int i = (s->current + k) % s->count;
        if (s->state[i] == SCHED_RUNNABLE) {
            s->current = i;
            return s->vcpus[i];
        }
    }
    return NULL;
}

struct vcpu *sched_current(const struct sched_cpu *s)
{
    return s->count ? s->vcpus[s->current] : NULL;
}
