/* Event names and lists (pmu/backend/pmu_events.c): perf-like names, modifiers,
 * raw events, fixed-counter assignment, the specific errors, and software
 * events in the same list read through pmu_read_event. */
#include "pmu/backend/pmu.h"
#include "pmu/backend/pmu_ctx.h"
#include "pmu/backend/pmu_events.h"
#include "tests/unit/unit.h"

static struct pmu_event_caps hw_caps(void)
{
    struct pmu_desc d = { 4, 4, 48, 3, 48, 0x7, 0x7f };
    struct pmu_event_caps caps;
    pmu_event_caps_hw(&caps, &d);
    return caps;
}

static enum pmu_event_err parse1(const char *text, const struct pmu_event_caps *caps,
                                 struct pmu_event *ev)
{
    return pmu_event_parse(text, (unsigned int)strlen(text), caps, ev);
}

TEST(events_names_and_encodings)
{
    struct pmu_event_caps caps = hw_caps();
    struct pmu_event ev;
    static const struct { const char *name; uint8_t sel, umask; int fixed; } cases[] = {
        { "cycles", 0x3c, 0x00, 1 },        { "instructions", 0xc0, 0x00, 0 },
        { "ref-cycles", 0x3c, 0x01, 2 },    { "branches", 0xc4, 0x00, -1 },
        { "branch-misses", 0xc5, 0x00, -1 }, { "cache-references", 0x2e, 0x4f, -1 },
        { "cache-misses", 0x2e, 0x41, -1 },
    };
    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_EQ(parse1(cases[i].name, &caps, &ev), PMU_EVERR_NONE);
        CHECK_EQ(ev.event_select, cases[i].sel);
        CHECK_EQ(ev.umask, cases[i].umask);
        CHECK_EQ((int64_t)ev.fixed_index, (int64_t)cases[i].fixed);
        CHECK(ev.user && ev.kernel);
        CHECK(ev.gp_ok);
        CHECK_STR(ev.name, cases[i].name);
    }
}

TEST(events_modifiers)
{
    struct pmu_event_caps caps = hw_caps();
    struct pmu_event ev;
    CHECK_EQ(parse1("cycles:u", &caps, &ev), PMU_EVERR_NONE);
    CHECK(ev.user && !ev.kernel);
    CHECK_EQ(parse1("instructions:k", &caps, &ev), PMU_EVERR_NONE);
    CHECK(!ev.user && ev.kernel);
    CHECK_EQ(parse1("branches:uk", &caps, &ev), PMU_EVERR_NONE);
    CHECK(ev.user && ev.kernel);
    CHECK_EQ(parse1("branches:ku", &caps, &ev), PMU_EVERR_NONE);
    CHECK(pmu_event_counts_at(&ev, 0) && pmu_event_counts_at(&ev, 3));
    CHECK_EQ(parse1("cycles:", &caps, &ev), PMU_EVERR_BAD_MODIFIER);
    CHECK_EQ(parse1("cycles:x", &caps, &ev), PMU_EVERR_BAD_MODIFIER);
    CHECK_EQ(parse1("cycles:uu", &caps, &ev), PMU_EVERR_BAD_MODIFIER);
    CHECK_EQ(parse1("cycles:ukp", &caps, &ev), PMU_EVERR_BAD_MODIFIER);
    CHECK_EQ(parse1("hypercalls:u", &caps, &ev), PMU_EVERR_BAD_MODIFIER);
    CHECK_EQ(parse1("cycles:hh", &caps, &ev), PMU_EVERR_BAD_MODIFIER);
}

TEST(events_hypervisor_modifier)
{
    struct pmu_event_caps hw = hw_caps(), soft;
    struct pmu_event ev;
    pmu_event_caps_soft(&soft, true);
    CHECK_EQ(parse1("cycles", &hw, &ev), PMU_EVERR_NONE);
    CHECK(ev.user && ev.kernel && !ev.hypervisor);          /* default: the guest only */
    CHECK_EQ(parse1("cycles:ukh", &hw, &ev), PMU_EVERR_NONE);
    CHECK(ev.user && ev.kernel && ev.hypervisor && pmu_event_counts_guest(&ev));
    CHECK_EQ(parse1("instructions:h", &hw, &ev), PMU_EVERR_NONE);
    CHECK(!ev.user && !ev.kernel && ev.hypervisor && !pmu_event_counts_guest(&ev));
    CHECK(!pmu_event_counts_at(&ev, 0) && !pmu_event_counts_at(&ev, 3));
    CHECK_EQ(parse1("cycles:kh", &hw, &ev), PMU_EVERR_NONE);
    /* the hardware PMU cannot count guest user and Vertigo without guest kernel */
    CHECK_EQ(parse1("cycles:uh", &hw, &ev), PMU_EVERR_HW_USER_HYPERVISOR);
    CHECK_EQ(parse1("cycles:uh", &soft, &ev), PMU_EVERR_NONE);
    CHECK(ev.user && !ev.kernel && ev.hypervisor);
}

