/* The hardware PMU backend (pmu/hw/pmu_hw.c) run against the register-level
 * model (tests/unit/pmu_model.c) for PMU versions 2-5, with full-width and
 * legacy counter writes: programming, counting by mode, exclusion of
 * hypervisor time, overflow/status/PMI/freeze, save/restore with write
 * elision, the emulated-instruction correction and specific errors; the
 * :h modifier (counting while Vertigo runs); the PMI's delivery through
 * the model's LVTPC (armed in NMI mode, masked by each delivery, unmasked
 * by the re-arm, overflows whose PMI was lost behind the mask) and status
 * bits Vertigo does not own. The test plays the CPU's part of VM
 * entry/exit: it loads GLOBAL_CTRL and DEBUGCTL from the plan the backend
 * returns, as the VMCS controls would; "in host" is kernel mode with the
 * host GLOBAL_CTRL value loaded. */
#include "pmu/hw/pmu_hw.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/unit.h"

#define WIDTH 48
#define MASK48 ((1ull << WIDTH) - 1)
#define FW_WRITE (1ull << 13)
#define FREEZE_PERFMON (1ull << 12)
#define CTR_FRZ (1ull << 59)
#define EVTSEL_USR (1ull << 16)
#define EVTSEL_OS (1ull << 17)
#define EVTSEL_INT (1ull << 20)
#define EVTSEL_EN (1ull << 22)
#define FIXED0 (1ull << 32)
#define FIXED1 (1ull << 33)
#define MSR_FIXED_CTR1 0x30a
#define MSR_STATUS_SET 0x391
#define LVTPC_NMI (PMU_MODEL_LVT_MODE_NMI << PMU_MODEL_LVT_MODE_SHIFT)

struct rig {
    struct pmu_model model;
    struct pmu_hw hw;
    struct pmu_backend be;
    struct pmu_entry_plan plan;
};

static struct pmu_desc make_desc(unsigned int version, unsigned int width)
{
    struct pmu_desc d = { .version = (uint8_t)version, .gp_counters = 4,
                          .gp_width = (uint8_t)width, .fixed_counters = 3,
                          .fixed_width = (uint8_t)width, .fixed_mask = 0x7,
                          .events_available = 0x7f };
    return d;
}

static bool rig_init_desc(struct rig *r, const struct pmu_desc *d, bool full)
{
    struct pmu_model_config cfg = { d->version, d->gp_counters, d->gp_width, d->fixed_mask,
                                    d->fixed_width, full, d->version >= 5 };
    pmu_model_init(&r->model, &cfg);
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &r->model };
    r->be = pmu_hw_backend(&r->hw);
    return CHECK_EQ(pmu_hw_init(&r->hw, d, full ? FW_WRITE : 0, &ops), PMU_OK);
}

static bool rig_init(struct rig *r, unsigned int version, bool full)
{
    struct pmu_desc d = make_desc(version, WIDTH);
    return rig_init_desc(r, &d, full);
}

static bool setup(struct rig *r, struct pmu_ctx *ctx, const char *events, const uint64_t *periods)
{
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    pmu_event_caps_hw(&caps, &r->hw.desc);
    if (!CHECK_EQ(pmu_event_list_parse(events, &caps, &list, NULL), PMU_EVERR_NONE))
        return false;
    pmu_ctx_init(ctx, &list, periods);
    return CHECK_EQ(r->be.ops->program(r->be.self, ctx), PMU_OK);
}

static void vm_entry(struct rig *r, struct pmu_ctx *ctx, unsigned int cpl)
{
    r->be.ops->enter(r->be.self, ctx, cpl, &r->plan);
    r->model.global_ctrl = r->plan.guest_global_ctrl;   /* entry control loads it */
    r->model.debugctl = r->plan.guest_debugctl_set;     /* guest DEBUGCTL field */
}

static uint32_t vm_exit(struct rig *r, struct pmu_ctx *ctx)
{
    r->model.global_ctrl = r->plan.host_global_ctrl;    /* exit control loads it */
    r->model.debugctl = 0;                              /* VM exit clears DEBUGCTL */
    return r->be.ops->exit(r->be.self, ctx, 0);
}

static uint64_t rd(struct rig *r, const struct pmu_ctx *ctx, unsigned int i)
{
    return r->be.ops->read(r->be.self, ctx, i);
}

#define FOR_EACH_CONFIG(version, full)                      \
    for (unsigned int version = 2; version <= 5; version++) \
        for (int full = 0; full <= 1; full++)

