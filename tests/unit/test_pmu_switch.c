/* VCPU switches on one physical CPU (pmu/run/pmu_switch.c): two domains of
 * one VCPU each share CPU 0 and are switched as the scheduler does
 * (pmu_vcpu_switch_out, VMCS switch, pmu_vcpu_switch_in), on the fake arch
 * hooks and, for the hardware backend, the register-level PMU model.
 * Each VCPU counts only its own guest work; the hardware backend saves and
 * restores the counters and writes only the MSRs whose value changes
 * (counted on the model); the software backend's per-CPU masks follow the
 * VCPU; the time a VCPU is switched out is not its :h time; the CPU's
 * current VCPU (whom samples are attributed to) follows the switch. */
#include <stdio.h>
#include <string.h>

#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/pmu_loop.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/run/pmu_run.h"
#include "pmu/run/pmu_switch.h"
#include "pmu/sample/sample_nmi.h"
#include "tests/unit/fake_pmu_arch.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/test_log_util.h"
#include "tests/unit/unit.h"
#include "pmu/pv/pv_guest.h"
#include "vmm/hv_cmdline.h"
#include "vmm/pmu_hooks.h"
#include "vmm/vcpu.h"

#define CPL_USER   3u
#define CPL_KERNEL 0u

static struct domain doms[2];
static struct pmu_model model;

/* Domain d's VCPU 0, on CPU 0. */
static struct vcpu *vcpu_of(unsigned int d)
{
    return &doms[d].vcpus[0];
}

/* A run of two domains on CPU 0 with the command line given: both VCPUs
 * start (domain 1's start switches domain 0's out), then domain 0 runs. */
static void start_two(const char *cmdline, bool hardware)
{
    fake_arch_reset();
    hv_cmdline_set(cmdline);
    fake.guest_timer = true;
    fake.emulator = !hardware;
    fake.tsc_hz = 1000000;
    if (hardware) {
        struct pmu_model_config cfg = { 4, 4, 48, 0x7, 48, true, false };
        pmu_model_init(&model, &cfg);
        fake.model = &model;
        fake.global_ctrl_switch = true;
        fake.perf_capabilities = 1u << 13;      /* full-width writes */
        fake.verdict = PMU_HARDWARE;
        fake.desc = (struct pmu_desc){ .version = 4, .gp_counters = 4, .gp_width = 48,
                                       .fixed_counters = 3, .fixed_width = 48,
                                       .fixed_mask = 0x7, .events_available = 0x7f };
    } else {
        fake.verdict = PMU_BROKEN;
    }
    for (unsigned int d = 0; d < 2; d++) {
        memset(&doms[d], 0, sizeof(doms[d]));
        doms[d].id = d;
        doms[d].vcpu_count = 1;
        vcpu_of(d)->domain = &doms[d];
        pmu_vcpu_start(vcpu_of(d));
    }
    pmu_vcpu_switch_out(vcpu_of(1));
    pmu_vcpu_switch_in(vcpu_of(0));
}

static void switch_to(unsigned int from, unsigned int to)
{
    pmu_vcpu_switch_out(vcpu_of(from));
    pmu_vcpu_switch_in(vcpu_of(to));
}

static uint64_t count_of(unsigned int d, unsigned int event)
{
    return (uint64_t)pmu_run_guest_read(vcpu_of(d), event);
}

/* Domain d's counts of events 0, 1 and 2 are a, b and c. */
static void counts_are(unsigned int d, uint64_t a, uint64_t b, uint64_t c)
{
    CHECK_EQ(count_of(d, 0), a);
    CHECK_EQ(count_of(d, 1), b);
    CHECK_EQ(count_of(d, 2), c);
}

/* Software backend: the guest runs `ticks` at cpl (one entry, one exit). */
static void soft_runs(unsigned int d, unsigned int cpl, uint64_t ticks)
{
    fake.cpl = cpl;
    pmu_before_entry(vcpu_of(d));
    pmu_after_exit(vcpu_of(d), ticks);
}

