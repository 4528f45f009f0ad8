/* The multiplexing tests' guest (see tests/unit/mux_guest_model.h). */
#include "tests/unit/mux_guest_model.h"

unsigned int mux_unit_cpl(uint64_t unit)
{
    return unit % 1000 < 700 ? 3 : 0;
}

struct mux_unit mux_unit_of(uint64_t unit)
{
    struct mux_unit u = { 1, 2, 3, unit % 4 == 0, unit % 8 == 0 };
    return u;
}

uint64_t mux_unit_amount(const struct pmu_event *ev, const struct mux_unit *u)
{
    if (ev->event_select == 0xc0)
        return u->instructions;
    if (ev->event_select == 0x3c)
        return ev->umask ? u->ref_cycles : u->cycles;
    if (ev->event_select == 0xc4)
        return u->branches;
    return ev->event_select == 0xc5 ? u->branch_misses : 0;
}

void mux_unit_count(struct pmu_model *m, const struct mux_unit *u, unsigned int cpl)
{
    enum pmu_model_mode mode = cpl ? PMU_MODEL_USER : PMU_MODEL_KERNEL;
    pmu_model_count(m, &pmu_model_cycles, mode, u->cycles);
    pmu_model_count(m, &pmu_model_ref_cycles, mode, u->ref_cycles);
    pmu_model_count(m, &pmu_model_branches, mode, u->branches);
    pmu_model_count(m, &pmu_model_branch_misses, mode, u->branch_misses);
    pmu_model_count(m, &pmu_model_instructions, mode, u->instructions);
}