TEST(hw_counts_by_mode_and_excludes_hypervisor)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        if (!rig_init(&r, version, full) ||
            !setup(&r, &ctx, "instructions:u,cycles:k,branches,rc4:u", NULL))
            continue;
        CHECK_EQ(ctx.counters[0].event.slot, PMU_SLOT_FIXED);
        CHECK_EQ(ctx.counters[1].event.slot, PMU_SLOT_FIXED);
        CHECK_EQ(ctx.counters[2].event.slot, PMU_SLOT_GP);
        CHECK_EQ(r.be.ops->load(r.be.self, &ctx), PMU_OK);
        CHECK_EQ(r.model.evtsel[0], 0xc4 | (1ull << 16) | (1ull << 17) | (1ull << 20) | (1ull << 22));
        CHECK_EQ(r.model.fixed_ctrl, 0xa | (0x9 << 4));   /* ctr0 USR+PMI, ctr1 OS+PMI */

        vm_entry(&r, &ctx, 3);
        CHECK_EQ(r.plan.guest_global_ctrl, 0x3 | (0x3ull << 32));
        CHECK_EQ(r.plan.host_global_ctrl, 0);
        CHECK_EQ(r.plan.guest_debugctl_set, FREEZE_PERFMON);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 1000);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 500);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_USER, 300);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 700);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 50);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_KERNEL, 60);
        CHECK_EQ(vm_exit(&r, &ctx), 0);
        /* the hypervisor runs: nothing counts */
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 12345);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 777);
        CHECK_EQ(rd(&r, &ctx, 0), 1000);
        CHECK_EQ(rd(&r, &ctx, 1), 700);
        CHECK_EQ(rd(&r, &ctx, 2), 110);
        CHECK_EQ(rd(&r, &ctx, 3), 50);
        CHECK_EQ(r.model.faults, 0);
    }
}

TEST(hw_count_hypervisor_on_request)
{
    struct rig r;
    struct pmu_ctx ctx;
    if (!rig_init(&r, 4, true) || !setup(&r, &ctx, "cycles:ukh", NULL))
        return;
    r.be.ops->load(r.be.self, &ctx);
    CHECK_EQ(r.model.global_ctrl, FIXED1);          /* load runs in the host */
    vm_entry(&r, &ctx, 0);
    CHECK_EQ(r.plan.host_global_ctrl, FIXED1);
    pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 10);
    vm_exit(&r, &ctx);
    pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 5);
    CHECK_EQ(rd(&r, &ctx, 0), 15);
}

/* :h alone counts only while Vertigo runs, :ukh everywhere, :u never in the
 * host; the GLOBAL_CTRL values of the plan are exactly those counters. */
TEST(hw_hypervisor_modifier)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        if (!rig_init(&r, version, full) ||
            !setup(&r, &ctx, "cycles:h,instructions:ukh,cycles:u,branches:h", NULL))
            continue;
        CHECK_EQ(ctx.counters[0].event.slot, PMU_SLOT_FIXED);   /* fixed 1 */
        CHECK_EQ(ctx.counters[1].event.slot, PMU_SLOT_FIXED);   /* fixed 0 */
        CHECK_EQ(ctx.counters[2].event.slot_index, 0);          /* GP 0 */
        CHECK_EQ(ctx.counters[3].event.slot_index, 1);          /* GP 1 */
        CHECK_EQ(r.be.ops->load(r.be.self, &ctx), PMU_OK);
        /* :h needs the OS bit (Vertigo runs at CPL 0), :u only USR */
        CHECK_EQ(r.model.fixed_ctrl, 0xb | (0x9 << 4));  /* ctr0 OS+USR+PMI, ctr1 OS+PMI */
        CHECK_EQ(r.model.evtsel[0], 0x3c | EVTSEL_USR | EVTSEL_INT | EVTSEL_EN);
        CHECK_EQ(r.model.evtsel[1], 0xc4 | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
        CHECK_EQ(r.model.global_ctrl, FIXED0 | FIXED1 | 0x2);

        vm_entry(&r, &ctx, 3);
        CHECK_EQ(r.plan.guest_global_ctrl, FIXED0 | 0x1);
        CHECK_EQ(r.plan.host_global_ctrl, FIXED0 | FIXED1 | 0x2);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 100);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 50);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_USER, 300);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 700);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 11);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_KERNEL, 22);
        vm_exit(&r, &ctx);
        /* Vertigo runs */
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 1000);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 2000);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_KERNEL, 44);
        CHECK_EQ(rd(&r, &ctx, 0), 2000);            /* cycles:h */
        CHECK_EQ(rd(&r, &ctx, 1), 1150);            /* instructions:ukh */
        CHECK_EQ(rd(&r, &ctx, 2), 300);             /* cycles:u */
        CHECK_EQ(rd(&r, &ctx, 3), 44);              /* branches:h */
        /* the emulated-instruction correction is guest-only: not for :h */
        r.be.ops->emulated_instruction(r.be.self, &ctx, 0);
        CHECK_EQ(rd(&r, &ctx, 1), 1151);
        CHECK_EQ(rd(&r, &ctx, 0), 2000);
        CHECK_EQ(r.model.faults, 0);
    }
    /* guest user + Vertigo without the guest kernel: not on this backend */
    struct rig r;
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    if (!rig_init(&r, 4, true))
        return;
    pmu_event_caps_hw(&caps, &r.hw.desc);
    CHECK_EQ(pmu_event_list_parse("cycles:uh", &caps, &list, NULL),
             PMU_EVERR_HW_USER_HYPERVISOR);
}

