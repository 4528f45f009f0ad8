/* Unit tests: round-robin VCPU scheduling (vmm/domain/sched.c) and the vectors
 * that wait for domain 0 (vmm/domain/irq_pending.c). */
#include "vmm/domain/irq_pending.h"
#include "vmm/domain/sched.h"

#include <pthread.h>
#include <sched.h>

#include "tests/unit/unit.h"
#include "vmm/vcpu.h"

static struct vcpu a, b, c;

TEST(round_robin_skips_halted_and_ended)
{
    struct sched_cpu s = { .count = 0 };
    CHECK(sched_add(&s, &a) && sched_add(&s, &b) && sched_add(&s, &c));
    CHECK(sched_current(&s) == &a);
    CHECK(sched_shared(&s));
    CHECK(sched_pick(&s) == &b);
    CHECK(sched_pick(&s) == &c);
    CHECK(sched_pick(&s) == &a);
    sched_set_state(&s, &b, SCHED_HALTED);
    CHECK(sched_pick(&s) == &c);
    CHECK(sched_pick(&s) == &a);
    sched_set_state(&s, &c, SCHED_ENDED);
    CHECK(sched_pick(&s) == &a);        /* the only runnable one keeps the CPU */
    CHECK(sched_shared(&s));            /* b is halted, not ended */
    sched_set_state(&s, &b, SCHED_RUNNABLE);
    CHECK(sched_pick(&s) == &b);
    sched_set_state(&s, &c, SCHED_RUNNABLE);        /* an end is final */
    CHECK_EQ(sched_state_of(&s, &c), SCHED_ENDED);
    sched_set_state(&s, &b, SCHED_ENDED);
    CHECK(!sched_shared(&s));
    sched_set_state(&s, &a, SCHED_HALTED);
    CHECK(sched_pick(&s) == NULL);      /* all halted: the CPU idles */
    CHECK_EQ(sched_index(&s, &c), 2);
    CHECK_EQ(sched_state_of(&s, (struct vcpu *)&s), SCHED_ENDED);
}

/* A domain's end, marked from another CPU while the VCPU's own CPU keeps
 * changing its state (HLT exits, slices), is never undone. Two threads
 * race round after round: the owner flips a VCPU between halted and
 * runnable while the other thread, once the flips began, ends it at a
 * varying moment. A test of the state and a plain store let the owner
 * store over the end when the end lands between them; on two free CPUs
 * that happens in many of the rounds (on a busy machine the threads may
 * overlap less and the test proves less, never a false failure). */
#define END_RACE_ROUNDS 2000u
#define END_RACE_FLIPS  400u

static struct sched_cpu race_cpu;
static unsigned int race_go, race_started, race_done;

static void *owner_flips(void *unused)
{
    (void)unused;
    for (unsigned int r = 1; r <= END_RACE_ROUNDS; r++) {
        /* Spins, so that it starts at once on a second CPU; yields only
         * after a while, on a machine too busy to run both threads. */
        for (unsigned int spins = 0; __atomic_load_n(&race_go, __ATOMIC_ACQUIRE) != r; spins++)
            if (spins > 100000)
                sched_yield();
        __atomic_store_n(&race_started, r, __ATOMIC_RELEASE);
        for (unsigned int i = 0; i < END_RACE_FLIPS; i++) {
            sched_set_state(&race_cpu, &a, SCHED_HALTED);
            sched_set_state(&race_cpu, &a, SCHED_RUNNABLE);
        }
        __atomic_store_n(&race_done, r, __ATOMIC_RELEASE);
    }
    return NULL;
}

TEST(an_end_from_another_cpu_is_never_undone)
{
    pthread_t owner;
    unsigned int undone = 0;
    uint64_t seed = 0x5eed;
    CHECK(pthread_create(&owner, NULL, owner_flips, NULL) == 0);
    for (unsigned int r = 1; r <= END_RACE_ROUNDS; r++) {
        race_cpu = (struct sched_cpu){ .count = 0 };
        sched_add(&race_cpu, &a);
        __atomic_store_n(&race_go, r, __ATOMIC_RELEASE);
        while (__atomic_load_n(&race_started, __ATOMIC_ACQUIRE) != r)
            sched_yield();
        for (uint64_t wait = unit_rand(&seed) % 2000; wait; wait--)
            __asm__ volatile("" ::: "memory");
        sched_set_state(&race_cpu, &a, SCHED_ENDED);
        while (__atomic_load_n(&race_done, __ATOMIC_ACQUIRE) != r)
            sched_yield();
        undone += sched_state_of(&race_cpu, &a) != SCHED_ENDED;
    }
    pthread_join(owner, NULL);
    CHECK_EQ(undone, 0);
}

TEST(list_is_bounded)
{
    struct sched_cpu s = { .count = 0 };
    for (unsigned int i = 0; i < SCHED_CPU_MAX; i++)
        CHECK(sched_add(&s, &a));
    CHECK(!sched_add(&s, &b));
    CHECK(!sched_shared(&(struct sched_cpu){ .count = 0 }));
    CHECK(sched_current(&(struct sched_cpu){ .count = 0 }) == NULL);
}

TEST(pending_vectors_come_out_by_priority_once_each)
{
    struct irq_pending p = { .queued = 0 };
    CHECK(!irq_pending_any(&p));
    CHECK_EQ(irq_pending_take(&p), (uint64_t)-1);
    irq_pending_add(&p, 0x31);
    irq_pending_add(&p, 0xec);
    irq_pending_add(&p, 0x40);
    irq_pending_add(&p, 0x31);          /* still pending: one request */
    irq_pending_add(&p, 0xff);
    irq_pending_add(&p, 0x20);
    CHECK(irq_pending_any(&p));
    CHECK_EQ(p.queued, 6);
    CHECK_EQ(p.merged, 1);
    CHECK_EQ(irq_pending_take(&p), 0xff);
    CHECK_EQ(irq_pending_take(&p), 0xec);
    CHECK_EQ(irq_pending_take(&p), 0x40);
    CHECK_EQ(irq_pending_take(&p), 0x31);
    CHECK_EQ(irq_pending_take(&p), 0x20);
    CHECK(!irq_pending_any(&p));
    irq_pending_add(&p, 0);
    irq_pending_add(&p, 63);
    irq_pending_add(&p, 64);
    CHECK_EQ(irq_pending_take(&p), 64);
    CHECK_EQ(irq_pending_take(&p), 63);
    CHECK_EQ(irq_pending_take(&p), 0);
}
