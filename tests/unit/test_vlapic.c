/* The virtual x2APIC: register access rules, priority and EOI, self-IPIs,
 * and the timer's three modes against a guest TSC the test moves. */
#include "tests/unit/unit.h"
#include "vmm/vhw/vlapic.h"

#define TSC_PER_TICK 4

static struct vlapic fresh(void)
{
    struct vlapic a;
    vlapic_init(&a, 3, true, TSC_PER_TICK);
    return a;
}

static struct vlapic enabled(void)
{
    struct vlapic a = fresh();
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SVR, VLAPIC_SVR_ENABLE | 0xff, 0), VLAPIC_OK);
    return a;
}

static uint64_t rd(struct vlapic *a, uint32_t msr, uint64_t now)
{
    uint64_t v = 0xdeadbeef;
    CHECK_EQ(vlapic_rdmsr(a, msr, now, &v), VLAPIC_OK);
    return v;
}

TEST(power_on_state_is_x2apic_with_everything_masked)
{
    struct vlapic a = fresh();

    CHECK_EQ(rd(&a, VLAPIC_MSR_APIC_BASE, 0), 0xfee00000ull | (1u << 8) | (1u << 10) | (1u << 11));
    CHECK_EQ(rd(&a, VLAPIC_MSR_ID, 0), 3);
    CHECK_EQ(rd(&a, VLAPIC_MSR_VERSION, 0), 0x50014);
    CHECK_EQ(rd(&a, VLAPIC_MSR_LDR, 0), 1u << 3);
    CHECK_EQ(rd(&a, VLAPIC_MSR_SVR, 0), 0xff);
    for (uint32_t m = VLAPIC_MSR_LVT_TIMER; m <= VLAPIC_MSR_LVT_ERROR; m++)
        CHECK_EQ(rd(&a, m, 0), VLAPIC_LVT_MASKED);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
}

TEST(logical_id_has_cluster_and_bit)
{
    struct vlapic a;
    vlapic_init(&a, 0x25, false, 1);
    CHECK_EQ(rd(&a, VLAPIC_MSR_LDR, 0), (2u << 16) | (1u << 5));
    CHECK_EQ(rd(&a, VLAPIC_MSR_APIC_BASE, 0) & (1u << 8), 0);
}

TEST(owned_msrs)
{
    CHECK(vlapic_owns_msr(0x1b));
    CHECK(vlapic_owns_msr(0x6e0));
    CHECK(vlapic_owns_msr(0x800));
    CHECK(vlapic_owns_msr(0x8ff));
    CHECK(!vlapic_owns_msr(0x900));
    CHECK(!vlapic_owns_msr(0x7ff));
}

TEST(read_only_write_only_and_reserved_registers_gp)
{
    struct vlapic a = enabled();
    uint64_t v;
    static const uint32_t read_only[] = {
        VLAPIC_MSR_ID, VLAPIC_MSR_VERSION, VLAPIC_MSR_PPR, VLAPIC_MSR_LDR,
        VLAPIC_MSR_ISR0, VLAPIC_MSR_TMR0 + 7, VLAPIC_MSR_IRR0 + 3, VLAPIC_MSR_TIMER_CCR,
    };
    /* reserved offsets, xAPIC-only registers (APR 0x809, DFR 0x80e, ICR high 0x831)
     * and CMCI, which this APIC does not have */
    static const uint32_t reserved[] = { 0x800, 0x801, 0x809, 0x80e, 0x831, 0x82f, 0x840, 0x8ff };

    for (unsigned i = 0; i < sizeof read_only / sizeof read_only[0]; i++)
        CHECK_EQ(vlapic_wrmsr(&a, read_only[i], 0, 0), VLAPIC_GP);
    for (unsigned i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        CHECK_EQ(vlapic_wrmsr(&a, reserved[i], 0, 0), VLAPIC_GP);
        CHECK_EQ(vlapic_rdmsr(&a, reserved[i], 0, &v), VLAPIC_GP);
    }
    CHECK_EQ(vlapic_rdmsr(&a, VLAPIC_MSR_EOI, 0, &v), VLAPIC_GP);
    CHECK_EQ(vlapic_rdmsr(&a, VLAPIC_MSR_SELF_IPI, 0, &v), VLAPIC_GP);
}

