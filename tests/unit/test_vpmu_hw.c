/* The guest's virtual PMU on hardware counters (pmu/hw/vpmu_hw.c) against the
 * register-level model of the architectural PMU (tests/unit/pmu_model.c)
 * driven through the hardware backend's MSR interface. Differential: a
 * guest PMU whose runs are loaded onto the model's counters, counted there
 * and read back must end with the same registers, status bits and PMIs as
 * the same guest PMU counted in software (pmu/vpmu/vpmu_count.c), for random
 * programming, events, modes and Vertigo-held counters, with and without
 * full-width writes. Then the rules one by one: Vertigo's counters are
 * never touched, a fixed counter Vertigo holds moves to a GP counter
 * (instructions, cycles) or does not count (reference cycles), counters
 * without a free physical counter do not count and are counted as such,
 * legacy-loaded counters far from their wrap, the backend's MSR record
 * stays true, only the guest's overflow bits are cleared, widths other
 * than 48 bits are refused. */
#include "tests/unit/unit.h"
#include "tests/unit/pmu_model.h"
#include "pmu/hw/vpmu_hw.h"
#include "lib/msr.h"

#define WIDTH     48u
#define FW_WRITE  (1ull << 13)
#define EVTSEL(ev, umask, bits) ((uint64_t)(ev) | (uint64_t)(umask) << 8 | (bits))
#define USR       (1ull << 16)
#define OS        (1ull << 17)
#define INT       (1ull << 20)
#define EN        (1ull << 22)
#define LVT_NMI   (4u << 8)
#define FIXED(j)  (1ull << (32 + (j)))

struct rig {
    struct pmu_model model;
    struct pmu_hw hw;
    struct vpmu_hw vh;
    struct vpmu guest;      /* runs on the model's counters */
    struct vpmu ref;        /* the same, counted in software */
};

static bool rig_init(struct rig *r, unsigned int gp, unsigned int width, bool full)
{
    struct pmu_desc d = { .version = 3, .gp_counters = (uint8_t)gp, .gp_width = (uint8_t)width,
                          .fixed_counters = 3, .fixed_width = (uint8_t)width, .fixed_mask = 0x7,
                          .events_available = 0x7f };
    struct pmu_model_config cfg = { 3, gp, width, 0x7, width, full, false };
    pmu_model_init(&r->model, &cfg);
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &r->model };
    if (!CHECK_EQ(pmu_hw_init(&r->hw, &d, full ? FW_WRITE : 0, &ops), PMU_OK))
        return false;
    bool ok = vpmu_hw_init(&r->vh, &r->hw);
    struct vpmu_config offer = vpmu_hw_offer(&r->hw);
    vpmu_init(&r->guest, &offer);
    vpmu_init(&r->ref, &offer);
    return ok;
}

/* The same guest access on both guest PMUs: same result. */
static void guest_wrmsr(struct rig *r, uint32_t msr, uint64_t value)
{
    enum vpmu_access a = vpmu_wrmsr(&r->guest, msr, value);
    CHECK_EQ(vpmu_wrmsr(&r->ref, msr, value), a);
}

/* One guest run: load, the VM entry's GLOBAL_CTRL, n events of one kind
 * in one mode on the model (and in software on ref), the VM exit's
 * GLOBAL_CTRL, save. Returns the GLOBAL_CTRL bits the load asked for. */
static uint64_t run(struct rig *r, uint64_t busy, const struct pmu_model_event *mev,
                    enum vpmu_arch_event ev, enum vpmu_mode mode, uint64_t n)
{
    uint64_t enable = vpmu_hw_load(&r->vh, &r->guest, busy);
    r->model.global_ctrl = enable;          /* the VM entry's load */
    pmu_model_count(&r->model, mev, mode == VPMU_USER ? PMU_MODEL_USER : PMU_MODEL_KERNEL, n);
    r->model.global_ctrl = 0;               /* the VM exit's load */
    vpmu_hw_save(&r->vh, &r->guest);
    vpmu_count(&r->ref, ev, mode, n);
    return enable;
}