/* Hardware backend: n events of kind ev at cpl between an entry and an
 * exit, with the GLOBAL_CTRL values the VMCS would load. */
static void hw_runs(unsigned int d, unsigned int cpl, const struct pmu_model_event *ev,
                    uint64_t n)
{
    fake.cpl = cpl;
    pmu_before_entry(vcpu_of(d));
    model.global_ctrl = fake.plan.guest_global_ctrl;
    pmu_model_count(&model, ev, cpl ? PMU_MODEL_USER : PMU_MODEL_KERNEL, n);
    model.global_ctrl = fake.plan.host_global_ctrl;
    pmu_after_exit(vcpu_of(d), 0);
}

/* Re-programs domain d's VCPU (current on CPU 0) with events. */
static void program(unsigned int d, const char *events)
{
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    pmu_config_caps(&caps);
    CHECK_EQ(pmu_event_list_parse(events, &caps, &list, NULL), PMU_EVERR_NONE);
    CHECK_EQ(pmu_run_program(vcpu_of(d), &list, NULL), PMU_OK);
}

/* ---- Software backend ------------------------------------------------------ */

/* Domain 0 counts instructions:u, domain 1 instructions:k: the per-CPU
 * masks of the software backend follow the VCPU, so each counts only its
 * own ticks of its own mode, however they interleave. */
TEST(soft_each_vcpu_counts_only_its_own_ticks)
{
    start_two("pmu=soft pmu.events=instructions:u", false);
    switch_to(0, 1);
    program(1, "instructions:k");
    switch_to(1, 0);
    soft_runs(0, CPL_USER, 100);
    soft_runs(0, CPL_KERNEL, 7);
    switch_to(0, 1);
    soft_runs(1, CPL_KERNEL, 50);
    soft_runs(1, CPL_USER, 30);
    switch_to(1, 0);
    soft_runs(0, CPL_KERNEL, 70);
    soft_runs(0, CPL_USER, 10);
    CHECK_EQ(count_of(0, 0), 110);
    CHECK_EQ(count_of(1, 0), 50);
    /* switches in after their start: domain 0 three, domain 1 two */
    CHECK_EQ(vcpu_of(0)->pmu.sw.value[SWEVENT_VCPU_SWITCHES], 4);
    CHECK_EQ(vcpu_of(1)->pmu.sw.value[SWEVENT_VCPU_SWITCHES], 3);
    CHECK(vcpu_of(0)->pmu.ctx.loaded);
    CHECK(!vcpu_of(1)->pmu.ctx.loaded);
    CHECK(pmu_cpu_of(0)->vcpu == vcpu_of(0));
}

/* Without the switch-in, domain 0 would run with domain 1's masks: the
 * hooks are what makes the counts right (the same runs, no hooks). */
TEST(soft_without_the_hooks_a_vcpu_counts_with_the_others_masks)
{
    start_two("pmu=soft pmu.events=instructions:u", false);
    switch_to(0, 1);
    program(1, "instructions:k");
    soft_runs(0, CPL_KERNEL, 70);       /* domain 0 runs, nobody switched it in */
    CHECK_EQ(count_of(0, 0), 70);       /* its :u counter took kernel ticks */
}

/* :h counted by time: the stretch domain 0 spent switched out (domain 1
 * ran then) is neither domain 0's guest time nor its Vertigo time. */
TEST(soft_switched_out_time_is_not_the_vcpus_hypervisor_time)
{
    start_two("pmu=soft pmu.events=instructions:h", false);
    fake.exit_tsc = 1000;
    fake.tsc = 1000;
    soft_runs(0, CPL_USER, 0);                  /* settles its last exit at 1000 */
    uint64_t before = count_of(0, 0);
    fake.tsc = 1100;                            /* 100 ticks of Vertigo, then out */
    switch_to(0, 1);
    fake.tsc = 9100;                            /* domain 1 ran 8000 ticks */
    switch_to(1, 0);
    fake.exit_tsc = 9500;                       /* 300 guest ticks, exit at 9500 */
    soft_runs(0, CPL_USER, 300);
    /* 100 before it left, 9500 - 9100 - 300 after it came back */
    CHECK_EQ(count_of(0, 0) - before, 200);
}

