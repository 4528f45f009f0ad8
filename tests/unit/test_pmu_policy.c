/* The PMU policy in the VM-exit loop (pmu/run/pmu_loop.c and the wiring and
 * sampling files under it), run on the host against fake arch hooks
 * (tests/unit/fake_pmu_arch.c) and, for the hardware backend, the
 * register-level PMU model: which NMIs are Vertigo's, what is recorded for
 * each overflow, the order of the hardware PMI's re-arm, the software
 * backend's overflow delivery and step planning, mode attribution at
 * exits, and the decisions of single-stepping Vertigo. */
#include "pmu/run/pmu_cpu.h"
#include "pmu/pmu_loop.h"
#include "pmu/run/pmu_pmi.h"
#include "pmu/backend/pmu_session.h"
#include "pmu/soft/pmu_step.h"
#include "pmu/sample/sample_nmi.h"
#include "pmu/sample/sample_session.h"
#include "tests/unit/fake_pmu_arch.h"
#include "tests/unit/mux_hypercalls.h"
#include "tests/unit/test_log_util.h"
#include "tests/unit/unit.h"
#include "pmu/hw/hw_vcpu.h"
#include "pmu/sample/sample_guest.h"
#include "pmu/pv/pv_guest.h"
#include "pmu/run/pmu_log_ids.h"
#include "pmu/run/pmu_run.h"
#include "vmm/hv_cmdline.h"
#include "vmm/log/log_emit.h"
#include "vmm/pmu_hooks.h"
#include "vmm/vcpu.h"

#define CPL_USER      3u
#define CPL_KERNEL    0u
#define GUEST_RIP     0x401000ull
#define GUEST_CR3     0x1234000ull
#define LSTAR         0xffffffff81a00000ull
#define APIC_ID       0x10u
#define LVTPC_NMI     (PMU_MODEL_LVT_MODE_NMI << PMU_MODEL_LVT_MODE_SHIFT)
#define MSR_OVF_CTRL  0x390u
#define MAX_SAMPLES   64u

static struct domain dom;
static bool traps_available;    /* the arch can trap mode changes (next run) */
static unsigned int hw_width = 48;  /* the hardware counters' width (next run) */

/* A run with one domain of one VCPU on CPU 0, the command line given. */
static struct vcpu *start_run(const char *cmdline, bool hardware)
{
    static struct pmu_model model;
    fake_arch_reset();
    hv_cmdline_set(cmdline);
    fake.guest_timer = true;
    fake.emulator = !hardware;
    fake.tsc_hz = 1000000;
    fake.cpl = CPL_USER;
    fake.rip = GUEST_RIP;
    fake.cr3 = GUEST_CR3;
    fake.lstar = LSTAR;
    fake.mode_traps_available = traps_available;
    if (hardware) {
        struct pmu_model_config cfg = { 4, 4, hw_width, 0x7, hw_width, true, false };
        pmu_model_init(&model, &cfg);
        fake.model = &model;
        fake.global_ctrl_switch = true;
        fake.perf_capabilities = 1u << 13;      /* full-width writes */
        fake.verdict = PMU_HARDWARE;
        fake.desc = (struct pmu_desc){ .version = 4, .gp_counters = 4,
                                       .gp_width = (uint8_t)hw_width, .fixed_counters = 3,
                                       .fixed_width = (uint8_t)hw_width,
                                       .fixed_mask = 0x7, .events_available = 0x7f };
    } else {
        fake.verdict = PMU_BROKEN;
    }
    memset(&dom, 0, sizeof(dom));
    dom.vcpu_count = 1;
    struct vcpu *v = &dom.vcpus[0];
    v->domain = &dom;
    pmu_vcpu_start(v);
    return v;
}

/* Starts an event-sampling session as the guest's hypercall would. */
static bool start_sampling(struct vcpu *v, const char *events, uint64_t period, uint32_t depth)
{
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = period,
                                 .stack_depth = depth };
    snprintf(s.events, sizeof(s.events), "%s", events);
    bool ok = CHECK_EQ(sample_guest_start(v, &s), 0);
    pmu_before_entry(v);    /* the VCPU applies it before its next entry */
    return ok;
}

static void end_run(void)
{
    sample_session_stop();
}

/* The records the log ring holds, decoded as the host tools decode them
 * (free with log_test_decoded_free). */
static void decode_ring(struct log_test_decoded *d)
{
    struct log_test_stream st = { 0 };
    *d = (struct log_test_decoded){ 0 };
    log_test_stream_header(&st, 1);
    log_test_drain(&st, &fake.ring, 4096);
    log_test_decode(st.data, st.len, 0, d);
    log_test_stream_free(&st);
}

/* The samples the log ring holds. */
static unsigned int logged_samples(struct log_sample *out)
{
    struct log_test_decoded d;
    unsigned int n = 0;
    decode_ring(&d);
    for (size_t i = 0; i < d.count && n < MAX_SAMPLES; i++)
        if (d.values[i].type == LOG_REC_SAMPLE)
            out[n++] = d.values[i].u.sample;
    log_test_decoded_free(&d);
    return n;
}

static uint64_t hc_read(struct vcpu *v, unsigned int i)
{
    return (uint64_t)pmu_run_guest_read(v, i);
}

/* A VM entry as the run loop makes it: vmx_prepare_entry's part of the
 * NMI path, then the PMU's plan. */
static void entry(struct vcpu *v)
{
    sample_nmi_before_entry(v);
    pmu_before_entry(v);
}

/* The guest runs `ticks` at privilege level cpl (software backend: one
 * entry, the exit after ticks). */
static void guest_runs(struct vcpu *v, unsigned int cpl, uint64_t ticks)
{
    fake.cpl = cpl;
    entry(v);
    pmu_after_exit(v, ticks);
}

/* ---- The software backend: overflow delivery --------------------------- */

/* The entry's deadline is the overflow point; the exit there writes one
 * sample of the guest state at that point at once, with no NMI, and an
 * NMI after it, with nothing in flight, is the guest's. */
TEST(soft_overflow_is_sampled_at_its_exit_without_an_nmi)
{
    struct vcpu *v = start_run("pmu=soft", false);
    if (!start_sampling(v, "instructions:u", 1000, 0))
        return;
    CHECK_EQ(v->pmu.sample.mask, 1u);
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 1000);     /* period < pmu.step (10000) */
    pmu_after_exit(v, 999);
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 0);
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 1);        /* one instruction to go */
    pmu_after_exit(v, 1);
    CHECK_EQ(fake.nmis_sent, 0);
    CHECK_EQ(pmu_cpus[0].pending, 0);
    if (CHECK_EQ(logged_samples(s), 1)) {
        CHECK_EQ(s[0].mode, LOG_MODE_GUEST_USER);
        CHECK_EQ(s[0].event, 0);
        CHECK_EQ(s[0].rip, GUEST_RIP);
        CHECK(s[0].has_cr3);
        CHECK_EQ(s[0].cr3, GUEST_CR3);
        CHECK_EQ(s[0].depth, 0);
    }
    entry(v);
    CHECK(!pmu_nmi_exit(v));                        /* nothing in flight: the guest's */
    CHECK_EQ(logged_samples(s), 0);                 /* no second sample */
    CHECK_EQ(pmu_cpus[0].stats.pmis, 1);
    CHECK_EQ(pmu_cpus[0].stats.samples_logged, 1);
    CHECK_EQ(v->pmu.overflows, 1);
    CHECK_EQ(fake.header_pmu.backend, LOG_PMU_SOFT);   /* the log header names it */
    CHECK_EQ(fake.entry_ticks, 1);                      /* Bochs: the entry's own tick */
    end_run();
}

/* An emulated instruction that reaches the overflow point is sampled at
 * its exit too, after the instruction (the guest's RIP past it). */
TEST(soft_overflow_at_an_emulated_instruction_is_sampled_at_its_exit)
{
    struct vcpu *v = start_run("pmu=soft", false);
    if (!start_sampling(v, "instructions:u", 100, 0))
        return;
    guest_runs(v, CPL_USER, 99);
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 0);
    fake.rip = GUEST_RIP + 2;
    pmu_emulated_instruction(v);
    CHECK_EQ(fake.nmis_sent, 0);
    if (CHECK_EQ(logged_samples(s), 1)) {
        CHECK_EQ(s[0].mode, LOG_MODE_GUEST_USER);
        CHECK_EQ(s[0].rip, GUEST_RIP + 2);
    }
    CHECK_EQ(v->pmu.overflows, 1);
    end_run();
}

/* Kernel time does not count for :u, so it never moves the overflow point;
 * a run crossing several periods is one sample with the counter's overflows
 * all counted. */
TEST(soft_overflow_counts_only_its_mode_and_every_crossing)
{
    struct vcpu *v = start_run("pmu=soft", false);
    if (!start_sampling(v, "instructions:u", 100, 0))
        return;
    guest_runs(v, CPL_KERNEL, 5000);
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 0);
    guest_runs(v, CPL_USER, 350);
    CHECK_EQ(logged_samples(s), 1);
    CHECK_EQ(fake.nmis_sent, 0);
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 3);
    CHECK_EQ(hc_read(v, 0), 350);
    end_run();
}

/* Samples carry the call stack the arch hook walked, up to the session's
 * depth, in kernel mode too; the walk starts from the sample's RIP and
 * CR3 (read once, for both). */
TEST(soft_samples_carry_the_guest_stack)
{
    struct vcpu *v = start_run("pmu=soft", false);
    if (!start_sampling(v, "instructions:k", 10, 3))
        return;
    fake.guest_stack_len = 4;
    for (unsigned int i = 0; i < 4; i++)
        fake.guest_stack[i] = 0xffffffff81000000ull + i;
    fake.rip = 0xffffffff81234567ull;
    fake.cr3 = 0x1234000;
    guest_runs(v, CPL_KERNEL, 10);
    fake.cpl = CPL_KERNEL;
    CHECK(pmu_nmi_root(&(struct trap_frame){ .rip = 0x201000 }));   /* after the exit's IRET */
    struct log_sample s[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(s), 1)) {
        CHECK_EQ(s[0].mode, LOG_MODE_GUEST_KERNEL);
        CHECK_EQ(s[0].depth, 3);
        CHECK_EQ(s[0].stack[2], 0xffffffff81000002ull);
        CHECK_EQ(fake.stack_rip, s[0].rip);
        CHECK_EQ(fake.stack_cr3, s[0].cr3);
        CHECK_EQ(s[0].rip, 0xffffffff81234567ull);
        CHECK_EQ(s[0].cr3, 0x1234000u);
    }
    end_run();
}

/* A session copying user stacks (--call-graph dwarf) writes a user-stack
 * record just before each user sample, kernel samples none. */
TEST(user_samples_carry_a_copy_of_the_user_stack_before_them)
{
    struct vcpu *v = start_run("pmu=soft", false);
    struct vertigo_session sess = { .abi_version = VERTIGO_SESSION_ABI, .period = 10,
                                    .flags = VERTIGO_SESSION_USER_STACK };
    snprintf(sess.events, sizeof(sess.events), "instructions");
    if (!CHECK_EQ(sample_guest_start(v, &sess), 0))
        return;
    pmu_before_entry(v);
    fake.rip = 0x401234;
    guest_runs(v, CPL_USER, 10);
    fake.cpl = CPL_USER;
    CHECK(pmu_nmi_root(&(struct trap_frame){ .rip = 0x201000 }));
    guest_runs(v, CPL_KERNEL, 10);
    fake.cpl = CPL_KERNEL;
    CHECK(pmu_nmi_root(&(struct trap_frame){ .rip = 0x201000 }));
    struct log_test_stream st = { 0 };
    struct log_test_decoded d = { 0 };
    log_test_stream_header(&st, 1);
    log_test_drain(&st, &fake.ring, 4096);
    log_test_decode(st.data, st.len, 0, &d);
    unsigned int types[4] = { 0 }, n = 0;
    for (size_t i = 0; i < d.count; i++)
        if (n < 4 && (d.values[i].type == LOG_REC_SAMPLE || d.values[i].type == LOG_REC_USER_STACK))
            types[n++] = d.values[i].type;
    CHECK_EQ(n, 3);
    CHECK_EQ(types[0], LOG_REC_USER_STACK);
    CHECK_EQ(types[1], LOG_REC_SAMPLE);
    CHECK_EQ(types[2], LOG_REC_SAMPLE);
    if (d.count && d.values[0].type == LOG_REC_USER_STACK) {
        CHECK_EQ(d.values[0].u.user_stack.regs[LOG_UREG_RIP], 0x401234);
        CHECK_EQ(d.values[0].u.user_stack.len, LOG_USER_STACK_MAX);
        CHECK_EQ(d.values[0].u.user_stack.data[100], 100);
    }
    log_test_decoded_free(&d);
    log_test_stream_free(&st);
    end_run();
}

/* A counting session next to the sampled event keeps its counts across the
 * re-programming, and its overflows (pmu.period) are counted, not sampled. */
TEST(counting_session_is_kept_and_never_sampled)
{
    struct vcpu *v = start_run("pmu=soft pmu.events=instructions:k pmu.period=50", false);
    CHECK(v->pmu.counting);
    guest_runs(v, CPL_KERNEL, 70);
    CHECK_EQ(fake.nmis_sent, 0);
    CHECK_EQ(v->pmu.overflows, 1);
    if (!start_sampling(v, "instructions:u", 40, 0))
        return;
    CHECK_EQ(v->pmu.sample.mask, 2u);       /* the sampled event follows the counted one */
    guest_runs(v, CPL_KERNEL, 30);          /* pmu.period crossed again: counted only */
    CHECK_EQ(fake.nmis_sent, 0);
    CHECK_EQ(hc_read(v, 0), 100);
    guest_runs(v, CPL_USER, 40);
    CHECK_EQ(fake.nmis_sent, 0);
    struct log_sample s[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(s), 1))
        CHECK_EQ(s[0].event, 1);
    end_run();
}