static bool same_guest_state(const struct vpmu *a, const struct vpmu *b)
{
    bool ok = true;
    for (unsigned int k = 0; k < VPMU_MAX_GP; k++)
        ok &= CHECK_EQ(a->pmc[k], b->pmc[k]);
    for (unsigned int j = 0; j < VPMU_MAX_FIXED; j++)
        ok &= CHECK_EQ(a->fixed[j], b->fixed[j]);
    ok &= CHECK_EQ(a->global_status, b->global_status);
    ok &= CHECK_EQ(a->lvtpc, b->lvtpc);
    ok &= CHECK_EQ(a->nmis_pending, b->nmis_pending);
    ok &= CHECK_EQ(a->vectors_pending, b->vectors_pending);
    ok &= CHECK_EQ(a->pmis_delivered, b->pmis_delivered);
    /* pmis_masked is not compared: software counts one per wrap it steps
     * over while LVTPC is masked, hardware raises one PMI per run. */
    return ok;
}

/* ---- Differential -------------------------------------------------------- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const struct {
    const struct pmu_model_event *model;
    enum vpmu_arch_event ev;
    uint16_t select;        /* event select | unit mask << 8 */
} events[] = {
    { &pmu_model_instructions, VPMU_EV_INSTRUCTIONS, 0x00c0 },
    { &pmu_model_cycles, VPMU_EV_CYCLES, 0x003c },
    { &pmu_model_ref_cycles, VPMU_EV_REF_CYCLES, 0x013c },
    { &pmu_model_branches, VPMU_EV_BRANCHES, 0x00c4 },
};
#define EVENT_KINDS (sizeof(events) / sizeof(events[0]))

/* A random guest MSR write of the kinds perf and PAPI make. */
static void random_programming(struct rig *r)
{
    unsigned int k = (unsigned int)(rnd() % VPMU_MAX_GP), j = (unsigned int)(rnd() % VPMU_MAX_FIXED);
    switch (rnd() % 7) {
    case 0:
        guest_wrmsr(r, MSR_IA32_PERFEVTSEL0 + k,
                    EVTSEL(events[rnd() % EVENT_KINDS].select, 0, EN | (rnd() & (USR | OS | INT))));
        break;
    case 1: guest_wrmsr(r, MSR_IA32_PMC0 + k, -(uint64_t)(1 + rnd() % 5000)); break;
    case 2: guest_wrmsr(r, MSR_IA32_PMC0 + k, rnd() % 1000); break;
    case 3: guest_wrmsr(r, MSR_IA32_FIXED_CTR0 + j, ((1ull << WIDTH) - 1 - rnd() % 5000)); break;
    case 4: guest_wrmsr(r, MSR_IA32_FIXED_CTR_CTRL, rnd() & 0xbbb); break;
    case 5: guest_wrmsr(r, MSR_IA32_PERF_GLOBAL_CTRL, rnd() & 0x70000000full); break;
    default: guest_wrmsr(r, MSR_IA32_PERF_GLOBAL_OVF_CTRL, rnd() & 0x70000000full); break;
    }
    if (rnd() % 4 == 0) {
        uint32_t lvt = LVT_NMI | (rnd() % 2 ? 1u << 16 : 0);
        vpmu_lvtpc_write(&r->guest, lvt);
        vpmu_lvtpc_write(&r->ref, lvt);
    }
}