TEST(reserved_bits_gp_and_leave_the_register)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 0x100, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 1ull << 32, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SVR, 0x10ff | VLAPIC_SVR_ENABLE, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30 | (3u << 17), 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30 | VLAPIC_DM_NMI, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_ERROR, 0x30 | (1u << 15), 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0x4, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SELF_IPI, 0x130, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (1u << 13) | 0x40, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (1u << 12) | 0x40, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, VLAPIC_DM_EXTINT | 0x40, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 1, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ESR, 1, 0), VLAPIC_GP);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TPR, 0), 0);
    CHECK_EQ(rd(&a, VLAPIC_MSR_SVR, 0), 0x1ff);
    CHECK_EQ(rd(&a, VLAPIC_MSR_LVT_TIMER, 0), VLAPIC_LVT_MASKED);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ICR, 0), 0);
    /* delivery status and remote IRR are read-only: accepted, ignored */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_LINT0, 0x700 | (1u << 12) | (1u << 14), 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_LVT_LINT0, 0), 0x700);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SVR, 0x2ff | VLAPIC_SVR_ENABLE, 0), VLAPIC_OK);
}

TEST(apic_base_stays_x2apic)
{
    struct vlapic a = fresh();
    uint64_t base = rd(&a, VLAPIC_MSR_APIC_BASE, 0);

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_APIC_BASE, base, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_APIC_BASE, base & ~(1ull << 10), 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_APIC_BASE, 0, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_APIC_BASE, base | (1ull << 9), 0), VLAPIC_GP);
    CHECK_EQ(rd(&a, VLAPIC_MSR_APIC_BASE, 0), base);
}

TEST(software_disabled_apic_keeps_lvts_masked)
{
    struct vlapic a = fresh();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_ERROR, 0xfe, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_LVT_ERROR, 0), 0xfe | VLAPIC_LVT_MASKED);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SVR, 0x1ff, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_ERROR, 0xfe, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_LVT_ERROR, 0), 0xfe);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SVR, 0xff, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_LVT_ERROR, 0), 0xfe | VLAPIC_LVT_MASKED);
}

TEST(self_ipi_ack_and_eoi)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SELF_IPI, 0x41, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_IRR0 + 2, 0), 1u << 1);
    CHECK_EQ(vlapic_pending_vector(&a), 0x41);
    vlapic_ack(&a, 0x41);
    CHECK_EQ(rd(&a, VLAPIC_MSR_IRR0 + 2, 0), 0);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ISR0 + 2, 0), 1u << 1);
    CHECK_EQ(rd(&a, VLAPIC_MSR_PPR, 0), 0x40);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ISR0 + 2, 0), 0);
    CHECK_EQ(rd(&a, VLAPIC_MSR_PPR, 0), 0);
}

TEST(icr_fixed_ipi_to_self_by_shorthand_and_by_id)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (1u << 18) | 0x50, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (3ull << 32) | 0x61, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ICR, 0), (3ull << 32) | 0x61);
    CHECK_EQ(rd(&a, VLAPIC_MSR_IRR0 + 2, 0), 1u << 16);
    CHECK_EQ(rd(&a, VLAPIC_MSR_IRR0 + 3, 0), 1u << 1);
    CHECK_EQ(vlapic_pending_vector(&a), 0x61);
}

TEST(icr_other_destinations_go_to_the_caller)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (5ull << 32) | 0x62, 0), VLAPIC_IPI);
    CHECK_EQ(a.ipi.dest, 5);
    CHECK_EQ(a.ipi.vector, 0x62);
    CHECK_EQ(a.ipi.delivery_mode, VLAPIC_DM_FIXED);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (3u << 18) | VLAPIC_DM_INIT, 0), VLAPIC_IPI);
    CHECK_EQ(a.ipi.shorthand, 3);
    CHECK_EQ(a.ipi.delivery_mode, VLAPIC_DM_INIT);
    CHECK(!a.ipi.assert);               /* INIT de-assert: level bit 14 clear */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (1ull << 32) | (1u << 14) | VLAPIC_DM_INIT, 0),
             VLAPIC_IPI);
    CHECK(a.ipi.assert);
    CHECK_EQ(a.ipi.dest, 1);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (1ull << 32) | VLAPIC_DM_SIPI | 0x9a, 0),
             VLAPIC_IPI);
    CHECK_EQ(a.ipi.delivery_mode, VLAPIC_DM_SIPI);
    CHECK_EQ(a.ipi.vector, 0x9a);
    /* logical destination 1<<3 is this APIC too, but logical routing is the caller's */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (8ull << 32) | (1u << 11) | 0x63, 0), VLAPIC_IPI);
    CHECK(a.ipi.logical);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ICR, (3ull << 32) | VLAPIC_DM_NMI, 0), VLAPIC_NMI);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
}

