/* Host harness for `make bench-exit` (tests/bench/bench_exit.sh): K VM
 * exits of one VCPU through the PMU's calls in the VM-exit loop
 * (pmu/pmu_loop.h: after the exit, the exit counted, the emulated
 * instruction, before the next entry), with the rest of pmu/ as the
 * hypervisor links it, on the fake arch hooks (tests/unit/fake_pmu_arch.c),
 * so that callgrind can count the instructions the PMU adds to one exit
 * with the guest's virtual PMU on and off, with and without a session.
 *
 *   bench_exit_harness CASE K
 *
 * Each exit is a CPUID-like one (an emulated instruction) after a guest
 * run of 500 to 1,499 ticks, alternately in kernel and user mode. The
 * script counts only what runs inside one_exit (or nop, the same call
 * doing nothing). A sample an exit finds (the software backend writes it
 * at the exit, sample_record_at_exit) is counted apart by the script, and
 * left out of one_exit's count (the sample recorded, encoded and written
 * to the log ring). Prints "CASE K samples guest_pmis".
 *
 * Built a second time with BENCH_EXIT_PMI_WRITES (bench_exit_writes_harness)
 * for case on-pmi-writes, whose exits are the WRMSRs of the guest's PMI
 * handler to its virtual PMU, one in turn, and case on-reads, whose exits
 * are reads of the guest's PMU while its counter counts (the counter by
 * RDPMC, as the kernel's read() of a counter and PAPI_read do, and
 * GLOBAL_STATUS, in turn): compared there with on-sampling, one_exit's
 * extra tests paid by all three, while this build's one_exit, which the
 * other cases count, stays without them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/bench/bench_args.h"

#include "pmu/pmu_loop.h"
#include "pmu/run/pmu_cpu.h"
#include "tests/unit/fake_pmu_arch.h"
#include "vmm/hv_cmdline.h"
#include "lib/msr.h"
#include "vmm/pmu_hooks.h"
#include "vmm/vcpu.h"

#define REASON_CPUID     10u
#define REASON_RDMSR     31u
#define REASON_WRMSR     32u
#define REASON_RDPMC     15u
#define RUN_MIN          500u
#define RUN_SPREAD       1000u
#define LVT_NMI          (4u << 8)
#define FIXED1_OS_USR_PMI 0xb0ull     /* fixed counter 1 (core cycles): OS, USR, PMI */
#define GLOBAL_FIXED1    (1ull << 33)
#define WATCHDOG_PERIOD  5000000000ull  /* 10 s of a 500 MHz guest */
#define COUNTER_MASK     ((1ull << 48) - 1)
#define EVTSEL_INST_USR  (0xc0ull | 1ull << 16 | 1ull << 22)
#define EVTSEL_INT       (1ull << 20)
#define PMI_PERIOD       10007ull

enum guest_prog { GUEST_NONE, GUEST_WATCHDOG, GUEST_USER_COUNTER, GUEST_USER_SAMPLING };

struct bench_case {
    const char *name;
    const char *cmdline;
    enum guest_prog guest;
};

/* A sampling session of the guest's modes (Vertigo's own time sampled,
 * :h, single-steps Vertigo near overflows: the fake arch has no steps). */
#define SAMPLING "sample.events=instructions:uk sample.period=50000"
/* The same with Vertigo's own time counted (:h, bench-sample's headline):
 * Vertigo's stretches between the loop's sync points are measured, and
 * single-stepped near an overflow (never here: the fake arch's steps do
 * not run, and the exit's own time is 100 ticks). */
#define SAMPLING_H "sample.events=instructions:ukh sample.period=50000"
/* bench-mux's session (tests/bench/mux_events.sh): its events come from
 * BENCH_MUX_EVENTS, which bench_exit.sh sets from that list; counted
 * exactly on 32 counters, or multiplexed over 4 (rows of 1M instructions,
 * turns of 100K). */
#define MUX_PREFIX "mux-"