/* The CPU's current VCPU follows the switch (the NMI path attributes
 * samples to it), and a VCPU that never left its CPU reports nothing. */
TEST(the_cpus_vcpu_follows_the_switch)
{
    start_two("pmu=soft", false);
    CHECK(pmu_cpu_of(0)->vcpu == vcpu_of(0));
    switch_to(0, 1);
    CHECK(pmu_cpu_of(0)->vcpu == vcpu_of(1));
    pmu_switch_report(vcpu_of(1));
    CHECK(fake_console_has("pmu: vcpu 0: 1 switches in, "));
}

/* A PMI domain 0's exit raised and that had not arrived when it was
 * switched out stays domain 0's: the NMI arriving while domain 1 runs
 * takes nothing (no sample of domain 1), and the PMI is raised again when
 * domain 0 comes back. */
TEST(a_pmi_not_taken_at_the_switch_stays_with_its_vcpu)
{
    start_two("pmu=soft", false);
    pmu_pmi_raise(1u);                          /* domain 0's exit: counter 0 overflowed */
    unsigned int sent = fake.nmis_sent;
    switch_to(0, 1);
    CHECK_EQ(pmu_cpu_of(0)->pending, 0);
    CHECK_EQ(vcpu_of(0)->pmu.sw_state.pending_pmi, 1);
    sample_nmi_before_entry(vcpu_of(1));        /* domain 1's entry, then the NMI in */
    pmu_before_entry(vcpu_of(1));               /* flight exits it: Vertigo's, empty */
    CHECK(pmu_nmi_exit(vcpu_of(1)));
    CHECK_EQ(vcpu_of(1)->pmu.overflows, 0);
    switch_to(1, 0);
    CHECK_EQ(pmu_cpu_of(0)->pending, 1);
    CHECK_EQ(vcpu_of(0)->pmu.sw_state.pending_pmi, 0);
    CHECK_EQ(fake.nmis_sent, sent + 1);         /* raised again for domain 0 */
}

/* The end of a domain logs each VCPU's exits (all, by reason) and its
 * switches in after its start. */
TEST(domain_end_logs_each_vcpus_exits_and_switches)
{
    start_two("pmu=soft", false);
    pmu_exit_handled(vcpu_of(0), 10);           /* CPUID */
    pmu_exit_handled(vcpu_of(0), 10);
    switch_to(0, 1);
    pmu_exit_handled(vcpu_of(1), 52);           /* preemption timer */
    switch_to(1, 0);
    pmu_domain_report(&doms[0], false);
    pmu_domain_report(&doms[1], true);
    struct log_test_stream st = { 0 };
    struct log_test_decoded d;
    log_test_stream_header(&st, 1);
    log_test_drain(&st, &fake.ring, 4096);
    log_test_decode(st.data, st.len, 0, &d);
    unsigned int found = 0;
    for (size_t i = 0; i < d.count; i++) {
        const struct log_vcpu_stats *vs = &d.values[i].u.vcpu_stats;
        if (d.values[i].type != LOG_REC_VCPU_STATS)
            continue;
        found++;
        bool zero = vs->domain == 0;
        CHECK_EQ(vs->exits, zero ? 2 : 1);
        CHECK_EQ(vs->switches, zero ? 2 : 1);   /* domain 0: after 1's start, and now */
        CHECK_EQ(vs->count, 1);
        CHECK_EQ(vs->reasons[0].id, zero ? 10 : 52);
        CHECK_EQ(vs->reasons[0].value, zero ? 2 : 1);
    }
    CHECK_EQ(found, 2);
    log_test_decoded_free(&d);
    log_test_stream_free(&st);
}

