/* The guest's virtual PMU as a run configures it and the log sees it
 * (pmu/vpmu/vpmu_options.c, pmu/vpmu/pmu_guest_log.c, through pmu/run/pmu_loop.c on the
 * fake arch): on by default with either backend (the hardware backend
 * offering at most what the hardware has), off with a reason without a
 * backend, pmu.guest=off, the counters pmu.guest.gp= and
 * pmu.guest.fixed= offer (CPUID leaf 0xA and the MSRs agree), each bad
 * value named; guest-pmu-prog records once per programming, a guest-pmi
 * record for every PMI (NMI or masked), and the end-of-domain line. */
#include "pmu/pmu_loop.h"
#include "pmu/sample/sample_session.h"
#include "tests/unit/fake_pmu_arch.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/test_log_util.h"
#include "tests/unit/unit.h"
#include "pmu/sample/sample_guest.h"
#include "pmu/run/pmu_run.h"
#include "pmu/run/run_part.h"
#include "vmm/hv_cmdline.h"
#include "lib/exit_names.h"
#include "lib/msr.h"
#include "vmm/pmu_hooks.h"
#include "vmm/vcpu.h"

#define LVT_NMI   (4u << 8)
#define LVT_MASK  (1u << 16)
#define USR       (1ull << 16)
#define OS        (1ull << 17)
#define INT       (1ull << 20)
#define EN        (1ull << 22)
#define WIDTH     48u

static struct domain dom;
static bool msrs_fault;         /* next hardware run: no PMU model, every access faults */
static bool traps_available;    /* next run: the CPU can trap mode changes and HLTs */

/* A run of one VCPU on the software backend (Bochs' PMU is broken) or on
 * a hardware PMU of version 4 (the register-level model). */
static struct vcpu *start(const char *cmdline, bool hardware)
{
    static const struct pmu_desc v4 = { .version = 4, .gp_counters = 4, .gp_width = 48,
                                        .fixed_counters = 3, .fixed_width = 48,
                                        .fixed_mask = 0x7, .events_available = 0x7f };
    static struct pmu_model model;
    static const struct pmu_model_config model_v4 = { 4, 4, 48, 0x7, 48, true, false };
    fake_arch_reset();
    hv_cmdline_set(cmdline);
    if (hardware && !msrs_fault) {
        pmu_model_init(&model, &model_v4);
        fake.model = &model;
        fake.perf_capabilities = 1u << 13;      /* full-width writes */
    }
    fake.guest_timer = fake.global_ctrl_switch = true;
    fake.mode_traps_available = traps_available;
    fake.emulator = !hardware;
    fake.verdict = hardware ? PMU_HARDWARE : PMU_BROKEN;
    fake.desc = hardware ? v4 : (struct pmu_desc){ 0 };
    memset(&dom, 0, sizeof(dom));
    dom.vcpu_count = 1;
    dom.vcpus[0].domain = &dom;
    pmu_vcpu_start(&dom.vcpus[0]);
    return &dom.vcpus[0];
}

/* CPUID.0AH: general-purpose and fixed counters offered (EAX[15:8], EDX[4:0]). */
static void offered(const struct vcpu *v, unsigned int *gp, unsigned int *fixed)
{
    uint32_t regs[4];
    pmu_exit_cpuid_leaf_0a(v, regs);
    *gp = (regs[0] >> 8) & 0xff;
    *fixed = regs[3] & 0x1f;
}

TEST(on_by_default_with_the_software_backend)
{
    unsigned int gp, fixed;
    struct vcpu *v = start("pmu=auto", false);
    CHECK(fake_console_has("pmu: the guest gets a virtual PMU (version 2, 4 general-purpose + "
                           "3 fixed counters; pmu.guest=off to hide it)\n"));
    offered(v, &gp, &fixed);
    CHECK_EQ(gp, 4);
    CHECK_EQ(fixed, 3);
    CHECK(fake.rdpmc_exiting);
    /* The VCPU counts for the guest's PMU, but no session of the guest's
     * own runs: its hypercalls see none. */
    CHECK_EQ(pmu_run_guest_read(v, VERTIGO_PMU_EVENT_COUNT), 0);
    CHECK_EQ(pmu_run_guest_step(v, 1), -VERTIGO_EINVAL);
}