/* A guest with no :h counter leaves the host value 0: nothing counts while
 * Vertigo runs, and load leaves GLOBAL_CTRL 0. */
TEST(hw_no_hypervisor_counter_host_zero)
{
    struct rig r;
    struct pmu_ctx ctx;
    if (!rig_init(&r, 5, true) || !setup(&r, &ctx, "cycles:k,instructions", NULL))
        return;
    r.be.ops->load(r.be.self, &ctx);
    CHECK_EQ(r.model.global_ctrl, 0);
    vm_entry(&r, &ctx, 0);
    CHECK_EQ(r.plan.host_global_ctrl, 0);
    CHECK_EQ(r.plan.guest_global_ctrl, FIXED0 | FIXED1);
    vm_exit(&r, &ctx);
    pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 9);
    CHECK_EQ(rd(&r, &ctx, 0), 0);
}

TEST(hw_overflow_status_pmi_freeze_and_rearm)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        const uint64_t periods[] = { 1000, 0, 64 };
        if (!rig_init(&r, version, full) ||
            !setup(&r, &ctx, "instructions:u,cycles:u,branches:u", periods))
            continue;
        r.be.ops->load(r.be.self, &ctx);
        CHECK_EQ(r.model.fixed[0], (0 - 1000ull) & MASK48);
        CHECK_EQ(r.model.pmc[0], (0 - 64ull) & MASK48);

        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 999);
        CHECK_EQ(r.model.pmis, 0);
        CHECK_EQ(r.model.global_status, 0);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 1);
        CHECK_EQ(r.model.pmis, 1);
        CHECK_EQ(r.model.global_status & (1ull << 32), 1ull << 32);
        /* freeze: nothing counts between the PMI and the VM exit */
        if (version >= 4)
            CHECK(pmu_model_frozen(&r.model));
        else
            CHECK_EQ(r.model.global_ctrl, 0);
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_USER, 40);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 7);
        vm_exit(&r, &ctx);

        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u << 0);
        CHECK_EQ(r.model.global_status, 0);             /* incl. CTR_Frz */
        CHECK_EQ(r.model.fixed[0], (0 - 1000ull) & MASK48);  /* re-armed */
        CHECK_EQ(rd(&r, &ctx, 0), 1000);
        CHECK_EQ(rd(&r, &ctx, 1), 0);
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 0);

        /* the next period and a GP overflow, in one guest run */
        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 64);
        vm_exit(&r, &ctx);
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u << 2);
        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 1500);
        vm_exit(&r, &ctx);
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u << 0);
        CHECK_EQ(rd(&r, &ctx, 0), 2000);    /* events after the PMI were frozen */
        CHECK_EQ(rd(&r, &ctx, 2), 64);
        CHECK_EQ(ctx.counters[0].overflows, 2);
        CHECK_EQ(r.model.pmis, 3);
        CHECK_EQ(r.model.faults, 0);
    }
}

TEST(hw_status_set_and_reset_names_v4)
{
    /* v4+: STATUS_SET raises bits (no PMI), STATUS_RESET (old OVF_CTRL) clears them. */
    struct rig r;
    struct pmu_ctx ctx;
    const uint64_t periods[] = { 100 };
    if (!rig_init(&r, 4, true) || !setup(&r, &ctx, "branches", periods))
        return;
    r.be.ops->load(r.be.self, &ctx);
    CHECK_EQ(pmu_model_wrmsr(&r.model, 0x391, 1ull | CTR_FRZ), 0);
    CHECK_EQ(r.model.pmis, 0);
    CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u);
    CHECK_EQ(r.model.global_status, 0);
}