/* ---- Hardware backend on the register model --------------------------------- */

/* Both domains count instructions:u (fixed 0), branches:u (GP 0) and
 * cycles:k (fixed 1): each sees only its own events across switches. */
TEST(hw_each_vcpu_counts_only_its_own_events)
{
    start_two("pmu=hw pmu.guest=off pmu.events=instructions:u,branches:u,cycles:k", true);
    hw_runs(0, CPL_USER, &pmu_model_instructions, 1000);
    hw_runs(0, CPL_USER, &pmu_model_branches, 200);
    switch_to(0, 1);
    hw_runs(1, CPL_USER, &pmu_model_instructions, 30);
    hw_runs(1, CPL_KERNEL, &pmu_model_cycles, 40);
    switch_to(1, 0);
    hw_runs(0, CPL_USER, &pmu_model_instructions, 5);
    hw_runs(0, CPL_KERNEL, &pmu_model_cycles, 6);
    counts_are(0, 1005, 200, 6);
    counts_are(1, 30, 0, 40);
}

/* MSR writes of one switch, on the model: the same events in both
 * domains cost one write per counter whose value differs (event selects,
 * FIXED_CTR_CTRL and GLOBAL_CTRL are left alone); other events on the
 * same counters add the changed event select and FIXED_CTR_CTRL; a switch
 * back to counters nobody touched in between writes nothing. */
TEST(hw_switch_writes_only_what_changes)
{
    start_two("pmu=hw pmu.guest=off pmu.events=instructions:u,branches:u,cycles:k", true);
    hw_runs(0, CPL_USER, &pmu_model_instructions, 1000);
    hw_runs(0, CPL_USER, &pmu_model_branches, 200);
    hw_runs(0, CPL_KERNEL, &pmu_model_cycles, 300);
    uint64_t w = model.wrmsr_count;
    switch_to(0, 1);
    CHECK_EQ(model.wrmsr_count - w, 3);         /* the three counters' values */
    CHECK_EQ(model.fixed[0], 0);
    CHECK_EQ(model.pmc[0], 0);

    program(1, "instructions:k,branch-misses:u,cycles:u");     /* same counters */
    hw_runs(1, CPL_KERNEL, &pmu_model_instructions, 11);
    hw_runs(1, CPL_USER, &pmu_model_branch_misses, 12);
    hw_runs(1, CPL_USER, &pmu_model_cycles, 13);
    w = model.wrmsr_count;
    switch_to(1, 0);
    CHECK_EQ(model.wrmsr_count - w, 5);         /* + PERFEVTSEL0 and FIXED_CTR_CTRL */
    CHECK_EQ(model.fixed[0], 1000);
    CHECK_EQ(model.pmc[0], 200);
    CHECK_EQ(model.fixed[1], 300);

    w = model.wrmsr_count;
    switch_to(0, 0);                            /* out and back in, nothing ran */
    CHECK_EQ(model.wrmsr_count - w, 0);
    counts_are(0, 1000, 200, 300);
    counts_are(1, 11, 12, 13);
}

/* No context on either VCPU (no events, no guest PMU): a switch touches no
 * PMU MSR at all. */
TEST(hw_switch_without_contexts_touches_no_msr)
{
    start_two("pmu=hw pmu.guest=off", true);
    uint64_t r = model.rdmsr_count, w = model.wrmsr_count;
    switch_to(0, 1);
    switch_to(1, 0);
    CHECK_EQ(model.rdmsr_count - r, 0);
    CHECK_EQ(model.wrmsr_count - w, 0);
}

/* The guests' own virtual PMUs, placed on free hardware counters at each
 * entry, count only their own domain's events; the same guest event
 * select in both domains is not written again after a switch. */