TEST(illegal_vectors_reach_the_esr_and_the_error_lvt)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_ERROR, 0xfe, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SELF_IPI, 0x05, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ESR, 0), 0);     /* latched only by an ESR write */
    CHECK_EQ(vlapic_pending_vector(&a), 0xfe);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ESR, 0, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ESR, 0), VLAPIC_ESR_SEND_ILLEGAL);
    vlapic_accept(&a, 3, false);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ESR, 0, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ESR, 0), VLAPIC_ESR_RECV_ILLEGAL);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ESR, 0, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ESR, 0), 0);
}

TEST(priority_classes_tpr_and_nested_isr)
{
    struct vlapic a = enabled();

    vlapic_accept(&a, 0x35, false);
    vlapic_accept(&a, 0x3a, false);
    vlapic_accept(&a, 0x81, false);
    CHECK_EQ(vlapic_pending_vector(&a), 0x81);
    /* TPR class 8 blocks class 8 and below */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 0x80, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    CHECK_EQ(rd(&a, VLAPIC_MSR_PPR, 0), 0x80);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 0x2f, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), 0x81);
    vlapic_ack(&a, 0x81);
    CHECK_EQ(rd(&a, VLAPIC_MSR_PPR, 0), 0x80);
    CHECK_EQ(vlapic_pending_vector(&a), -1);     /* class 3 waits for class 8's EOI */
    /* TPR's class equal to the ISR's: PPR is all of TPR, low bits too */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 0x85, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_PPR, 0), 0x85);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 0x2f, 0), VLAPIC_OK);
    vlapic_accept(&a, 0x91, false);
    CHECK_EQ(vlapic_pending_vector(&a), 0x91);   /* a higher class nests */
    vlapic_ack(&a, 0x91);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);   /* ends 0x91 */
    CHECK_EQ(rd(&a, VLAPIC_MSR_ISR0 + 4, 0), 1u << 1);           /* 0x81 still in service */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);
    /* PPR = TPR (0x2f) when TPR's class is not below the ISR's */
    CHECK_EQ(rd(&a, VLAPIC_MSR_PPR, 0), 0x2f);
    CHECK_EQ(vlapic_pending_vector(&a), 0x3a);   /* same class: highest vector first */
    vlapic_ack(&a, 0x3a);
    CHECK_EQ(vlapic_pending_vector(&a), -1);     /* 0x35 is in 0x3a's class */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), 0x35);
}

TEST(level_interrupts_set_and_eoi_clears_tmr)
{
    struct vlapic a = enabled();

    vlapic_accept(&a, 0x70, true);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TMR0 + 3, 0), 1u << 16);
    vlapic_ack(&a, 0x70);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TMR0 + 3, 0), 0);
}

TEST(lvt_delivery_modes)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_PERF, VLAPIC_DM_NMI, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_deliver_lvt(&a, VLAPIC_LVT_PERF), VLAPIC_NMI);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_PERF, 0xf0, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_deliver_lvt(&a, VLAPIC_LVT_PERF), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), 0xf0);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_THERMAL, 0xe0 | VLAPIC_LVT_MASKED, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_deliver_lvt(&a, VLAPIC_LVT_THERMAL), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_IRR0 + 7, 0), 1u << 16);          /* only 0xf0 */
    /* Linux's virtual-wire LINT0 (ExtINT): no 8259 behind it, nothing comes */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_LINT0, VLAPIC_DM_EXTINT, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_deliver_lvt(&a, VLAPIC_LVT_LINT0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_ESR, 0, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ESR, 0), 0);
    CHECK_EQ(rd(&a, VLAPIC_MSR_IRR0, 0), 0);
    /* a level-triggered fixed LINT1 sets TMR */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_LINT1, 0x51 | (1u << 15), 0), VLAPIC_OK);
    CHECK_EQ(vlapic_deliver_lvt(&a, VLAPIC_LVT_LINT1), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TMR0 + 2, 0), 1u << 17);
}