TEST(hw_write_modes_and_width)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        struct pmu_desc d = make_desc(version, 40);
        uint64_t periods[] = { 1ull << 31, 5 };
        if (!rig_init_desc(&r, &d, full) || !setup(&r, &ctx, "branches,cycles", periods))
            continue;
        r.be.ops->load(r.be.self, &ctx);
        CHECK_EQ(r.model.pmc[0], (0 - (1ull << 31)) & ((1ull << 40) - 1));
        CHECK_EQ(r.model.fixed[1], (0 - 5ull) & ((1ull << 40) - 1));
        CHECK_EQ(r.model.full_pmc_writes > 0, (bool)full);
        CHECK_EQ(r.model.legacy_pmc_writes > 4, !full); /* init zeroes 4 via PMCx */
        CHECK_EQ(r.model.faults, 0);

        /* beyond -2^31 only full-width writes can preload */
        periods[0] = (1ull << 31) + 1;
        pmu_ctx_init(&ctx, &(struct pmu_event_list){ 1, { ctx.counters[0].event } }, periods);
        CHECK_EQ(r.be.ops->program(r.be.self, &ctx), full ? PMU_OK : PMU_ERR_PERIOD);
        periods[0] = 1ull << 40;        /* wider than the counter */
        pmu_ctx_init(&ctx, &(struct pmu_event_list){ 1, { ctx.counters[0].event } }, periods);
        CHECK_EQ(r.be.ops->program(r.be.self, &ctx), PMU_ERR_PERIOD);
    }
}

TEST(hw_switch_saves_restores_and_elides)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx a, b;
        if (!rig_init(&r, version, full) || !setup(&r, &a, "instructions,branches:k", NULL) ||
            !setup(&r, &b, "instructions,branches:k", NULL))
            continue;
        r.be.ops->load(r.be.self, &a);
        vm_entry(&r, &a, 0);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 300);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_KERNEL, 30);
        vm_exit(&r, &a);
        CHECK_EQ(r.be.ops->save(r.be.self, &a), PMU_OK);

        /* same events: only the two counters need writing */
        uint64_t writes = r.model.wrmsr_count;
        r.be.ops->load(r.be.self, &b);
        CHECK_EQ(r.model.wrmsr_count - writes, 2);
        CHECK_EQ(r.model.fixed[0], 0);
        vm_entry(&r, &b, 0);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 5);
        vm_exit(&r, &b);
        r.be.ops->save(r.be.self, &b);

        r.be.ops->load(r.be.self, &a);
        CHECK_EQ(r.model.fixed[0], 300);
        vm_entry(&r, &a, 0);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_KERNEL, 1);
        vm_exit(&r, &a);
        CHECK_EQ(rd(&r, &a, 0), 301);
        CHECK_EQ(rd(&r, &a, 1), 30);
        CHECK_EQ(rd(&r, &b, 0), 5);

        /* switching out and back in with nothing run writes nothing */
        r.be.ops->save(r.be.self, &a);
        writes = r.model.wrmsr_count;
        uint64_t elided = r.hw.msr_writes_elided;
        r.be.ops->load(r.be.self, &a);
        CHECK_EQ(r.model.wrmsr_count, writes);
        CHECK(r.hw.msr_writes_elided > elided);
        CHECK_EQ(r.hw.msr_writes, r.model.wrmsr_count);
    }
}

TEST(hw_legacy_restore_keeps_large_counts_exact)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx a, b;
        if (!rig_init(&r, version, full) || !setup(&r, &a, "branches", NULL) ||
            !setup(&r, &b, "branch-misses", NULL))
            continue;
        const uint64_t big = 0x90000005ull;     /* bit 31 set, bits above clear */
        r.be.ops->load(r.be.self, &a);
        vm_entry(&r, &a, 3);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, big);
        vm_exit(&r, &a);
        r.be.ops->save(r.be.self, &a);
        r.be.ops->load(r.be.self, &b);
        r.be.ops->save(r.be.self, &b);
        r.be.ops->load(r.be.self, &a);
        CHECK_EQ(r.model.faults, 0);
        CHECK_EQ(rd(&r, &a, 0), big);
        vm_entry(&r, &a, 3);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 10);
        vm_exit(&r, &a);
        CHECK_EQ(rd(&r, &a, 0), big + 10);
        /* full width restores the value itself */
        CHECK_EQ(r.model.pmc[0] == big + 10, (bool)full);
    }
}