TEST(off_by_option_or_without_a_backend_with_the_reason)
{
    unsigned int gp, fixed;
    uint64_t value;
    struct vcpu *v = start("pmu=auto pmu.guest=off", false);
    CHECK(fake_console_has("pmu: the guest gets no virtual PMU (pmu.guest=off)\n"));
    offered(v, &gp, &fixed);
    CHECK_EQ(gp + fixed, 0);
    CHECK(!pmu_exit_rdmsr(v, MSR_IA32_PERFEVTSEL0, &value));
    v = start("pmu=hw pmu.guest.gp=3", true);
    CHECK(fake_console_has("pmu: vcpu 0: the guest's virtual PMU runs on the hardware "
                           "counters: 3 general-purpose + 3 fixed offered\n"));
    offered(v, &gp, &fixed);
    CHECK_EQ(gp, 3);
    CHECK_EQ(fixed, 3);
    msrs_fault = true;                          /* the backend cannot start */
    v = start("pmu=hw", true);
    msrs_fault = false;
    CHECK(fake_console_has("pmu: the guest gets no virtual PMU: no counting on this VCPU "
                           "(a PMU MSR access faulted)\n"));
    offered(v, &gp, &fixed);
    CHECK_EQ(gp + fixed, 0);
    CHECK(fake.rdpmc_exiting);                  /* to #GP, never the machine's counters */
    v = start("pmu=off", false);
    CHECK(fake_console_has("pmu: the guest gets no virtual PMU: no PMU backend runs\n"));
}

TEST(counter_limits_reach_cpuid_and_the_msrs)
{
    unsigned int gp, fixed;
    struct vcpu *v = start("pmu=soft pmu.guest.gp=2 pmu.guest.fixed=1", false);
    CHECK(fake_console_has("(version 2, 2 general-purpose + 1 fixed counters;"));
    offered(v, &gp, &fixed);
    CHECK_EQ(gp, 2);
    CHECK_EQ(fixed, 1);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0 + 1, 0xc0 | USR | EN));
    CHECK(!pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0 + 2, 0xc0 | USR | EN));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR_CTRL, 0x3));
    CHECK(!pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR_CTRL, 0x30));      /* fixed counter 1 */
    v = start("pmu=soft pmu.guest.gp=0", false);
    offered(v, &gp, &fixed);
    CHECK_EQ(gp, 0);
    CHECK_EQ(fixed, 3);
}

TEST(bad_values_are_named_and_defaults_used)
{
    unsigned int gp, fixed;
    struct vcpu *v = start("pmu=soft pmu.guest.gp=5 pmu.guest.fixed=two pmu.guest=yes", false);
    CHECK(fake_console_has("pmu: warning: bad option pmu.guest=yes (on, off); using on\n"));
    CHECK(fake_console_has("pmu: warning: bad option pmu.guest.gp=5 (0 to 4 general-purpose "
                           "counters); using 4\n"));
    CHECK(fake_console_has("pmu: warning: bad option pmu.guest.fixed=two (0 to 3 fixed "
                           "counters); using 3\n"));
    offered(v, &gp, &fixed);
    CHECK_EQ(gp, 4);
    CHECK_EQ(fixed, 3);
    v = start("pmu=soft pmu.guest.gp=0 pmu.guest.fixed=0", false);
    CHECK(fake_console_has("pmu: the guest gets no virtual PMU: pmu.guest.gp=0 and "
                           "pmu.guest.fixed=0 leave it no counter\n"));
    offered(v, &gp, &fixed);
    CHECK_EQ(gp + fixed, 0);
}

/* ---- The log ------------------------------------------------------------ */

/* The records the fake's ring holds, decoded. */
static void logged(struct log_test_decoded *d)
{
    struct log_test_stream s = { 0 };
    log_test_stream_header(&s, 1);
    log_test_drain(&s, &fake.ring, 4096);
    log_test_decode(s.data, s.len, 0, d);
    log_test_stream_free(&s);
}

static size_t count_type(const struct log_test_decoded *d, uint8_t type)
{
    size_t n = 0;
    for (size_t i = 0; i < d->count; i++)
        n += d->values[i].type == type;
    return n;
}