static bool differential(bool full_width)
{
    struct rig r;
    if (!rig_init(&r, 8, WIDTH, full_width))
        return false;
    bool ok = true;
    for (unsigned int step = 0; step < 20000 && ok; step++) {
        random_programming(&r);
        /* Vertigo holds some of GP 6-7 and fixed 0-1: six GP counters stay
         * free for the guest's four and two fixed ones moved. */
        uint64_t busy = (rnd() & 0xc0) | (rnd() & (FIXED(0) | FIXED(1)));
        unsigned int e = (unsigned int)(rnd() % EVENT_KINDS);
        uint64_t n = rnd() % 8 == 0 ? (1ull << 31) + rnd() % 100000 : rnd() % 6000;
        uint64_t enable = run(&r, busy, events[e].model, events[e].ev,
                              rnd() % 2 ? VPMU_USER : VPMU_KERNEL, n);
        ok &= CHECK_EQ(enable & busy, 0);
        ok &= CHECK_EQ(r.vh.counters_unplaced, 0);
        ok &= same_guest_state(&r.guest, &r.ref);
        r.guest.nmis_pending = r.ref.nmis_pending = 0;      /* injected */
    }
    ok &= CHECK_EQ(r.model.faults, 0);
    return ok;
}

TEST(guest_counters_on_hardware_match_software_counting_full_width)
{
    CHECK(differential(true));
}

TEST(guest_counters_on_hardware_match_software_counting_legacy_writes)
{
    CHECK(differential(false));
}

/* ---- Rules ---------------------------------------------------------------- */

/* Vertigo's own counter 0 (instructions, value v) and fixed counter 1 are
 * programmed in the model as its backend would have left them. */
static void vertigo_holds(struct rig *r, uint64_t v)
{
    pmu_model_wrmsr(&r->model, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc0, 0, EN | USR | OS | INT));
    pmu_model_wrmsr(&r->model, MSR_IA32_PMC0, v);
    pmu_model_wrmsr(&r->model, MSR_IA32_FIXED_CTR_CTRL, 0xb0);    /* fixed 1: OS|USR|PMI */
    r->hw.shadow.evtsel[0] = EVTSEL(0xc0, 0, EN | USR | OS | INT);
    r->hw.shadow.pmc[0] = v;
    r->hw.shadow.fixed_ctrl = 0xb0;
}

TEST(vertigo_counters_are_left_alone_and_fixed_counters_move_to_gp)
{
    struct rig r;
    CHECK(rig_init(&r, 4, WIDTH, true));
    vertigo_holds(&r, 1234);
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc0, 0, EN | USR));
    guest_wrmsr(&r, MSR_IA32_FIXED_CTR_CTRL, 0x222);        /* fixed 0-2 user */
    guest_wrmsr(&r, MSR_IA32_PERF_GLOBAL_CTRL, 0x700000001ull);
    uint64_t busy = 1ull | FIXED(1);
    uint64_t enable = vpmu_hw_load(&r.vh, &r.guest, busy);
    CHECK_EQ(r.vh.at.gp[0], 1);                 /* GP 0 is Vertigo's */
    CHECK_EQ(r.vh.at.fixed[0], 32);             /* its own fixed counter */
    CHECK_EQ(r.vh.at.fixed[1], 2);              /* cycles on a free GP counter */
    CHECK_EQ(r.vh.at.fixed[2], 34);
    CHECK_EQ(enable, 0x2ull | 0x4ull | FIXED(0) | FIXED(2));
    CHECK_EQ(r.model.evtsel[0], EVTSEL(0xc0, 0, EN | USR | OS | INT));
    CHECK_EQ(r.model.pmc[0], 1234);
    CHECK_EQ(r.model.evtsel[2], EVTSEL(0x3c, 0, EN | USR));
    CHECK_EQ(r.model.fixed_ctrl, 0x2b2);        /* Vertigo's field 1 kept */
    CHECK_EQ(r.hw.shadow.fixed_ctrl, r.model.fixed_ctrl);
    for (unsigned int k = 1; k < 3; k++) {
        CHECK_EQ(r.hw.shadow.evtsel[k], r.model.evtsel[k]);
        CHECK_EQ(r.hw.shadow.pmc[k], r.model.pmc[k]);
    }
    r.model.global_ctrl = enable;
    pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_USER, 500);
    pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 300);
    r.model.global_ctrl = 0;
    vpmu_hw_save(&r.vh, &r.guest);
    CHECK_EQ(r.guest.pmc[0], 300);
    CHECK_EQ(r.guest.fixed[0], 300);
    CHECK_EQ(r.guest.fixed[1], 500);
    CHECK_EQ(r.model.pmc[0], 1234);             /* Vertigo's did not count the guest */
}

