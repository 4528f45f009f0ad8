/* The guest counter library's checks that need no Vertigo
 * (guestlib/vertigo_counters.c, host-compiled): every bad event list gets
 * its own code before any system call, a good one gets as far as "not
 * running under Vertigo" here, bad handles are refused, and every code
 * has its own text. */
#include <signal.h>

#include "guestlib/vertigo_counters.h"
#include "tests/unit/unit.h"

TEST(counters_open_refuses_bad_lists_specifically)
{
    static const struct { const char *events; int want; } cases[] = {
        { "", VERTIGO_CTR_EEMPTY },
        { "no-such-event", VERTIGO_CTR_EUNKNOWN },
        { "instructions:u,bogus:k", VERTIGO_CTR_EUNKNOWN },
        { "instructions:z", VERTIGO_CTR_EMODIFIER },
        { "exits:all", VERTIGO_CTR_EUNSUPPORTED },
        { "instructions:h", VERTIGO_CTR_EUNSUPPORTED },
        { "cycles,instructions,ref-cycles,cycles:u,instructions:u", VERTIGO_CTR_ETOOMANY },
        { "instructions:u,cycles", VERTIGO_CTR_ENOVERTIGO },  /* the host is no guest */
    };
    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct vertigo_counters *set = (struct vertigo_counters *)&cases;
        int e = vertigo_counters_open(cases[i].events, &set);
        if (!CHECK_EQ((uint64_t)(int64_t)e, (uint64_t)(int64_t)cases[i].want))
            printf("    events \"%s\"\n", cases[i].events);
        CHECK(set == NULL);
    }
    char longest[VERTIGO_PV_EVENTS_MAX + 8];
    memset(longest, 'c', sizeof(longest) - 1);
    longest[sizeof(longest) - 1] = '\0';
    struct vertigo_counters *set;
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_open(longest, &set),
             (uint64_t)(int64_t)VERTIGO_CTR_ETOOMANY);
}