/* The guest runs ticks in user mode: one entry, one exit. */
static void runs(struct vcpu *v, uint64_t ticks)
{
    fake.cpl = 3;
    pmu_before_entry(v);
    pmu_after_exit(v, ticks);
}

TEST(programmings_are_logged_once_each)
{
    struct vcpu *v = start("pmu=soft log=e9", false);
    for (int i = 0; i < 50; i++) {             /* perf switching a counted thread */
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | EN));
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0));
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR));
    }
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR_CTRL, 0xb0));   /* cycles:uk, PMI */
    struct log_test_decoded d;
    logged(&d);
    CHECK_EQ(count_type(&d, LOG_REC_GUEST_PMU_PROG), 2);
    if (d.count >= 2) {
        const struct log_guest_pmu_prog *a = &d.values[0].u.guest_pmu_prog;
        const struct log_guest_pmu_prog *b = &d.values[1].u.guest_pmu_prog;
        CHECK_EQ(a->counter, 0);
        CHECK_EQ(a->control, 0xc0 | USR | EN);
        CHECK_EQ(b->counter, LOG_GUEST_COUNTER_FIXED + 1);
        CHECK_EQ(b->control, 0xb);
    }
    log_test_decoded_free(&d);
}

/* Counter 0 counts instructions:u and interrupts every period. */
static void arm(struct vcpu *v, uint64_t period)
{
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PMC0, (uint64_t)-(int64_t)period));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | INT | EN));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
}

TEST(every_pmi_is_logged_with_its_delivery)
{
    struct vcpu *v = start("pmu=soft log=e9", false);
    fake.guest_lvtpc = LVT_NMI;
    arm(v, 1000);
    runs(v, 1000);                              /* overflow: an NMI, LVTPC masked */
    CHECK_EQ(fake.guest_nmis_queued, 1);
    CHECK_EQ(fake.vcpu_nmis_queued, 1);         /* the VCPU's own, in any domain */
    CHECK_EQ(fake.guest_lvtpc, LVT_NMI | LVT_MASK);
    arm(v, 1000);
    runs(v, 1000);                              /* the handler did not unmask: lost */
    CHECK_EQ(fake.guest_nmis_queued, 1);
    fake.guest_lvtpc = LVT_NMI;
    arm(v, 500);
    runs(v, 500);
    pmu_before_entry(v);
    pmu_domain_stopping(&dom);
    struct log_test_decoded d;
    logged(&d);
    CHECK_EQ(count_type(&d, LOG_REC_GUEST_PMI), 3);
    unsigned int by[LOG_GUEST_PMI_DELIVERY_COUNT] = { 0 };
    for (size_t i = 0; i < d.count; i++)
        if (d.values[i].type == LOG_REC_GUEST_PMI) {
            by[d.values[i].u.guest_pmi.delivery]++;
            CHECK_EQ(d.values[i].u.guest_pmi.status & 1, 1);   /* counter 0 overflowed */
        }
    CHECK_EQ(by[LOG_GUEST_PMI_NMI], 2);
    CHECK_EQ(by[LOG_GUEST_PMI_MASKED], 1);
    log_test_decoded_free(&d);
    CHECK(fake_console_has("pmu: vcpu 0: guest PMU: 2 PMIs delivered, 1 lost to a masked LVTPC"));
    CHECK(fake_console_has("pmu: vcpu 0: guest PMU log: 1 programmings logged, 0 not (over 32); "
                           "PMIs logged: 2 nmi, 0 vector, 1 masked\n"));
}

TEST(no_log_no_records_no_line)
{
    struct vcpu *v = start("pmu=soft", false);
    fake.log_on = false;
    fake.guest_lvtpc = LVT_NMI;
    arm(v, 100);
    runs(v, 100);
    pmu_before_entry(v);
    pmu_domain_stopping(&dom);
    CHECK_EQ(fake.guest_nmis_queued, 1);
    CHECK(!fake_console_has("guest PMU log:"));
    CHECK_EQ(v->pmu.vpmu.log.pmis[LOG_GUEST_PMI_NMI], 1);     /* counted all the same */
}

/* A sampling session of Vertigo's that starts and stops (the guest's
 * vertigo-ctl start/stop) leaves the guest's virtual PMU counting: the
 * VCPU goes on measuring the guest's runs without a session. */