TEST(events_count_hypervisor_context)
{
    struct pmu_event_caps soft;
    struct pmu_event_list list;
    struct pmu_ctx ctx;
    pmu_event_caps_soft(&soft, true);
    CHECK_EQ(pmu_event_list_parse("cycles:u,instructions", &soft, &list, NULL), PMU_EVERR_NONE);
    pmu_ctx_init(&ctx, &list, NULL);
    CHECK(!ctx.hypervisor_mask);
    CHECK_EQ(pmu_event_list_parse("cycles:u,instructions:kh", &soft, &list, NULL), PMU_EVERR_NONE);
    pmu_ctx_init(&ctx, &list, NULL);
    CHECK_EQ(ctx.hypervisor_mask, 1u << 1);     /* instructions:kh only */
}

TEST(events_raw)
{
    struct pmu_event_caps caps = hw_caps();
    struct pmu_event ev;
    CHECK_EQ(parse1("r01c2:u", &caps, &ev), PMU_EVERR_NONE);
    CHECK_EQ(ev.event_select, 0xc2);
    CHECK_EQ(ev.umask, 0x01);
    CHECK_EQ(ev.arch, PMU_ARCH_RAW);
    CHECK_EQ((int64_t)ev.fixed_index, -1);
    CHECK(ev.user && !ev.kernel);
    CHECK_EQ(parse1("rC0", &caps, &ev), PMU_EVERR_NONE);
    CHECK(pmu_event_counts_instructions(&ev));
    CHECK_EQ(parse1("r000000c0", &caps, &ev), PMU_EVERR_NONE);   /* leading zeros */
    CHECK_EQ(parse1("r10000", &caps, &ev), PMU_EVERR_RAW_RANGE);
    CHECK_EQ(parse1("rffffffffffffffffffff", &caps, &ev), PMU_EVERR_RAW_RANGE);
    CHECK_EQ(parse1("r0100", &caps, &ev), PMU_EVERR_RAW_RANGE);  /* event select 0 */
    CHECK_EQ(parse1("rxyz", &caps, &ev), PMU_EVERR_UNKNOWN_NAME);
    CHECK_EQ(parse1("r", &caps, &ev), PMU_EVERR_UNKNOWN_NAME);
}

TEST(events_unknown_and_unavailable)
{
    struct pmu_event_caps caps = hw_caps();
    struct pmu_event ev;
    CHECK_EQ(parse1("cyclez", &caps, &ev), PMU_EVERR_UNKNOWN_NAME);
    CHECK_EQ(parse1("", &caps, &ev), PMU_EVERR_UNKNOWN_NAME);
    CHECK_EQ(parse1("exits:bogus", &caps, &ev), PMU_EVERR_BAD_EXIT_REASON);
    caps.desc.events_available &= ~(1u << PMU_ARCH_LLC_MISSES);
    CHECK_EQ(parse1("cache-misses", &caps, &ev), PMU_EVERR_UNAVAILABLE);
    /* an unavailable GP event with its fixed counter is still countable */
    caps.desc.events_available &= ~(1u << PMU_ARCH_REF_CYCLES);
    CHECK_EQ(parse1("ref-cycles", &caps, &ev), PMU_EVERR_NONE);
    CHECK(!ev.gp_ok);
    caps.desc.fixed_mask = 0x3;
    CHECK_EQ(parse1("ref-cycles", &caps, &ev), PMU_EVERR_UNAVAILABLE);
    caps.desc.gp_counters = 0;
    CHECK_EQ(parse1("r01c2", &caps, &ev), PMU_EVERR_UNAVAILABLE);
}

TEST(events_list_assignment)
{
    struct pmu_event_caps caps = hw_caps();
    struct pmu_event_list list;
    CHECK_EQ(pmu_event_list_parse("branches,cycles:u,cycles:k,instructions,ref-cycles,"
                                  "exits:cpuid,r01c2", &caps, &list, NULL), PMU_EVERR_NONE);
    CHECK_EQ(list.count, 7);
    const struct { enum pmu_slot_kind slot; unsigned int index; } want[] = {
        { PMU_SLOT_GP, 0 }, { PMU_SLOT_FIXED, 1 }, { PMU_SLOT_GP, 1 }, { PMU_SLOT_FIXED, 0 },
        { PMU_SLOT_FIXED, 2 }, { PMU_SLOT_NONE, 0 }, { PMU_SLOT_GP, 2 },
    };
    for (unsigned int i = 0; i < list.count; i++) {
        CHECK_EQ(list.events[i].slot, want[i].slot);
        CHECK_EQ(list.events[i].slot_index, want[i].index);
    }
    CHECK_EQ(list.events[5].source, PMU_EVENT_SW);
}