/* ---- Whose NMI is it -------------------------------------------------- */

/* VCPU 1 on CPU 1 of v's domain (started after v). */
static struct vcpu *second_vcpu(void)
{
    struct vcpu *o = &dom.vcpus[1];
    o->id = 1;
    o->cpu = 1;
    o->domain = &dom;
    dom.vcpu_count = 2;
    return o;
}

TEST(kick_is_vertigos_and_writes_no_sample)
{
    struct vcpu *v = start_run("pmu=soft", false);
    pmu_pmi_kick_others(second_vcpu());     /* CPU 1 kicks CPU 0 */
    CHECK_EQ(fake.nmis_sent, 1);
    CHECK_EQ(fake.last_nmi_dest, APIC_ID);
    CHECK(pmu_nmi_exit(v));
    CHECK_EQ(pmu_cpus[0].kick, 0);
    CHECK(!pmu_nmi_exit(v));
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 0);
    CHECK_EQ(pmu_cpus[0].stats.pmis, 0);
}

TEST(root_nmi_is_vertigos_the_guests_or_spurious)
{
    struct trap_frame frame = { .rip = 0x201234 };
    struct vcpu *v = start_run("pmu=soft", false);
    /* nothing pending, a VCPU runs here: the guest's, queued for it */
    CHECK(pmu_nmi_root(&frame));
    CHECK_EQ(fake.guest_nmis_queued, 1);
    CHECK_EQ(pmu_cpus[0].stats.reflected_nmis, 1);
    /* a pending overflow (raised: a VCPU's switch-in): Vertigo's, sampled,
     * not queued */
    if (start_sampling(v, "instructions:u", 10, 0)) {
        fake.cpl = CPL_USER;
        pmu_pmi_raise(1u);
        CHECK(pmu_nmi_root(&frame));
        CHECK_EQ(fake.guest_nmis_queued, 1);
        struct log_sample s[MAX_SAMPLES];
        if (CHECK_EQ(logged_samples(s), 1))
            CHECK_EQ(s[0].mode, LOG_MODE_GUEST_USER);   /* the software PMU's are the guest's */
    }
    end_run();
    /* no VCPU on this CPU: spurious */
    fake.cpu = 1;
    CHECK(!pmu_nmi_root(&frame));
    CHECK_EQ(pmu_cpus[1].stats.spurious_nmis, 1);
    CHECK_EQ(fake.guest_nmis_queued, 1);
}

/* The race: a guest NMI (or a guest IPI) causes an NMI exit, and this
 * exit's path raises a PMI (a timer session's sample) before the exit
 * handler asks whose NMI it was (in Bochs the self-NMI then waits,
 * blocked, for the handler's IRET). The exit's NMI predates the raise: it
 * is the guest's; the self-NMI that follows is Vertigo's and carries the
 * sample. */
TEST(exit_nmi_that_predates_the_raise_is_the_guests)
{
    struct vcpu *v = start_run("pmu=soft", false);
    if (!start_sampling(v, "instructions:u", 10, 0))
        return;
    guest_runs(v, CPL_USER, 5);
    pmu_pmi_raise(1u);                      /* the NMI exit's path raises */
    CHECK_EQ(fake.nmis_sent, 1);
    CHECK(!pmu_nmi_exit(v));                /* the exit's own NMI: the guest's */
    CHECK_EQ(pmu_cpus[0].pending, 1u);      /* the overflow waits for its NMI */
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 0);
    struct trap_frame frame = { .rip = 0x201234 };
    CHECK(pmu_nmi_root(&frame));            /* the self-NMI, after the IRET */
    CHECK_EQ(fake.guest_nmis_queued, 0);    /* nothing reaches the guest as unknown */
    if (CHECK_EQ(logged_samples(s), 1))
        CHECK_EQ(s[0].rip, GUEST_RIP);
    CHECK(pmu_nmi_root(&frame));            /* a later NMI: the guest's again */
    CHECK_EQ(fake.guest_nmis_queued, 1);
    const struct pmu_nmi_stats *st = pmu_pmi_stats(0);
    CHECK_EQ(st->sent, 1);
    CHECK_EQ(st->received, 1);
    CHECK_EQ(st->guest_before_raise, 1);
    end_run();
}

/* A kick from another CPU is in flight when this CPU's exit raises: the
 * raise rides on the kick's NMI (one NMI, a merge counted), the exit's NMI
 * is that kick, and it takes the overflow too. */
TEST(a_raise_rides_on_a_kick_in_flight)
{
    struct vcpu *v = start_run("pmu=soft", false);
    if (!start_sampling(v, "instructions:u", 10, 0))
        return;
    unsigned int sent = fake.nmis_sent;
    pmu_pmi_kick_others(second_vcpu());
    guest_runs(v, CPL_USER, 5);
    pmu_pmi_raise(1u);
    CHECK_EQ(fake.nmis_sent, sent + 1);     /* no second NMI */
    CHECK(pmu_nmi_exit(v));                 /* the kick's NMI */
    CHECK_EQ(pmu_cpus[0].pending, 0);
    CHECK_EQ(pmu_cpus[0].kick, 0);
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 1);
    CHECK(!pmu_nmi_root(&(struct trap_frame){ .rip = 1 }) || fake.guest_nmis_queued == 1);
    CHECK_EQ(fake.guest_nmis_queued, 1);    /* the next NMI is the guest's */
    CHECK_EQ(fake.vcpu_nmis_queued, 0);     /* the machine's: domain 0's, not the VCPU's own */
    CHECK_EQ(pmu_pmi_stats(0)->merged, 1);
    CHECK_EQ(pmu_pmi_stats(0)->sent, pmu_pmi_stats(0)->received);
    end_run();
}

/* Two raises before the NMI arrives: one NMI, both overflows taken. */
TEST(raises_before_the_nmi_arrives_share_it)
{
    struct vcpu *v = start_run("pmu=soft pmu.events=instructions:u pmu.period=1000000", false);
    if (!start_sampling(v, "instructions:u", 10, 0))
        return;
    pmu_pmi_raise(2u);
    pmu_pmi_raise(PMU_PENDING_TIMER);
    CHECK_EQ(fake.nmis_sent, 1);
    CHECK(pmu_nmi_root(&(struct trap_frame){ .rip = 1 }));
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 2);
    CHECK_EQ(pmu_pmi_stats(0)->merged, 1);
    CHECK_EQ(pmu_cpus[0].stats.pmis, 1);
    end_run();
}

/* A hardware PMI that arrives while Vertigo runs may interrupt the exit
 * path between the read and the write of a counter: the root NMI only
 * notes it (LVTPC masked: a PMI), writes no PMU register, and the
 * overflow is taken, its sample written and LVTPC unmasked before the
 * next entry. Another root NMI meanwhile is the guest's. */
TEST(root_hw_pmi_writes_nothing_and_is_taken_before_the_entry)
{
    struct vcpu *v = start_run("pmu=hw", true);
    if (!start_sampling(v, "instructions:u", 100, 0))
        return;
    fake.cpl = CPL_USER;
    entry(v);
    fake.model->global_ctrl = fake.plan.guest_global_ctrl;
    pmu_model_count(fake.model, &pmu_model_instructions, PMU_MODEL_USER, 100);
    fake.model->global_ctrl = fake.plan.host_global_ctrl;
    CHECK_EQ(fake.model->lvtpc, LVTPC_NMI | PMU_MODEL_LVT_MASKED);
    uint64_t status = fake.model->global_status;
    CHECK(status != 0);

    fake.trace[0] = '\0';
    struct trap_frame frame = { .rip = 0x205678 };
    CHECK(pmu_nmi_root(&frame));
    CHECK(strstr(fake.trace, "wrmsr") == NULL);          /* no PMU register written */
    CHECK(strstr(fake.trace, "lvtpc") == NULL);
    CHECK_EQ(fake.model->global_status, status);
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 0);
    CHECK(pmu_nmi_root(&frame));                          /* not the same PMI twice */
    CHECK_EQ(fake.guest_nmis_queued, 1);

    sample_nmi_before_entry(v);
    CHECK_EQ(fake.model->global_status, 0);
    CHECK_EQ(fake.model->lvtpc, LVTPC_NMI);
    if (CHECK_EQ(logged_samples(s), 1))
        CHECK_EQ(s[0].mode, LOG_MODE_GUEST_USER);
    CHECK_EQ(v->pmu.overflows, 1);
    CHECK_EQ(pmu_pmi_stats(0)->hw_deferred, 1);
    sample_nmi_before_entry(v);                            /* nothing left */
    CHECK_EQ(logged_samples(s), 0);
    end_run();
}

/* ---- Timer sampling ---------------------------------------------------- */

TEST(timer_session_samples_when_its_deadline_passes)
{
    struct vcpu *v = start_run("pmu=soft", false);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI,
                                 .flags = VERTIGO_SESSION_TIMER, .timer_hz = 1000 };
    if (!CHECK_EQ(sample_guest_start(v, &s), 0))
        return;
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_SAMPLE], 1000);   /* 1 MHz TSC / 1000 Hz */
    pmu_after_exit(v, 10);
    CHECK_EQ(fake.nmis_sent, 0);
    fake.timer_expired[PMU_TIMER_SAMPLE] = true;
    pmu_after_exit(v, 990);
    CHECK_EQ(fake.nmis_sent, 1);
    CHECK_EQ(pmu_cpus[0].pending, PMU_PENDING_TIMER);
    entry(v);
    CHECK(pmu_nmi_exit(v));
    struct log_sample out[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(out), 1))
        CHECK_EQ(out[0].event, SAMPLE_EVENT_TIMER);
    CHECK_EQ(sample_guest_stop(v), 1);
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_SAMPLE], UINT64_MAX);
}

/* A session of one process (vertigo-ctl record): a PMI taken while the
 * guest runs on other page tables writes nothing and is counted; the
 * process's own, in either half of page-table isolation, is sampled. */
TEST(process_session_samples_only_its_page_tables)
{
    struct vcpu *v = start_run("pmu=soft", false);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI,
                                 .flags = VERTIGO_SESSION_PROCESS, .period = 1000,
                                 .process_cr3 = GUEST_CR3, .events = "instructions:u" };
    if (!CHECK_EQ(sample_guest_start(v, &s), 0))
        return;
    pmu_before_entry(v);
    static const uint64_t cr3s[] = { 0x5678000ull, GUEST_CR3 | 1ull << 12, GUEST_CR3 };
    for (unsigned int i = 0; i < 3; i++) {
        fake.cr3 = cr3s[i];
        guest_runs(v, CPL_USER, 1000);     /* each exit an overflow, sampled there */
    }
    struct log_sample out[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(out), 2)) {
        CHECK_EQ(out[0].cr3, GUEST_CR3 | 1ull << 12);
        CHECK_EQ(out[1].cr3, GUEST_CR3);
    }
    CHECK_EQ(pmu_cpus[0].stats.pmis, 3);
    CHECK_EQ(sample_out_of_scope(), 1);
    CHECK_EQ(sample_guest_stop(v), 2);
    CHECK_EQ(sample_out_of_scope(), 0);              /* the next session starts afresh */
    fake.cr3 = GUEST_CR3;
}

/* ---- Mode attribution at exits (software backend) ------------------------ */

/* An emulated instruction counts in the mode of its exit; halted time
 * counts nowhere. */
TEST(emulated_instructions_and_halted_time)
{
    struct vcpu *v = start_run("pmu=soft pmu.events=instructions:u,instructions:k", false);
    guest_runs(v, CPL_USER, 100);
    CHECK(pmu_counts_emulation(v));
    pmu_emulated_instruction(v);
    fake.halted = true;
    guest_runs(v, CPL_KERNEL, 500);
    fake.halted = false;
    guest_runs(v, CPL_KERNEL, 20);
    pmu_emulated_instruction(v);
    CHECK_EQ(hc_read(v, 0), 101);
    CHECK_EQ(hc_read(v, 1), 21);
    CHECK_EQ(v->pmu.halted_ticks, 500);
}

/* A one-tick step from user mode that ends in kernel mode: a SYSCALL (the
 * guest stands at LSTAR's target) was the user's instruction; anything
 * else was an event delivered first, and the tick is the kernel's. */
TEST(one_tick_step_into_the_kernel_goes_to_the_right_mode)
{
    struct vcpu *v = start_run("pmu=soft pmu.step=1 pmu.events=instructions:u,instructions:k",
                               false);
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 1);
    fake.cpl = CPL_KERNEL;
    fake.rip = LSTAR;
    pmu_after_exit(v, 1);                   /* SYSCALL */
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    fake.cpl = CPL_KERNEL;
    fake.rip = 0xffffffff81001000ull;
    pmu_after_exit(v, 1);                   /* an interrupt, then one kernel instruction */
    CHECK_EQ(hc_read(v, 0), 1);
    CHECK_EQ(hc_read(v, 1), 1);
}

/* The guest's user step (VERTIGO_HC_PMU_STEP) applies in user mode only. */
TEST(user_step_applies_to_user_mode_only)
{
    struct vcpu *v = start_run("pmu=soft pmu.step=5000 pmu.events=instructions:u", false);
    CHECK_EQ(pmu_run_guest_step(v, 7), 5000);
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 7);
    fake.cpl = CPL_KERNEL;
    pmu_before_entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 5000);
    CHECK_EQ(pmu_run_guest_step(v, 9), 7);
}

/* ---- The hardware backend's PMI, on the register-level model -------------- */