TEST(hw_counting_only_counter_wraps_exactly)
{
    struct rig r;
    struct pmu_ctx ctx;
    struct pmu_desc d = make_desc(3, 32);
    if (!rig_init_desc(&r, &d, false) || !setup(&r, &ctx, "branches", NULL))
        return;
    r.be.ops->load(r.be.self, &ctx);
    vm_entry(&r, &ctx, 3);
    /* the wrap raises a PMI and freezes: the 3 events after it are lost */
    pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, (1ull << 32) + 3);
    vm_exit(&r, &ctx);
    CHECK_EQ(r.model.pmis, 1);
    CHECK_EQ(rd(&r, &ctx, 0), 1ull << 32);
    vm_entry(&r, &ctx, 3);
    pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 3);
    vm_exit(&r, &ctx);
    CHECK_EQ(rd(&r, &ctx, 0), (1ull << 32) + 3);    /* unhandled wrap seen in status */
    CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 0); /* no sample: counting only */
    CHECK_EQ(r.model.global_status, 0);
    CHECK_EQ(rd(&r, &ctx, 0), (1ull << 32) + 3);
}

TEST(hw_emulated_instruction_correction)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        const uint64_t periods[] = { 0, 0, 0, 10 };
        if (!rig_init(&r, version, full) ||
            !setup(&r, &ctx, "instructions:u,instructions:k,cycles,r00c0:u", periods))
            continue;
        r.be.ops->load(r.be.self, &ctx);
        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 9);
        vm_exit(&r, &ctx);
        r.be.ops->emulated_instruction(r.be.self, &ctx, 3);   /* e.g. CPUID in user mode */
        CHECK_EQ(rd(&r, &ctx, 0), 10);
        CHECK_EQ(rd(&r, &ctx, 1), 0);
        CHECK_EQ(rd(&r, &ctx, 2), 0);
        CHECK_EQ(rd(&r, &ctx, 3), 10);
        CHECK_EQ(ctx.overflow_pending, 1u << 3);            /* the +1 reached the period */
        CHECK_EQ(r.model.pmc[1], (0 - 10ull) & MASK48);      /* re-armed */
        r.be.ops->emulated_instruction(r.be.self, &ctx, 0);   /* e.g. WRMSR in the kernel */
        CHECK_EQ(rd(&r, &ctx, 0), 10);
        CHECK_EQ(rd(&r, &ctx, 1), 1);
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u << 3);
        CHECK_EQ(r.model.faults, 0);
    }
}

TEST(hw_v5_fixed_bitmap)
{
    struct rig r;
    struct pmu_ctx ctx;
    struct pmu_desc d = make_desc(5, WIDTH);
    d.fixed_mask = 0xb;     /* fixed 0, 1 and 3; no fixed ref-cycles counter */
    d.fixed_counters = 4;
    if (!rig_init_desc(&r, &d, true) || !setup(&r, &ctx, "ref-cycles,instructions", NULL))
        return;
    CHECK_EQ(ctx.counters[0].event.slot, PMU_SLOT_GP);
    CHECK_EQ(r.be.ops->load(r.be.self, &ctx), PMU_OK);
    vm_entry(&r, &ctx, 0);
    pmu_model_count(&r.model, &pmu_model_ref_cycles, PMU_MODEL_KERNEL, 33);
    vm_exit(&r, &ctx);
    CHECK_EQ(rd(&r, &ctx, 0), 33);
    CHECK_EQ(r.model.faults, 0);
}