TEST(events_list_errors)
{
    struct pmu_event_caps caps = hw_caps();
    struct pmu_event_list list;
    struct pmu_event_error err;
    char text[128];
    CHECK_EQ(pmu_event_list_parse("cycles,,branches", &caps, &list, &err),
             PMU_EVERR_UNKNOWN_NAME);
    CHECK_EQ(err.index, 1);
    CHECK_EQ(pmu_event_list_parse("cycles,instructions:q", &caps, &list, &err),
             PMU_EVERR_BAD_MODIFIER);
    pmu_event_error_format(&err, text, sizeof(text));
    CHECK_STR(text, "event 1 \"instructions:q\": bad modifier (use a set of u, k "
                    "and h, e.g. :u, :uk, :ukh; software events take none)");
    /* 4 GP + the 3 fixed taken by their events: the 5th GP event fails */
    CHECK_EQ(pmu_event_list_parse("cycles,instructions,ref-cycles,branches,branches,"
                                  "branch-misses,cache-misses,cache-references",
                                  &caps, &list, &err), PMU_EVERR_TOO_MANY);
    CHECK_EQ(err.index, 7);
    CHECK_STR(err.token, "cache-references");
    /* a second cycles goes to a GP counter; software events take none */
    CHECK_EQ(pmu_event_list_parse("cycles,cycles,cycles,cycles,cycles,exits,nmis",
                                  &caps, &list, &err), PMU_EVERR_NONE);
    CHECK_EQ(pmu_event_list_parse("cycles,cycles,cycles,cycles,cycles,cycles",
                                  &caps, &list, &err), PMU_EVERR_TOO_MANY);
    char many[(PMU_EVENT_LIST_MAX + 1) * 11 + 1] = "";
    for (unsigned int i = 0; i <= PMU_EVENT_LIST_MAX; i++)
        strcat(many, i ? ",hypercalls" : "hypercalls");
    CHECK_EQ(pmu_event_list_parse(many, &caps, &list, &err), PMU_EVERR_TOO_MANY);
    CHECK_EQ(err.index, PMU_EVENT_LIST_MAX);
}

TEST(events_software_backend)
{
    struct pmu_event_caps real, bochs;
    struct pmu_event ev;
    struct pmu_event_list list;
    pmu_event_caps_soft(&real, false);
    pmu_event_caps_soft(&bochs, true);
    CHECK_EQ(parse1("cycles:u", &real, &ev), PMU_EVERR_NONE);
    CHECK_EQ(parse1("ref-cycles", &real, &ev), PMU_EVERR_NONE);
    CHECK_EQ(parse1("instructions", &real, &ev), PMU_EVERR_SOFT_CYCLES_ONLY);
    CHECK_EQ(parse1("branches", &real, &ev), PMU_EVERR_SOFT_CYCLES_ONLY);
    CHECK_EQ(parse1("r01c2", &real, &ev), PMU_EVERR_SOFT_CYCLES_ONLY);
    CHECK_EQ(parse1("instructions:k", &bochs, &ev), PMU_EVERR_NONE);
    CHECK_EQ(parse1("branches", &bochs, &ev), PMU_EVERR_UNAVAILABLE);
    CHECK_EQ(pmu_event_list_parse("instructions:u,instructions:k,cycles", &bochs, &list, NULL),
             PMU_EVERR_NONE);
    for (unsigned int i = 0; i < list.count; i++) {
        CHECK_EQ(list.events[i].slot, PMU_SLOT_SOFT);
        CHECK_EQ(list.events[i].slot_index, i);
    }
    CHECK_EQ(pmu_event_list_parse("cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,"
                                  "cycles", &bochs, &list, NULL), PMU_EVERR_TOO_MANY);
}

/* A fake backend: read returns 1000 + i, to see which path a read takes. */
static uint64_t fake_read(void *self, const struct pmu_ctx *ctx, unsigned int i)
{
    (void)self;
    (void)ctx;
    return 1000 + i;
}

TEST(events_software_events_read_in_the_same_list)
{
    struct pmu_event_caps caps = hw_caps();
    struct pmu_event_list list;
    struct pmu_ctx ctx;
    struct swevent_counts sw = { 0 };
    const struct pmu_backend_ops ops = { .name = "fake", .read = fake_read };
    struct pmu_backend be = { &ops, NULL };
    CHECK_EQ(pmu_event_list_parse("cycles,exits:cpuid,nmis:reflected", &caps, &list, NULL),
             PMU_EVERR_NONE);
    pmu_ctx_init(&ctx, &list, NULL);
    swevent_count_exit(&sw, 10);
    swevent_count_exit(&sw, 10);
    swevent_add(&sw, SWEVENT_NMIS_REFLECTED, 3);
    CHECK_EQ(pmu_read_event(&be, &ctx, &sw, 0), 1000);
    CHECK_EQ(pmu_read_event(&be, &ctx, &sw, 1), 2);
    CHECK_EQ(pmu_read_event(&be, &ctx, &sw, 2), 3);
    CHECK_EQ(pmu_read_event(&be, &ctx, &sw, 3), 0);
    CHECK_STR(pmu_status_text(PMU_ERR_MSR), "a PMU MSR access faulted");
}