TEST(counters_calls_refuse_bad_handles)
{
    struct vertigo_counters *set = NULL;
    uint64_t v;
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_open(NULL, &set), (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_open("cycles", NULL), (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_start(NULL), (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_read(NULL, 0, &v), (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_tsc(NULL, &v), (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    /* memory that is not a set */
    uint64_t junk[64] = { 0 };
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_read((void *)junk, 0, &v),
             (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_close((void *)junk), (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    CHECK_EQ(vertigo_counters_count(NULL), 0);
    CHECK(vertigo_counters_name(NULL, 0) == NULL);
    vertigo_counters_free(NULL);
}

TEST(counters_every_code_has_its_text)
{
    for (int e = 0; e >= VERTIGO_CTR_EPARANOID; e--) {
        const char *t = vertigo_counters_strerror(e);
        CHECK(t && strcmp(t, "unknown error code") != 0);
        for (int f = e + 1; f <= 0; f++)
            CHECK(strcmp(t, vertigo_counters_strerror(f)) != 0);
    }
    CHECK_STR(vertigo_counters_strerror(VERTIGO_CTR_EPARANOID - 1), "unknown error code");
    CHECK_STR(vertigo_counters_strerror(5), "unknown error code");
}

TEST(counters_check_names_the_count_or_the_error)
{
    unsigned int n = 0;
    CHECK_EQ(vertigo_counters_check("instructions:u,cycles:k,ref-cycles", &n), 0);
    CHECK_EQ(n, 3);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_check("cycles,bogus", &n),
             (uint64_t)(int64_t)VERTIGO_CTR_EUNKNOWN);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_check(NULL, &n), (uint64_t)(int64_t)VERTIGO_CTR_EARG);
    CHECK_EQ(vertigo_counters_check("cycles", NULL), 0);
}

/* i-mode's arguments: the period's bounds (0 turns it off, any signal
 * then), the signal's, each with its code; a call on no set says so. */
TEST(counters_overflow_arguments)
{
    static const struct { uint64_t period; int signo, want; } cases[] = {
        { 100000, 34, 0 }, { 100000, SIGIO, 0 }, { 100000, 64, 0 },
        { VERTIGO_CTR_PERIOD_MIN, SIGUSR1, 0 }, { VERTIGO_CTR_PERIOD_MAX, SIGUSR1, 0 },
        { 0, 0, 0 }, { 0, SIGKILL, 0 },
        { 1, SIGUSR1, VERTIGO_CTR_EPERIOD },
        { VERTIGO_CTR_PERIOD_MIN - 1, SIGUSR1, VERTIGO_CTR_EPERIOD },
        { VERTIGO_CTR_PERIOD_MAX + 1, SIGUSR1, VERTIGO_CTR_EPERIOD },
        { UINT64_MAX, 0, VERTIGO_CTR_EPERIOD },
        { 100000, 0, VERTIGO_CTR_ESIGNAL }, { 100000, -1, VERTIGO_CTR_ESIGNAL },
        { 100000, 65, VERTIGO_CTR_ESIGNAL }, { 100000, SIGKILL, VERTIGO_CTR_ESIGNAL },
        { 100000, SIGSTOP, VERTIGO_CTR_ESIGNAL },
    };
    for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK_EQ((uint64_t)(int64_t)vertigo_counters_overflow_check(cases[i].period,
                                                                     cases[i].signo),
                 (uint64_t)(int64_t)cases[i].want);
    CHECK_EQ((uint64_t)(int64_t)vertigo_counters_overflow(NULL, 0, 100000, SIGUSR1),
             (uint64_t)(int64_t)VERTIGO_CTR_EARG);
}

/* The header's inline read on a set's head built here (the key of this
 * thread, a thread page, a VCPU page): a good call is answered inline
 * from the pages, FIXED as the sum, TICKS as the sum plus the TSC ticks
 * since the entry; every unusual call (another thread's key, a closed
 * set's 0, an index past the set, a NULL value) goes to the checked read,
 * which finds no set behind this head and says so. */
TEST(counters_inline_read_answers_good_calls_and_passes_on_the_rest)
{
    static uint8_t vcpu[VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    struct vertigo_pv_page *vp = (struct vertigo_pv_page *)vcpu;
    static struct vertigo_thread_page thread;
    static union { struct vertigo_counters_head head; uint8_t bytes[512]; } fake;
    const struct vertigo_counters *set = (const struct vertigo_counters *)&fake;
    uint64_t v = 0;
    vp->seq = 8;
    vp->counters[0] = (struct vertigo_pv_counter){ .sum = 900, .user_how = VERTIGO_PV_READ_FIXED };
    thread.lock = 6;
    thread.offset = -300;
    thread.vcpu_page = (uint64_t)(uintptr_t)vp;
    thread.vcpu_counter = (uint64_t)(uintptr_t)&vp->counters[0];
    fake.head = (struct vertigo_counters_head){ .key = vertigo_counters_key(), .count = 1,
                                                .pages = { &thread } };
    CHECK_EQ(vertigo_counters_read(set, 0, &v), 0);
    CHECK_EQ(v, 600);
    vp->counters[0].user_how = VERTIGO_PV_READ_TICKS;
    vp->entry_tsc = vertigo_counters_rdtsc();
    CHECK_EQ(vertigo_counters_read(set, 0, &v), 0);
    CHECK(v > 600 && v < 600 + 100000000ull);            /* the ticks since entry_tsc */
    static const char *const unusual[] = { "another thread's key", "a closed set", "index 1",
                                           "NULL value" };
    for (unsigned int k = 0; k < 4; k++) {
        fake.head.key = k == 0 ? vertigo_counters_key() ^ 8 : k == 1 ? 0 : vertigo_counters_key();
        uint64_t *out = k == 3 ? NULL : &v;
        if (!CHECK_EQ((uint64_t)(int64_t)vertigo_counters_read(set, k == 2 ? 1 : 0, out),
                      (uint64_t)(int64_t)VERTIGO_CTR_EARG))
            printf("    %s\n", unusual[k]);
    }
}