TEST(divide_configuration)
{
    static const struct { uint32_t dcr, div; } table[] = {
        { 0x0, 2 }, { 0x1, 4 }, { 0x2, 8 }, { 0x3, 16 },
        { 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
    };
    for (unsigned i = 0; i < 8; i++) {
        struct vlapic a = enabled();
        CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, table[i].dcr, 0), VLAPIC_OK);
        CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x20, 0), VLAPIC_OK);
        CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 100, 1000), VLAPIC_OK);
        CHECK_EQ(vlapic_next_deadline(&a), 1000 + 100ull * table[i].div * TSC_PER_TICK);
        CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_DCR, 0), table[i].dcr);
    }
}

TEST(one_shot_timer_counts_down_fires_once_and_stays_at_zero)
{
    struct vlapic a = enabled();
    uint64_t t0 = 5000, per_count = 2 * TSC_PER_TICK;    /* DCR 0: divide by 2 */

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xec, t0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 1000, t0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, t0), 1000);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, t0 + 10 * per_count + 1), 990);
    CHECK_EQ(vlapic_next_deadline(&a), t0 + 1000 * per_count);
    vlapic_timer_advance(&a, t0 + 1000 * per_count - 1);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    vlapic_timer_advance(&a, t0 + 1000 * per_count);
    CHECK_EQ(vlapic_pending_vector(&a), 0xec);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, t0 + 5000 * per_count), 0);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_ICR, 0), 1000);
    /* a new initial count restarts it; 0 stops it */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 10, 100000), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), 100000 + 10 * per_count);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 0, 100001), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 100002), 0);
}

TEST(masked_timer_expires_without_interrupt)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xec | VLAPIC_LVT_MASKED, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 1, 0), VLAPIC_OK);
    vlapic_timer_advance(&a, 1000);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
}

TEST(periodic_timer_reloads_and_coalesces_missed_periods)
{
    struct vlapic a = enabled();
    uint64_t period = 50 * 1 * TSC_PER_TICK;

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0xb, 0), VLAPIC_OK);     /* divide by 1 */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xef | VLAPIC_TIMER_PERIODIC, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 50, 100), VLAPIC_OK);
    vlapic_timer_advance(&a, 100 + period);
    CHECK_EQ(vlapic_pending_vector(&a), 0xef);
    CHECK_EQ(vlapic_next_deadline(&a), 100 + 2 * period);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 100 + period + 3 * TSC_PER_TICK), 47);
    vlapic_ack(&a, 0xef);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);
    /* the VCPU did not run for 3.5 periods: one interrupt, next on the grid */
    vlapic_timer_advance(&a, 100 + 4 * period + period / 2);
    CHECK_EQ(vlapic_pending_vector(&a), 0xef);
    CHECK_EQ(rd(&a, VLAPIC_MSR_IRR0 + 7, 0), 1u << 15);
    CHECK_EQ(vlapic_next_deadline(&a), 100 + 5 * period);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 100 + 4 * period + period / 2), 25);
}

/* A periodic count of 1 tick: the period is floored at 200 us of the TSC,
 * so a guest cannot have interrupts injected without bound; the current
 * count runs down over the floored period. One-shot is not floored. */
TEST(periodic_timer_has_a_minimum_period)
{
    const uint64_t tsc_hz = 50000000, floor = tsc_hz / 5000;       /* 200 us */
    struct vlapic a = enabled();
    unsigned int fired = 0;

    vlapic_timer_set_min_period(&a, tsc_hz);
    CHECK_EQ(a.timer_min_period, floor);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0xb, 0), VLAPIC_OK);     /* divide by 1 */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xef | VLAPIC_TIMER_PERIODIC, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 1, 1000), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), 1000 + floor);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 1000), 1);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 1000 + floor - 1), 1);
    /* one millisecond of TSC, stepped one tick at a time: 5 interrupts */
    for (uint64_t now = 1000; now <= 1000 + 5 * floor; now++) {
        vlapic_timer_advance(&a, now);
        if (vlapic_pending_vector(&a) == 0xef) {
            fired++;
            vlapic_ack(&a, 0xef);
            CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);
        }
    }
    CHECK_EQ(fired, 5);
    /* a period above the floor is the guest's own */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 3 * floor, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), 3 * floor * TSC_PER_TICK);
    /* one-shot: no floor (each expiry costs the guest an exit to re-arm) */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xef, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 1, 2000), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), 2000 + TSC_PER_TICK);
}

