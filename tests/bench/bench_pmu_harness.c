/* Host harness for `make bench-pmu` (tests/bench/bench_pmu.sh): runs one
 * PMU bookkeeping operation K times so that callgrind can count the
 * hypervisor instructions it costs. The backends are the portable pmu/
 * code the hypervisor links; the hardware backend's MSRs are the
 * register-level model (tests/unit/pmu_model.c).
 *
 *   bench_pmu_harness OP K
 *
 * Everything that is not Vertigo's own work -- the model's MSR emulation
 * and the simulated guest between switches -- runs inside functions named
 * pmu_model_* or bench_guest_*, which the script leaves out of the count
 * (callgrind --toggle-collect); "nop" is the loop alone, subtracted from
 * every operation. Prints "OP K msr_reads msr_writes msr_writes_elided"
 * (totals of the hardware backend's statistics over the K operations). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/hw/pmu_hw.h"
#include "pmu/soft/pmu_soft.h"
#include "tests/unit/pmu_model.h"

#define WIDTH           48
#define GP_COUNTERS     4
#define FIXED_MASK      0x7u
#define ALL_ARCH_EVENTS 0x7fu
#define PMU_VERSION     4
#define CPL_USER        3
#define SOFT_STEP_TICKS 100u
#define REASON_CPUID    10
#define GUEST_EVENTS    1000u   /* events per simulated guest run between switches, */
#define GUEST_EVENTS_STRIDE 37u /* plus a varying part */

/* A session like tests/e2e/pmu.sh's: mode-filtered instructions, cycles and
 * software events. Two VCPUs that count the same list share every event
 * select (a switch writes only counters); the "diff" list shares none. */
static const char session_events[] = "instructions:u,instructions:k,cycles,exits:all,exits:cpuid";
static const char switch_events[] = "instructions:u,cycles:u,branches:u,branch-misses:u";
static const char switch_events_other[] =
    "instructions:k,cycles:k,cache-references:k,cache-misses:k";

struct bench {
    struct pmu_model model;
    struct pmu_hw hw;
    struct pmu_soft soft;
    struct pmu_backend be;
    struct pmu_ctx ctx[2];
    unsigned int cur;           /* ctx loaded for the switch operations */
    uint64_t guest_runs;
    struct swevent_counts sw;
    struct pmu_entry_plan plan;
};

typedef void (*bench_op)(struct bench *b);

static void die(const char *what)
{
    fprintf(stderr, "bench_pmu_harness: %s\n", what);
    exit(1);
}

static void ctx_setup(struct bench *b, struct pmu_ctx *ctx, const struct pmu_event_caps *caps,
                      const char *events)
{
    struct pmu_event_list list;
    struct pmu_event_error err;
    if (pmu_event_list_parse(events, caps, &list, &err) != PMU_EVERR_NONE) {
        char msg[128];
        pmu_event_error_format(&err, msg, sizeof(msg));
        die(msg);
    }
    pmu_ctx_init(ctx, &list, NULL);
    if (b->be.ops->program(b->be.self, ctx) != PMU_OK)
        die("program failed");
}

static void hw_setup(struct bench *b, const char *ev0, const char *ev1)
{
    struct pmu_desc d = { .version = PMU_VERSION, .gp_counters = GP_COUNTERS, .gp_width = WIDTH,
                          .fixed_counters = 3, .fixed_width = WIDTH, .fixed_mask = FIXED_MASK,
                          .events_available = ALL_ARCH_EVENTS };
    struct pmu_model_config cfg = { PMU_VERSION, GP_COUNTERS, WIDTH, FIXED_MASK, WIDTH,
                                    true, false };
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &b->model };
    struct pmu_event_caps caps;
    pmu_model_init(&b->model, &cfg);
    if (pmu_hw_init(&b->hw, &d, PMU_PERF_CAP_FW_WRITE, &ops) != PMU_OK)
        die("pmu_hw_init failed");
    b->be = pmu_hw_backend(&b->hw);
    pmu_event_caps_hw(&caps, &d);
    ctx_setup(b, &b->ctx[0], &caps, ev0);
    ctx_setup(b, &b->ctx[1], &caps, ev1);
}

static void soft_setup(struct bench *b, const char *events)
{
    struct pmu_soft_config cfg = { .step_ticks = SOFT_STEP_TICKS, .tsc_counts_instructions = true };
    struct pmu_event_caps caps;
    if (pmu_soft_init(&b->soft, &cfg) != PMU_OK)
        die("pmu_soft_init failed");
    b->be = pmu_soft_backend(&b->soft);
    pmu_event_caps_soft(&caps, true);
    ctx_setup(b, &b->ctx[0], &caps, events);
    ctx_setup(b, &b->ctx[1], &caps, events);
}

static void load_first(struct bench *b)
{
    b->cur = 0;
    if (b->be.ops->load(b->be.self, &b->ctx[0]) != PMU_OK)
        die("load failed");
}

/* ---- Not Vertigo's work: left out of the count ---------------------------- */

/* The guest runs between two VCPU switches: the CPU loads the plan's
 * GLOBAL_CTRL, events happen, the exit loads the host value. The event
 * counts vary from run to run so two VCPUs' counters never happen to hold
 * the same values (which would let a switch elide the counter writes). */
