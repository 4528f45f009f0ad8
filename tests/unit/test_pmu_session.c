/* The counting-session policy (pmu/backend/pmu_session.c): the pmu= backend
 * decision against every probe verdict, rejection of bad pmu= values, the
 * specific errors a pmu.events= list gets from the backend the decision
 * picks, and the end-of-run totals text for sessions mixing hardware and
 * software events on both backends (the hardware backend runs against the
 * register-level model, tests/unit/pmu_model.c). */
#include "pmu/hw/pmu_hw.h"
#include "pmu/backend/pmu_session.h"
#include "pmu/soft/pmu_soft.h"
#include "tests/unit/pmu_model.h"
#include "tests/unit/unit.h"

#define ARRAY_LEN(a)       (sizeof(a) / sizeof((a)[0]))
#define WIDTH              48
#define ALL_ARCH_EVENTS    0x7fu
#define NO_BRANCH_MISSES   (ALL_ARCH_EVENTS & ~(1u << PMU_ARCH_BRANCH_MISSES))
/* Basic exit reasons (SDM Vol. 3C, appendix C). */
#define REASON_CPUID       10
#define REASON_VMCALL      18
#define REASON_PREEMPTION  52
#define CPL_USER           3
#define CPL_KERNEL         0
#define TEXT_MAX           512

/* ---- pmu= ------------------------------------------------------------------ */

TEST(choice_parse_accepts_the_four_names)
{
    static const struct { const char *text; enum pmu_choice want; } cases[] = {
        { "auto", PMU_CHOICE_AUTO }, { "hw", PMU_CHOICE_HW },
        { "soft", PMU_CHOICE_SOFT }, { "off", PMU_CHOICE_OFF },
    };
    for (unsigned int i = 0; i < ARRAY_LEN(cases); i++) {
        enum pmu_choice got = cases[i].want == PMU_CHOICE_OFF ? PMU_CHOICE_AUTO : PMU_CHOICE_OFF;
        if (!CHECK(pmu_choice_parse(cases[i].text, &got)))
            printf("    pmu=%s rejected\n", cases[i].text);
        CHECK_EQ(got, cases[i].want);
    }
}

/* A bad value is refused and leaves the caller's choice alone (Vertigo
 * then warns and keeps auto). */
TEST(choice_parse_rejects_bad_values)
{
    static const char *const bad[] = {
        "", "AUTO", "Hw", "hardware", "software", "hw ", " soft", "sof", "offf",
        "off,", "on", "none", "1", "auto=hw",
    };
    for (unsigned int i = 0; i < ARRAY_LEN(bad); i++) {
        enum pmu_choice got = PMU_CHOICE_SOFT;
        if (!CHECK(!pmu_choice_parse(bad[i], &got)))
            printf("    pmu=\"%s\" accepted\n", bad[i]);
        CHECK_EQ(got, PMU_CHOICE_SOFT);
    }
}

TEST(decide_against_every_verdict)
{
    static const struct {
        enum pmu_choice choice;
        enum pmu_verdict verdict;
        enum pmu_session_backend want;
    } cases[] = {
        { PMU_CHOICE_AUTO, PMU_HARDWARE, PMU_SESSION_HW },
        { PMU_CHOICE_AUTO, PMU_BROKEN,   PMU_SESSION_SOFT },   /* Bochs */
        { PMU_CHOICE_AUTO, PMU_ABSENT,   PMU_SESSION_SOFT },
        { PMU_CHOICE_HW,   PMU_HARDWARE, PMU_SESSION_HW },
        { PMU_CHOICE_HW,   PMU_BROKEN,   PMU_SESSION_NONE },   /* never drive a broken PMU */
        { PMU_CHOICE_HW,   PMU_ABSENT,   PMU_SESSION_NONE },
        { PMU_CHOICE_SOFT, PMU_HARDWARE, PMU_SESSION_SOFT },
        { PMU_CHOICE_SOFT, PMU_BROKEN,   PMU_SESSION_SOFT },
        { PMU_CHOICE_SOFT, PMU_ABSENT,   PMU_SESSION_SOFT },
        { PMU_CHOICE_OFF,  PMU_HARDWARE, PMU_SESSION_NONE },
        { PMU_CHOICE_OFF,  PMU_BROKEN,   PMU_SESSION_NONE },
        { PMU_CHOICE_OFF,  PMU_ABSENT,   PMU_SESSION_NONE },
    };
    for (unsigned int i = 0; i < ARRAY_LEN(cases); i++)
        if (!CHECK_EQ(pmu_session_decide(cases[i].choice, cases[i].verdict), cases[i].want))
            printf("    case %u: choice %d verdict %d\n", i, cases[i].choice, cases[i].verdict);
}