TEST(hw_guest_counters_follow_their_vcpu_and_same_selects_are_not_rewritten)
{
    const uint64_t sel = 0xc0 | 1ull << 16 | 1ull << 22;    /* instructions, USR, EN */
    start_two("pmu=hw pmu.guest=on pmu.events=cycles:k", true);
    for (unsigned int d = 0; d < 2; d++) {
        CHECK(pmu_exit_wrmsr(vcpu_of(d), 0x186, sel));
        CHECK(pmu_exit_wrmsr(vcpu_of(d), 0x38f, 1));
    }
    hw_runs(0, CPL_USER, &pmu_model_instructions, 500);
    switch_to(0, 1);
    uint64_t w = model.wrmsr_count;
    hw_runs(1, CPL_USER, &pmu_model_instructions, 20);
    uint64_t entry_writes = model.wrmsr_count - w;
    switch_to(1, 0);
    hw_runs(0, CPL_USER, &pmu_model_instructions, 1);
    uint64_t value = 0;
    CHECK(pmu_exit_rdmsr(vcpu_of(0), 0xc1, &value));
    CHECK_EQ(value, 501);
    CHECK(pmu_exit_rdmsr(vcpu_of(1), 0xc1, &value));
    CHECK_EQ(value, 20);
    CHECK_EQ(entry_writes, 1);      /* domain 1's counter value; its event select stayed */
}

/* ---- Paravirtual counters on the hardware backend -------------------------- */

static int64_t pv_program(unsigned int d, const char *events)
{
    struct vertigo_pv_program p = { .abi_version = VERTIGO_PV_ABI };
    snprintf(p.events, sizeof(p.events), "%s", events);
    return pv_guest_program(vcpu_of(d), &p);
}

static void pv_page(unsigned int d, uint8_t *page)
{
    fake.pv_page = page;
    fake.pv_page_gpa = 0x5000;
    CHECK_EQ(pv_guest_page(vcpu_of(d), 0x5000), 0);
}

/* RDPMC on the model with this ECX (-1: #GP). */
static uint64_t rdpmc(uint32_t ecx)
{
    uint64_t value = 0;
    return pmu_model_rdpmc(&model, ecx, &value) == 0 ? value : (uint64_t)-1;
}

/* A user-mode read of counter i as the page says: sum + RDPMC. */
static uint64_t page_read(const uint8_t *page, unsigned int i)
{
    const struct vertigo_pv_counter *c = &((const struct vertigo_pv_page *)page)->counters[i];
    CHECK(c->user_how & VERTIGO_PV_READ_RDPMC);
    return c->sum + rdpmc(c->user_how & ~VERTIGO_PV_READ_RDPMC);
}

static void hw_enter(unsigned int d)
{
    fake.cpl = CPL_USER;
    pmu_before_entry(vcpu_of(d));
    model.global_ctrl = fake.plan.guest_global_ctrl;
}

static void hw_exit(unsigned int d)
{
    model.global_ctrl = fake.plan.host_global_ctrl;
    pmu_after_exit(vcpu_of(d), 0);
}

static int64_t pv_read(unsigned int d, unsigned int i)
{
    return pv_guest_read(vcpu_of(d), i);
}

/* With no session and no virtual PMU, RDPMC passes through: each VCPU's
 * user mode reads its counters mid-run as its page says (sum + RDPMC)
 * and gets the model's counts; after a VCPU switch the other VCPU's
 * counters read 0 by RDPMC; back again, its counts went on from where
 * they were; the hypercall reads agree. */