__attribute__((noinline)) static void bench_guest_run(struct bench *b)
{
    struct pmu_ctx *ctx = &b->ctx[b->cur];
    uint64_t n = GUEST_EVENTS + b->guest_runs++ * GUEST_EVENTS_STRIDE % GUEST_EVENTS;
    b->be.ops->enter(b->be.self, ctx, CPL_USER, &b->plan);
    b->model.global_ctrl = b->plan.guest_global_ctrl;
    pmu_model_count(&b->model, &pmu_model_instructions, PMU_MODEL_USER, n);
    pmu_model_count(&b->model, &pmu_model_cycles, PMU_MODEL_USER, n);
    pmu_model_count(&b->model, &pmu_model_branches, PMU_MODEL_USER, n);
    pmu_model_count(&b->model, &pmu_model_branch_misses, PMU_MODEL_USER, n / 2);
    pmu_model_count(&b->model, &pmu_model_instructions, PMU_MODEL_KERNEL, n);
    pmu_model_count(&b->model, &pmu_model_cycles, PMU_MODEL_KERNEL, n);
    b->model.global_ctrl = b->plan.host_global_ctrl;
    b->be.ops->exit(b->be.self, ctx, GUEST_EVENTS);
}

/* ---- The operations -------------------------------------------------------- */

__attribute__((noinline)) static void op_nop(struct bench *b)
{
    __asm__ volatile("" : : "r"(b) : "memory");
}

/* VCPU switch on this physical CPU: save the current context, load the other. */
static void op_switch(struct bench *b)
{
    struct pmu_ctx *out = &b->ctx[b->cur];
    b->cur ^= 1;
    b->be.ops->save(b->be.self, out);
    b->be.ops->load(b->be.self, &b->ctx[b->cur]);
}

static void op_hw_switch(struct bench *b)
{
    bench_guest_run(b);
    op_switch(b);
}

/* Around one VM exit: enter before the entry, exit after it. The CPU's
 * part (loading GLOBAL_CTRL from the plan) is one store here. */
static void op_exit(struct bench *b)
{
    struct pmu_ctx *ctx = &b->ctx[b->cur];
    b->be.ops->enter(b->be.self, ctx, CPL_USER, &b->plan);
    b->model.global_ctrl = b->plan.guest_global_ctrl;
    b->model.global_ctrl = b->plan.host_global_ctrl;
    if (b->be.ops->exit(b->be.self, ctx, SOFT_STEP_TICKS))
        b->be.ops->overflow(b->be.self, ctx);
}

/* An exit for an instruction Vertigo emulated (CPUID, I/O...): + correction. */
static void op_exit_emulated(struct bench *b)
{
    op_exit(b);
    b->be.ops->emulated_instruction(b->be.self, &b->ctx[b->cur], CPL_USER);
}

/* The software-event count every exit makes, session or not. */
static void op_swevent_exit(struct bench *b)
{
    swevent_count_exit(&b->sw, REASON_CPUID);
}

enum bench_backend { BENCH_NONE, BENCH_HW, BENCH_SOFT };

struct op_def {
    const char *name;
    bench_op op;
    enum bench_backend backend;
    const char *events[2];
};

static const struct op_def ops[] = {
    { "nop",                 op_nop,            BENCH_NONE, { NULL, NULL } },
    { "hw-switch-same",      op_hw_switch,      BENCH_HW, { switch_events, switch_events } },
    { "hw-switch-diff",      op_hw_switch,      BENCH_HW, { switch_events, switch_events_other } },
    { "soft-switch",         op_switch,         BENCH_SOFT, { session_events, session_events } },
    { "hw-exit",             op_exit,           BENCH_HW, { session_events, session_events } },
    { "hw-exit-emulated",    op_exit_emulated,  BENCH_HW, { session_events, session_events } },
    { "soft-exit",           op_exit,           BENCH_SOFT, { session_events, session_events } },
    { "soft-exit-emulated",  op_exit_emulated,  BENCH_SOFT, { session_events, session_events } },
    { "swevent-exit",        op_swevent_exit,   BENCH_NONE, { NULL, NULL } },
};

static const struct op_def *find_op(const char *name)
{
    for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

int main(int argc, char **argv)
{
    static struct bench b;
    const struct op_def *def = argc == 3 ? find_op(argv[1]) : NULL;
    char *end;
    unsigned long k = argc == 3 ? strtoul(argv[2], &end, 10) : 0;
    if (!def || *end) {
        fprintf(stderr, "usage: bench_pmu_harness OP K\n  OP:");
        for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
            fprintf(stderr, " %s", ops[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    if (def->backend == BENCH_HW)
        hw_setup(&b, def->events[0], def->events[1]);
    else if (def->backend == BENCH_SOFT)
        soft_setup(&b, def->events[0]);
    if (def->backend != BENCH_NONE)
        load_first(&b);
    uint64_t r0 = b.hw.msr_reads, w0 = b.hw.msr_writes, e0 = b.hw.msr_writes_elided;
    bench_op op = def->op;
    for (unsigned long i = 0; i < k; i++)
        op(&b);
    if (def->backend == BENCH_HW && b.hw.msr_faults)
        die("an MSR access faulted in the model");
    printf("%s %lu %lu %lu %lu\n", def->name, k, (unsigned long)(b.hw.msr_reads - r0),
           (unsigned long)(b.hw.msr_writes - w0), (unsigned long)(b.hw.msr_writes_elided - e0));
    return 0;
}