TEST(the_guests_counters_count_on_after_a_sampling_session_ends)
{
    struct vcpu *v = start("pmu=soft", false);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 100000 };
    snprintf(s.events, sizeof(s.events), "instructions:u");
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | EN));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
    CHECK_EQ(sample_guest_start(v, &s), 0);
    runs(v, 300);
    CHECK(sample_guest_stop(v) >= 0);
    runs(v, 200);
    uint64_t value = 0;
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0, &value));
    CHECK_EQ(value, 500);
    CHECK(v->pmu.counting);
}

/* The guest's virtual PMU alone, its counters counting every mode (the
 * NMI watchdog's cycles), makes no step: a run ends at its deadlines (the
 * next PMI point) or the bound every run has; a session of Vertigo's, or
 * a guest counter of one mode without the mode traps, steps at pmu.step. */
TEST(the_guests_pmu_alone_makes_no_steps)
{
    struct vcpu *v = start("pmu=soft pmu.step=5000", false);
    pmu_before_entry(v);
    CHECK(fake.timer[PMU_TIMER_STEP] > 1000000);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR_CTRL, 0xb0));          /* cycles:uk, PMI */
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR0 + 1, (1ull << WIDTH) - 70000));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 33));
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 70000);                    /* the PMI point */
    v = start("pmu=soft pmu.step=5000 pmu.events=exits:all", false);
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 5000);
    v = start("pmu=soft pmu.step=5000 pmu.traps=off", false);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | EN));  /* one mode, untrapped */
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 1));
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 5000);
}

/* The short path is taken on its flag alone, so whatever ends the guest's
 * PMU counting alone must clear the flag: here the halt traps going off
 * (the short path would count every run as guest work, idle or not). */
TEST(the_halt_traps_going_off_leave_the_guests_short_path)
{
    traps_available = true;
    struct vcpu *v = start("pmu=soft pmu.step=5000", false);
    traps_available = false;
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR_CTRL, 0xb0));          /* cycles:uk, PMI */
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR0 + 1, (1ull << WIDTH) - 70000));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 33));
    pmu_before_entry(v);
    CHECK(v->pmu.guest_alone);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 70000);
    pmu_run_set_traps(v, false, false);
    CHECK(!v->pmu.guest_alone);
    pmu_before_entry(v);
    CHECK(!v->pmu.guest_alone);
}

/* Inside an NMI handler Vertigo injected, the guest's TSC falls behind the
 * host's by Vertigo's time: at the first exit inside the handler from the
 * exit's TSC to the entry's, then everything from one entry's TSC to the
 * next but the guest's run between them; the first exit after the
 * handler's IRET (a new handler, or none) gives it all back. */
static void exit_entry(struct vcpu *v, uint64_t run, uint64_t exit_tsc, uint64_t entry_tsc)
{
    fake.exit_tsc = exit_tsc;
    pmu_after_exit(v, run);
    pmu_before_entry(v);
    fake.tsc = entry_tsc;       /* read before the offset's write */
    pmu_entry_timed(v);
    pmu_entering(v);
    fake.entry_tsc = entry_tsc + 20;    /* the entry's own TSC read */
}

TEST(the_guests_tsc_skips_vertigos_time_inside_its_nmi_handlers)
{
    struct vcpu *v = start("pmu=soft", false);
    fake.tsc_offsetting = true;
    exit_entry(v, 100, 200, 400);               /* no handler */
    CHECK_EQ(fake.tsc_behind, 0);
    fake.nmi_handler = 1;                       /* this entry injects it */
    exit_entry(v, 100, 1000, 1500);
    CHECK_EQ(fake.tsc_behind, 0);
    exit_entry(v, 200, 1800, 2300);             /* the first exit inside: 2300 - 1800 */
    CHECK_EQ(fake.tsc_behind, 500);
    /* 2500 - 2300 less the run of 50, and ahead the least spent around a
     * run: 20 to the entry's TSC read, 2400 - 2320 - 50 = 30 after it */
    exit_entry(v, 50, 2400, 2500);
    CHECK_EQ(fake.tsc_behind, 650 + 50);
    fake.nmi_handler = 2;                       /* IRET, and the next PMI injected */
    exit_entry(v, 70, 3000, 3500);
    CHECK_EQ(fake.tsc_behind, 0);
    exit_entry(v, 10, 3600, 3640);              /* the tail learnt stays */
    CHECK_EQ(fake.tsc_behind, 40 + 50);
    fake.nmi_handler = 0;                       /* IRET */
    exit_entry(v, 10, 4000, 4300);
    CHECK_EQ(fake.tsc_behind, 0);
    CHECK_EQ(v->pmu.vpmu.nmi_time.given_back, 690);
    /* without a virtual PMU, the guest's NMI handlers keep the host's TSC */
    v = start("pmu=soft pmu.guest=off", false);
    fake.tsc_offsetting = true;
    fake.nmi_handler = 1;
    exit_entry(v, 100, 1000, 1500);
    exit_entry(v, 100, 2000, 2300);
    CHECK_EQ(fake.tsc_behind, 0);
}