TEST(hw_pv_counters_read_by_rdpmc_follow_their_vcpu)
{
    static uint8_t pages[2][VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    start_two("pmu=hw pmu.guest=off", true);
    pv_page(0, pages[0]);
    CHECK_EQ(pv_program(0, "instructions:u,branches:u"), 2);
    CHECK(fake.rdpmc_exiting);
    hw_enter(0);
    CHECK(!fake.rdpmc_exiting);                             /* passed through */
    pmu_model_count(&model, &pmu_model_instructions, PMU_MODEL_USER, 1000);
    pmu_model_count(&model, &pmu_model_branches, PMU_MODEL_USER, 200);
    pmu_model_count(&model, &pmu_model_branches, PMU_MODEL_KERNEL, 9);
    CHECK_EQ(page_read(pages[0], 0), 1000);
    CHECK_EQ(page_read(pages[0], 1), 200);
    hw_exit(0);

    switch_to(0, 1);
    pv_page(1, pages[1]);
    CHECK_EQ(pv_program(1, "branches"), 1);
    hw_enter(1);
    CHECK_EQ(rdpmc(1u << 30), 0);                           /* VCPU 0's instructions */
    CHECK_EQ(rdpmc(0), 0);                                  /* its branches' GP 0, now VCPU 1's */
    pmu_model_count(&model, &pmu_model_branches, PMU_MODEL_KERNEL, 33);
    pmu_model_count(&model, &pmu_model_instructions, PMU_MODEL_USER, 70);
    CHECK_EQ(page_read(pages[1], 0), 33);
    hw_exit(1);

    switch_to(1, 0);
    hw_enter(0);
    CHECK_EQ(rdpmc(0), 0);                                  /* VCPU 1's count is not shown */
    pmu_model_count(&model, &pmu_model_instructions, PMU_MODEL_USER, 5);
    CHECK_EQ(page_read(pages[0], 0), 1005);
    CHECK_EQ(page_read(pages[0], 1), 200);
    hw_exit(0);
    switch_to(0, 1);
    hw_enter(1);
    CHECK_EQ(rdpmc(1u << 30), 0);                           /* VCPU 0's 1005 is not shown */
    CHECK_EQ(page_read(pages[1], 0), 33);
    hw_exit(1);
    CHECK_EQ(pv_read(0, 0), 1005);
    CHECK_EQ(pv_read(0, 1), 200);
    CHECK_EQ(pv_read(1, 0), 33);
}

/* Stopping the paravirtual counters ("") ends the pass-through: the next
 * entry makes RDPMC exit again, so nothing the counters leave behind (or a
 * session started later) is read natively. */
TEST(hw_pv_counters_stopped_rdpmc_exits_again)
{
    static uint8_t page[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    start_two("pmu=hw pmu.guest=off", true);
    pv_page(0, page);
    CHECK_EQ(pv_program(0, "instructions:u"), 1);
    hw_enter(0);
    CHECK(!fake.rdpmc_exiting);                             /* passed through */
    hw_exit(0);
    CHECK_EQ(pv_program(0, ""), 0);
    hw_enter(0);
    CHECK(fake.rdpmc_exiting);
    hw_exit(0);
}

/* With a session holding hardware counters, RDPMC would show them: it
 * keeps exiting, the page says "exit", and the counts stay exact; a
 * program that does not fit beside the session is refused, saying why. */
TEST(hw_pv_counters_beside_a_session_read_by_exits)
{
    static uint8_t page[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    start_two("pmu=hw pmu.guest=off pmu.events=branches:u,branch-misses,cycles:k", true);
    pv_page(0, page);
    CHECK_EQ(pv_program(0, "branches:u,instructions:u"), 2);
    hw_enter(0);
    CHECK(fake.rdpmc_exiting);
    CHECK_EQ(((struct vertigo_pv_page *)page)->counters[0].user_how, VERTIGO_PV_READ_EXIT);
    pmu_model_count(&model, &pmu_model_branches, PMU_MODEL_USER, 40);
    pmu_model_count(&model, &pmu_model_instructions, PMU_MODEL_USER, 400);
    hw_exit(0);
    CHECK_EQ(pv_read(0, 0), 40);
    CHECK_EQ(pv_read(0, 1), 400);
    CHECK_EQ(count_of(0, 0), 40);                           /* the session's own count */
    CHECK_EQ(pv_program(0, "branches,branches:k,branch-misses"), (uint64_t)-VERTIGO_EBUSY);
    CHECK(strstr(fake.console, "no hardware counter left free") != NULL);
    CHECK_EQ(pv_read(0, 1), 400);                           /* unchanged */
}