/* The floor is one rule for the periodic count, whichever register the
 * guest writes: a divide change while it runs keeps the floored period
 * (it used to re-arm the rest of the count at the unfloored rate: an
 * interrupt a few ticks later, and again at each such write). */
TEST(periodic_floor_holds_across_divide_changes)
{
    const uint64_t tsc_hz = 50000000, floor = tsc_hz / 5000;       /* 200 us */
    struct vlapic a = enabled();
    unsigned int fired = 0;

    vlapic_timer_set_min_period(&a, tsc_hz);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0xb, 0), VLAPIC_OK);     /* divide by 1 */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xef | VLAPIC_TIMER_PERIODIC, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 1, 1000), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0x0, 1000 + floor / 2), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 1000 + floor / 2), 1);
    CHECK_EQ(vlapic_next_deadline(&a), 1000 + floor / 2 + floor);
    /* one millisecond with the divider rewritten every 100 ticks: still
     * at most one interrupt per floor (the count restarts at each write
     * that finds it whole, so fewer) */
    for (uint64_t now = 1000; now <= 1000 + 5 * floor; now++) {
        if (now % 100 == 0)
            CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, (now / 100) & 1 ? 0x0 : 0xb, now),
                     VLAPIC_OK);
        vlapic_timer_advance(&a, now);
        if (vlapic_pending_vector(&a) == 0xef) {
            fired++;
            vlapic_ack(&a, 0xef);
            CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, now), VLAPIC_OK);
        }
    }
    CHECK(fired <= 5);
    /* a divide change of an unfloored periodic count keeps its count */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0xb, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 4 * floor, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0x0, floor * TSC_PER_TICK), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, floor * TSC_PER_TICK), 3 * floor);
    CHECK_EQ(vlapic_next_deadline(&a), floor * TSC_PER_TICK + 3 * floor * 2 * TSC_PER_TICK);
}

TEST(divide_change_while_counting_keeps_the_count)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0xb, 0), VLAPIC_OK);     /* 1 */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 100, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_DCR, 0x0, 40 * TSC_PER_TICK), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 40 * TSC_PER_TICK), 60);
    CHECK_EQ(vlapic_next_deadline(&a), 40 * TSC_PER_TICK + 60 * 2 * TSC_PER_TICK);
}

TEST(tsc_deadline_mode)
{
    struct vlapic a = enabled();

    /* the MSR reads 0 and ignores writes outside TSC-deadline mode */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 5000, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TSC_DEADLINE, 0), 0);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0xee | VLAPIC_TIMER_TSC_DEADLINE, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 77, 0), VLAPIC_OK);   /* ignored */
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_ICR, 0), 0);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 5000, 10), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TSC_DEADLINE, 10), 5000);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 10), 0);
    CHECK_EQ(vlapic_next_deadline(&a), 5000);
    /* re-armed later before it fired */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 6000, 20), VLAPIC_OK);
    vlapic_timer_advance(&a, 5999);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    vlapic_timer_advance(&a, 6003);
    CHECK_EQ(vlapic_pending_vector(&a), 0xee);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TSC_DEADLINE, 6003), 0);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    vlapic_ack(&a, 0xee);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 0), VLAPIC_OK);
    /* 0 disarms; a deadline already past fires at the write */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 9000, 7000), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 0, 7001), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 100, 7002), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), 0xee);
}

TEST(timer_mode_change_to_or_from_deadline_disarms)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30 | VLAPIC_TIMER_TSC_DEADLINE, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 5000, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30, 1), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 10, 2), VLAPIC_OK);
    /* one-shot <-> periodic keeps counting */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30 | VLAPIC_TIMER_PERIODIC, 3), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), 2 + 10 * 2 * TSC_PER_TICK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30 | VLAPIC_TIMER_TSC_DEADLINE, 4), VLAPIC_OK);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TSC_DEADLINE, 5), 0);
    /* the timer fires on reads and writes too, not only in vlapic_timer_advance */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 50, 6), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TPR, 60), 0);
    CHECK_EQ(vlapic_pending_vector(&a), 0x30);
}

TEST(timer_one_shot_run_out_stays_zero_in_periodic_mode)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 10, 0), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 10 * 2 * TSC_PER_TICK + 5), 0);
    /* a mode change does not reload a count that ran out */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_LVT_TIMER, 0x30 | VLAPIC_TIMER_PERIODIC,
                          10 * 2 * TSC_PER_TICK + 6), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TIMER_CCR, 10 * 2 * TSC_PER_TICK + 7), 0);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    /* a new initial count does */
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TIMER_ICR, 10, 1000), VLAPIC_OK);
    CHECK(rd(&a, VLAPIC_MSR_TIMER_CCR, 1001) > 0);
}