TEST(backend_names_and_current)
{
    CHECK_STR(pmu_session_backend_name(PMU_SESSION_HW), "hw");
    CHECK_STR(pmu_session_backend_name(PMU_SESSION_SOFT), "soft");
    CHECK_STR(pmu_session_backend_name(PMU_SESSION_NONE), "none");
    CHECK_STR(pmu_session_backend_name((enum pmu_session_backend)42), "none");
    /* The names agree with what each backend writes to the log header. */
    CHECK_STR(pmu_session_backend_name(PMU_SESSION_HW), pmu_hw_ops.name);
    CHECK_STR(pmu_session_backend_name(PMU_SESSION_SOFT), pmu_soft_ops.name);

    enum pmu_session_backend saved = pmu_session_current();
    pmu_session_set_current(PMU_SESSION_SOFT);
    CHECK_EQ(pmu_session_current(), PMU_SESSION_SOFT);
    pmu_session_set_current(PMU_SESSION_HW);
    CHECK_EQ(pmu_session_current(), PMU_SESSION_HW);
    pmu_session_set_current(saved);
}

/* ---- pmu.events= against the decided backend ------------------------------- */

struct machine {
    enum pmu_verdict verdict;
    struct pmu_desc desc;
    bool emulator;              /* one TSC tick = one instruction (Bochs) */
};

static struct pmu_desc desc_v(unsigned int version, uint32_t events_available)
{
    struct pmu_desc d = { .version = (uint8_t)version, .gp_counters = 4, .gp_width = WIDTH,
                          .fixed_counters = 3, .fixed_width = WIDTH, .fixed_mask = 0x7,
                          .events_available = events_available };
    return d;
}

/* What Vertigo does at start-up with pmu=CHOICE pmu.events=TEXT on m:
 * decides the backend, then parses the list against its capabilities.
 * Returns the backend; *code and msg (formatted error, "" if none) say how
 * the list fared (PMU_EVERR_NONE without a backend: no session). */
static enum pmu_session_backend session_parse(const struct machine *m, const char *choice_text,
                                              const char *events, enum pmu_event_err *code,
                                              char *msg, unsigned int msg_size)
{
    enum pmu_choice choice = PMU_CHOICE_AUTO;
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    struct pmu_event_error err;

    CHECK(pmu_choice_parse(choice_text, &choice));
    enum pmu_session_backend b = pmu_session_decide(choice, m->verdict);
    *code = PMU_EVERR_NONE;
    msg[0] = '\0';
    if (b == PMU_SESSION_NONE)
        return b;
    if (b == PMU_SESSION_HW)
        pmu_event_caps_hw(&caps, &m->desc);
    else
        pmu_event_caps_soft(&caps, m->emulator);
    *code = pmu_event_list_parse(events, &caps, &list, &err);
    if (*code != PMU_EVERR_NONE)
        pmu_event_error_format(&err, msg, msg_size);
    return b;
}

TEST(session_events_on_bochs_auto_is_soft_and_counts_instructions)
{
    struct machine bochs = { PMU_BROKEN, desc_v(4, ALL_ARCH_EVENTS), true };
    enum pmu_event_err code;
    char msg[160];
    CHECK_EQ(session_parse(&bochs, "auto", "instructions:u,instructions:k,cycles,exits:cpuid",
                           &code, msg, sizeof(msg)), PMU_SESSION_SOFT);
    CHECK_EQ(code, PMU_EVERR_NONE);
    CHECK_STR(msg, "");
    /* pmu=hw on the broken PMU: no backend, hence no session at all. */
    CHECK_EQ(session_parse(&bochs, "hw", "instructions", &code, msg, sizeof(msg)),
             PMU_SESSION_NONE);
    CHECK_EQ(code, PMU_EVERR_NONE);
}