TEST(hw_unsupported_requests_give_specific_errors)
{
    struct rig r;
    struct pmu_desc d = make_desc(1, WIDTH);
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &r.model };
    CHECK_EQ(pmu_hw_init(&r.hw, &d, 0, &ops), PMU_ERR_VERSION);
    d.version = 6;
    CHECK_EQ(pmu_hw_init(&r.hw, &d, 0, &ops), PMU_ERR_VERSION);

    /* CPUID claims 4 counters, the MSRs have 2: init reports the fault */
    struct pmu_model_config cfg = { 3, 2, WIDTH, 0x7, WIDTH, false, false };
    pmu_model_init(&r.model, &cfg);
    d = make_desc(3, WIDTH);
    CHECK_EQ(pmu_hw_init(&r.hw, &d, 0, &ops), PMU_ERR_MSR);

    /* a list assigned for 8 GP counters on a 4-counter PMU */
    struct pmu_desc big = make_desc(3, WIDTH);
    big.gp_counters = 8;
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    struct pmu_ctx ctx;
    pmu_event_caps_hw(&caps, &big);
    CHECK_EQ(pmu_event_list_parse("branches,branches,branches,branches,branches", &caps,
                                  &list, NULL), PMU_EVERR_NONE);
    if (!rig_init(&r, 3, false))
        return;
    pmu_ctx_init(&ctx, &list, NULL);
    CHECK_EQ(r.be.ops->program(r.be.self, &ctx), PMU_ERR_SLOT);

    /* the same list against this PMU's own capabilities */
    struct pmu_event_error err;
    pmu_event_caps_hw(&caps, &r.hw.desc);
    CHECK_EQ(pmu_event_list_parse("branches,branches,branches,branches,branches", &caps,
                                  &list, &err), PMU_EVERR_TOO_MANY);
    CHECK_EQ(err.index, 4);
    caps.desc.events_available &= ~(1u << PMU_ARCH_BRANCH_MISSES);
    CHECK_EQ(pmu_event_list_parse("cycles,branch-misses", &caps, &list, &err),
             PMU_EVERR_UNAVAILABLE);
    CHECK_STR(err.token, "branch-misses");
}

TEST(model_reserved_bits_and_gp_rules_per_version)
{
    for (unsigned int version = 2; version <= 5; version++) {
        struct pmu_model m;
        struct pmu_model_config cfg = { version, 4, WIDTH, 0x7, WIDTH, false, version >= 5 };
        pmu_model_init(&m, &cfg);
        uint64_t v;
        bool any_ok = version == 3 || version == 4;
        CHECK_EQ(pmu_model_wrmsr(&m, 0x186, 0xc0 | (1ull << 21)) == 0, any_ok);
        CHECK_EQ(pmu_model_wrmsr(&m, 0x38d, 0x4) == 0, any_ok);
        CHECK_EQ(pmu_model_wrmsr(&m, 0x186, 1ull << 32), -1);
        CHECK_EQ(pmu_model_wrmsr(&m, 0x38f, 1ull << 4), -1);          /* no PMC4 */
        CHECK_EQ(pmu_model_wrmsr(&m, 0x38f, 1ull << 35), -1);         /* no fixed 3 */
        CHECK_EQ(pmu_model_wrmsr(&m, 0x38d, 0x8ull << 12), -1);
        CHECK_EQ(pmu_model_wrmsr(&m, 0x38e, 0), -1);                  /* STATUS is RO */
        CHECK_EQ(pmu_model_wrmsr(&m, 0x391, 1) == 0, version >= 4);   /* STATUS_SET */
        CHECK_EQ(pmu_model_wrmsr(&m, 0x390, CTR_FRZ) == 0, version >= 4);
        CHECK_EQ(pmu_model_rdmsr(&m, 0x392, &v) == 0, version >= 4);  /* INUSE */
        CHECK_EQ(pmu_model_wrmsr(&m, 0x4c1, 1), -1);                  /* no FW_WRITE */
        CHECK_EQ(pmu_model_wrmsr(&m, 0xc1, 0x180000000ull), 0);       /* legacy: EAX */
        pmu_model_rdmsr(&m, 0xc1, &v);
        CHECK_EQ(v, 0xffff80000000ull);
        CHECK_EQ(pmu_model_wrmsr(&m, 0x30c, 0), -1);                  /* fixed 3 absent */
        CHECK_EQ(pmu_model_wrmsr(&m, 0x309, 1ull << WIDTH), -1);
    }
    struct pmu_model m;
    struct pmu_model_config fw = { 4, 4, WIDTH, 0x7, WIDTH, true, false };
    pmu_model_init(&m, &fw);
    uint64_t v = 0;
    CHECK_EQ(pmu_model_wrmsr(&m, 0x4c1, 0x123456789abull), 0);
    pmu_model_rdmsr(&m, 0xc1, &v);
    CHECK_EQ(v, 0x123456789abull);
    CHECK_EQ(pmu_model_wrmsr(&m, 0x4c1, 1ull << WIDTH), -1);
    pmu_model_wrmsr(&m, 0x186, 0xc0 | (1ull << 22));
    pmu_model_rdmsr(&m, 0x392, &v);
    CHECK_EQ(v, 1);
}