TEST(cr8_is_tpr_bits_7_to_4)
{
    struct vlapic a = enabled();

    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 0x5a, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_cr8_read(&a), 5);
    CHECK_EQ(vlapic_cr8_write(&a, 9), VLAPIC_OK);
    CHECK_EQ(rd(&a, VLAPIC_MSR_TPR, 0), 0x90);
    CHECK_EQ(vlapic_cr8_write(&a, 0x10), VLAPIC_GP);
    CHECK_EQ(vlapic_cr8_read(&a), 9);
    vlapic_accept(&a, 0x95, false);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    CHECK_EQ(vlapic_cr8_write(&a, 8), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), 0x95);
}

/* The x2APIC accesses a Linux 6.1 kernel makes on the boot CPU of a domain
 * whose MADT has no I/O APIC (arch/x86/kernel/apic/apic.c: check_x2apic,
 * clear_local_APIC, init_bsp_APIC, setup_local_APIC, lapic_setup_esr, the
 * TSC-deadline clock event, a timer interrupt and its EOI, the timer's
 * shutdown and disable_local_APIC at power-off): none may #GP. */
enum linux_op { RD, WR, RMW_OR, RMW_CLEAR, RMW_SVR };

struct linux_access {
    enum linux_op op;
    uint32_t msr;
    uint64_t value;
};

#define LVT_MASKED   0x10000
#define ERROR_VECTOR 0xfe
#define TIMER_VECTOR 0xec

static const struct linux_access linux_boot[] = {
    { RD, VLAPIC_MSR_APIC_BASE, 0 },                       /* check_x2apic */
    { RD, VLAPIC_MSR_ID, 0 },
    { RD, VLAPIC_MSR_VERSION, 0 },                         /* lapic_get_maxlvt */
    { WR, VLAPIC_MSR_LVT_ERROR, ERROR_VECTOR | LVT_MASKED },   /* clear_local_APIC */
    { RMW_OR, VLAPIC_MSR_LVT_TIMER, LVT_MASKED },
    { RMW_OR, VLAPIC_MSR_LVT_LINT0, LVT_MASKED },
    { RMW_OR, VLAPIC_MSR_LVT_LINT1, LVT_MASKED },
    { RMW_OR, VLAPIC_MSR_LVT_PERF, LVT_MASKED },
    { RMW_OR, VLAPIC_MSR_LVT_THERMAL, LVT_MASKED },
    { WR, VLAPIC_MSR_LVT_TIMER, LVT_MASKED },
    { WR, VLAPIC_MSR_LVT_LINT0, LVT_MASKED },
    { WR, VLAPIC_MSR_LVT_LINT1, LVT_MASKED },
    { WR, VLAPIC_MSR_LVT_ERROR, LVT_MASKED },
    { WR, VLAPIC_MSR_LVT_PERF, LVT_MASKED },
    { WR, VLAPIC_MSR_ESR, 0 },
    { RD, VLAPIC_MSR_ESR, 0 },
    { RMW_SVR, VLAPIC_MSR_SVR, 0x200 },                    /* init_bsp_APIC: focus off */
    { WR, VLAPIC_MSR_LVT_LINT0, VLAPIC_DM_EXTINT },
    { WR, VLAPIC_MSR_LVT_LINT1, VLAPIC_DM_NMI },
    { WR, VLAPIC_MSR_LVT_PERF, VLAPIC_DM_NMI },            /* perf_events_lapic_init */
    { RD, VLAPIC_MSR_TPR, 0 },                             /* setup_local_APIC */
    { WR, VLAPIC_MSR_TPR, 0 },
    { RD, VLAPIC_MSR_IRR0 + 7, 0 }, { RD, VLAPIC_MSR_IRR0, 0 },
    { RD, VLAPIC_MSR_ISR0 + 7, 0 }, { RD, VLAPIC_MSR_ISR0, 0 },
    { RMW_SVR, VLAPIC_MSR_SVR, 0 },
    { RD, VLAPIC_MSR_LVT_LINT0, 0 },
    { WR, VLAPIC_MSR_LVT_LINT0, VLAPIC_DM_EXTINT },
    { WR, VLAPIC_MSR_LVT_LINT1, VLAPIC_DM_NMI },
    { WR, VLAPIC_MSR_ESR, 0 },                             /* lapic_setup_esr */
    { RD, VLAPIC_MSR_ESR, 0 },
    { WR, VLAPIC_MSR_LVT_ERROR, ERROR_VECTOR },
    { WR, VLAPIC_MSR_ESR, 0 },
    { RD, VLAPIC_MSR_ESR, 0 },
    { RD, VLAPIC_MSR_LDR, 0 },
    { WR, VLAPIC_MSR_LVT_TIMER, TIMER_VECTOR | VLAPIC_TIMER_TSC_DEADLINE },    /* clock event */
    { WR, VLAPIC_MSR_TSC_DEADLINE, 2000 },                 /* lapic_next_deadline */
};

