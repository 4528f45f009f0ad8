/* Host harness for `make bench-switch` (tests/bench/bench_switch.sh): K
 * VCPU switches between two domains' VCPUs on CPU 0 through the PMU's
 * switch hooks (pmu/run/pmu_switch.c), with the rest of pmu/ as the
 * hypervisor links it, on the fake arch hooks (tests/unit/fake_pmu_arch.c)
 * and, for the hardware backend, the register-level PMU model, so that
 * callgrind can count the instructions one switch costs.
 *
 *   bench_switch_harness CASE K
 *
 * Between two switches the outgoing VCPU's guest runs once (an entry, a
 * few thousand events, an exit). The script counts only what runs inside
 * switch_vcpus (or nop, the same call doing nothing) less the MSR
 * accesses (bench_switch_rdmsr/wrmsr), which it prices apart. Prints
 * "CASE K rdmsr wrmsr elided": the model's MSR accesses over the K
 * switches and the backend's writes skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/bench/bench_args.h"

#include "pmu/hw/pmu_hw.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/pmu_loop.h"
#include "pmu/run/pmu_switch.h"
#include "tests/unit/fake_pmu_arch.h"
#include "tests/unit/pmu_model.h"
#include "vmm/hv_cmdline.h"
#include "vmm/vcpu.h"

#define CPL_USER     3u
#define GUEST_EVENTS 1000u      /* events per guest run, */
#define GUEST_STRIDE 37u        /* plus a part that varies, so counters differ */
#define GUEST_SEL    (0xc0ull | 1ull << 16 | 1ull << 22)    /* instructions, USR, EN */

struct bench_case {
    const char *name;
    const char *cmdline;
    bool hardware;
    bool guest_counters;        /* each guest programs its virtual PMU */
};

/* The events of tests/e2e/pmu.sh-like sessions: mode-filtered
 * instructions and cycles, a GP event, software events. */
static const struct bench_case cases[] = {
    { "nop",         "pmu=soft pmu.guest=off", false, false },
    { "soft-none",   "pmu=soft pmu.guest=off", false, false },
    { "soft-ctx",    "pmu=soft pmu.events=instructions:u,instructions:k,cycles,exits:all",
      false, false },
    { "hw-none",     "pmu=hw pmu.guest=off", true, false },
    { "hw-ctx",      "pmu=hw pmu.guest=off pmu.events=instructions:u,cycles:u,branches:u,"
                     "branch-misses:u,exits:all", true, false },
    { "hw-ctx-guest", "pmu=hw pmu.guest=on pmu.events=instructions:u,cycles:u,branches:u",
      true, true },
};

static struct domain doms[2];
static struct pmu_model model;
static uint64_t guest_runs;

static void die(const char *what)
{
    fprintf(stderr, "bench_switch_harness: %s\n", what);
    exit(1);
}

static void setup(const struct bench_case *c)
{
    fake_arch_reset();
    hv_cmdline_set(c->cmdline);
    fake.guest_timer = true;
    fake.emulator = !c->hardware;
    fake.tsc_hz = 1000000;
    fake.verdict = PMU_BROKEN;
    if (c->hardware) {
        struct pmu_model_config cfg = { 4, 4, 48, 0x7, 48, true, false };
        pmu_model_init(&model, &cfg);
        fake.model = &model;
        fake.global_ctrl_switch = true;
        fake.perf_capabilities = 1u << 13;
        fake.verdict = PMU_HARDWARE;
        fake.desc = (struct pmu_desc){ .version = 4, .gp_counters = 4, .gp_width = 48,
                                       .fixed_counters = 3, .fixed_width = 48,
                                       .fixed_mask = 0x7, .events_available = 0x7f };
    }
    for (unsigned int d = 0; d < 2; d++) {
        struct vcpu *v = &doms[d].vcpus[0];
        doms[d].id = d;
        doms[d].vcpu_count = 1;
        v->domain = &doms[d];
        pmu_vcpu_start(v);
        if (c->guest_counters && (!pmu_exit_wrmsr(v, 0x186, GUEST_SEL) ||
                                  !pmu_exit_wrmsr(v, 0x38f, 1)))
            die("the guest's PMU refused its programming");
    }
}