/* ---- the PMI ---- */

static struct pmu_lvtpc_ops model_lvtpc(struct rig *r)
{
    struct pmu_lvtpc_ops lvt = { pmu_model_lvtpc_read, pmu_model_lvtpc_write, &r->model };
    return lvt;
}

/* Armed: each PMI arrives as an NMI and masks LVTPC; the re-arm unmasks
 * it. Without the re-arm the next PMI is lost; the re-arm then finds that
 * overflow in GLOBAL_STATUS and reports it. */
TEST(hw_pmi_arm_nmi_mask_and_rearm)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        const uint64_t periods[] = { 100 };
        if (!rig_init(&r, version, full) || !setup(&r, &ctx, "instructions:u", periods))
            continue;
        struct pmu_lvtpc_ops lvt = model_lvtpc(&r);
        CHECK_EQ(r.model.lvtpc, PMU_MODEL_LVT_RESET);
        r.be.ops->load(r.be.self, &ctx);
        pmu_hw_pmi_arm(&lvt);
        CHECK_EQ(r.model.lvtpc, LVTPC_NMI);

        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 100);
        CHECK_EQ(r.model.pmi_nmis, 1);
        CHECK_EQ(r.model.lvtpc, LVTPC_NMI | PMU_MODEL_LVT_MASKED);
        vm_exit(&r, &ctx);                              /* the NMI exit */
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u);
        CHECK_EQ(pmu_hw_pmi_rearm(&r.hw, &ctx, &lvt), 0);
        CHECK_EQ(r.model.lvtpc, LVTPC_NMI);
        CHECK_EQ(r.model.global_status, 0);

        /* the next period: delivered again; now forget to re-arm */
        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 100);
        vm_exit(&r, &ctx);
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u);
        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_instructions, PMU_MODEL_USER, 100);
        vm_exit(&r, &ctx);
        CHECK_EQ(r.model.pmi_nmis, 2);
        CHECK_EQ(r.model.pmis_lost, 1);                 /* LVTPC was masked */
        CHECK_EQ(r.model.global_status & FIXED0, FIXED0);
        /* the re-arm unmasks and takes the overflow whose NMI was lost */
        CHECK_EQ(pmu_hw_pmi_rearm(&r.hw, &ctx, &lvt), 1u);
        CHECK_EQ(r.model.lvtpc, LVTPC_NMI);
        CHECK_EQ(r.model.global_status, 0);
        CHECK_EQ(ctx.counters[0].overflows, 3);
        CHECK_EQ(rd(&r, &ctx, 0), 300);
        CHECK_EQ(r.model.fixed[0], (0 - 100ull) & MASK48);
        CHECK_EQ(r.model.pmi_vectors, 0);
        CHECK_EQ(r.model.faults, 0);
    }
}

/* An NMI that is not a PMI (LVTPC unmasked): the re-arm touches no PMU
 * MSR and writes nothing; a PMI arriving afterwards still works. */
TEST(hw_pmi_rearm_without_pmi_is_cheap)
{
    struct rig r;
    struct pmu_ctx ctx;
    const uint64_t periods[] = { 10 };
    if (!rig_init(&r, 4, true) || !setup(&r, &ctx, "branches:k", periods))
        return;
    struct pmu_lvtpc_ops lvt = model_lvtpc(&r);
    r.be.ops->load(r.be.self, &ctx);
    pmu_hw_pmi_arm(&lvt);
    uint64_t reads = r.model.rdmsr_count, writes = r.model.wrmsr_count;
    CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 0);
    CHECK_EQ(pmu_hw_pmi_rearm(&r.hw, &ctx, &lvt), 0);
    CHECK_EQ(r.model.rdmsr_count, reads + 1);           /* overflow's GLOBAL_STATUS */
    CHECK_EQ(r.model.wrmsr_count, writes);              /* nothing to clear */
    /* someone (not the PMI) changed LVTPC: the re-arm restores it */
    r.model.lvtpc = 0xfe;
    CHECK_EQ(pmu_hw_pmi_rearm(&r.hw, &ctx, &lvt), 0);
    CHECK_EQ(r.model.lvtpc, LVTPC_NMI);
    vm_entry(&r, &ctx, 0);
    pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_KERNEL, 10);
    CHECK_EQ(r.model.pmi_nmis, 1);
}