/* A VCPU counting for its guest's virtual PMU alone takes the short path
 * at its exits; a hypercall may change what it counts (a session of
 * Vertigo's, applied at the next entry, paravirtual counters), so a
 * VMCALL's exit leaves the short path before the call's own instruction
 * is counted, as it was counted before the short path existed. The
 * guest's counter counts every run and the call once across the change. */
TEST(a_hypercall_exit_leaves_the_guests_short_path)
{
    traps_available = true;
    struct vcpu *v = start("pmu=soft", false);
    traps_available = false;
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 100000 };
    snprintf(s.events, sizeof(s.events), "instructions:u");
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | OS | EN));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
    runs(v, 300);
    CHECK(v->pmu.guest_alone);
    pmu_exit_handled(v, EXIT_REASON_CPUID);
    CHECK(v->pmu.guest_alone);
    CHECK_EQ(sample_guest_start(v, &s), 0);     /* the VMCALL's handler */
    pmu_exit_handled(v, EXIT_REASON_VMCALL);
    CHECK(!v->pmu.guest_alone);
    pmu_emulated_instruction(v);
    runs(v, 200);
    CHECK(!v->pmu.guest_alone);                 /* the session's counter counts */
    CHECK_EQ(v->pmu.ctx.counters[0].accum + v->pmu.ctx.counters[0].raw, 200);
    uint64_t value = 0;
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0, &value));
    CHECK_EQ(value, 501);
    CHECK(sample_guest_stop(v) >= 0);
}

/* A WRMSR that writes a register's own value back (GLOBAL_CTRL, an event
 * select) is skipped with all that follows a write (the counters brought up
 * to date, new PMI points, the mode traps, the programming log): the
 * guest's counter stays exact and its PMI comes at the same point. */
TEST(a_write_of_the_value_held_keeps_the_count_and_the_pmi_point)
{
    traps_available = true;
    struct vcpu *v = start("pmu=soft", false);
    traps_available = false;
    fake.guest_lvtpc = LVT_NMI;
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PMC0, (1ull << WIDTH) - 1000));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | OS | INT | EN));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
    runs(v, 300);
    CHECK(v->pmu.guest_alone);
    unsigned int nmis = fake.vcpu_nmis_queued;
    for (int i = 0; i < 3; i++) {
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | OS | INT | EN));
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0));
        runs(v, 200);
    }
    CHECK(v->pmu.guest_alone);
    CHECK_EQ(fake.vcpu_nmis_queued, nmis);      /* 900 of the 1,000 counted */
    uint64_t value = 0;
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0, &value));
    CHECK_EQ(value, (1ull << WIDTH) - 100);
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 100);  /* the PMI point is where it was */
    runs(v, 100);
    CHECK_EQ(fake.vcpu_nmis_queued, nmis + 1);
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0, &value));
    CHECK_EQ(value, 0);
}

/* A PMI handler's accesses with GLOBAL_CTRL cleared, as Linux's (status
 * read, acknowledgement, RDPMC, counter reload, status read, enable): the
 * runs between them count in no counter, before or after the enable, and
 * the reloaded counter's PMI comes exactly its period later. */