/* The PMI's overflows are taken (GLOBAL_STATUS cleared through OVF_CTRL,
 * the counter reloaded) before LVTPC is unmasked, so an overflow after the
 * unmask raises its own PMI and none is lost in between. */
TEST(hw_pmi_takes_overflows_then_unmasks_lvtpc)
{
    struct vcpu *v = start_run("pmu=hw", true);
    if (!start_sampling(v, "instructions:u", 100, 0))
        return;
    CHECK(fake.lvtpc_claimed);
    CHECK_EQ(fake.model->lvtpc, LVTPC_NMI);
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    fake.model->global_ctrl = fake.plan.guest_global_ctrl;     /* VM entry loads it */
    pmu_model_count(fake.model, &pmu_model_instructions, PMU_MODEL_USER, 100);
    fake.model->global_ctrl = fake.plan.host_global_ctrl;      /* the NMI exit */
    CHECK_EQ(fake.model->pmi_nmis, 1);
    CHECK_EQ(fake.model->lvtpc, LVTPC_NMI | PMU_MODEL_LVT_MASKED);

    fake.trace[0] = '\0';
    CHECK(pmu_nmi_exit(v));
    CHECK_EQ(fake.model->global_status, 0);
    CHECK_EQ(fake.model->lvtpc, LVTPC_NMI);
    const char *clear = strstr(fake.trace, "wrmsr:0x390");
    const char *unmask = strstr(fake.trace, "lvtpc");
    CHECK(clear && unmask && clear < unmask);
    struct log_sample s[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(s), 1))
        CHECK_EQ(s[0].mode, LOG_MODE_GUEST_USER);
    CHECK_EQ(fake.nmis_sent, 0);            /* the APIC sent it, not Vertigo */
    CHECK(!pmu_nmi_exit(v));                /* LVTPC unmasked, nothing set: the guest's */
    end_run();
}

/* ---- Single-stepping Vertigo (software backend, :h) ---------------------- */

/* Sampling :h arms stepping; the #DB slow path samples Vertigo exactly at
 * the step where the counter overflows, and overflows the exit path ran
 * through before its first sync are replayed from the RIP ring. */
TEST(stepping_samples_vertigo_at_the_overflow_step)
{
    struct vcpu *v = start_run("pmu=soft", false);
    struct percpu_step *area = &fake.steps[0];
    if (!start_sampling(v, "instructions:h", 50, 2))
        return;
    CHECK_EQ(area->armed, 1);
    CHECK(fake.tf);                         /* resumed at the end of entry planning */
    CHECK_EQ(area->next, 50);
    /* the #DB fast path counted 50 steps: the slow path runs */
    struct trap_frame frame = { .rip = 0x2000aa, .rbp = 0x3000 };
    fake.hv_stack[0] = 0x2000bb;
    fake.hv_stack[1] = 0x2000cc;
    area->count = 49;
    CHECK(step_trap_handle(&frame));        /* not the step it asked for */
    area->count = 50;
    CHECK(step_trap_handle(&frame));
    CHECK_EQ(area->next, 100);
    CHECK_EQ(pmu_step_states[0].taken, 1);

    /* the exit path runs steps 51..130 before its sync: 100 is replayed */
    for (uint64_t i = 51; i <= 130; i++)
        area->rips[i & PERCPU_STEP_RIP_MASK] = 0x210000 + i;
    area->at_exit = 60;
    area->count = 130;
    pmu_after_exit(v, 0);
    CHECK_EQ(pmu_step_states[0].replayed, 1);
    CHECK_EQ(area->next, 150);
    CHECK(fake.tf);

    struct log_sample s[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(s), 2)) {
        CHECK_EQ(s[0].mode, LOG_MODE_HYPERVISOR);
        CHECK_EQ(s[0].rip, 0x2000aa);
        /* Vertigo's two frames, then the guest's context at the exit it
         * was handling: the mark, the guest's RIP (no guest frames in
         * the fake), with the guest's CR3 */
        CHECK_EQ(s[0].depth, 4);
        CHECK_EQ(s[0].stack[0], 0x2000bb);
        CHECK_EQ(s[0].stack[1], 0x2000cc);
        CHECK_EQ(s[0].stack[2], LOG_EXIT_CONTEXT_MARK);
        CHECK_EQ(s[0].stack[3], fake.rip);
        CHECK(s[0].has_cr3);
        CHECK_EQ(s[0].cr3, fake.cr3);
        CHECK_EQ(s[1].rip, 0x210000 + 100);
        CHECK_EQ(s[1].depth, 2);            /* a replayed step: no stack of Vertigo's */
        CHECK_EQ(s[1].stack[0], LOG_EXIT_CONTEXT_MARK);
    }
    /* stopping the session disarms stepping */
    end_run();
    pmu_before_entry(v);
    CHECK_EQ(area->armed, 0);
    CHECK(!fake.tf);
}

/* Without :h nothing is stepped; the domain's end stops stepping first. */
TEST(stepping_only_for_hypervisor_samples)
{
    struct vcpu *v = start_run("pmu=soft", false);
    if (start_sampling(v, "instructions:u", 50, 0))
        CHECK_EQ(fake.steps[0].armed, 0);
    end_run();
    pmu_before_entry(v);
    if (start_sampling(v, "instructions:uh", 50, 0))
        CHECK_EQ(fake.steps[0].armed, 1);
    pmu_domain_stopping(&dom);
    CHECK_EQ(fake.steps[0].armed, 0);
    CHECK(!fake.tf);
    end_run();
}

/* Vertigo's count of instructions:h (counter 0 of the session). */
static uint64_t hv_count(const struct vcpu *v)
{
    return v->pmu.ctx.counters[0].accum + v->pmu.ctx.counters[0].raw;
}

/* Vertigo's entry path of `entry` ticks up to the entry's TSC read, the
 * guest's run of `guest` and the exit path of `exit_path`, then the exit. */
static void guest_run(struct vcpu *v, uint64_t entry, uint64_t guest, uint64_t exit_path)
{
    fake.entry_tsc = fake.tsc + entry;
    fake.tsc = fake.entry_tsc + guest + exit_path;
    pmu_after_exit(v, guest);
}

/* Far from the overflow (more than pmu.step_ahead events) a stretch of
 * Vertigo runs unstepped and is counted by its TSC difference, split at
 * the VM entry around the guest's run; within pmu.step_ahead the stretch
 * and the exit path after its entry are stepped, and the overflow is
 * sampled at its step. */
TEST(stepping_only_near_the_overflow)
{
    /* (a far round, pmu/soft/pmu_step.h, needs more than 4 x 300 to go) */
    struct vcpu *v = start_run("pmu=soft pmu.step_ahead=300", false);
    struct percpu_step *area = &fake.steps[0];
    fake.tsc = 10000;
    if (!start_sampling(v, "instructions:h", 1000, 2))
        return;
    CHECK_EQ(area->armed, 1);
    CHECK(!fake.tf);                        /* 1000 events to go: unstepped */
    CHECK_EQ(area->step_exits, 0);
    /* entry path 100 ticks, the guest 5000, the exit path 50 */
    fake.entry_tsc = 10100;
    fake.tsc = 10100 + 5000 + 50;
    pmu_after_exit(v, 5000);
    CHECK_EQ(hv_count(v), 150);             /* the guest's ticks are not :h */
    CHECK(!fake.tf);
    /* the exit's handling: 800 ticks; 50 to go after it: the next stretch
     * is stepped, with its exit path */
    fake.tsc += 800;
    pmu_before_entry(v);
    CHECK_EQ(hv_count(v), 950);
    CHECK(fake.tf);
    CHECK_EQ(area->step_exits, 1);
    CHECK_EQ(area->next, 50);
    struct trap_frame frame = { .rip = 0x2000aa, .rbp = 0x3000 };
    area->count = 50;
    CHECK(step_trap_handle(&frame));
    CHECK_EQ(pmu_step_states[0].taken, 1);
    /* 60 steps up to the exit: 990 events to go, unstepped again */
    area->at_exit = area->count = 60;
    pmu_after_exit(v, 5000);
    CHECK_EQ(hv_count(v), 1010);
    CHECK(!fake.tf);
    CHECK_EQ(area->step_exits, 0);
    CHECK_EQ(pmu_step_states[0].late, 0);
    struct log_sample s[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(s), 1))
        CHECK_EQ(s[0].rip, 0x2000aa);
    pmu_domain_stopping(&dom);
    CHECK(fake_console_has("pmu: vcpu 0: Vertigo single-stepped for :h sampling: 60 steps, "
                           "1 hypervisor samples at their step, 0 from the exit path's RIP "
                           "ring, 0 missed; 3 of 4 stretches unstepped (950 ticks counted "
                           "by TSC, pmu.step_ahead=300; 0 entries joined the stretch before "
                           "them; 0 far rounds), 0 late\n"));
    end_run();
}

/* A run of the guest after an unstepped entry: Vertigo's entry path comes
 * first, so the run's deadline leaves it room (the least entry path seen)
 * and the overflow lands on the run's last instruction, not an entry
 * path's length past it. A run that ends close enough to an overflow for
 * it to fall in the exit path (here the guest exits by itself 30 events
 * before it) has that path stepped by the exit stub: the overflow is
 * sampled at its step, replayed from the ring, never late. */
TEST(an_unstepped_entry_leaves_room_for_its_path_and_steps_a_near_exit)
{
    struct vcpu *v = start_run("pmu=soft pmu.step_ahead=1000", false);
    struct percpu_step *area = &fake.steps[0];
    fake.tsc = 10000;
    if (!start_sampling(v, "instructions:ukh", 10000, 2))
        return;
    CHECK(!fake.tf);
    CHECK_EQ(area->exit_tsc, 10000 + 10000 - 1000);     /* no exit path seen yet */
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 1);            /* no entry path seen yet */
    /* entry path 100 to the entry's TSC read, the guest 1, the exit path 50 */
    guest_run(v, 100, 1, 50);
    CHECK_EQ(hv_count(v), 151);
    CHECK_EQ(pmu_step_states[0].entry_lead, 100);
    CHECK_EQ(pmu_step_states[0].longest_exit_path, 50);
    fake.tsc += 100;                                    /* the exit's handling */
    pmu_before_entry(v);                                /* joins: the 100 go in at the exit */
    CHECK_EQ(hv_count(v), 151);
    CHECK_EQ(pmu_step_states[0].joined, 1);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 9749 - 100);  /* the lead left out */
    CHECK_EQ(area->to_overflow, 1);                     /* the stub need not step a timer exit */
    CHECK_EQ(area->exit_tsc, fake.tsc + 9749 - (50 + PMU_STEP_MARGIN));
    /* the run ends at its deadline: the overflow is its last instruction */
    guest_run(v, 100, 9649, 50);
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 1);
    CHECK_EQ(v->pmu.ctx.counters[0].skid_max, 0);
    CHECK_EQ(fake.nmis_sent, 0);                        /* the guest's sample, at this exit */
    fake.tsc += 100;
    pmu_before_entry(v);                                /* 50 + 100 in: 9850 to go */
    uint64_t resumed = fake.tsc;
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 9850 - 100);
    /* the guest exits by itself 9720 in (30 to go after the entry path):
     * the stub read the TSC 20 after the exit, then stepped 40 */
    fake.entry_tsc = resumed + 100;
    uint64_t c0 = area->count;
    area->at_exit = c0;
    area->exit_read = fake.entry_tsc + 9720 + 20;
    CHECK(area->exit_read >= area->exit_tsc);           /* the stub steps */
    area->exit_stepped = 1;
    for (uint64_t i = 1; i <= 40; i++)
        area->rips[(c0 + i) & PERCPU_STEP_RIP_MASK] = 0x220000 + i;
    area->count = c0 + 40;
    fake.tsc = area->exit_read + 40 * 30;               /* each step a #DB round trip */
    fake.exit_reason = 18;                              /* VMCALL */
    pmu_after_exit(v, 9720);
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 2);
    CHECK_EQ(pmu_step_states[0].late, 0);
    CHECK_EQ(pmu_step_states[0].replayed, 1);
    struct log_sample s[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(s), 2)) {
        CHECK_EQ(s[0].mode, LOG_MODE_GUEST_USER);       /* the first overflow's exit */
        CHECK_EQ(s[1].mode, LOG_MODE_HYPERVISOR);
        CHECK_EQ(s[1].rip, 0x220000 + 10);              /* 20 by TSC, then step 10 */
    }
    CHECK_EQ(hv_count(v), 20000 + 30);                  /* 20 + 40 - 30 past it */
    CHECK_EQ(pmu_step_states[0].longest_exit_path, 60);
    area->exit_stepped = 0;
    end_run();
}

/* The exit stub steps an exit path only for a counter the run counts: a
 * counter of Vertigo's time alone, or a guest that enters halted (its
 * run counts nothing), cannot come nearer its overflow in the run, so the
 * TSC (which a halted or uncounted run moves) never decides for it. */
TEST(exit_paths_are_stepped_only_for_counters_the_run_counts)
{
    struct vcpu *v = start_run("pmu=soft pmu.step_ahead=1000", false);
    struct percpu_step *area = &fake.steps[0];
    fake.tsc = 10000;
    if (!start_sampling(v, "instructions:h", 10000, 2))
        return;
    CHECK(!fake.tf);
    CHECK_EQ(area->exit_tsc, UINT64_MAX);
    end_run();
    pmu_before_entry(v);
    fake.halted = true;
    if (!start_sampling(v, "instructions:ukh", 10000, 2))
        return;
    CHECK_EQ(area->exit_tsc, UINT64_MAX);
    fake.halted = false;
    fake.tsc += 100;
    pmu_before_entry(v);
    CHECK(area->exit_tsc != UINT64_MAX);
    end_run();
}