static const struct bench_case cases[] = {
    { "nop",          "pmu=soft pmu.guest=off", GUEST_NONE },
    { "off",          "pmu=soft pmu.guest=off", GUEST_NONE },
    { "on",           "pmu=soft", GUEST_WATCHDOG },
    { "on-user",      "pmu=soft", GUEST_USER_COUNTER },
    { "sample-off",   "pmu=soft pmu.guest=off " SAMPLING, GUEST_NONE },
    { "sample-on",    "pmu=soft " SAMPLING, GUEST_WATCHDOG },
    { "sample-h-off", "pmu=soft pmu.guest=off " SAMPLING_H, GUEST_NONE },
    { "sample-h-on",  "pmu=soft " SAMPLING_H, GUEST_WATCHDOG },
    { "on-sampling",  "pmu=soft", GUEST_USER_SAMPLING },
    { "mux-exact",    "pmu=soft pmu.soft.counters=32", GUEST_WATCHDOG },
    { "mux-4",        "pmu=soft pmu.soft.counters=4 pmu.interval=1000000 pmu.subinterval=100000",
                      GUEST_WATCHDOG },
#ifdef BENCH_EXIT_PMI_WRITES
    { "on-pmi-writes", "pmu=soft", GUEST_USER_SAMPLING },
    { "on-reads",     "pmu=soft", GUEST_USER_SAMPLING },
#endif
};

static struct domain dom;

static void die(const char *what)
{
    fprintf(stderr, "bench_exit_harness: %s\n", what);
    exit(1);
}

static void wrmsr_or_die(struct vcpu *v, uint32_t msr, uint64_t value)
{
    if (!pmu_exit_wrmsr(v, msr, value))
        die("the guest's PMU refused its programming");
}

/* What Linux programs: its NMI watchdog (core cycles on fixed counter 1,
 * both modes, with a PMI), or a perf stat of instructions:u on GP 0. */
static void program_guest(struct vcpu *v, enum guest_prog prog)
{
    fake.guest_lvtpc = LVT_NMI;
    if (prog == GUEST_WATCHDOG) {
        wrmsr_or_die(v, MSR_IA32_FIXED_CTR0 + 1, -WATCHDOG_PERIOD & COUNTER_MASK);
        wrmsr_or_die(v, MSR_IA32_FIXED_CTR_CTRL, FIXED1_OS_USR_PMI);
        wrmsr_or_die(v, MSR_IA32_PERF_GLOBAL_CTRL, GLOBAL_FIXED1);
    } else if (prog == GUEST_USER_COUNTER) {
        wrmsr_or_die(v, MSR_IA32_PERFEVTSEL0, EVTSEL_INST_USR);
        wrmsr_or_die(v, MSR_IA32_PERF_GLOBAL_CTRL, 1);
    } else if (prog == GUEST_USER_SAMPLING) {
        wrmsr_or_die(v, MSR_IA32_PMC0, -PMI_PERIOD & COUNTER_MASK);
        wrmsr_or_die(v, MSR_IA32_PERFEVTSEL0, EVTSEL_INST_USR | EVTSEL_INT);
        wrmsr_or_die(v, MSR_IA32_PERF_GLOBAL_CTRL, 1);
    }
}

#ifdef BENCH_EXIT_PMI_WRITES
/* The writes of Linux's PMI handler for that counter (perf record of
 * instructions:u), one an exit in turn: all counters off, the counter
 * reloaded, its overflow acknowledged, the counters back on. */
static void pmi_handler_write(struct vcpu *v)
{
    static const uint32_t msrs[4] = { MSR_IA32_PERF_GLOBAL_CTRL, MSR_IA32_PMC0,
                                      MSR_IA32_PERF_GLOBAL_OVF_CTRL, MSR_IA32_PERF_GLOBAL_CTRL };
    static const uint64_t values[4] = { 0, -PMI_PERIOD & COUNTER_MASK, 1, 1 };
    static unsigned int next;
    wrmsr_or_die(v, msrs[next], values[next]);
    next = (next + 1) % 4;
}

/* A read while the counter counts, one an exit in turn: the counter by
 * RDPMC, GLOBAL_STATUS by RDMSR. (Linux's PMI handler reads only after it
 * cleared GLOBAL_CTRL.) Returns the exit's reason. */
static uint32_t counting_read(struct vcpu *v)
{
    static unsigned int next;
    uint64_t value;
    fake.cpl = 0;               /* the kernel's read() (RDPMC at CPL 3 needs CR4.PCE) */
    bool ok = next == 0 ? pmu_exit_rdpmc(v, 0, &value)
                        : pmu_exit_rdmsr(v, MSR_IA32_PERF_GLOBAL_STATUS, &value);
    if (!ok)
        die("the guest's PMU refused a read");
    uint32_t reason = next == 0 ? REASON_RDPMC : REASON_RDMSR;
    next ^= 1;
    return reason;
}

