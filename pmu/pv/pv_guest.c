/* What the paravirtual counters' hypercalls do with their validated
 * arguments (see pmu/pv/pv_guest.h). */
#include "pmu/pv/pv_guest.h"

#include "lib/console.h"
#include "pmu/backend/pmu_kind.h"
#include "pmu/pmu_arch.h"
#include "pmu/pv/pmu_pv.h"
#include "pmu/pv/pv_part.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_run.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"

int64_t pv_guest_page(struct vcpu *v, uint64_t gpa)
{
    void *host = NULL;
    if (gpa) {
        int64_t r = hypercall_access_error(pmu_arch_guest_ram_page(v, gpa, &host));
        if (r)
            return r;
    }
    v->pmu.pv.tsc_counts_events = pmu_config.tsc_counts_instructions &&
                                  v->domain->vcpu_count == 1;
    pmu_pv_set_page(&v->pmu.pv, host, v->id);
    return 0;
}

/* The counters count the guest's runs the exit loop measures, or sit on
 * counters of the backend's own (its part, pmu/pv/pv_part.h), from the
 * VCPU's first program on if it had no counting session. */
int64_t pv_guest_program(struct vcpu *v, const struct vertigo_pv_program *prog)
{
    struct pmu_event_caps caps;
    const char *why = NULL;
    const struct pmu_kind *kind = pmu_config.kind;
    if (!kind || (!v->pmu.counting && pmu_run_start_counting(v) != PMU_OK))
        return -VERTIGO_ENOSYS;
    pmu_config_caps(&caps);
    const struct pv_part *own = kind->pv;
    int64_t r = own ? own->program(v, prog->events, &why)
                    : pmu_pv_program(&v->pmu.pv, prog->events, &caps, &why);
    if (r < 0) {
        printk("pmu: vcpu %u: paravirtual counters refused: %s\n", v->id, why);
        return r;
    }
    if (own)
        return r;
    pmu_run_modes_changed(v);
    if (r > 0)
        pmu_arch_rdpmc_exiting(v, true);    /* RDPMC of VERTIGO_PV_RDPMC + i */
    return r;
}

int64_t pv_guest_read(struct vcpu *v, uint64_t index)
{
    return pmu_pv_read(&v->pmu.pv, index);
}

int64_t pv_guest_vector(struct vcpu *v, uint64_t vector)
{
    const char *why = NULL;
    int64_t r = pmu_pv_set_vector(&v->pmu.pv, vector, &why);
    if (r < 0)
        printk("pmu: vcpu %u: overflow vector %lu refused: %s\n", v->id, vector, why);
    return r;
}