/* How long a stretch may last is learnt per kind (an exit's handling by
 * its reason, an entry with the next exit's path): a stretch runs
 * unstepped while its next overflow is further than the longest of its
 * kind so far plus PMU_STEP_MARGIN (a kind not seen yet: pmu.step_ahead),
 * so a short entry path 500 events (plus what the margin adds beyond 64)
 * before the overflow is not stepped where pmu.step_ahead alone (1000)
 * would step it. */
TEST(a_stretch_is_stepped_only_when_its_kind_may_reach_the_overflow)
{
    struct vcpu *v = start_run("pmu=soft pmu.step_ahead=1000", false);
    struct percpu_step *area = &fake.steps[0];
    fake.tsc = 10000;
    /* the period leaves the entry 500 + `extra` events from the overflow
     * (extra: the margin beyond the 64 the figures below were made with) */
    const uint64_t extra = PMU_STEP_MARGIN - 64u;
    if (!start_sampling(v, "instructions:h", 2000 + extra, 2))
        return;
    fake.exit_reason = 10;                  /* CPUID */
    /* entry path 100, the guest 1000, the exit path 50: an entry's kind
     * lasted 150 */
    guest_run(v, 100, 1000, 50);
    CHECK_EQ(hv_count(v), 150);
    CHECK(!fake.tf);                        /* CPUID not seen yet: 1850 > 1000 */
    fake.tsc += 200;                        /* CPUID's handling lasted 200 */
    pmu_before_entry(v);                    /* the entry joins it: its 200 go in at the exit */
    CHECK_EQ(hv_count(v), 150);
    CHECK(!fake.tf);
    guest_run(v, 100, 1000, 50);
    fake.tsc += 1000;                       /* a CPUID handled in 1000 */
    pmu_before_entry(v);
    CHECK_EQ(hv_count(v), 500);             /* 200 + 100 + 50 more; the 1000 at the exit */
    CHECK(!fake.tf);                        /* 500 + extra to go, an entry lasts 150 + margin */
    CHECK_EQ(area->step_exits, 0);
    guest_run(v, 100, 1000, 50);
    CHECK_EQ(hv_count(v), 1650);
    CHECK(fake.tf);                         /* 350 + extra to go, a CPUID may last 1000 + margin */
    CHECK_EQ(area->next, 350 + extra);
    CHECK_EQ(pmu_step_states[0].late, 0);
    end_run();
}

/* An emulated guest instruction far from the overflow is no sync point:
 * the unstepped stretch takes it (its +1 counted at once, Vertigo's ticks
 * before and after it together at the next sync), and the counts are
 * those of pausing around it. Near the overflow (the rest of the exit may
 * reach it) it is one, and the rest is stepped. */
TEST(an_emulated_instruction_far_from_the_overflow_needs_no_sync)
{
    /* (never a far round: that needs more than 4 x 300 to go) */
    struct vcpu *v = start_run("pmu=soft pmu.step_ahead=300", false);
    fake.tsc = 10000;
    if (!start_sampling(v, "instructions:ukh", 1000, 2))
        return;
    CHECK(!fake.tf);
    /* entry path 100, the guest 200, the exit path 50 */
    guest_run(v, 100, 200, 50);
    CHECK_EQ(hv_count(v), 350);
    fake.tsc += 30;                         /* the handler, then its emulated instruction */
    CHECK(pmu_counts_emulation(v));
    pmu_emulated_instruction(v);
    CHECK_EQ(hv_count(v), 351);             /* the +1 alone: 619 events still to go */
    CHECK_EQ(pmu_step_states[0].absorbed, 1);
    CHECK(!fake.tf);
    fake.tsc += 40;                         /* the rest of the exit */
    pmu_before_entry(v);                    /* the entry joins the stretch too */
    CHECK_EQ(hv_count(v), 351);             /* the 30 + 40 go in at the next exit */
    /* each part taught its own kind, as the sync points would have */
    CHECK_EQ(pmu_step_states[0].longest[PMU_STRETCH_AFTER_EMULATION], 40);
    unsigned int reason = fake.exit_reason < PMU_STRETCH_EXIT_REASONS ? fake.exit_reason
                                                                      : PMU_STRETCH_EXIT_REASONS - 1;
    CHECK_EQ(pmu_step_states[0].longest[reason], 30);
    /* the next exit ends 120 events from the overflow: the emulated
     * instruction and the rest (its bound 40 + PMU_STEP_MARGIN) may reach it */
    guest_run(v, 100, 309, 50);
    CHECK_EQ(hv_count(v), 880);
    CHECK(!fake.tf);
    fake.tsc += 30;
    pmu_emulated_instruction(v);
    CHECK_EQ(hv_count(v), 911);             /* paused: 30 ticks, then the +1 */
    CHECK_EQ(pmu_step_states[0].absorbed, 0);
    CHECK(fake.tf);                         /* 89 to go: the rest is stepped */
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 0);
    CHECK_EQ(pmu_step_states[0].late, 0);
    end_run();
}

/* A session sampling instructions:ukh every 1000 events, up to its first
 * exit (a CPUID): entry path 100, the guest 200, the exit path 50, so 650
 * to go. NULL if the session did not start. */
static struct vcpu *sample_ukh_first_exit(const char *cmdline)
{
    struct vcpu *v = start_run(cmdline, false);
    fake.tsc = 10000;
    if (!start_sampling(v, "instructions:ukh", 1000, 2))
        return NULL;
    fake.exit_reason = 10;
    guest_run(v, 100, 200, 50);
    CHECK_EQ(hv_count(v), 350);
    CHECK_EQ(pmu_step_states[0].entry_lead, 100);
    return v;
}

/* The planning of an entry far from the overflow is no sync point: the
 * entry stretch goes on from the handling's (pmu_step_join_entry), whose
 * ticks go to the counter at the next exit, before the guest's; the run's
 * deadline leaves them room with the entry path's, so the overflow still
 * lands on the run's last instruction. Each part teaches its own kind.
 * Near the overflow the planning is a sync point again. */
TEST(an_entry_far_from_the_overflow_joins_the_stretch_before_it)
{
    /* (never a far round: that needs more than 4 x 300 to go) */
    struct vcpu *v = sample_ukh_first_exit("pmu=soft pmu.step_ahead=300");
    if (!v)
        return;
    fake.tsc += 30;                         /* the handling */
    pmu_before_entry(v);
    CHECK_EQ(pmu_step_states[0].joined, 1);
    CHECK_EQ(hv_count(v), 350);             /* the 30 wait for the exit */
    CHECK(!fake.tf);
    CHECK_EQ(pmu_step_states[0].longest[10], 30);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 650 - 30 - 100);
    CHECK_EQ(pmu_step_states[0].joined_ticks, 0);   /* only while the entry is planned */
    /* the run ends at its deadline: the overflow is its last instruction */
    guest_run(v, 100, 520, 50);
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 1);
    CHECK_EQ(v->pmu.ctx.counters[0].skid_max, 0);
    CHECK_EQ(hv_count(v), 1050);
    CHECK_EQ(pmu_step_states[0].longest[PMU_STRETCH_ENTRY], 150);  /* from the join */
    CHECK_EQ(pmu_step_states[0].entry_lead, 100);
    /* a handling that leaves the overflow within an entry's bound (150 +
     * PMU_STEP_MARGIN): a sync point, and the entry is stepped */
    fake.tsc += 850;
    pmu_before_entry(v);
    CHECK_EQ(pmu_step_states[0].joined, 1);
    CHECK_EQ(hv_count(v), 1900);
    CHECK(fake.tf);
    CHECK_EQ(pmu_step_states[0].late, 0);
    end_run();
}

/* Far rounds (pmu/soft/pmu_step.h): more than 4 x pmu.step_ahead events
 * from the overflow after an exit, the round up to the next entry is one
 * unstepped stretch from the end of the guest's run. Its emulated
 * instruction is taken in without a check of the room left (the +1
 * counted at once), its entry still joins it with the lead left for the
 * planned run, which ends on the overflow, and its ticks (the exit path
 * first) go in at the next exit before the guest's; its parts teach their
 * kinds as a near round's do. Nearer, the exit is a sync point again, its
 * exit path counted at once. */
TEST(a_far_round_is_counted_at_the_next_exit)
{
    struct vcpu *v = sample_ukh_first_exit("pmu=soft pmu.step_ahead=100");
    if (!v)
        return;
    CHECK_EQ(pmu_step_states[0].far_rounds, 1);     /* 650 to go: far */
    fake.tsc += 30;                         /* the handler, then its emulated instruction */
    pmu_emulated_instruction(v);
    CHECK_EQ(hv_count(v), 351);
    fake.tsc += 40;
    pmu_before_entry(v);                    /* joins: 649 to go, 70 + the lead 100 first */
    CHECK_EQ(pmu_step_states[0].joined, 1);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 649 - 70 - 100);
    CHECK_EQ(pmu_step_states[0].longest[10], 30);
    CHECK_EQ(pmu_step_states[0].longest[PMU_STRETCH_AFTER_EMULATION], 40);
    CHECK(!fake.tf);
    guest_run(v, 100, 479, 80);             /* the run ends on the overflow */
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 1);
    CHECK_EQ(v->pmu.ctx.counters[0].skid_max, 0);
    CHECK_EQ(hv_count(v), 1000);            /* the exit path's 80 open the next round */
    CHECK_EQ(pmu_step_states[0].far_rounds, 2);
    CHECK_EQ(pmu_step_states[0].longest[PMU_STRETCH_ENTRY], 100 + 80);
    CHECK_EQ(pmu_step_states[0].longest_exit_path, 80);
    fake.tsc += 30;
    pmu_before_entry(v);                    /* 1000 to go, 80 + 30 + 100 first */
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 1000 - 110 - 100);
    guest_run(v, 100, 790, 50);
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 2);
    CHECK_EQ(v->pmu.ctx.counters[0].skid_max, 0);
    CHECK_EQ(hv_count(v), 2000);
    /* a run the guest ends 220 events from the overflow: a sync point */
    fake.tsc += 30;
    pmu_before_entry(v);
    guest_run(v, 100, 600, 50);
    CHECK_EQ(hv_count(v), 2000 + 180 + 600 + 50);
    CHECK_EQ(pmu_step_states[0].far_rounds, 3);
    CHECK(!fake.tf);                        /* 170 to go: unstepped */
    fake.tsc += 30;
    pmu_before_entry(v);
    CHECK_EQ(pmu_step_states[0].late, 0);
    CHECK_EQ(pmu_step_states[0].missed, 0);
    pmu_domain_stopping(&dom);
    CHECK(fake_console_has("; 4 entries joined the stretch before them; 3 far rounds), 0 late\n"));
    end_run();
}

/* An unstepped stretch longer than pmu.step_ahead that runs past an
 * overflow: found at the next sync point (a pause; the exit path's ticks
 * at the resume after the guest's), sampled at pmu_step_late_overflow and
 * counted as late, never lost. */
TEST(an_overflow_an_unstepped_stretch_ran_past_is_late)
{
    struct vcpu *v = start_run("pmu=soft pmu.step_ahead=100", false);
    fake.tsc = 10000;
    if (!start_sampling(v, "instructions:h", 1000, 2))
        return;
    fake.tsc += 1200;
    pmu_before_entry(v);
    CHECK_EQ(hv_count(v), 1200);
    CHECK_EQ(v->pmu.ctx.counters[0].overflows, 1);
    CHECK_EQ(pmu_step_states[0].late, 1);
    CHECK(!fake.tf);                        /* 800 to go */
    struct log_sample s[MAX_SAMPLES];
    if (CHECK_EQ(logged_samples(s), 1)) {
        CHECK_EQ(s[0].mode, LOG_MODE_HYPERVISOR);
        CHECK_EQ(s[0].rip, (uint64_t)(uintptr_t)pmu_step_late_overflow);
        CHECK_EQ(s[0].depth, 2);            /* the guest's context at the exit */
        CHECK_EQ(s[0].stack[0], LOG_EXIT_CONTEXT_MARK);
        CHECK_EQ(s[0].stack[1], fake.rip);
    }
    /* the exit path after a 900-tick entry path crosses the next one:
     * found at the resume after the guest's ticks */
    guest_run(v, 700, 10, 300);
    CHECK_EQ(hv_count(v), 2200);
    CHECK_EQ(pmu_step_states[0].late, 2);
    if (CHECK_EQ(logged_samples(s), 1))     /* the ring was drained above */
        CHECK_EQ(s[0].rip, (uint64_t)(uintptr_t)pmu_step_late_overflow);
    pmu_domain_stopping(&dom);
    CHECK(fake_console_has(", 2 late\n"));
    end_run();
}

/* A machine-wide sampling session (the command line's) samples every
 * domain: the end of one domain with others left keeps it running (a VCPU
 * that has not run yet takes it at its first entry); it stops with the
 * run's last domain. A domain's own session ends with the domain. */
TEST(a_domain_end_stops_sampling_only_with_the_run)
{
    struct vcpu *v = start_run("pmu=soft", false);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 100 };
    snprintf(s.events, sizeof(s.events), "instructions:u");
    if (!CHECK_EQ(sample_session_start(&s, "the command line", SAMPLE_OWNER_MACHINE), 0))
        return;
    pmu_domain_report(&dom, false);
    CHECK(fake_console_has("sample: the session goes on in the other domains: "));
    CHECK(!fake_console_has("session stopped at the end of the domain"));
    CHECK(sample_session_stop() >= 0);              /* it was still running */
    if (!start_sampling(v, "instructions:u", 100, 0))
        return;
    pmu_domain_report(&dom, true);
    CHECK(fake_console_has("sample: session stopped at the end of the domain: "));
    CHECK_EQ(sample_session_stop(), -VERTIGO_EINVAL);   /* stopped with the run */
    if (!start_sampling(v, "instructions:u", 100, 0))
        return;
    pmu_domain_report(&dom, false);                 /* others are left: its own ends */
    CHECK(fake_console_has("sample: domain 0's session stopped at the end of the domain: "));
    CHECK_EQ(sample_session_stop(), -VERTIGO_EINVAL);
    end_run();
}

