/* The stream header's PMU description (pmu/backend/pmu_log_desc.c): every session
 * backend against every probe verdict, and the CPUID counters copied
 * whatever the backend. */
#include "pmu/backend/pmu_log_desc.h"
#include "tests/unit/unit.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct pmu_desc bochs_like = {
    .version = 4, .gp_counters = 4, .gp_width = 48,
    .fixed_counters = 3, .fixed_width = 48, .fixed_mask = 0x7, .events_available = 0x7f,
};

TEST(backend_follows_the_session_else_the_verdict)
{
    static const struct {
        enum pmu_verdict verdict;
        enum pmu_session_backend backend;
        uint8_t want;
    } cases[] = {
        { PMU_ABSENT,   PMU_SESSION_NONE, LOG_PMU_NONE },
        { PMU_BROKEN,   PMU_SESSION_NONE, LOG_PMU_BROKEN },
        { PMU_HARDWARE, PMU_SESSION_NONE, LOG_PMU_NONE },
        { PMU_ABSENT,   PMU_SESSION_HW,   LOG_PMU_HW },
        { PMU_BROKEN,   PMU_SESSION_HW,   LOG_PMU_HW },
        { PMU_HARDWARE, PMU_SESSION_HW,   LOG_PMU_HW },
        { PMU_ABSENT,   PMU_SESSION_SOFT, LOG_PMU_SOFT },
        { PMU_BROKEN,   PMU_SESSION_SOFT, LOG_PMU_SOFT },
        { PMU_HARDWARE, PMU_SESSION_SOFT, LOG_PMU_SOFT },
    };
    for (unsigned int i = 0; i < ARRAY_LEN(cases); i++) {
        struct log_pmu_desc got = pmu_log_desc(cases[i].verdict, &bochs_like, cases[i].backend);
        if (!CHECK_EQ(got.backend, cases[i].want))
            printf("    case %u: verdict %d, backend %d\n", i, cases[i].verdict,
                   cases[i].backend);
    }
}

TEST(counters_come_from_cpuid_and_reserved_stays_zero)
{
    struct log_pmu_desc got = pmu_log_desc(PMU_BROKEN, &bochs_like, PMU_SESSION_SOFT);
    CHECK_EQ(got.version, 4);
    CHECK_EQ(got.gp_count, 4);
    CHECK_EQ(got.gp_width, 48);
    CHECK_EQ(got.fixed_count, 3);
    CHECK_EQ(got.fixed_width, 48);
    CHECK_EQ(got.reserved[0], 0);
    CHECK_EQ(got.reserved[1], 0);
}

TEST(no_probe_gives_an_all_zero_description)
{
    static const struct pmu_desc none;
    struct log_pmu_desc got = pmu_log_desc(PMU_ABSENT, &none, PMU_SESSION_NONE);
    static const struct log_pmu_desc zero;
    CHECK(memcmp(&got, &zero, sizeof(got)) == 0);
}