/* ---- Not the switch's work: left out of the count --------------------------- */

/* v's guest runs once: entry, events, exit (what the VMCS loads included). */
__attribute__((noinline)) static void bench_guest_run(struct vcpu *v)
{
    uint64_t n = GUEST_EVENTS + guest_runs++ * GUEST_STRIDE % GUEST_EVENTS;
    fake.cpl = CPL_USER;
    pmu_before_entry(v);
    model.global_ctrl = fake.plan.guest_global_ctrl;
    pmu_model_count(&model, &pmu_model_instructions, PMU_MODEL_USER, n);
    pmu_model_count(&model, &pmu_model_branches, PMU_MODEL_USER, n / 3);
    pmu_model_count(&model, &pmu_model_cycles, PMU_MODEL_USER, n / 2);
    pmu_model_count(&model, &pmu_model_branch_misses, PMU_MODEL_USER, n / 5);
    model.global_ctrl = fake.plan.host_global_ctrl;
    fake.tsc += n;
    fake.exit_tsc = fake.tsc;
    pmu_after_exit(v, n);
}

/* ---- The switch ---------------------------------------------------------------- */

/* The model's MSR access while a switch runs, under names of their own
 * (the script counts the switch without them: the MSR accesses are
 * priced apart); the guest's runs use the model's own functions. */
__attribute__((noinline)) static int bench_switch_rdmsr(void *m, uint32_t msr, uint64_t *value)
{
    return pmu_model_rdmsr(m, msr, value);
}

__attribute__((noinline)) static int bench_switch_wrmsr(void *m, uint32_t msr, uint64_t value)
{
    return pmu_model_wrmsr(m, msr, value);
}

static const struct pmu_msr_ops guest_msr = { pmu_model_rdmsr, pmu_model_wrmsr, &model };
static const struct pmu_msr_ops switch_msr = { bench_switch_rdmsr, bench_switch_wrmsr, &model };

__attribute__((noinline)) static void switch_vcpus(struct vcpu *from, struct vcpu *to)
{
    pmu_vcpu_switch_out(from);
    pmu_vcpu_switch_in(to);
}

__attribute__((noinline)) static void nop(struct vcpu *from, struct vcpu *to)
{
    __asm__ volatile("" : : "r"(from), "r"(to) : "memory");
}

int main(int argc, char **argv)
{
    unsigned long k;
    const struct bench_case *c = bench_case_arg(argc, argv, cases, sizeof(cases[0]),
                                                sizeof(cases) / sizeof(cases[0]), &k);
    if (!c)
        return 2;
    setup(c);
    void (*op)(struct vcpu *, struct vcpu *) = strcmp(c->name, "nop") ? switch_vcpus : nop;
    pmu_vcpu_switch_out(&doms[1].vcpus[0]);     /* domain 1 started last: back to 0 */
    pmu_vcpu_switch_in(&doms[0].vcpus[0]);
    uint64_t reads = 0, writes = 0, elided = 0;
    /* CPU 0's hardware backend instance (both VCPUs run there), if a
     * context was programmed on it: its MSR accesses are counted apart */
    struct pmu_hw *hw = c->hardware ? doms[0].vcpus[0].pmu.be.self : NULL;
    for (unsigned long i = 0; i < k; i++) {
        struct vcpu *from = &doms[i & 1].vcpus[0], *to = &doms[!(i & 1)].vcpus[0];
        if (hw)
            hw->msr = guest_msr;
        bench_guest_run(from);
        if (hw)
            hw->msr = switch_msr;
        uint64_t r0 = model.rdmsr_count, w0 = model.wrmsr_count;
        uint64_t e0 = hw ? hw->msr_writes_elided : 0;
        op(from, to);
        reads += model.rdmsr_count - r0;
        writes += model.wrmsr_count - w0;
        elided += hw ? hw->msr_writes_elided - e0 : 0;
    }
    if (model.faults)
        die("an MSR access faulted in the model");
    if (doms[0].vcpus[0].pmu.sw_state.failures || doms[1].vcpus[0].pmu.sw_state.failures)
        die("a switch failed");
    printf("%s %lu %lu %lu %lu\n", c->name, k, (unsigned long)reads, (unsigned long)writes,
           (unsigned long)elided);
    return 0;
}