/* Case on-pmi-writes: each exit is a WRMSR exit of that handler; case
 * on-reads: each a read. */
static bool pmi_writes, reads;
#endif

/* The case's command line; the mux- cases add pmu.events= from
 * BENCH_MUX_EVENTS. */
static const char *case_cmdline(const struct bench_case *c)
{
    static char line[1024];
    if (strncmp(c->name, MUX_PREFIX, strlen(MUX_PREFIX)) != 0)
        return c->cmdline;
    const char *events = getenv("BENCH_MUX_EVENTS");
    if (!events || !*events) {
        fprintf(stderr, "bench_exit_harness: case %s needs BENCH_MUX_EVENTS "
                        "(tests/bench/bench_exit.sh sets it)\n", c->name);
        exit(2);
    }
    int n = snprintf(line, sizeof(line), "%s pmu.events=%s", c->cmdline, events);
    if (n < 0 || (size_t)n >= sizeof(line))
        die("BENCH_MUX_EVENTS is too long for the command line");
    return line;
}

static struct vcpu *setup(const struct bench_case *c)
{
    fake_arch_reset();
    hv_cmdline_set(case_cmdline(c));
    fake.guest_timer = true;
    fake.emulator = true;
    fake.tsc_hz = 500000000;
    fake.verdict = PMU_BROKEN;
    fake.mode_traps_available = true;
    memset(&dom, 0, sizeof(dom));
    dom.vcpu_count = 1;
    dom.vcpus[0].domain = &dom;
    pmu_vcpu_start(&dom.vcpus[0]);
    program_guest(&dom.vcpus[0], c->guest);
    return &dom.vcpus[0];
}

/* ---- Not the exit's work: left out of the count --------------------------- */

static uint64_t runs;

/* The guest runs: the entry, its ticks, the exit's TSC. */
__attribute__((noinline)) static uint64_t bench_guest_run(void)
{
    uint64_t n = RUN_MIN + runs * 7919u % RUN_SPREAD;
    fake.cpl = (runs++ & 1) ? 3 : 0;
    fake.entry_tsc = fake.tsc;
    fake.tsc += n;
    fake.exit_tsc = fake.tsc;
    return n;
}

/* ---- The exit ------------------------------------------------------------------ */

__attribute__((noinline)) static void one_exit(struct vcpu *v, uint64_t guest_ticks)
{
    pmu_after_exit(v, guest_ticks);
#ifdef BENCH_EXIT_PMI_WRITES
    if (reads) {
        pmu_exit_handled(v, counting_read(v));
    } else {
        pmu_exit_handled(v, pmi_writes ? REASON_WRMSR : REASON_CPUID);
        if (pmi_writes)
            pmi_handler_write(v);
    }
#else
    pmu_exit_handled(v, REASON_CPUID);
#endif
    if (pmu_counts_emulation(v))
        pmu_emulated_instruction(v);
    fake.tsc += 100;            /* the handler's own time */
    pmu_before_entry(v);
    pmu_entering(v);
}

__attribute__((noinline)) static void nop(struct vcpu *v, uint64_t guest_ticks)
{
    __asm__ volatile("" : : "r"(v), "r"(guest_ticks) : "memory");
}

int main(int argc, char **argv)
{
    unsigned long k;
    const struct bench_case *c = bench_case_arg(argc, argv, cases, sizeof(cases[0]),
                                                sizeof(cases) / sizeof(cases[0]), &k);
    if (!c)
        return 2;
#ifdef BENCH_EXIT_PMI_WRITES
    pmi_writes = !strcmp(c->name, "on-pmi-writes");
    reads = !strcmp(c->name, "on-reads");
#endif
    struct vcpu *v = setup(c);
    void (*op)(struct vcpu *, uint64_t) = strcmp(c->name, "nop") ? one_exit : nop;
    pmu_before_entry(v);
    for (unsigned long i = 0; i < k; i++)
        op(v, bench_guest_run());
    if (fake.nmis_sent)
        fprintf(stderr, "%s: %u NMIs sent: every sample is written at its exit\n", c->name,
                fake.nmis_sent);
    printf("%s %lu %lu %lu\n", c->name, k, (unsigned long)pmu_cpus[0].stats.pmis,
           (unsigned long)v->pmu.vpmu.regs.pmis_delivered);
    return fake.nmis_sent ? 1 : 0;
}
