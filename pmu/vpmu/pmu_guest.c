/* The guest's virtual PMU in the VM-exit loop (see pmu/vpmu/pmu_guest.h). */
#include "pmu/vpmu/pmu_guest.h"

#include "pmu/pmu_arch.h"
#include "pmu/run/pmu_config.h"
#include "pmu/vpmu/pmu_guest_log.h"
#include "pmu/vpmu/vpmu_part.h"
#include "lib/console.h"
#include "lib/msr.h"

/* What the software backend counts: one TSC tick is an instruction, a
 * core cycle and a reference cycle in Bochs; elsewhere only cycles. */
static struct vpmu_config offered(void)
{
    uint32_t events = 1u << VPMU_EV_CYCLES | 1u << VPMU_EV_REF_CYCLES;
    if (pmu_config.tsc_counts_instructions)
        events |= 1u << VPMU_EV_INSTRUCTIONS;
    return (struct vpmu_config){ pmu_config.guest_gp_counters, pmu_config.guest_fixed_counters,
                                 events };
}

void pmu_guest_start(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    p->vpmu.on = pmu_config.guest_pmu;
    if (!p->vpmu.on)
        return;
    struct vpmu_config config = offered();
    vpmu_init(&p->vpmu.regs, &config);
    pmu_guest_clock_plan(&p->vpmu.clock, &p->vpmu.regs);
    pmu_arch_rdpmc_exiting(v, true);
}

bool pmu_guest_needs_modes(const struct vcpu *v)
{
    return v->pmu.vpmu.on && vpmu_counts_one_mode(&v->pmu.vpmu.regs);
}

/* The PMIs the count raised go through the guest's LVTPC: its current
 * value is taken first (the guest writes it directly), and a delivery
 * masks it, as the local APIC does (SDM Vol. 3A 11.5.1). */
static void deliver(struct vcpu *v, unsigned int nmis)
{
    for (unsigned int i = 0; i < nmis; i++)
        pmu_arch_queue_vcpu_nmi(v);
    pmu_arch_guest_lvtpc_write(v, pmu_arch_guest_lvtpc(v) | VPMU_LVT_MASKED);
}

/* The PMIs the counting raised, handed on: as NMIs, or as LVTPC's fixed
 * vector where the VCPU's APIC takes it (the PMIs of one count merge into
 * one interrupt, as a vector pending in the IRR does). */
static void deliver_pending(struct vcpu *v)
{
    struct vpmu *g = &v->pmu.vpmu.regs;
    if (g->nmis_pending)
        deliver(v, g->nmis_pending);
    if (g->vectors_pending && pmu_arch_guest_pmi_vector(v))
        v->pmu.vpmu.pmis_vector += g->vectors_pending;
    else
        v->pmu.vpmu.pmis_unsupported += g->vectors_pending;   /* see pmu_guest.h */
    g->nmis_pending = g->vectors_pending = 0;
}

/* ---- The software backend: counted lazily (pmu/vpmu/pmu_guest_clock.h) ---------- */

/* pmu_guest_take but the clock's new budgets, which the caller sets:
 * returns what they must become. (The PMIs' delivery and log never read
 * the clock.) */
static enum pmu_guest_clock_budgets take_unsettled(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    bool pmi = pmu_guest_clock_due(&p->vpmu.clock);
    if (pmi)
        vpmu_lvtpc_write(&p->vpmu.regs, pmu_arch_guest_lvtpc(v));
    enum pmu_guest_clock_budgets what = pmu_guest_clock_count(&p->vpmu.clock, &p->vpmu.regs);
    if (pmi) {
        deliver_pending(v);
        pmu_guest_log_pmis(v);
    }
    return what;
}

void pmu_guest_take(struct vcpu *v)
{
    pmu_guest_clock_settle(&v->pmu.vpmu.clock, &v->pmu.vpmu.regs, take_unsettled(v));
}

/* The run's backend's part in the guest's PMU; NULL: none runs, or the
 * backend counts it lazily here (pmu/vpmu/vpmu_part.h). */
static const struct vpmu_part *part(void)
{
    return pmu_config.kind ? pmu_config.kind->vpmu : NULL;
}

/* The guest's counters are counted lazily here (a backend runs, without
 * a part of its own). */
static bool counted_lazily(void)
{
    return pmu_config.kind && !pmu_config.kind->vpmu;
}

/* Whether the guest's counters must take the events since the last take
 * before an access: counted lazily, and some counter counts. While none
 * does (most of Linux's PMI handler runs with GLOBAL_CTRL cleared) those
 * events advance nothing, and whatever take comes next counts them with
 * the counters then live: none, since every write that makes one live
 * (an event select, FIXED_CTR_CTRL, GLOBAL_CTRL) takes first, and its new
 * PMI points, planned from the counters, drop them. */
static bool take_needed(const struct vcpu *v)
{
    return counted_lazily() && vpmu_counts_anything(&v->pmu.vpmu.regs);
}

