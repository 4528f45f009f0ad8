/* The guest's virtual PMU in the profiling log (see pmu/vpmu/pmu_guest_log.h).
 * The PMIs are taken from the virtual PMU's own totals (pmu/vpmu/vpmu.h), the
 * figures the end-of-domain line of pmu/vpmu/pmu_guest.c prints, so the log and
 * that line agree by construction: each call turns the growth of each
 * total since the previous call into that many records. */
#include "pmu/vpmu/pmu_guest_log.h"

#include "pmu/pmu_arch.h"
#include "pmu/vpmu/vpmu_prog.h"
#include "lib/console.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_hv.h"

void pmu_guest_log_programming(struct vcpu *v)
{
    struct vcpu_pmu *p = &v->pmu;
    struct vpmu_prog progs[VPMU_PROG_NEW_MAX];
    if (!p->vpmu.on)
        return;
    unsigned int n = vpmu_prog_new(&p->vpmu.regs, &p->vpmu.log.seen, progs);
    struct log_ring *ring = log_hv_ring();
    for (unsigned int i = 0; i < n && ring; i++) {
        struct log_guest_pmu_prog rec = { .domain = v->domain->id, .vcpu = v->id,
                                          .counter = progs[i].counter,
                                          .control = progs[i].control };
        log_emit_guest_pmu_prog(ring, pmu_arch_tsc(), &rec);
    }
}

/* The PMIs of each kind so far (enum log_guest_pmi_delivery order). */
static void pmi_totals(const struct vcpu *v, uint64_t totals[LOG_GUEST_PMI_DELIVERY_COUNT])
{
    const struct vcpu_pmu *p = &v->pmu;
    totals[LOG_GUEST_PMI_NMI] = p->vpmu.regs.pmis_delivered - p->vpmu.pmis_unsupported -
                                p->vpmu.pmis_vector;
    totals[LOG_GUEST_PMI_VECTOR] = p->vpmu.pmis_unsupported + p->vpmu.pmis_vector;
    totals[LOG_GUEST_PMI_MASKED] = p->vpmu.regs.pmis_masked;
}

/* A record for each PMI counted in totals beyond logged. */
static void emit_pmis(const struct vcpu *v, const uint64_t logged[LOG_GUEST_PMI_DELIVERY_COUNT],
                      const uint64_t totals[LOG_GUEST_PMI_DELIVERY_COUNT])
{
    struct log_ring *ring = log_hv_ring();
    for (uint8_t d = 0; d < LOG_GUEST_PMI_DELIVERY_COUNT && ring; d++) {
        struct log_guest_pmi rec = { .domain = v->domain->id, .vcpu = v->id,
                                     .status = v->pmu.vpmu.regs.global_status, .delivery = d };
        for (uint64_t n = logged[d]; n < totals[d]; n++)
            log_emit_guest_pmi(ring, pmu_arch_tsc(), &rec);
    }
}

/* Every entry asks: one comparison while no PMI was raised (each is
 * delivered, as an NMI or a vector, or masked). */
void pmu_guest_log_pmis(struct vcpu *v)
{
    uint64_t totals[LOG_GUEST_PMI_DELIVERY_COUNT];
    const struct vpmu *g = &v->pmu.vpmu.regs;
    uint64_t *logged = v->pmu.vpmu.log.pmis;
    if (!v->pmu.vpmu.on ||
        logged[0] + logged[1] + logged[2] == g->pmis_delivered + g->pmis_masked)
        return;
    pmi_totals(v, totals);
    emit_pmis(v, logged, totals);
    for (unsigned int d = 0; d < LOG_GUEST_PMI_DELIVERY_COUNT; d++)
        logged[d] = totals[d];
}

void pmu_guest_log_domain_end(const struct vcpu *v)
{
    const struct pmu_guest_log_state *s = &v->pmu.vpmu.log;
    uint64_t totals[LOG_GUEST_PMI_DELIVERY_COUNT];
    if (!v->pmu.vpmu.on)
        return;
    pmi_totals(v, totals);
    emit_pmis(v, s->pmis, totals);
    if (!log_hv_ring())
        return;                 /* log=none: no records, nothing to say */
    printk("pmu: vcpu %u: guest PMU log: %u programmings logged, %lu not (over %u); "
           "PMIs logged: %lu nmi, %lu vector, %lu masked\n", v->id, s->seen.count,
           s->seen.not_logged, VPMU_PROG_SEEN_MAX, totals[LOG_GUEST_PMI_NMI],
           totals[LOG_GUEST_PMI_VECTOR], totals[LOG_GUEST_PMI_MASKED]);
}