/* A domain's kernel controls only its own sessions (no sample.control=):
 * its session samples only its VCPUs, and another domain's kernel can
 * neither stop it (-EPERM) nor start one beside it (-EBUSY); nor can it
 * stop the command line's machine-wide session. */
TEST(a_domain_controls_only_its_own_sampling)
{
    struct vcpu *v = start_run("pmu=soft", false);
    static struct domain other;
    memset(&other, 0, sizeof(other));
    other.id = 1;
    other.vcpu_count = 1;
    struct vcpu *w = &other.vcpus[0];
    w->domain = &other;
    w->cpu = v->cpu;
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 1000 };
    snprintf(s.events, sizeof(s.events), "instructions:u");

    CHECK(!sample_domain_controls_machine(0) && !sample_domain_controls_machine(1));
    if (!start_sampling(v, "instructions:u", 1000, 0))
        return;
    CHECK(fake_console_has("sample: the session samples domain 0 only"));
    CHECK(v->pmu.sample.mask != 0);                 /* its own VCPU samples */
    CHECK_EQ(sample_guest_stop(w), -VERTIGO_EPERM);
    CHECK_EQ(sample_guest_start(w, &s), -VERTIGO_EBUSY);
    CHECK(sample_guest_stop(v) >= 0);   /* its owner may */
    CHECK_EQ(sample_session_start(&s, "the command line", SAMPLE_OWNER_MACHINE), 0);
    CHECK_EQ(sample_guest_stop(w), -VERTIGO_EPERM);
    CHECK_EQ(sample_guest_stop(v), -VERTIGO_EPERM);
    end_run();
}

/* ---- Event descriptions: one writer, one encoding -------------------------- */

/* The session's start and the end-of-run report name the same ids with
 * the same codes; hardware and software events say which they are, and a
 * decoder reads both back. */
TEST(event_desc_codes_agree_between_sampling_and_totals)
{
    struct vcpu *v = start_run("pmu=soft pmu.events=exits:cpuid", false);
    if (!start_sampling(v, "instructions:u", 100, 0))
        return;
    unsigned int at_start = fake.desc_count;
    if (!CHECK_EQ(at_start, 2))
        return;
    /* the sampled event's period follows its name; the counted one has none */
    CHECK_EQ(fake.period_count, 1);
    CHECK_EQ(fake.periods[0].event, 1);
    CHECK_EQ(fake.periods[0].period, 100);
    pmu_domain_report(&dom, true);
    if (!CHECK_EQ(fake.desc_count, 4))
        return;
    for (unsigned int i = 0; i < 2; i++) {
        CHECK_EQ(fake.descs[i].event, fake.descs[at_start + i].event);
        CHECK_EQ(fake.descs[i].code, fake.descs[at_start + i].code);
        CHECK_STR(fake.descs[i].name, fake.descs[at_start + i].name);
    }
    CHECK_EQ(LOG_EVENT_CODE_SRC(fake.descs[0].code), LOG_EVENT_SRC_SW);
    CHECK_EQ(LOG_EVENT_CODE_VALUE(fake.descs[0].code), (SWEVENT_EXITS_REASON << 16) | 10u);
    CHECK_EQ(LOG_EVENT_CODE_SRC(fake.descs[1].code), LOG_EVENT_SRC_HW);
    CHECK_EQ(LOG_EVENT_CODE_VALUE(fake.descs[1].code), 0x00c0);

    /* through the encoder and the host decoder */
    struct log_test_stream st = { 0 };
    struct log_test_decoded d = { 0 };
    log_ring_init(&fake.ring, 0, fake.ring_storage, sizeof(fake.ring_storage));
    for (unsigned int i = 0; i < 2; i++) {
        union log_record_value u = { .event_desc = fake.descs[i] };
        CHECK(log_emit_event_desc(&fake.ring, 1, &u.event_desc));
    }
    log_test_stream_header(&st, 1);
    log_test_drain(&st, &fake.ring, 4096);
    log_test_decode(st.data, st.len, 0, &d);
    unsigned int found = 0;
    for (size_t i = 0; i < d.count; i++) {
        if (d.values[i].type != LOG_REC_EVENT_DESC)
            continue;
        CHECK_EQ(d.values[i].u.event_desc.code, fake.descs[found].code);
        found++;
    }
    CHECK_EQ(found, 2);
    log_test_decoded_free(&d);
    log_test_stream_free(&st);
    end_run();
}

/* ---- Exact modes: the mode traps ------------------------------------------- */

/* The traps are on exactly while a software counter filters by mode and
 * the hardware can trap (pmu.traps=on, the default). */
TEST(mode_traps_follow_split_mode_counters)
{
    static const struct { const char *cmdline; bool available, want; } cases[] = {
        { "pmu=soft pmu.events=instructions:u", true, true },
        { "pmu=soft pmu.events=instructions:k,exits:all", true, true },
        { "pmu=soft pmu.events=instructions:uk", true, false },
        { "pmu=soft pmu.events=instructions:ukh", true, false },
        { "pmu=soft pmu.events=instructions:u pmu.traps=off", true, false },
        { "pmu=soft pmu.events=instructions:u", false, false },
    };
    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        traps_available = cases[i].available;
        struct vcpu *v = start_run(cases[i].cmdline, false);
        pmu_before_entry(v);
        if (!CHECK_EQ(fake.mode_traps, cases[i].want))
            printf("    %s (traps %s)\n", cases[i].cmdline,
                   cases[i].available ? "available" : "not available");
    }
    traps_available = false;
}

/* A session whose counters count every mode needs no mode traps, only
 * the halt traps (a HLT and the interrupt that wakes the guest exit), and
 * then no step: a run ends at its deadlines or the bound every run has.
 * Without the traps (pmu.traps=off, or not available) it steps at
 * pmu.step, which bounds the idle time a run may hold. */
TEST(a_session_counting_every_mode_traps_halts_and_makes_no_steps)
{
    static const struct { const char *cmdline; bool available, modes, halts, steps; } cases[] = {
        { "pmu=soft pmu.step=5000 pmu.events=instructions:ukh,exits:all", true, false, true, false },
        { "pmu=soft pmu.step=5000 pmu.events=instructions:uk", true, false, true, false },
        { "pmu=soft pmu.step=5000 pmu.events=instructions:u", true, true, false, false },
        { "pmu=soft pmu.step=5000 pmu.events=instructions:ukh pmu.traps=off", true, false, false,
          true },
        { "pmu=soft pmu.step=5000 pmu.events=instructions:ukh", false, false, false, true },
    };
    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        traps_available = cases[i].available;
        struct vcpu *v = start_run(cases[i].cmdline, false);
        pmu_before_entry(v);
        bool stepped = fake.timer[PMU_TIMER_STEP] == 5000;
        if (!CHECK_EQ(fake.mode_traps, cases[i].modes) || !CHECK_EQ(fake.halt_traps, cases[i].halts) ||
            !CHECK_EQ(stepped, cases[i].steps))
            printf("    %s (traps %s)\n", cases[i].cmdline,
                   cases[i].available ? "available" : "not available");
    }
    traps_available = false;
}

/* With the traps on a run never changes mode: a one-tick step from user
 * mode that ends in the kernel away from LSTAR stays the user's (it was
 * the SYSCALL-less case the step correction guesses at without traps). */
TEST(mode_traps_make_the_step_correction_unneeded)
{
    traps_available = true;
    struct vcpu *v = start_run("pmu=soft pmu.step=1 pmu.events=instructions:u,instructions:k",
                               false);
    traps_available = false;
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    CHECK(fake.mode_traps);
    fake.cpl = CPL_KERNEL;
    fake.rip = 0xffffffff81001000ull;
    fake.lstar = LSTAR;
    pmu_after_exit(v, 1);
    CHECK_EQ(hc_read(v, 0), 1);
    CHECK_EQ(hc_read(v, 1), 0);
}

/* :u, :k and :h partition the TSC: Vertigo's share between two exits is
 * the span less the guest's run and the emulated instructions. */
TEST(counting_ukh_partitions_the_tsc)
{
    struct vcpu *v = start_run("pmu=soft pmu.events=instructions:ukh,instructions:h", false);
    fake.exit_tsc = 1000;
    CHECK(v->pmu.counting);
    v->pmu.last_exit_tsc = 1000;
    uint64_t start_all = hc_read(v, 0), start_h = hc_read(v, 1);
    /* run 1: 400 guest ticks, exit at 1000 + 100 (root) + 400 */
    guest_runs(v, CPL_USER, 0);                 /* settle the first interval */
    start_all = hc_read(v, 0);
    start_h = hc_read(v, 1);
    fake.exit_tsc = 1500;
    guest_runs(v, CPL_USER, 400);
    pmu_emulated_instruction(v);                /* one emulated guest instruction */
    fake.exit_tsc = 2300;
    guest_runs(v, CPL_KERNEL, 600);
    CHECK_EQ(hc_read(v, 0) - start_all, 1300u);         /* = 2300 - 1000 */
    CHECK_EQ(hc_read(v, 1) - start_h, 100u + 199u);     /* 1500-1000-400, 2300-1500-600-1 */
}

/* ---- Paravirtual counters (VERTIGO_HC_PV_*) -------------------------------- */

static int64_t pv_program(struct vcpu *v, const char *events)
{
    struct vertigo_pv_program p = { .abi_version = VERTIGO_PV_ABI };
    snprintf(p.events, sizeof(p.events), "%s", events);
    return pv_guest_program(v, &p);
}

/* A VCPU without a counting session starts measuring its runs at the
 * first program; the counters count by mode, emulated instructions
 * included, and the page shows each sum after the run it ends. */