TEST(reference_cycles_do_not_move_and_counters_without_room_do_not_count)
{
    struct rig r;
    CHECK(rig_init(&r, 4, WIDTH, true));
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc0, 0, EN | USR));
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0 + 1, EVTSEL(0xc0, 0, EN | USR));
    guest_wrmsr(&r, MSR_IA32_FIXED_CTR_CTRL, 0x200);        /* fixed 2 user */
    guest_wrmsr(&r, MSR_IA32_PERF_GLOBAL_CTRL, 0x400000003ull);
    uint64_t busy = 0x7ull | FIXED(2);                     /* GP 0-2 and fixed 2 */
    uint64_t enable = vpmu_hw_load(&r.vh, &r.guest, busy);
    CHECK_EQ(enable, 0x8ull);
    CHECK_EQ(r.vh.at.gp[0], 3);
    CHECK_EQ(r.vh.at.gp[1], VPMU_HW_NONE);
    CHECK_EQ(r.vh.at.fixed[2], VPMU_HW_NONE);
    CHECK_EQ(r.vh.counters_unplaced, 2);
    r.model.global_ctrl = enable;
    pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 77);
    pmu_model_count(&r.model, &pmu_model_ref_cycles, PMU_MODEL_USER, 77);
    r.model.global_ctrl = 0;
    vpmu_hw_save(&r.vh, &r.guest);
    CHECK_EQ(r.guest.pmc[0], 77);
    CHECK_EQ(r.guest.pmc[1], 0);
    CHECK_EQ(r.guest.fixed[2], 0);
}

/* Without full-width writes a GP counter takes bits 31:0 sign-extended: a
 * counter far from its wrap is loaded as its low 31 bits and read back
 * with the difference; one near its wrap is loaded exactly, so the
 * hardware's overflow (and the guest's PMI) happens at its exact point. */
TEST(legacy_writes_load_far_counters_with_an_offset_and_near_ones_exactly)
{
    struct rig r;
    CHECK(rig_init(&r, 4, WIDTH, false));
    r.guest.pmc[0] = 0x123480001000ull;                     /* counted there earlier */
    r.guest.pmc[1] = (1ull << WIDTH) - 100;
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc0, 0, EN | OS));
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0 + 1, EVTSEL(0xc0, 0, EN | OS | INT));
    guest_wrmsr(&r, MSR_IA32_PERF_GLOBAL_CTRL, 0x3);
    vpmu_lvtpc_write(&r.guest, LVT_NMI);
    uint64_t enable = vpmu_hw_load(&r.vh, &r.guest, 0);
    CHECK_EQ(r.model.pmc[0], 0x1000);
    CHECK_EQ(r.model.pmc[1], (1ull << WIDTH) - 100);
    r.model.global_ctrl = enable;
    pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 150);
    r.model.global_ctrl = 0;
    CHECK_EQ(r.model.global_status, 0x2);                   /* the hardware's own overflow */
    uint64_t guest_bits = vpmu_hw_save(&r.vh, &r.guest);
    CHECK_EQ(guest_bits, 0x2);
    CHECK_EQ(r.model.global_status, 0);                     /* cleared through OVF_CTRL */
    CHECK_EQ(r.guest.pmc[0], 0x123480001000ull + 150);
    CHECK_EQ(r.guest.pmc[1], 50);
    CHECK_EQ(r.guest.global_status, 0x2);
    CHECK_EQ(r.guest.nmis_pending, 1);
    CHECK_EQ(r.guest.lvtpc & (1u << 16), 1u << 16);         /* masked on delivery */
}