TEST(runs_while_global_ctrl_is_clear_count_nowhere)
{
    struct vcpu *v = start("pmu=soft", false);
    fake.guest_lvtpc = LVT_NMI;
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PMC0, (1ull << WIDTH) - 1000));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | OS | INT | EN));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
    unsigned int nmis = fake.vcpu_nmis_queued;
    runs(v, 1000);
    CHECK_EQ(fake.vcpu_nmis_queued, nmis + 1);
    uint64_t value = 0;
    runs(v, 7);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0));
    runs(v, 11);
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PERF_GLOBAL_STATUS, &value));
    CHECK_EQ(value, 0x1);
    runs(v, 13);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0x1));
    runs(v, 17);
    fake.cpl = 0;
    CHECK(pmu_exit_rdpmc(v, 0, &value));
    CHECK_EQ(value, 7);                         /* the 7 before GLOBAL_CTRL's write */
    runs(v, 19);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PMC0, (1ull << WIDTH) - 500));
    runs(v, 23);
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PERF_GLOBAL_STATUS, &value));
    CHECK_EQ(value, 0);
    runs(v, 29);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000full));
    CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0, &value));
    CHECK_EQ(value, (1ull << WIDTH) - 500);     /* none of the 112 cleared runs */
    fake.guest_lvtpc = LVT_NMI;                 /* the handler unmasks LVTPC */
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 500);
    runs(v, 499);
    CHECK_EQ(fake.vcpu_nmis_queued, nmis + 1);
    runs(v, 1);
    CHECK_EQ(fake.vcpu_nmis_queued, nmis + 2);
}

/* The mode traps follow whether a counter the guest enabled counts one
 * mode only, through every register that decides it: an event select,
 * FIXED_CTR_CTRL and GLOBAL_CTRL (Linux's PMI handler clears and sets it),
 * and not a counter's value or an acknowledgement. */
TEST(the_mode_traps_follow_the_guests_one_mode_counters)
{
    traps_available = true;
    struct vcpu *v = start("pmu=soft", false);
    traps_available = false;
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | EN));
    CHECK(!fake.mode_traps);                    /* GLOBAL_CTRL enables nothing yet */
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
    CHECK(fake.mode_traps);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0));
    CHECK(!fake.mode_traps);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PMC0, 5));
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1));
    CHECK(!fake.mode_traps);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000full));
    CHECK(fake.mode_traps);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | OS | EN));
    CHECK(!fake.mode_traps);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_FIXED_CTR_CTRL, 0x2));   /* fixed 0: user only */
    CHECK(fake.mode_traps);
    CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x1));
    CHECK(!fake.mode_traps);
}

/* Every privilege level above 0 is user mode for the guest's counters
 * (the SDM's USR bit: CPL > 0), on the short path of a VCPU that counts
 * for its guest alone and beside a session of Vertigo's; each run and
 * each emulated instruction goes to the mode it ran in. */
static void run_at(struct vcpu *v, unsigned int cpl, uint64_t ticks)
{
    fake.cpl = cpl;
    pmu_before_entry(v);
    pmu_after_exit(v, ticks);
    pmu_exit_handled(v, EXIT_REASON_CPUID);
    pmu_emulated_instruction(v);
}

TEST(every_privilege_level_above_0_counts_as_user_mode)
{
    static const char *const sessions[] = { "pmu=soft", "pmu=soft pmu.events=instructions:uk" };
    for (unsigned int s = 0; s < 2; s++) {
        traps_available = true;
        struct vcpu *v = start(sessions[s], false);
        traps_available = false;
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0, 0xc0 | USR | EN));     /* instructions:u */
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERFEVTSEL0 + 1, 0xc0 | OS | EN));      /* instructions:k */
        CHECK(pmu_exit_wrmsr(v, MSR_IA32_PERF_GLOBAL_CTRL, 0x3));
        for (unsigned int cpl = 0; cpl < 4; cpl++)
            run_at(v, cpl, 1000u << cpl);
        CHECK_EQ(v->pmu.guest_alone, s == 0);
        uint64_t user = 0, kernel = 0;
        CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0, &user));
        CHECK(pmu_exit_rdmsr(v, MSR_IA32_PMC0 + 1, &kernel));
        CHECK_EQ(user, 2000 + 4000 + 8000 + 3);
        CHECK_EQ(kernel, 1000 + 1);
    }
}