TEST(pv_counters_count_the_guest_by_mode)
{
    static uint8_t page[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    const struct vertigo_pv_page *pg = (const struct vertigo_pv_page *)page;
    traps_available = true;
    struct vcpu *v = start_run("pmu=soft pmu.guest=off", false);    /* nothing else counts */
    traps_available = false;
    CHECK(!v->pmu.counting);
    fake.pv_page = page;
    fake.pv_page_gpa = 0x5000;
    CHECK_EQ(pv_guest_page(v, 0x5000), 0);
    CHECK_EQ(pv_program(v, "instructions:u,cycles"), 2);
    CHECK(v->pmu.counting);
    guest_runs(v, CPL_USER, 100);
    CHECK(fake.mode_traps);                 /* instructions:u counts one mode */
    pmu_emulated_instruction(v);            /* a user-mode CPUID, say */
    guest_runs(v, CPL_KERNEL, 20);
    CHECK_EQ(pv_guest_read(v, 0), 101);
    CHECK_EQ(pv_guest_read(v, 1), 121);
    CHECK_EQ(pv_guest_read(v, 2), (uint64_t)-VERTIGO_EINVAL);
    fake.tsc = 777;
    fake.cpl = CPL_USER;
    entry(v);
    CHECK_EQ(pg->magic, VERTIGO_PV_MAGIC);
    CHECK_EQ(pg->counters[0].sum, 101);
    CHECK_EQ(pg->counters[1].sum, 121);
    CHECK_EQ(pg->entry_tsc, 777);
    CHECK_EQ(pg->entry_cpl, CPL_USER);
    CHECK_EQ(pg->seq % 2, 0);
    CHECK_EQ(pv_program(v, "cycles"), 1);   /* all-mode only: no traps needed */
    entry(v);
    CHECK(!fake.mode_traps);
    CHECK_EQ(pg->counters[0].sum, 0);
}

/* A page that is not writable guest RAM is refused with its own error and
 * changes nothing; the hardware backend puts them on the counters its
 * session leaves free (more in test_pmu_switch.c and test_pv_hw.c). */
TEST(pv_page_refusals_and_backend)
{
    static uint8_t page[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    struct vcpu *v = start_run("pmu=soft", false);
    fake.pv_page = page;
    fake.pv_page_gpa = 0x5000;
    CHECK_EQ(pv_guest_page(v, 0x6000), (uint64_t)-VERTIGO_EFAULT);
    fake.pv_other_access = GUEST_ACCESS_NOT_RAM;
    CHECK_EQ(pv_guest_page(v, 0xfee00000), (uint64_t)-VERTIGO_EMMIO);
    CHECK(v->pmu.pv.page == NULL);
    CHECK_EQ(pv_program(v, "instructions:h"), (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(pv_program(v, "bogus"), (uint64_t)-VERTIGO_EINVAL);
    CHECK(strstr(fake.console, "paravirtual counters refused: unknown event name") != NULL);
    v = start_run("pmu=hw pmu.events=instructions:u", true);
    CHECK_EQ(pv_program(v, "instructions:u"), 1);           /* fixed 0 is taken: a GP one */
    CHECK_EQ(hw_vcpu_of(&v->pmu)->pv.count, 1);
}

/* i-mode: the guest's overflow_at becomes the run's deadline (the exact
 * distance in the counter's mode), the exit that reaches it queues one
 * guest NMI and the page counts it; the same value never fires twice, a
 * new one fires again; a refused vector says why and changes nothing. */
TEST(pv_overflow_interrupt_at_the_exact_point)
{
    static uint8_t page[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    struct vertigo_pv_page *pg = (struct vertigo_pv_page *)page;
    traps_available = true;
    struct vcpu *v = start_run("pmu=soft pmu.guest=off", false);
    traps_available = false;
    fake.pv_page = page;
    fake.pv_page_gpa = 0x5000;
    CHECK_EQ(pv_guest_page(v, 0x5000), 0);
    CHECK_EQ(pv_program(v, "instructions:u"), 1);
    CHECK_EQ(pv_guest_vector(v, 0xf3), (uint64_t)-VERTIGO_EINVAL);
    CHECK(strstr(fake.console, "overflow vector 243 refused: fixed vectors are not delivered")
          != NULL);
    CHECK_EQ(pv_guest_vector(v, VERTIGO_PV_VECTOR_NMI), 0);
    guest_runs(v, CPL_USER, 400);
    pg->overflow_at[0] = 1000;
    fake.cpl = CPL_KERNEL;
    entry(v);
    CHECK(fake.timer[PMU_TIMER_STEP] > 1000000);    /* :u stands still in the kernel */
    pmu_after_exit(v, 50);
    fake.cpl = CPL_USER;
    entry(v);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 600);      /* exactly to the point */
    pmu_after_exit(v, 600);
    CHECK_EQ(fake.guest_nmis_queued, 1);
    CHECK_EQ(pv_guest_read(v, 0), 1000);
    guest_runs(v, CPL_USER, 300);                   /* the same value: once */
    CHECK_EQ(fake.guest_nmis_queued, 1);
    CHECK_EQ(pg->interrupts, 1);
    pg->overflow_at[0] = 1400;                      /* re-armed by the guest */
    guest_runs(v, CPL_USER, 50);
    CHECK_EQ(fake.timer[PMU_TIMER_STEP], 100);
    for (unsigned int i = 0; i < 49; i++)           /* user-mode CPUIDs, say */
        pmu_emulated_instruction(v);
    CHECK_EQ(fake.guest_nmis_queued, 1);
    pmu_emulated_instruction(v);                    /* an emulated one reaches it */
    CHECK_EQ(pv_guest_read(v, 0), 1400);
    CHECK_EQ(fake.guest_nmis_queued, 2);
    CHECK_EQ(fake.vcpu_nmis_queued, 2);             /* the VCPU's own, in any domain */
}

/* ---- Interval multiplexing (pmu/mux/pmu_mux.c) ------------------------------- */

#define MUX_EVENTS "instructions:u,instructions:k,cycles:u,cycles:k,instructions,exits:cpuid"
#define EXIT_CPUID 10u

/* pmu.interval.exact=on: the interval rows the log ring holds (rows[r]),
 * each followed by a swcounters record of the same VCPU with every
 * event's exact count in the interval (exact[r][e]); returns the pairs
 * found, or 0 if a row lacks its record. */
static unsigned int logged_exact(struct log_interval *rows, uint64_t exact[][LOG_SWCOUNTERS_MAX],
                                 unsigned int max)
{
    struct log_test_decoded d;
    unsigned int n = 0;
    decode_ring(&d);
    for (size_t i = 0; i < d.count && n < max; i++) {
        if (d.values[i].type != LOG_REC_INTERVAL)
            continue;
        rows[n] = d.values[i].u.interval;
        const struct log_swcounters *sw = i + 1 < d.count ? &d.values[i + 1].u.swcounters : NULL;
        if (!sw || d.values[i + 1].type != LOG_REC_SWCOUNTERS || sw->vcpu != rows[n].vcpu ||
            sw->count != rows[n].count) {
            n = 0;
            break;
        }
        for (uint32_t e = 0; e < sw->count; e++)
            exact[n][e] = sw->counters[e].id == e ? sw->counters[e].value : UINT64_MAX;
        n++;
    }
    log_test_decoded_free(&d);
    return n;
}

/* Five counter events over two soft counters: sets {0,1} {2,3} {4}, ten
 * turns of 100 per interval of 1000 (set 0 has four turns in interval 0,
 * set 1 four in interval 1); the guest runs user code to each deadline,
 * which is never past the turn's end, and exits for CPUID three times.
 * With pmu.interval.exact=on each row comes with its exact counts. */
TEST(interval_session_ends_each_turn_at_its_exact_instruction)
{
    static struct log_interval rows[4];
    static uint64_t exact[4][LOG_SWCOUNTERS_MAX];
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=2 pmu.interval=1000 "
                               "pmu.subinterval=100 pmu.interval.exact=on "
                               "pmu.events=" MUX_EVENTS, false);
    CHECK(v->pmu.mux.on);
    CHECK(fake_console_has("3 sets over 2 counters, interval 1000, turn 100 instructions"));
    uint64_t run = 0;
    unsigned int cpuids = 0;
    while (run < 2050) {
        fake.cpl = CPL_USER;
        entry(v);
        uint64_t ticks = fake.timer[PMU_TIMER_STEP];
        CHECK(ticks <= 100 - run % 100);
        fake.exit_tsc += 2 * ticks;
        pmu_after_exit(v, ticks);
        if (cpuids++ < 3)
            pmu_exit_handled(v, EXIT_CPUID);
        run += ticks;
    }
    CHECK_EQ(logged_exact(rows, exact, 4), 2);
    for (unsigned int r = 0; r < 2; r++) {
        CHECK_EQ(rows[r].number, r);
        CHECK_EQ(rows[r].instructions, 1000);
        CHECK_EQ(rows[r].tsc_span, 2000);
        CHECK_EQ(rows[r].count, 6);
        CHECK_EQ(rows[r].events[0].raw, rows[r].events[0].running);    /* all user */
        CHECK_EQ(rows[r].events[1].raw, 0);
        CHECK_EQ(rows[r].events[4].raw, rows[r].events[4].running);
        CHECK_EQ(rows[r].events[5].running, 1000);                     /* software */
    }
    CHECK_EQ(rows[0].events[0].running, 400);
    CHECK_EQ(rows[0].events[2].running, 300);
    CHECK_EQ(rows[0].events[4].running, 300);
    CHECK_EQ(rows[1].events[2].running, 400);
    CHECK_EQ(rows[0].events[5].raw, 3);
    CHECK_EQ(rows[1].events[5].raw, 0);
    CHECK_EQ(v->pmu.mux.rows.skid_max, 0);
    CHECK_EQ(hc_read(v, 4), run);       /* the exact count goes on beside */
    /* the exact counts: every instruction a user one, the CPUID exits in
     * the first interval; a user event's extrapolation is exact here */
    const uint64_t want[2][6] = { { 1000, 0, 1000, 0, 1000, 3 }, { 1000, 0, 1000, 0, 1000, 0 } };
    for (unsigned int r = 0; r < 2; r++)
        for (unsigned int e = 0; e < 6; e++) {
            uint64_t value;
            CHECK_EQ(exact[r][e], want[r][e]);
            if (mux_extrapolate(rows[r].events[e].raw, rows[r].instructions,
                                rows[r].events[e].running, &value) != MUX_UNMEASURED)
                CHECK_EQ(value, exact[r][e]);
        }
}

/* An emulated instruction retires too: it can end a turn by itself. */
TEST(interval_session_counts_emulated_instructions)
{
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=1 pmu.interval=10 "
                               "pmu.subinterval=5 pmu.events=instructions,cycles", false);
    guest_runs(v, CPL_KERNEL, 4);
    CHECK_EQ(v->pmu.mux.rows.sub_index, 0);
    pmu_emulated_instruction(v);
    CHECK_EQ(v->pmu.mux.rows.sub_index, 1);
    CHECK_EQ(v->pmu.mux.rows.turn_end, 10);
}

TEST(interval_options_are_checked_with_specific_errors)
{
    /* pmu.guest=off: with the guest's virtual PMU the VCPU would count
     * for it, with none of the refused session's events (checked too). */
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=2 pmu.guest=off "
                               "pmu.events=cycles,cycles:u,cycles:k", false);
    CHECK(!v->pmu.counting);
    CHECK(fake_console_has("event 2 \"cycles:k\": more events than counters"));
    v = start_run("pmu=soft pmu.soft.counters=2 pmu.interval=1000 pmu.subinterval=600 "
                  "pmu.guest=off pmu.events=cycles,cycles:u,cycles:k", false);
    CHECK(!v->pmu.counting);
    v = start_run("pmu=soft pmu.soft.counters=2 pmu.interval=1000 pmu.subinterval=600 "
                  "pmu.events=cycles,cycles:u,cycles:k", false);
    CHECK(v->pmu.counting && v->pmu.count_events == 0 && !v->pmu.mux.on);
    CHECK(fake_console_has("pmu.interval=1000 pmu.subinterval=600 over 2 counters: the "
                           "interval holds fewer sub-intervals than there are event sets"));
    v = start_run("pmu=soft pmu.subinterval=10 pmu.events=cycles", false);
    CHECK(fake_console_has("pmu.subinterval= needs pmu.interval="));
    v = start_run("pmu=soft pmu.interval=lots pmu.events=cycles", false);
    CHECK(fake_console_has("pmu.interval=lots is not a number of retired instructions"));
    v = start_run("pmu=soft pmu.interval=0 pmu.events=cycles", false);
    CHECK(fake_console_has("the interval length must be at least 1 instruction"));
    v = start_run("pmu=soft pmu.interval=100 pmu.interval.exact=yes pmu.events=cycles", false);
    CHECK(!v->pmu.mux.on);
    CHECK(fake_console_has("pmu.interval.exact=yes is not on or off"));
    /* the default turn: one per set */
    v = start_run("pmu=soft pmu.soft.counters=2 pmu.interval=900 "
                  "pmu.events=cycles,cycles:u,cycles:k", false);
    CHECK(v->pmu.mux.on);
    CHECK(fake_console_has("2 sets over 2 counters, interval 900, turn 450 instructions"));
    /* the hardware backend runs it too (tests/unit/test_pmu_mux_hw.c) */
    v = start_run("pmu=hw pmu.interval=900 pmu.events=cycles", true);
    CHECK(v->pmu.mux.on);
    CHECK(fake_console_has("1 sets over 6 counters (turns counted on fixed counter 0), "
                           "interval 900, turn 900 instructions"));
}

/* ---- Interval multiplexing sessions the guest starts (HC_MUX_*) ----------- */

/* The interval rows the log ring holds (rows[]: the first max). */
static unsigned int logged_rows(struct log_interval *rows, unsigned int max)
{
    struct log_test_decoded d;
    unsigned int n = 0;
    decode_ring(&d);
    for (size_t i = 0; i < d.count; i++)
        if (d.values[i].type == LOG_REC_INTERVAL && n < max)
            rows[n++] = d.values[i].u.interval;
    log_test_decoded_free(&d);
    return n;
}

/* The guest's session writes the command line's rows: the same schedule
 * as interval_session_ends_each_turn_at_its_exact_instruction, two whole
 * intervals and, at the stop, the unfinished one; a second start while it
 * runs is busy; after the stop another may start. */
TEST(guest_mux_session_writes_rows_until_it_stops)
{
    static struct log_interval rows[4];
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=2", false);
    CHECK(!v->pmu.mux.on);
    CHECK_EQ(mux_start(v, MUX_EVENTS, 1000, 100), 3);
    CHECK(v->pmu.mux.on);
    CHECK(fake_console_has("3 sets over 2 counters, interval 1000, turn 100 instructions"));
    CHECK_EQ(mux_start(v, "cycles", 1000, 0), -VERTIGO_EBUSY);
    CHECK(fake_console_has("pmu: vcpu 0: multiplexing session refused: the VCPU's "
                           "multiplexing session runs"));
    uint64_t run = 0;
    while (run < 2050) {
        fake.cpl = CPL_USER;
        entry(v);
        uint64_t ticks = fake.timer[PMU_TIMER_STEP];
        CHECK(ticks <= 100 - run % 100);
        if (run + ticks > 2050)
            ticks = 2050 - run;
        pmu_after_exit(v, ticks);
        run += ticks;
    }
    CHECK_EQ(mux_stop(v), 3);
    CHECK(!v->pmu.mux.on);
    CHECK_EQ(logged_rows(rows, 4), 3);
    for (unsigned int r = 0; r < 3; r++) {
        CHECK_EQ(rows[r].number, r);
        CHECK_EQ(rows[r].count, 6);
        CHECK_EQ(rows[r].events[0].raw, rows[r].events[0].running);    /* all user */
    }
    CHECK_EQ(rows[0].instructions, 1000);
    CHECK_EQ(rows[1].instructions, 1000);
    CHECK_EQ(rows[2].instructions, 50);
    CHECK_EQ(rows[0].events[0].running, 400);
    CHECK_EQ(hc_read(v, VERTIGO_PMU_EVENT_COUNT), 0);       /* its events are gone */
    CHECK_EQ(mux_stop(v), -VERTIGO_EINVAL);
    CHECK_EQ(mux_start(v, "cycles,cycles:u,cycles:k", 900, 0), 2);
    CHECK(fake_console_has("2 sets over 2 counters, interval 900, turn 450 instructions"));
    CHECK_EQ(mux_stop(v), 0);           /* no instruction ran: no row */
}

/* Every refusal is specific, says why on the console and leaves no
 * session behind: the command line's checks (pmu/mux/mux_session.h). */
TEST(guest_mux_session_refusals_are_specific)
{
    char many[40 * 8] = "";
    for (int i = 0; i < 33; i++)
        strcat(many, i ? ",cycles" : "cycles");
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=2", false);
    CHECK_EQ(mux_start(v, many, 1000, 0), -VERTIGO_E2BIG);
    CHECK_EQ(mux_start(v, "cycles", 0, 0), -VERTIGO_ERANGE);
    CHECK(fake_console_has("the interval length must be at least 1 instruction"));
    CHECK_EQ(mux_start(v, "cycles", 100, 200), -VERTIGO_ERANGE);
    CHECK(fake_console_has("the sub-interval is longer than the interval"));
    CHECK_EQ(mux_start(v, MUX_EVENTS, 1000, 400), -VERTIGO_ERANGE);    /* 3 sets, 2 turns */
    CHECK(fake_console_has("fewer sub-intervals than there are event sets"));
    CHECK_EQ(mux_start(v, "cycles,no-such-event", 1000, 0), -VERTIGO_EINVAL);
    CHECK(!v->pmu.mux.on);
    CHECK_EQ(hc_read(v, VERTIGO_PMU_EVENT_COUNT), 0);
    CHECK_EQ(mux_stop(v), -VERTIGO_EINVAL);
    /* the command line's session owns the counters */
    v = start_run("pmu=soft pmu.events=cycles", false);
    CHECK_EQ(mux_start(v, "cycles", 1000, 0), -VERTIGO_EBUSY);
    CHECK(fake_console_has("the command line's counting session runs"));
    CHECK_EQ(hc_read(v, VERTIGO_PMU_EVENT_COUNT), 1);
    v = start_run("pmu=off", false);
    CHECK_EQ(mux_start(v, "cycles", 1000, 0), -VERTIGO_ENOSYS);
}

/* A guest's session belongs to the VCPU that started it. A VCPU of
 * another domain that starts while it runs (an AP's INIT/SIPI, a domain's
 * restart) counts none of its events and runs none of its schedule; that
 * domain's sampling session counts none of them; that domain starts its
 * own session beside it. Another VCPU of the same domain is refused (one
 * session per domain); the owner's restart ends its session, and only
 * its own. */
TEST(guest_mux_session_is_its_vcpus_alone)
{
    static struct log_interval rows[4];
    static struct domain other;
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=2", false);
    memset(&other, 0, sizeof(other));
    other.id = 1;
    other.vcpu_count = 1;
    struct vcpu *w = &other.vcpus[0];
    w->domain = &other;
    w->cpu = 1;
    CHECK_EQ(mux_start(v, MUX_EVENTS, 1000, 100), 3);
    fake.cpu = 1;
    pmu_vcpu_start(w);                  /* domain 1's VCPU starts after it */
    CHECK(!w->pmu.mux.on);
    CHECK_EQ(hc_read(w, VERTIGO_PMU_EVENT_COUNT), 0);
    guest_runs(w, CPL_USER, 2500);
    CHECK_EQ(logged_rows(rows, 4), 0);  /* v has not run: no row is anyone's */
    if (start_sampling(w, "instructions:u", 1000, 0)) {
        CHECK_EQ(w->pmu.count_events, 0);
        CHECK_EQ(hc_read(w, VERTIGO_PMU_EVENT_COUNT), 1);  /* its sampled event alone */
        CHECK(sample_guest_stop(w) >= 0);
        entry(w);
    }
    CHECK_EQ(mux_start(w, "cycles,cycles:u,cycles:k", 900, 0), 2);
    CHECK(fake_console_has("pmu: domain 1 vcpu 0: multiplexing session of the guest: "
                           "cycles,cycles:u,cycles:k (3 events, 2 sets"));
    CHECK_EQ(hc_read(w, VERTIGO_PMU_EVENT_COUNT), 3);
    CHECK_EQ(hc_read(v, VERTIGO_PMU_EVENT_COUNT), 6);
    struct vcpu *o = second_vcpu();     /* domain 0's VCPU 1, on CPU 2 */
    o->cpu = 2;
    fake.cpu = 2;
    pmu_vcpu_start(o);
    CHECK(!o->pmu.mux.on);
    CHECK_EQ(hc_read(o, VERTIGO_PMU_EVENT_COUNT), 0);
    CHECK_EQ(mux_start(o, "cycles", 1000, 0), -VERTIGO_EBUSY);
    CHECK(fake_console_has("pmu: vcpu 1: multiplexing session refused: its domain's "
                           "multiplexing session runs on vcpu 0 (one at a time per domain)"));
    CHECK_EQ(mux_stop(o), -VERTIGO_EINVAL);
    fake.cpu = 1;
    pmu_vcpu_start(w);                  /* domain 1 restarts */
    CHECK(fake_console_has("pmu: domain 1 vcpu 0: the guest's multiplexing session ended "
                           "with its boot"));
    CHECK(!w->pmu.mux.on);
    CHECK_EQ(hc_read(w, VERTIGO_PMU_EVENT_COUNT), 0);
    CHECK_EQ(mux_stop(w), -VERTIGO_EINVAL);
    CHECK(v->pmu.mux.on);
    CHECK_EQ(hc_read(v, VERTIGO_PMU_EVENT_COUNT), 6);
    CHECK_EQ(mux_start(w, "cycles", 1000, 0), 1);
    CHECK_EQ(mux_stop(w), 0);
    fake.cpu = 0;
    guest_runs(v, CPL_USER, 100);
    CHECK_EQ(mux_stop(v), 1);           /* its unfinished interval */
    CHECK_EQ(logged_rows(rows, 4), 1);
    CHECK_EQ(rows[0].domain, 0);
    CHECK_EQ(rows[0].instructions, 100);
}

/* The one name the event-desc records give event id `id` ("" if none,
 * "(two names)" if they give it more than one). */
static const char *desc_name(uint32_t id)
{
    const char *name = "";
    for (unsigned int i = 0; i < fake.desc_count; i++) {
        if (fake.descs[i].event != id)
            continue;
        if (name[0] && strcmp(name, fake.descs[i].name))
            return "(two names)";
        name = fake.descs[i].name;
    }
    return name;
}

/* The rows of each of two domains' guest sessions, whose event lists
 * differ and share events at other positions, both running at once:
 * every entry of every row is named by its own event, through the
 * interval-events record of its VCPU before its rows and the run-wide
 * ids of the event-desc records (an id never has two names). */
TEST(two_domains_sessions_name_their_own_row_events)
{
    static const char *const lists[2][4] = {
        { "instructions", "exits:all", "cycles:k" },
        { "exits:all", "cycles:u", "instructions:u", "instructions" },
    };
    static const char *const text[2] = { "instructions,exits:all,cycles:k",
                                         "exits:all,cycles:u,instructions:u,instructions" };
    static struct domain other;
    struct vcpu *vs[2];
    vs[0] = start_run("pmu=soft pmu.soft.counters=8", false);
    memset(&other, 0, sizeof(other));
    other.id = 1;
    other.vcpu_count = 2;
    vs[1] = &other.vcpus[1];            /* domain 1's VCPU 1, on CPU 1 */
    vs[1]->domain = &other;
    vs[1]->id = 1;
    vs[1]->cpu = 1;
    fake.cpu = 1;
    pmu_vcpu_start(vs[1]);
    for (unsigned int d = 0; d < 2; d++) {
        fake.cpu = vs[d]->cpu;
        CHECK_EQ(mux_start(vs[d], text[d], 1000, 0), 1);
    }
    for (unsigned int round = 0; round < 3; round++)
        for (unsigned int d = 0; d < 2; d++) {
            fake.cpu = vs[d]->cpu;
            guest_runs(vs[d], CPL_USER, 600);
        }
    for (unsigned int d = 0; d < 2; d++) {
        fake.cpu = vs[d]->cpu;
        CHECK_EQ(mux_stop(vs[d]), 2);   /* one whole row, then the last 800 */
    }
    struct log_test_decoded dec;
    struct log_interval_events ids[2] = { 0 };
    unsigned int rows[2] = { 0 };
    decode_ring(&dec);
    for (size_t i = 0; i < dec.count; i++) {
        const union log_record_value *u = &dec.values[i].u;
        if (dec.values[i].type == LOG_REC_INTERVAL_EVENTS && u->interval_events.domain < 2)
            ids[u->interval_events.domain] = u->interval_events;
        if (dec.values[i].type != LOG_REC_INTERVAL || u->interval.domain >= 2)
            continue;
        unsigned int d = u->interval.domain;
        rows[d]++;
        CHECK_EQ(u->interval.vcpu, vs[d]->id);
        if (!CHECK_EQ(ids[d].count, u->interval.count) || !CHECK_EQ(ids[d].vcpu, vs[d]->id))
            continue;
        for (uint32_t k = 0; k < u->interval.count; k++)
            CHECK_STR(desc_name(ids[d].ids[k]), lists[d][k]);
    }
    log_test_decoded_free(&dec);
    CHECK_EQ(rows[0], 2);
    CHECK_EQ(rows[1], 2);
}

/* A domain that has used its share of the log's event ids is refused a
 * context with an event new to the run, specifically and alone: its guest
 * session and its VCPU's sampling are refused, the VCPU counts on as it
 * did; events already named stay its to use; another domain still names
 * new ones. */
TEST(a_domain_past_its_share_of_event_ids_is_refused_alone)
{
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=8", false);
    struct pmu_event_list raw = { .count = 1 };
    uint32_t id;
    unsigned int added = 0;
    CHECK_EQ(mux_start(v, "cycles:u,cycles:k", 1000, 0), 1);     /* two events it names */
    CHECK_EQ(mux_stop(v), 0);
    raw.events[0].source = PMU_EVENT_HW;
    raw.events[0].umask = 0x80;
    for (bool ok = true; ok && added <= PMU_LOG_IDS_PER_DOMAIN; added++) {  /* the rest */
        raw.events[0].event_select = (uint8_t)added;
        snprintf(raw.events[0].name, sizeof(raw.events[0].name), "r80%02x", added);
        ok = pmu_log_ids_assign(0, &raw, &id);
    }
    CHECK_EQ(added, PMU_LOG_IDS_PER_DOMAIN - 1);    /* 126 more fill its 128; the 127th try fails */
    CHECK_EQ(mux_start(v, "cycles", 1000, 0), -VERTIGO_ENOSYS);
    CHECK(fake_console_has("pmu: vcpu 0: multiplexing session refused: the domain has used its "
                           "share of the log's event ids"));
    CHECK(!v->pmu.mux.on);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 1000 };
    snprintf(s.events, sizeof(s.events), "instructions:u");
    CHECK_EQ(sample_guest_start(v, &s), 0);
    pmu_before_entry(v);
    CHECK(fake_console_has("pmu: vcpu 0: no sampling: the domain has used its share"));
    CHECK_EQ(v->pmu.sample.mask, 0);
    CHECK(v->pmu.be.ops != NULL);                   /* its counting goes on */
    CHECK(sample_guest_stop(v) >= 0);
    pmu_before_entry(v);
    CHECK_EQ(mux_start(v, "cycles:k,cycles:u", 1000, 0), 1);  /* events it named: its to use */
    CHECK_EQ(mux_stop(v), 0);
    raw.events[0].event_select = 0xfe;              /* another domain's new event */
    CHECK(pmu_log_ids_assign(1, &raw, &id));
    end_run();
}