/* GLOBAL_STATUS bits Vertigo does not own (another GP counter, PEBS
 * buffer, and on v4+ ToPA/uncore/ASCI) are left set; a PMI showing only
 * those reports nothing, so the NMI is not taken as Vertigo's. */
TEST(hw_pmi_foreign_status_left_alone)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        const uint64_t periods[] = { 64 };
        if (!rig_init(&r, version, full) || !setup(&r, &ctx, "branches:u", periods))
            continue;
        struct pmu_lvtpc_ops lvt = model_lvtpc(&r);
        r.be.ops->load(r.be.self, &ctx);
        pmu_hw_pmi_arm(&lvt);
        uint64_t foreign = (1ull << 3) | (1ull << 62);  /* PMC3, OvfBuf */
        if (version >= 4) {
            foreign |= (1ull << 55) | (1ull << 60) | (1ull << 61);
            CHECK_EQ(pmu_model_wrmsr(&r.model, MSR_STATUS_SET, foreign), 0);
        } else {
            r.model.global_status = foreign;
        }
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 0);
        CHECK_EQ(pmu_hw_pmi_rearm(&r.hw, &ctx, &lvt), 0);
        CHECK_EQ(r.model.global_status, foreign);

        /* a real overflow next to them: only Vertigo's bit is cleared */
        vm_entry(&r, &ctx, 3);
        pmu_model_count(&r.model, &pmu_model_branches, PMU_MODEL_USER, 64);
        vm_exit(&r, &ctx);
        CHECK_EQ(r.model.pmi_nmis, 1);
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u);
        CHECK_EQ(pmu_hw_pmi_rearm(&r.hw, &ctx, &lvt), 0);
        CHECK_EQ(r.model.global_status, foreign);       /* incl. no CTR_Frz left */
        CHECK_EQ(r.model.lvtpc, LVTPC_NMI);
        CHECK_EQ(r.model.faults, 0);
    }
}

/* Events in the handler (model hook: right after a write to fixed counter
 * 1, i.e. its re-arm) while Vertigo runs with a :h counter. */
struct handler_events {
    struct pmu_model_event ev;
    uint64_t n;
    unsigned int times;
};

static void count_after_rearm(struct pmu_model *m, uint32_t msr, void *arg)
{
    struct handler_events *h = arg;
    if (msr != MSR_FIXED_CTR1 || h->times == 0)
        return;
    h->times--;
    pmu_model_count(m, &h->ev, PMU_MODEL_KERNEL, h->n);
}

/* A :h sampling counter keeps counting in the PMI handler. An overflow
 * right after its re-arm must not be wiped by the status clear (cleared
 * first, re-armed after), and its PMI, lost behind the masked LVTPC, is
 * recovered by the re-arm. */
TEST(hw_pmi_overflow_inside_handler_not_lost)
{
    FOR_EACH_CONFIG(version, full) {
        struct rig r;
        struct pmu_ctx ctx;
        const uint64_t periods[] = { 50 };
        if (!rig_init(&r, version, full) || !setup(&r, &ctx, "cycles:kh", periods))
            continue;
        struct pmu_lvtpc_ops lvt = model_lvtpc(&r);
        struct handler_events h = { pmu_model_cycles, 50, 1 };
        r.be.ops->load(r.be.self, &ctx);
        pmu_hw_pmi_arm(&lvt);
        /* Vertigo runs: the PMI is taken in the root NMI handler */
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 50);
        CHECK_EQ(r.model.pmi_nmis, 1);
        r.model.after_wrmsr = count_after_rearm;
        r.model.after_wrmsr_arg = &h;
        CHECK_EQ(r.be.ops->overflow(r.be.self, &ctx), 1u);
        CHECK_EQ(h.times, 0);                           /* the events happened */
        CHECK_EQ(r.model.pmis_lost, 1);
        CHECK_EQ(r.model.global_status & FIXED1, FIXED1);   /* not wiped */
        CHECK_EQ(pmu_hw_pmi_rearm(&r.hw, &ctx, &lvt), 1u);
        CHECK_EQ(r.model.global_status, 0);
        CHECK_EQ(r.model.lvtpc, LVTPC_NMI);
        CHECK_EQ(ctx.counters[0].overflows, 2);
        CHECK_EQ(rd(&r, &ctx, 0), 100);
        /* and the next one arrives as an NMI again */
        pmu_model_count(&r.model, &pmu_model_cycles, PMU_MODEL_KERNEL, 50);
        CHECK_EQ(r.model.pmi_nmis, 2);
        CHECK_EQ(r.model.faults, 0);
    }
}