static const struct linux_access linux_power_off[] = {
    { RMW_OR, VLAPIC_MSR_LVT_TIMER, LVT_MASKED | TIMER_VECTOR },   /* lapic_timer_shutdown */
    { WR, VLAPIC_MSR_TIMER_ICR, 0 },
    { WR, VLAPIC_MSR_LVT_ERROR, ERROR_VECTOR | LVT_MASKED },   /* disable_local_APIC */
    { RMW_OR, VLAPIC_MSR_LVT_TIMER, LVT_MASKED },
    { WR, VLAPIC_MSR_LVT_TIMER, LVT_MASKED },
    { WR, VLAPIC_MSR_LVT_LINT0, LVT_MASKED },
    { WR, VLAPIC_MSR_ESR, 0 },
    { RMW_CLEAR, VLAPIC_MSR_SVR, VLAPIC_SVR_ENABLE },
};

static void replay(struct vlapic *a, const struct linux_access *list, unsigned int n,
                   uint64_t now)
{
    for (unsigned int i = 0; i < n; i++) {
        const struct linux_access *x = &list[i];
        uint64_t v = 0;
        enum vlapic_status st = VLAPIC_OK;

        if (x->op != WR)
            st = vlapic_rdmsr(a, x->msr, now, &v);
        if (st == VLAPIC_OK && x->op == RMW_OR)
            st = vlapic_wrmsr(a, x->msr, v | x->value, now);
        else if (st == VLAPIC_OK && x->op == RMW_CLEAR)
            st = vlapic_wrmsr(a, x->msr, v & ~x->value, now);
        else if (st == VLAPIC_OK && x->op == RMW_SVR)   /* spurious vector 0xff, enabled */
            st = vlapic_wrmsr(a, x->msr, (v & ~0xffull) | x->value | 0xff | VLAPIC_SVR_ENABLE, now);
        else if (st == VLAPIC_OK && x->op == WR)
            st = vlapic_wrmsr(a, x->msr, x->value, now);
        if (!CHECK_EQ(st, VLAPIC_OK))
            printf("    access %u: msr 0x%x\n", i, x->msr);
    }
}

TEST(linux_boot_timer_interrupt_and_power_off_never_gp)
{
    struct vlapic a = fresh();

    replay(&a, linux_boot, sizeof linux_boot / sizeof linux_boot[0], 1000);
    CHECK_EQ(vlapic_next_deadline(&a), 2000);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    vlapic_timer_advance(&a, 2001);
    CHECK_EQ(vlapic_pending_vector(&a), TIMER_VECTOR);
    vlapic_ack(&a, TIMER_VECTOR);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 2100), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_SELF_IPI, 0xf6, 2200), VLAPIC_OK);    /* irq_work */
    CHECK_EQ(vlapic_pending_vector(&a), 0xf6);
    vlapic_ack(&a, 0xf6);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_EOI, 0, 2300), VLAPIC_OK);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TSC_DEADLINE, 9000, 2400), VLAPIC_OK);
    replay(&a, linux_power_off, sizeof linux_power_off / sizeof linux_power_off[0], 3000);
    CHECK_EQ(vlapic_next_deadline(&a), VLAPIC_NO_DEADLINE);
    CHECK_EQ(rd(&a, VLAPIC_MSR_SVR, 3000) & VLAPIC_SVR_ENABLE, 0);
    vlapic_wrmsr(&a, VLAPIC_MSR_ESR, 0, 3000);
    CHECK_EQ(rd(&a, VLAPIC_MSR_ESR, 3000), 0);
}