TEST(only_the_guests_overflow_bits_are_cleared)
{
    struct rig r;
    CHECK(rig_init(&r, 4, WIDTH, true));
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0, EVTSEL(0xc0, 0, EN | USR));
    guest_wrmsr(&r, MSR_IA32_PMC0, -(uint64_t)10);
    guest_wrmsr(&r, MSR_IA32_PERF_GLOBAL_CTRL, 0x1);
    uint64_t enable = vpmu_hw_load(&r.vh, &r.guest, 0x1);  /* guest's on GP 1 */
    r.model.global_status = 0x1;                            /* Vertigo's GP 0 overflowed */
    r.model.global_ctrl = enable;
    pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 20);
    r.model.global_ctrl = 0;
    CHECK_EQ(vpmu_hw_save(&r.vh, &r.guest), 0x2);
    CHECK_EQ(r.model.global_status, 0x1);
    CHECK_EQ(r.guest.global_status, 0x1);                   /* the guest's own counter 0 */
    CHECK_EQ(r.guest.pmc[0], 10);
}

TEST(hardware_counters_of_another_width_are_refused)
{
    struct rig r;
    CHECK(!rig_init(&r, 4, 40, true));
}

TEST(the_offer_follows_the_hardware)
{
    struct rig r;
    CHECK(rig_init(&r, 2, WIDTH, true));
    struct vpmu_config c = vpmu_hw_offer(&r.hw);
    CHECK_EQ(c.gp_counters, 2);
    CHECK_EQ(c.fixed_counters, 3);
    CHECK_EQ(c.available, 0x7f);
    r.hw.fixed_present = 0x5;                               /* fixed 1 missing */
    r.hw.desc.events_available = 0x3;
    c = vpmu_hw_offer(&r.hw);
    CHECK_EQ(c.fixed_counters, 1);
    CHECK_EQ(c.available, 0x3);
}

/* The event filter: a raw model-specific event the guest programs (here
 * 0xB7/0x01, off-core response) is never loaded on a real counter and
 * does not count, while an architectural one beside it does; the event
 * select register the guest reads back is its own. */
TEST(raw_events_outside_the_allow_list_never_reach_a_real_counter)
{
    struct rig r;
    CHECK(rig_init(&r, 4, WIDTH, true));
    CHECK(vpmu_event_allowed(EVTSEL(0xc0, 0, EN | USR)));
    CHECK(vpmu_event_allowed(EVTSEL(0x2e, 0x41, EN | OS)));
    CHECK(!vpmu_event_allowed(EVTSEL(0xb7, 0x01, EN | USR)));
    CHECK(!vpmu_event_allowed(EVTSEL(0xc0, 0x01, EN | USR)));     /* another unit mask */
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0, EVTSEL(0xb7, 0x01, EN | USR));
    guest_wrmsr(&r, MSR_IA32_PERFEVTSEL0 + 1, EVTSEL(0xc0, 0, EN | USR));
    guest_wrmsr(&r, MSR_IA32_PERF_GLOBAL_CTRL, 0x3ull);
    uint64_t enable = vpmu_hw_load(&r.vh, &r.guest, 0);
    CHECK_EQ(r.vh.events_denied, 1);
    int raw = r.vh.at.gp[0], arch = r.vh.at.gp[1];
    CHECK(arch != VPMU_HW_NONE);
    CHECK_EQ(enable, 1ull << arch);                 /* only the allowed one is enabled */
    if (raw != VPMU_HW_NONE)
        CHECK((r.model.evtsel[raw] & 0xffff) != 0x01b7);    /* never loaded */
    r.model.global_ctrl = enable;
    pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 42);
    r.model.global_ctrl = 0;
    vpmu_hw_save(&r.vh, &r.guest);
    CHECK_EQ(r.guest.pmc[0], 0);
    CHECK_EQ(r.guest.pmc[1], 42);
    CHECK_EQ(r.guest.evtsel[0], EVTSEL(0xb7, 0x01, EN | USR));
}