TEST(session_events_soft_on_real_hardware_is_cycles_only)
{
    struct machine intel = { PMU_HARDWARE, desc_v(4, ALL_ARCH_EVENTS), false };
    enum pmu_event_err code;
    char msg[160];
    CHECK_EQ(session_parse(&intel, "soft", "cycles:u,instructions:u", &code, msg, sizeof(msg)),
             PMU_SESSION_SOFT);
    CHECK_EQ(code, PMU_EVERR_SOFT_CYCLES_ONLY);
    CHECK_STR(msg, "event 1 \"instructions:u\": the software PMU counts only cycle-based "
                   "events on this machine");
    /* The same list is fine for the hardware backend auto picks there. */
    CHECK_EQ(session_parse(&intel, "auto", "cycles:u,instructions:u", &code, msg, sizeof(msg)),
             PMU_SESSION_HW);
    CHECK_EQ(code, PMU_EVERR_NONE);
    CHECK_EQ(session_parse(&intel, "soft", "cycles:u,ref-cycles:k,exits:all", &code, msg,
                           sizeof(msg)), PMU_SESSION_SOFT);
    CHECK_EQ(code, PMU_EVERR_NONE);
}

TEST(session_events_specific_errors)
{
    struct machine v2 = { PMU_HARDWARE, desc_v(2, NO_BRANCH_MISSES), false };
    struct machine bochs = { PMU_BROKEN, desc_v(4, ALL_ARCH_EVENTS), true };
    enum pmu_event_err code;
    char msg[160];

    session_parse(&v2, "hw", "instructions,branch-misses", &code, msg, sizeof(msg));
    CHECK_EQ(code, PMU_EVERR_UNAVAILABLE);
    CHECK_STR(msg, "event 1 \"branch-misses\": this PMU does not count that event");

    session_parse(&bochs, "soft", "cycles,exits:bogus", &code, msg, sizeof(msg));
    CHECK_EQ(code, PMU_EVERR_BAD_EXIT_REASON);
    CHECK_STR(msg, "event 1 \"exits:bogus\": unknown VM-exit reason");

    session_parse(&bochs, "soft", "cycles:q", &code, msg, sizeof(msg));
    CHECK_EQ(code, PMU_EVERR_BAD_MODIFIER);

    session_parse(&bochs, "auto", "cyclez", &code, msg, sizeof(msg));
    CHECK_EQ(code, PMU_EVERR_UNKNOWN_NAME);
    CHECK_STR(msg, "event 0 \"cyclez\": unknown event name");

    /* The software backend has PMU_SOFT_COUNTERS counters: one more fails
     * at the first event that finds none free. */
    char list[TEXT_MAX] = "";
    unsigned int len = 0;
    for (unsigned int i = 0; i <= PMU_SOFT_COUNTERS; i++)
        len += (unsigned int)snprintf(list + len, sizeof(list) - len, "%scycles", i ? "," : "");
    session_parse(&bochs, "soft", list, &code, msg, sizeof(msg));
    CHECK_EQ(code, PMU_EVERR_TOO_MANY);
    char want[80];
    snprintf(want, sizeof(want), "event %u \"cycles\": more events than counters",
             PMU_SOFT_COUNTERS);
    CHECK_STR(msg, want);
}

/* ---- Totals text -------------------------------------------------------------- */

static bool parse_into(struct pmu_ctx *ctx, const struct pmu_event_caps *caps, const char *events)
{
    struct pmu_event_list list;
    struct pmu_event_error err;
    if (!CHECK_EQ(pmu_event_list_parse(events, caps, &list, &err), PMU_EVERR_NONE))
        return false;
    pmu_ctx_init(ctx, &list, NULL);
    return true;
}

struct hw_rig {
    struct pmu_model model;
    struct pmu_hw hw;
    struct pmu_backend be;
};

static bool hw_rig_init(struct hw_rig *r, unsigned int version, bool full_width)
{
    struct pmu_desc d = desc_v(version, ALL_ARCH_EVENTS);
    struct pmu_model_config cfg = { version, d.gp_counters, WIDTH, d.fixed_mask, WIDTH,
                                    full_width, version >= 5 };
    pmu_model_init(&r->model, &cfg);
    struct pmu_msr_ops ops = { pmu_model_rdmsr, pmu_model_wrmsr, &r->model };
    r->be = pmu_hw_backend(&r->hw);
    return CHECK_EQ(pmu_hw_init(&r->hw, &d, full_width ? PMU_PERF_CAP_FW_WRITE : 0, &ops),
                    PMU_OK);
}