/* n user instructions of v, each run to the entry's deadline; every
 * overflow sampled at its exit (the software backend), a PMI raised
 * otherwise taken at once (its NMI exit writes the sample). */
static void run_sampled(struct vcpu *v, uint64_t n)
{
    while (n) {
        fake.cpl = CPL_USER;
        entry(v);
        uint64_t ticks = fake.timer[PMU_TIMER_STEP] < n ? fake.timer[PMU_TIMER_STEP] : n;
        pmu_after_exit(v, ticks);
        n -= ticks;
        if (pmu_cpus[0].pending) {
            entry(v);
            CHECK(pmu_nmi_exit(v));
        }
    }
}

/* A domain's sampling session goes on on a VCPU whose kernel starts and
 * stops a multiplexing session: each re-programs the VCPU's context, and
 * the sampling session is applied again at the next entry, its counter
 * after the session's six (position 6) while it runs, back at 0 after;
 * its samples keep the event's one run-wide id throughout, the id the
 * event-desc records name instructions:u. */
TEST(sampling_goes_on_beside_the_guests_mux_session)
{
    struct log_sample s[MAX_SAMPLES];
    struct vcpu *v = start_run("pmu=soft pmu.soft.counters=2", false);
    if (!start_sampling(v, "instructions:u", 1000, 0))
        return;
    run_sampled(v, 2000);
    CHECK_EQ(mux_start(v, MUX_EVENTS, 100000, 10000), 3);
    CHECK_EQ(v->pmu.sample.mask, 0);            /* nothing sampled until the entry */
    run_sampled(v, 5000);
    CHECK_EQ(v->pmu.count_events, 6);
    CHECK_EQ(v->pmu.sample.mask, 1u << 6);
    CHECK_EQ(mux_stop(v), 1);
    run_sampled(v, 3000);
    CHECK_EQ(v->pmu.count_events, 0);
    CHECK_EQ(v->pmu.sample.mask, 1u);
    unsigned int n = logged_samples(s), same = 0;
    for (unsigned int i = 0; i < n; i++)
        same += s[i].event == s[0].event;
    CHECK_EQ(n, 10);
    CHECK_EQ(same, 10);                         /* before, during and after the session */
    CHECK_STR(desc_name(s[0].event), "instructions:u");
    end_run();
}

/* ---- The guest's virtual PMU: fixed-vector PMIs ------------------------- */

/* LVTPC in fixed delivery mode (kvm-unit-tests' pmu test programs vector
 * 32): a domain's virtual APIC takes the vector and masks LVTPC; domain
 * 0's real APIC is not written on its behalf, and the PMI is counted as
 * not delivered. Software backend, an overflow 10 instructions from the
 * counter's wrap. */