/* Before the guest's access to a PMU register: its counters up to date. */
static void take_before_access(struct vcpu *v)
{
    if (take_needed(v))
        pmu_guest_take(v);
}

/* ---- A backend with a part: the guest's counters on counters of its own --- */

/* RDPMC keeps exiting: with no virtual PMU it gets #GP (vmx/exit_misc.c),
 * where running natively it would read the machine's counters. */
static void withdraw(struct vcpu *v)
{
    v->pmu.vpmu.on = false;
    v->pmu.guest_alone = false;
    pmu_arch_rdpmc_exiting(v, true);
}

void pmu_guest_backend_failed(struct vcpu *v, const char *why)
{
    if (!v->pmu.vpmu.on)
        return;
    printk("pmu: the guest gets no virtual PMU: no counting on this VCPU (%s)\n", why);
    withdraw(v);
}

void pmu_guest_bind_hw(struct vcpu *v)
{
    if (v->pmu.vpmu.on && part() && !part()->bind(v))
        withdraw(v);
}

void pmu_guest_hw_enter(struct vcpu *v, struct pmu_entry_plan *plan)
{
    struct vcpu_pmu *p = &v->pmu;
    if (p->vpmu.on && part() && vpmu_active(&p->vpmu.regs))
        part()->enter(v, plan);
}

void pmu_guest_hw_exit(struct vcpu *v)
{
    if (!v->pmu.vpmu.on || !part() || !part()->exit(v))
        return;
    deliver_pending(v);
    pmu_guest_log_pmis(v);
}

void pmu_guest_report(const struct vcpu *v)
{
    const struct vpmu *g = &v->pmu.vpmu.regs;
    if (!v->pmu.vpmu.on)
        return;
    printk("pmu: vcpu %u: guest PMU: %lu PMIs delivered, %lu lost to a masked LVTPC, "
           "%lu not delivered (LVTPC in a mode its APIC does not deliver)\n", v->id,
           g->pmis_delivered - v->pmu.vpmu.pmis_unsupported, g->pmis_masked,
           v->pmu.vpmu.pmis_unsupported);
    const struct pmu_guest_nmi_time *t = &v->pmu.vpmu.nmi_time;
    if (t->exits)
        printk("pmu: vcpu %u: guest PMU: Vertigo's time inside its NMI handlers kept off its "
               "TSC: %lu ticks in %lu exits, given back after each IRET\n", v->id,
               t->given_back + t->behind, t->exits);
}

void pmu_guest_cpuid_leaf(const struct vcpu *v, uint32_t regs[4])
{
    regs[0] = regs[1] = regs[2] = regs[3] = 0;
    if (v->pmu.vpmu.on)
        vpmu_cpuid_leaf(&v->pmu.vpmu.regs.config, regs);
}

bool pmu_guest_rdmsr(struct vcpu *v, uint32_t msr, uint64_t *value)
{
    if (!v->pmu.vpmu.on)
        return false;
    take_before_access(v);
    return vpmu_rdmsr(&v->pmu.vpmu.regs, msr, value) == VPMU_DONE;
}

struct vpmu_reg pmu_guest_reg(const struct vcpu *v, uint32_t msr)
{
    return vpmu_reg_of(&v->pmu.vpmu.regs, msr);
}

/* A write can start, stop or move a counter: the PMI points again. */
bool pmu_guest_write(struct vcpu *v, struct vpmu_reg reg, uint64_t value)
{
    if (!v->pmu.vpmu.on)
        return false;
    bool lazily = counted_lazily();
    enum pmu_guest_clock_budgets what = take_needed(v) ? take_unsettled(v) : PMU_GUEST_CLOCK_KEEP;
    bool done = vpmu_reg_write(&v->pmu.vpmu.regs, reg, value) == VPMU_DONE;
    /* One plan, after a write that can move a counter or a PMI point (the
     * take's would be made again at once); an acknowledgement of overflows
     * or a write refused moves none, and the take's budgets hold. */
    if (lazily && done && reg.kind != VPMU_REG_GLOBAL_OVF_CTRL)
        what = PMU_GUEST_CLOCK_REPLAN;
    pmu_guest_clock_settle(&v->pmu.vpmu.clock, &v->pmu.vpmu.regs, what);
    return done;
}

bool pmu_guest_write_changes_nothing(const struct vcpu *v, struct vpmu_reg reg, uint64_t value)
{
    return v->pmu.vpmu.on && vpmu_reg_write_changes_nothing(&v->pmu.vpmu.regs, reg, value);
}

bool pmu_guest_rdpmc(struct vcpu *v, uint32_t ecx, uint64_t *value)
{
    if (!v->pmu.vpmu.on)
        return false;
    take_before_access(v);
    return vpmu_rdpmc(&v->pmu.vpmu.regs, ecx, pmu_arch_guest_cpl(v), pmu_arch_guest_cr4_pce(v),
                      value) == VPMU_DONE;
}
