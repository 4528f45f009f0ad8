/* A VCPU's paravirtual counters (pmu/pv/pmu_pv.c): programs from perf-style
 * event lists with specific refusals, counts by guest mode, reads, and the
 * page the guest sees (sums, flags, entry TSC and CPL, an even sequence
 * count that moves on every publication, nothing past the page header). */
#include "pmu/pv/pmu_pv.h"
#include "tests/unit/unit.h"

static struct pmu_event_caps bochs_caps(void)
{
    struct pmu_event_caps caps;
    pmu_event_caps_soft(&caps, true);
    return caps;
}

TEST(pv_program_counts_by_mode)
{
    struct pmu_pv pv = { 0 };
    struct pmu_event_caps caps = bochs_caps();
    CHECK_EQ(pmu_pv_program(&pv, "instructions:u,instructions:k,cycles", &caps, NULL), 3);
    pmu_pv_count(&pv, 3, 100);
    pmu_pv_count(&pv, 0, 7);
    pmu_pv_count(&pv, 1, 1);           /* CPL 1 is user mode, as for the backend */
    CHECK_EQ(pmu_pv_read(&pv, 0), 101);
    CHECK_EQ(pmu_pv_read(&pv, 1), 7);
    CHECK_EQ(pmu_pv_read(&pv, 2), 108);
    CHECK_EQ(pmu_pv_read(&pv, 3), (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(pmu_pv_read(&pv, UINT64_MAX), (uint64_t)-VERTIGO_EINVAL);
    CHECK(pmu_pv_needs_modes(&pv));
    CHECK_EQ(pv.generation, 1);
}

TEST(pv_reprogram_restarts_and_empty_stops)
{
    struct pmu_pv pv = { 0 };
    struct pmu_event_caps caps = bochs_caps();
    CHECK_EQ(pmu_pv_program(&pv, "cycles", &caps, NULL), 1);
    pmu_pv_count(&pv, 0, 50);
    CHECK(!pmu_pv_needs_modes(&pv));
    CHECK_EQ(pmu_pv_program(&pv, "cycles,instructions", &caps, NULL), 2);
    CHECK_EQ(pmu_pv_read(&pv, 0), 0);
    CHECK_EQ(pmu_pv_program(&pv, "", &caps, NULL), 0);
    CHECK_EQ(pmu_pv_read(&pv, 0), (uint64_t)-VERTIGO_EINVAL);
    pmu_pv_count(&pv, 3, 10);          /* no counter: nothing to count */
    CHECK(!pmu_pv_needs_modes(&pv));
    CHECK_EQ(pv.generation, 3);
}

/* Each refusal leaves the program as it was, with its own reason. */
TEST(pv_program_refusals)
{
    struct pmu_pv pv = { 0 };
    struct pmu_event_caps caps = bochs_caps();
    const char *why = NULL;
    CHECK_EQ(pmu_pv_program(&pv, "instructions:u", &caps, NULL), 1);
    pmu_pv_count(&pv, 3, 5);
    static const struct { const char *events, *why; } bad[] = {
        { "no-such-event", "unknown event name" },
        { "instructions:q", NULL },
        { "exits:all", "a software event (exits:...) is not a guest counter" },
        { "instructions:h", "a guest counter cannot count Vertigo (:h)" },
        { "instructions:uh", "a guest counter cannot count Vertigo (:h)" },
        { "cycles,cycles:u,cycles:k,instructions,instructions:u",
          "more events than paravirtual counters" },
        { ",", NULL },
    };
    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        CHECK_EQ(pmu_pv_program(&pv, bad[i].events, &caps, &why), (uint64_t)-VERTIGO_EINVAL);
        if (CHECK(why != NULL) && bad[i].why)
            CHECK_STR(why, bad[i].why);
    }
    CHECK_EQ(pmu_pv_read(&pv, 0), 5);
    CHECK_EQ(pv.generation, 1);
}

/* On real hardware the software backend counts cycles only. */
TEST(pv_program_follows_the_backend_caps)
{
    struct pmu_pv pv = { 0 };
    struct pmu_event_caps caps;
    const char *why = NULL;
    pmu_event_caps_soft(&caps, false);
    CHECK_EQ(pmu_pv_program(&pv, "instructions:u", &caps, &why), (uint64_t)-VERTIGO_EINVAL);
    CHECK(why != NULL);
    CHECK_EQ(pmu_pv_program(&pv, "cycles:u", &caps, NULL), 1);
}

TEST(pv_page_publication)
{
    static uint8_t page_bytes[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    struct vertigo_pv_page *page = (struct vertigo_pv_page *)page_bytes;
    struct pmu_pv pv = { .tsc_counts_events = true };
    struct pmu_event_caps caps = bochs_caps();
    memset(page_bytes, 0xa5, sizeof(page_bytes));
    pmu_pv_publish(&pv, 1, 3);                 /* no page yet: nothing written */
    CHECK_EQ(page_bytes[0], 0xa5);
    pmu_pv_set_page(&pv, page, 2);
    CHECK_EQ(page->magic, VERTIGO_PV_MAGIC);
    CHECK_EQ(page->abi_version, VERTIGO_PV_ABI);
    CHECK_EQ(page->count, 0);
    CHECK_EQ(page->vcpu, 2);
    CHECK_EQ(page_bytes[VERTIGO_PV_PAGE_BYTES - 1], 0);    /* the rest zeroed */
    uint32_t seq0 = page->seq;
    CHECK_EQ(seq0 % 2, 0);
    CHECK_EQ(pmu_pv_program(&pv, "instructions:u,cycles", &caps, NULL), 2);
    pmu_pv_count(&pv, 3, 40);
    pmu_pv_count(&pv, 0, 2);
    pmu_pv_publish(&pv, 12345, 3);
    CHECK_EQ(page->seq, seq0 + 2);
    CHECK_EQ(page->count, 2);
    CHECK_EQ(page->generation, 1);
    CHECK_EQ(page->entry_tsc, 12345);
    CHECK_EQ(page->entry_cpl, 3);
    CHECK_EQ(page->counters[0].sum, 40);
    CHECK_EQ(page->counters[0].flags, VERTIGO_PV_TICKS | VERTIGO_PV_USER);
    CHECK_EQ(page->counters[1].sum, 42);
    CHECK_EQ(page->counters[1].flags,
             VERTIGO_PV_TICKS | VERTIGO_PV_USER | VERTIGO_PV_KERNEL | VERTIGO_PV_ALL_MODES);
    CHECK_EQ(page->counters[0].user_how, VERTIGO_PV_READ_EXIT);    /* :u read in user mode */
    CHECK_EQ(page->counters[1].user_how, VERTIGO_PV_READ_TICKS);   /* every mode: the TSC */
    CHECK_EQ(page->counters[2].sum, 0);
    CHECK_EQ(page->counters[2].flags, 0);
    CHECK_EQ(page->counters[2].user_how, VERTIGO_PV_READ_EXIT);
    CHECK_EQ(page_bytes[sizeof(*page)], 0);     /* nothing past the header */
    pmu_pv_entering(&pv, 12400);                /* the entry instruction's TSC */
    CHECK_EQ(page->entry_tsc, 12400);
    CHECK_EQ(page->seq, seq0 + 4);
    pmu_pv_entering(&pv, 12500);                /* once per publication */
    CHECK_EQ(page->entry_tsc, 12400);
    CHECK_EQ(page->seq, seq0 + 4);
    pv.tsc_counts_events = false;               /* several VCPUs share the TSC */
    pmu_pv_publish(&pv, 13000, 3);
    CHECK_EQ(page->counters[0].flags, VERTIGO_PV_USER);
    CHECK_EQ(page->counters[1].flags, VERTIGO_PV_USER | VERTIGO_PV_KERNEL | VERTIGO_PV_ALL_MODES);
    CHECK_EQ(page->counters[1].user_how, VERTIGO_PV_READ_EXIT);    /* ticks are not its events */
    pmu_pv_set_page(&pv, NULL, 2);              /* unregistered: left alone */
    pmu_pv_count(&pv, 3, 1);
    pmu_pv_publish(&pv, 99, 0);
    pmu_pv_entering(&pv, 100);
    CHECK_EQ(page->counters[0].sum, 40);
    CHECK_EQ(page->entry_tsc, 13000);
    pmu_pv_set_page(&pv, page, 2);
    CHECK_EQ(pmu_pv_program(&pv, "instructions:k", &caps, NULL), 1);
    pmu_pv_publish(&pv, 13100, 3);
    CHECK_EQ(page->counters[0].user_how, VERTIGO_PV_READ_FIXED);   /* still in user mode */
}

/* RDPMC of VERTIGO_PV_RDPMC + i reads counter i as HC_PV_READ does;
 * other indices, and counters past the program, are not its. */
TEST(pv_rdpmc_index)
{
    struct pmu_pv pv = { 0 };
    struct pmu_event_caps caps = bochs_caps();
    uint64_t value = 7;
    CHECK_EQ(pmu_pv_program(&pv, "instructions:u,cycles", &caps, NULL), 2);
    pmu_pv_count(&pv, 3, 40);
    pmu_pv_count(&pv, 0, 2);
    CHECK(pmu_pv_rdpmc(&pv, VERTIGO_PV_RDPMC, &value));
    CHECK_EQ(value, 40);
    CHECK(pmu_pv_rdpmc(&pv, VERTIGO_PV_RDPMC + 1, &value));
    CHECK_EQ(value, 42);
    value = 7;
    CHECK(!pmu_pv_rdpmc(&pv, VERTIGO_PV_RDPMC + 2, &value));   /* past the program */
    CHECK(!pmu_pv_rdpmc(&pv, 0, &value));                      /* the virtual PMU's gp0 */
    CHECK(!pmu_pv_rdpmc(&pv, 0x40000000u, &value));            /* its fixed counter 0 */
    CHECK(!pmu_pv_rdpmc(&pv, VERTIGO_PV_RDPMC - 1, &value));
    CHECK_EQ(value, 7);
}

/* HC_PV_VECTOR: 0 (none) and NMI only, each other class with its reason,
 * and a refusal leaves the registered vector alone. */
TEST(pv_vector_validation)
{
    struct pmu_pv pv = { 0 };
    const char *why = NULL;
    CHECK_EQ(pmu_pv_set_vector(&pv, VERTIGO_PV_VECTOR_NMI, &why), 0);
    CHECK(why == NULL);
    CHECK_EQ(pv.vector, VERTIGO_PV_VECTOR_NMI);
    static const struct { uint64_t vector; const char *why; } bad[] = {
        { 1, "an exception vector" }, { 3, "an exception vector" },
        { 14, "an exception vector" }, { 31, "an exception vector" },
        { 32, "fixed vectors are not delivered: only NMI (2)" },
        { 0xf3, "fixed vectors are not delivered: only NMI (2)" },
        { 255, "fixed vectors are not delivered: only NMI (2)" },
        { 256, "not an interrupt vector (above 255)" },
        { UINT64_MAX, "not an interrupt vector (above 255)" },
        { 0x100000002ull, "not an interrupt vector (above 255)" },
    };
    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        CHECK_EQ(pmu_pv_set_vector(&pv, bad[i].vector, &why), (uint64_t)-VERTIGO_EINVAL);
        if (CHECK(why != NULL))
            CHECK_STR(why, bad[i].why);
        CHECK_EQ(pv.vector, VERTIGO_PV_VECTOR_NMI);
    }
    CHECK_EQ(pmu_pv_set_vector(&pv, 0, NULL), 0);
    CHECK_EQ(pv.vector, 0);
}

static struct vertigo_pv_page *armed_page(struct pmu_pv *pv, const char *events)
{
    static uint8_t page_bytes[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    struct vertigo_pv_page *page = (struct vertigo_pv_page *)page_bytes;
    struct pmu_event_caps caps = bochs_caps();
    memset(pv, 0, sizeof(*pv));
    pmu_pv_set_page(pv, page, 0);
    pmu_pv_program(pv, events, &caps, NULL);
    pmu_pv_set_vector(pv, VERTIGO_PV_VECTOR_NMI, NULL);
    return page;
}

/* The deadline is the exact distance to overflow_at in the mode that
 * counts, and the run that reaches it raises one interrupt, once for that
 * value; a new value arms it again. */
TEST(pv_overflow_deadline_and_one_interrupt_per_value)
{
    struct pmu_pv pv;
    struct vertigo_pv_page *page = armed_page(&pv, "instructions:u,instructions:k");
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 3), UINT64_MAX);     /* nothing written */
    page->overflow_at[0] = 100000;
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 3), 100000);
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 0), UINT64_MAX);     /* :u stands still */
    pmu_pv_count(&pv, 3, 99999);
    CHECK_EQ(pmu_pv_take_overflows(&pv), 0);
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 3), 1);
    pmu_pv_count(&pv, 3, 1);
    CHECK_EQ(pmu_pv_take_overflows(&pv), 1);
    CHECK_EQ(pv.interrupts, 1);
    pmu_pv_count(&pv, 3, 5);
    CHECK_EQ(pmu_pv_take_overflows(&pv), 0);                     /* once per value */
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 3), UINT64_MAX);
    page->overflow_at[0] = 200000;                                /* re-armed */
    page->overflow_at[1] = 10;
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 3), 200000 - 100005);
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 0), 10);
    pmu_pv_count(&pv, 0, 12);                                     /* past it in one run */
    CHECK_EQ(pmu_pv_take_overflows(&pv), 2);
    pmu_pv_publish(&pv, 0, 0);
    CHECK_EQ(page->interrupts, 2);
    CHECK_EQ(page->overflow_at[0], 200000);                       /* the guest's, untouched */
}

/* A value the count already passed raises at the next event of its mode;
 * with no vector nothing is armed; a program restarts the bookkeeping. */
TEST(pv_overflow_passed_unarmed_and_reprogrammed)
{
    struct pmu_pv pv;
    struct pmu_event_caps caps = bochs_caps();
    struct vertigo_pv_page *page = armed_page(&pv, "cycles");
    pmu_pv_count(&pv, 0, 50);
    page->overflow_at[0] = 20;
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 3), 1);
    CHECK_EQ(pmu_pv_take_overflows(&pv), 1);
    pmu_pv_program(&pv, "cycles", &caps, NULL);                   /* counts restart at 0 */
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 0), 20);
    pmu_pv_set_vector(&pv, 0, NULL);
    CHECK_EQ(pmu_pv_events_to_overflow(&pv, 0), UINT64_MAX);
    pmu_pv_count(&pv, 0, 30);
    CHECK_EQ(pmu_pv_take_overflows(&pv), 0);
    CHECK_EQ(pv.interrupts, 1);
}