TEST(guest_pmi_in_fixed_mode_goes_to_a_virtual_apic)
{
    for (int takes = 0; takes < 2; takes++) {
        traps_available = true;
        struct vcpu *v = start_run("pmu=soft pmu.guest=on", false);
        traps_available = false;
        fake.apic_takes_vectors = takes;
        fake.guest_lvtpc = 0x20;                /* fixed, vector 32, unmasked */
        CHECK(pmu_exit_wrmsr(v, 0x186, 0xc0 | 3ull << 16 | 1ull << 20 | 1ull << 22));
        CHECK(pmu_exit_wrmsr(v, 0xc1, (uint64_t)-10));
        CHECK(pmu_exit_wrmsr(v, 0x38f, 1));
        guest_runs(v, CPL_KERNEL, 25);
        uint64_t status = 0;
        CHECK(pmu_exit_rdmsr(v, 0x38e, &status));
        CHECK_EQ(status, 1);
        CHECK_EQ(fake.guest_nmis_queued, 0);
        CHECK_EQ(fake.pmi_vectors_taken, takes ? 1 : 0);
        CHECK_EQ(fake.guest_lvtpc, takes ? 0x20 | 1u << 16 : 0x20);
        CHECK_EQ(v->pmu.vpmu.pmis_unsupported, takes ? 0 : 1);
        CHECK_EQ(v->pmu.vpmu.pmis_vector, takes ? 1 : 0);
        end_run();
    }
    fake.apic_takes_vectors = false;
}

/* ---- The guest's virtual PMU on the hardware backend ---------------------- */

/* pmu.guest=on with the hardware backend: the guest's counter 0
 * (instructions:u, interrupt on overflow, 10 events from its wrap) runs on
 * a hardware counter Vertigo's session leaves free (its instructions:k
 * holds fixed counter 0); the entry's
 * GLOBAL_CTRL enables it, the hardware overflow is the guest's: its
 * GLOBAL_STATUS bit, one NMI queued for it, its LVTPC masked; the host PMI
 * the overflow raised on Vertigo's LVTPC is taken as Vertigo's (never
 * reflected raw) and writes no sample; Vertigo's own counter counted only
 * its own. */
TEST(guest_counters_run_on_free_hardware_counters_and_their_pmi_is_the_guests)
{
    struct vcpu *v = start_run("pmu=hw pmu.guest=on pmu.events=instructions:k", true);
    uint64_t value = 0;
    CHECK(fake.rdpmc_exiting);
    CHECK(pmu_exit_wrmsr(v, 0x186, 0xc0 | 1ull << 16 | 1ull << 20 | 1ull << 22));
    CHECK(pmu_exit_wrmsr(v, 0xc1, (uint64_t)-10));
    CHECK(pmu_exit_wrmsr(v, 0x38f, 1));
    fake.guest_lvtpc = LVTPC_NMI;
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    uint64_t guest_bits = fake.plan.guest_global_ctrl;
    CHECK_EQ(guest_bits, 1ull << 32 | 1);      /* Vertigo's instructions:k on fixed 0,
                                                 * the guest's counter on GP 0 */
    CHECK_EQ(fake.plan.host_global_ctrl & 1, 0);
    CHECK_EQ(fake.model->evtsel[0], 0xc0 | 1ull << 16 | 1ull << 20 | 1ull << 22);
    fake.model->global_ctrl = guest_bits;       /* VM entry */
    pmu_model_count(fake.model, &pmu_model_instructions, PMU_MODEL_USER, 25);
    fake.model->global_ctrl = fake.plan.host_global_ctrl;      /* the NMI exit */
    CHECK_EQ(fake.model->pmi_nmis, 1);
    pmu_after_exit(v, 0);
    CHECK(pmu_exit_rdmsr(v, 0xc1, &value));
    CHECK_EQ(value, 15);
    CHECK(pmu_exit_rdmsr(v, 0x38e, &value));
    CHECK_EQ(value, 1);                         /* the guest's GLOBAL_STATUS */
    CHECK_EQ(fake.guest_nmis_queued, 1);
    CHECK_EQ(fake.guest_lvtpc, LVTPC_NMI | PMU_MODEL_LVT_MASKED);
    CHECK_EQ(fake.model->global_status & 1, 0); /* the hardware bit cleared */
    CHECK(pmu_nmi_exit(v));                     /* the host PMI: Vertigo's to take */
    CHECK_EQ(fake.model->lvtpc, LVTPC_NMI);     /* re-armed */
    struct log_sample s[MAX_SAMPLES];
    CHECK_EQ(logged_samples(s), 0);
    CHECK_EQ(hc_read(v, 0), 0);                 /* instructions:k: the guest ran in user mode */
    end_run();
}

/* Hardware counters that are not 48 bits wide: no guest PMU, and RDPMC
 * still exits (to #GP: the machine's counters are never the guest's). */
TEST(guest_pmu_refused_on_hardware_of_another_width)
{
    hw_width = 40;
    struct vcpu *v = start_run("pmu=hw pmu.guest=on", true);
    hw_width = 48;
    CHECK(!v->pmu.vpmu.on);
    CHECK(fake.rdpmc_exiting);
    uint32_t regs[4];
    pmu_exit_cpuid_leaf_0a(v, regs);
    CHECK_EQ(regs[0], 0);
    end_run();
}

/* ---- Frequency mode (sample.freq=, pmu/sample/sample_freq_vcpu.c) --------------- */

/* A frequency-mode run: what the log said of each sample's period. */
struct freq_run {
    uint64_t period;            /* what the log says the next sample stands for */
    uint64_t sum;               /* the logged samples' periods, added up */
    uint64_t samples;
    uint64_t first_tsc, last_tsc;   /* of the samples counted in `window` */
    uint64_t window;
};

/* The guest retires `instructions` user instructions, each taking
 * ticks_per TSC ticks, running up to each overflow point; every overflow's
 * PMI is taken. Period records are read in the order they were written
 * (each before the sample it applies to). */
static void freq_guest_runs(struct vcpu *v, struct freq_run *r, uint64_t instructions,
                            uint64_t ticks_per, uint64_t window_from)
{
    while (instructions) {
        fake.cpl = CPL_USER;
        entry(v);
        uint64_t n = fake.timer[PMU_TIMER_STEP] < instructions ? fake.timer[PMU_TIMER_STEP]
                                                                : instructions;
        unsigned int sent = fake.nmis_sent, records = fake.period_count;
        uint64_t logged = pmu_cpus[0].stats.samples_logged;
        fake.tsc += n * ticks_per;
        pmu_after_exit(v, n);
        instructions -= n;
        if (fake.nmis_sent != sent) {       /* the hardware backend's PMI */
            entry(v);
            CHECK(pmu_nmi_exit(v));
        }
        if (pmu_cpus[0].stats.samples_logged == logged)
            continue;                       /* the software backend's: at the exit */
        if (fake.period_count > records) {
            const struct log_event_period *ep = &fake.periods[fake.period_count - 1];
            CHECK(ep->per_vcpu && ep->event == 0 && ep->domain == v->domain->id &&
                  ep->vcpu == v->id);
            r->period = ep->period;
        }
        CHECK_EQ(pmu_cpus[0].stats.samples_logged, logged + 1);
        r->sum += r->period;
        r->samples++;
        if (r->samples >= window_from) {
            r->first_tsc = r->window ? r->first_tsc : fake.tsc;
            r->last_tsc = fake.tsc;
            r->window++;
        }
    }
}

/* Samples a second over the window (between its first and last sample). */
static double freq_achieved(const struct freq_run *r)
{
    return (double)(r->window - 1) * 1000000.0 / (double)(r->last_tsc - r->first_tsc);
}

/* A run sampling instructions:u 100 times a second (1 MHz TSC), started
 * at TSC `tsc` as the guest's hypercall would; NULL if it was refused. */
static struct vcpu *start_freq(bool hardware, uint64_t tsc)
{
    struct vcpu *v = start_run(hardware ? "pmu=hw" : "pmu=soft", hardware);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI,
                                 .flags = VERTIGO_SESSION_FREQ, .period = 100 };
    snprintf(s.events, sizeof(s.events), "instructions:u");
    fake.tsc = tsc;
    fake.cpl = CPL_USER;
    if (!CHECK_EQ(sample_guest_start(v, &s), 0))
        return NULL;
    pmu_before_entry(v);
    return v;
}

/* At F = 100 a second on a 1 MHz TSC the first period is 10,000; at half
 * an instruction a tick the periods settle at 5,000, at one a tick at
 * 10,000, each within 1 % after 40 overflows; every sample's period is in
 * the log before it, and the logged periods plus the counter's remainder
 * (less than one period) are its exact count. */
TEST(freq_session_adapts_periods_and_logs_each_change)
{
    struct vcpu *v = start_freq(false, 5000000);
    if (!v)
        return;
    CHECK_EQ(v->pmu.ctx.counters[0].period, 10000);
    if (!CHECK_EQ(fake.period_count, 1) || !CHECK(!fake.periods[0].per_vcpu))
        return;
    struct freq_run r = { .period = fake.periods[0].period };
    CHECK_EQ(r.period, 10000);
    freq_guest_runs(v, &r, 40 * 10000, 2, 30);     /* 0.5 instructions a tick */
    CHECK(freq_achieved(&r) > 99 && freq_achieved(&r) < 101);
    CHECK(r.period > 4950 && r.period < 5050);
    uint64_t samples = r.samples;
    r.window = 0;
    freq_guest_runs(v, &r, 60 * 10000, 1, samples + 40);   /* twice the rate */
    CHECK(freq_achieved(&r) > 99 && freq_achieved(&r) < 101);
    CHECK(r.period > 9900 && r.period < 10100);
    CHECK(fake.period_count - 1 <= r.samples);      /* only changes are logged */
    uint64_t count = hc_read(v, 0);
    CHECK_EQ(count, 40 * 10000 + 60 * 10000);
    CHECK_EQ(r.sum, v->pmu.sample.freq_counters[0].sampled);
    CHECK(r.sum <= count && count - r.sum < v->pmu.ctx.counters[0].period);
    CHECK_EQ(sample_guest_stop(v), r.samples);
    pmu_before_entry(v);                            /* applies the stop: the report */
    char line[160];
    snprintf(line, sizeof(line), "pmu: vcpu 0: sampled instructions:u at 100 a second: %" PRIu64
             " overflows, %" PRIu64 " events in their periods + %" PRIu64 " since = %" PRIu64
             " counted", r.samples, r.sum, count - r.sum, count);
    CHECK(fake_console_has(line));
    CHECK_EQ(v->pmu.sample.freq, 0);
}

/* sample.freq= on Vertigo's command line: a frequency session, or no
 * session with a message of its own for each bad value or combination. */
TEST(freq_cmdline_options_are_checked)
{
    static const struct {
        const char *cmdline, *message;
    } bad[] = {
        { "sample.events=instructions:u sample.freq=1000 sample.period=5", "exclude each other" },
        { "sample.hz=100 sample.freq=10", "sample.hz= of timer samples: give one" },
        { "sample.freq=10", "sample.freq= needs sample.events=" },
        { "sample.events=instructions:u sample.freq=0", "takes 1..100000 samples a second" },
        { "sample.events=instructions:u sample.freq=100001", "takes 1..100000 samples a second" },
        { "sample.events=instructions:u sample.freq=fast", "bad option sample.freq=fast" },
    };
    struct vertigo_session s;
    fake_arch_reset();
    CHECK(sample_session_from_cmdline("sample.events=instructions:u sample.freq=1000 "
                                      "sample.depth=8", &s));
    CHECK_EQ(s.flags, VERTIGO_SESSION_FREQ);
    CHECK_EQ(s.period, 1000);
    CHECK_EQ(s.stack_depth, 8);
    CHECK_STR(s.events, "instructions:u");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fake_arch_reset();
        CHECK(!sample_session_from_cmdline(bad[i].cmdline, &s));
        if (!fake_console_has(bad[i].message))
            unit_fail(__FILE__, __LINE__, "%s: no \"%s\" in: %s", bad[i].cmdline,
                      bad[i].message, fake.console);
    }
}

/* The hardware backend re-arms a counter at its overflow with the period
 * it has then, so a new period takes effect one overflow later: the
 * samples of the period the counter was armed with carry it, and the
 * VCPU's record of the new one comes just before its first sample. */
TEST(freq_session_on_hardware_counters_logs_the_armed_period)
{
    struct vcpu *v = start_freq(true, 1000000);
    if (!v)
        return;
    static const uint64_t armed[] = { 10000, 10000, 8750, 7812 };   /* 0.5 events a tick */
    static const unsigned int records[] = { 1, 1, 2, 3 };   /* the session's, then changes */
    uint64_t sum = 0;
    for (unsigned int i = 0; i < 4; i++) {
        fake.model->global_ctrl = fake.plan.guest_global_ctrl;
        pmu_model_count(fake.model, &pmu_model_instructions, PMU_MODEL_USER, armed[i]);
        fake.model->global_ctrl = fake.plan.host_global_ctrl;
        fake.tsc += 2 * armed[i];
        CHECK(pmu_nmi_exit(v));
        pmu_before_entry(v);
        sum += armed[i];
        CHECK_EQ(v->pmu.ctx.counters[0].sampled_period, armed[i]);
        CHECK_EQ(fake.period_count, records[i]);
        CHECK_EQ(fake.periods[fake.period_count - 1].period, armed[i]);
    }
    CHECK(!fake.periods[0].per_vcpu && fake.periods[1].per_vcpu && fake.periods[2].per_vcpu);
    CHECK_EQ(v->pmu.sample.freq_counters[0].sampled, sum);
    CHECK_EQ(hc_read(v, 0), sum);
    CHECK_EQ(pmu_cpus[0].stats.samples_logged, 4);
    end_run();
}