/* One guest run at cpl: the CPU loads the plan's GLOBAL_CTRL at entry
 * and the host value at exit, as the VMCS controls do. */
static void hw_guest_run(struct hw_rig *r, struct pmu_ctx *ctx, unsigned int cpl,
                         void (*guest)(struct pmu_model *m))
{
    struct pmu_entry_plan plan;
    r->be.ops->enter(r->be.self, ctx, cpl, &plan);
    r->model.global_ctrl = plan.guest_global_ctrl;
    guest(&r->model);
    r->model.global_ctrl = plan.host_global_ctrl;
    r->be.ops->exit(r->be.self, ctx, 0);
}

static void guest_user_work(struct pmu_model *m)
{
    pmu_model_count(m, &pmu_model_instructions, PMU_MODEL_USER, 1000);
    pmu_model_count(m, &pmu_model_branches, PMU_MODEL_USER, 7);
    pmu_model_count(m, &pmu_model_cycles, PMU_MODEL_USER, 2000);
}

static void guest_kernel_work(struct pmu_model *m)
{
    pmu_model_count(m, &pmu_model_instructions, PMU_MODEL_KERNEL, 300);
    pmu_model_count(m, &pmu_model_cycles, PMU_MODEL_KERNEL, 50);
    pmu_model_count(m, &pmu_model_branches, PMU_MODEL_KERNEL, 4);
}

/* Exits and NMIs as the exit loop reports them to the software events. */
static void count_software_events(struct swevent_counts *sw)
{
    for (int i = 0; i < 3; i++)
        swevent_count_exit(sw, REASON_CPUID);
    for (int i = 0; i < 2; i++)
        swevent_count_exit(sw, REASON_VMCALL);
    CHECK(swevent_add(sw, SWEVENT_VCPU_SWITCHES, 1));
    CHECK(swevent_add(sw, SWEVENT_NMIS_OWN, 2));
    CHECK(swevent_add(sw, SWEVENT_NMIS_REFLECTED, 1));
}

static const char hw_events[] =
    "instructions:u,cycles:k,branches,exits:cpuid,hypercalls,vcpu-switches,nmis,exits:all";
static const char hw_totals[] =
    "instructions:u=1001 cycles:k=50 branches=11 exits:cpuid=3 hypercalls=2 vcpu-switches=1 "
    "nmis=3 exits:all=5";

TEST(totals_hw_session_with_software_events)
{
    static const struct { unsigned int version; bool full; } configs[] = {
        { 2, false }, { 3, true }, { 4, true }, { 4, false }, { 5, true },
    };
    for (unsigned int c = 0; c < ARRAY_LEN(configs); c++) {
        struct hw_rig r;
        struct pmu_ctx ctx;
        struct pmu_event_caps caps;
        struct swevent_counts sw = { 0 };
        char text[TEXT_MAX];
        if (!hw_rig_init(&r, configs[c].version, configs[c].full))
            continue;
        pmu_event_caps_hw(&caps, &r.hw.desc);
        if (!parse_into(&ctx, &caps, hw_events) ||
            !CHECK_EQ(r.be.ops->program(r.be.self, &ctx), PMU_OK) ||
            !CHECK_EQ(r.be.ops->load(r.be.self, &ctx), PMU_OK))
            continue;
        hw_guest_run(&r, &ctx, CPL_USER, guest_user_work);
        r.be.ops->emulated_instruction(r.be.self, &ctx, CPL_USER);  /* a user CPUID */
        hw_guest_run(&r, &ctx, CPL_KERNEL, guest_kernel_work);
        guest_kernel_work(&r.model);        /* hypervisor time: not counted */
        count_software_events(&sw);
        /* A VCPU switch out and back in keeps the counts. */
        CHECK_EQ(r.be.ops->save(r.be.self, &ctx), PMU_OK);
        CHECK_EQ(r.be.ops->load(r.be.self, &ctx), PMU_OK);

        int n = pmu_session_format_totals(&r.be, &ctx, &sw, text, sizeof(text));
        if (!CHECK_STR(text, hw_totals))
            printf("    PMU v%u, %s writes\n", configs[c].version,
                   configs[c].full ? "full-width" : "legacy");
        CHECK_EQ(n, strlen(hw_totals));
    }
}

