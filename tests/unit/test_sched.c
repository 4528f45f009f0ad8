/* Unit tests: round-robin VCPU scheduling (vmm/domain/sched.c) and the vectors
 * that wait for domain 0 (vmm/domain/irq_pending.c). */
#include "vmm/domain/irq_pending.h"
#include "vmm/domain/sched.h"

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