TEST(totals_soft_session_in_bochs_mode)
{
    struct pmu_soft soft;
    struct pmu_soft_config cfg = { .step_ticks = 1, .tsc_counts_instructions = true };
    struct pmu_backend be = pmu_soft_backend(&soft);
    struct pmu_event_caps caps;
    struct pmu_ctx ctx;
    struct pmu_entry_plan plan;
    struct swevent_counts sw = { 0 };
    char text[TEXT_MAX];

    CHECK_EQ(pmu_soft_init(&soft, &cfg), PMU_OK);
    pmu_event_caps_soft(&caps, true);
    if (!parse_into(&ctx, &caps, "instructions:u,instructions:k,cycles,exits:all,"
                                 "exits:preemption_timer,exits:cpuid,log-drops") ||
        !CHECK_EQ(be.ops->program(be.self, &ctx), PMU_OK) ||
        !CHECK_EQ(be.ops->load(be.self, &ctx), PMU_OK))
        return;
    be.ops->enter(be.self, &ctx, CPL_USER, &plan);
    be.ops->exit(be.self, &ctx, 100);
    swevent_count_exit(&sw, REASON_PREEMPTION);
    be.ops->enter(be.self, &ctx, CPL_KERNEL, &plan);
    be.ops->exit(be.self, &ctx, 40);
    swevent_count_exit(&sw, REASON_CPUID);
    be.ops->emulated_instruction(be.self, &ctx, CPL_KERNEL);
    be.ops->exit(be.self, &ctx, 1000);      /* no enter: nothing counted */

    int n = pmu_session_format_totals(&be, &ctx, &sw, text, sizeof(text));
    static const char want[] = "instructions:u=100 instructions:k=41 cycles=141 exits:all=2 "
                               "exits:preemption_timer=1 exits:cpuid=1 log-drops=0";
    CHECK_STR(text, want);
    CHECK_EQ(n, strlen(want));
}

TEST(totals_text_truncates_like_snprintf)
{
    struct pmu_soft soft;
    struct pmu_soft_config cfg = { .step_ticks = 10, .tsc_counts_instructions = true };
    struct pmu_backend be = pmu_soft_backend(&soft);
    struct pmu_event_caps caps;
    struct pmu_ctx ctx;
    struct pmu_entry_plan plan;
    char full[TEXT_MAX];

    CHECK_EQ(pmu_soft_init(&soft, &cfg), PMU_OK);
    pmu_event_caps_soft(&caps, true);
    if (!parse_into(&ctx, &caps, "cycles,instructions:u,exits:all"))
        return;
    be.ops->program(be.self, &ctx);
    be.ops->load(be.self, &ctx);
    be.ops->enter(be.self, &ctx, CPL_USER, &plan);
    be.ops->exit(be.self, &ctx, 123456);
    int n = pmu_session_format_totals(&be, &ctx, NULL, full, sizeof(full));
    CHECK_STR(full, "cycles=123456 instructions:u=123456 exits:all=0");
    for (unsigned int size = 1; size < (unsigned int)n + 2; size++) {
        char small[TEXT_MAX];
        memset(small, 'X', sizeof(small));
        int m = pmu_session_format_totals(&be, &ctx, NULL, small, size);
        CHECK_EQ(m, n);
        size_t want_len = size - 1 < (unsigned int)n ? size - 1 : (size_t)n;
        if (!CHECK_EQ(strnlen(small, size), want_len) ||
            !CHECK(memcmp(small, full, want_len) == 0))
            printf("    size %u: \"%.*s\"\n", size, (int)size, small);
        CHECK_EQ(small[size], 'X');     /* nothing written past size */
    }
    char untouched = 'X';
    CHECK_EQ(pmu_session_format_totals(&be, &ctx, NULL, &untouched, 0), n);
    CHECK_EQ(untouched, 'X');
}

TEST(totals_of_an_empty_session)
{
    struct pmu_soft soft;
    struct pmu_soft_config cfg = { .step_ticks = 1, .tsc_counts_instructions = false };
    struct pmu_backend be = pmu_soft_backend(&soft);
    struct pmu_ctx ctx;
    struct pmu_event_list empty = { 0 };
    char text[16] = "junk";
    CHECK_EQ(pmu_soft_init(&soft, &cfg), PMU_OK);
    pmu_ctx_init(&ctx, &empty, NULL);
    CHECK_EQ(pmu_session_format_totals(&be, &ctx, NULL, text, sizeof(text)), 0);
    CHECK_STR(text, "");
}
