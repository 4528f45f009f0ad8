/* The log's run-wide event ids (pmu/run/pmu_log_ids.c): one id per
 * distinct event whatever its position in a VCPU's list, ids that skip
 * the timer's, and each domain's share of new ids, refused whole and
 * alone. */
#include <stdio.h>

#include "pmu/run/pmu_log_ids.h"
#include "tests/unit/unit.h"

/* A list of n raw hardware events rSSSS, SSSS = first, first + 1, ... */
static void raw_list(struct pmu_event_list *l, unsigned int first, unsigned int n)
{
    memset(l, 0, sizeof(*l));
    l->count = n;
    for (unsigned int i = 0; i < n; i++) {
        struct pmu_event *ev = &l->events[i];
        unsigned int code = first + i;
        ev->source = PMU_EVENT_HW;
        ev->event_select = (uint8_t)code;
        ev->umask = (uint8_t)(code >> 8);
        snprintf(ev->name, sizeof(ev->name), "r%04x", code);
    }
}

TEST(one_id_per_event_whatever_its_position)
{
    struct pmu_event_list a, b;
    uint32_t ia[PMU_EVENT_LIST_MAX], ib[PMU_EVENT_LIST_MAX];
    pmu_log_ids_reset();
    raw_list(&a, 0x100, 3);                 /* r0100 r0101 r0102 */
    raw_list(&b, 0x101, 3);                 /* r0101 r0102 r0103 */
    CHECK(pmu_log_ids_assign(0, &a, ia));
    CHECK(pmu_log_ids_assign(1, &b, ib));
    CHECK_EQ(ia[0], 0);
    CHECK_EQ(ia[1], 1);
    CHECK_EQ(ia[2], 2);
    CHECK_EQ(ib[0], ia[1]);                 /* the same events, other positions */
    CHECK_EQ(ib[1], ia[2]);
    CHECK_EQ(ib[2], 3);                     /* a new one */
    /* the same name with another code is another event */
    b.events[0].umask ^= 0x80;
    CHECK(pmu_log_ids_assign(1, &b, ib));
    CHECK_EQ(ib[0], 4);
    /* an event twice in one list has one id */
    raw_list(&a, 0x100, 2);
    a.events[1] = a.events[0];
    CHECK(pmu_log_ids_assign(0, &a, ia));
    CHECK_EQ(ia[0], 0);
    CHECK_EQ(ia[1], 0);
}

TEST(ids_skip_the_timers)
{
    struct pmu_event_list l;
    uint32_t ids[PMU_EVENT_LIST_MAX];
    pmu_log_ids_reset();
    for (unsigned int d = 0; d < 2; d++)      /* 256 events, two domains' shares */
        for (unsigned int k = 0; k < 4; k++) {
            raw_list(&l, 0x1000 + 128 * d + 32 * k, 32);
            CHECK(pmu_log_ids_assign(d, &l, ids));
            CHECK_EQ(ids[0], 128 * d + 32 * k);
        }
    CHECK_EQ(ids[30], 254);
    CHECK_EQ(ids[31], 256);                 /* the 256th event: 255 is the timer's */
    raw_list(&l, 0x2000, 1);
    CHECK(pmu_log_ids_assign(2, &l, ids));
    CHECK_EQ(ids[0], 257);
}

/* A domain's share is PMU_LOG_IDS_PER_DOMAIN new ids: a list that needs
 * more is refused and allocates nothing; events already named stay its
 * to use; other domains go on getting new ids. */
TEST(a_domains_share_is_refused_whole_and_alone)
{
    struct pmu_event_list l;
    uint32_t ids[PMU_EVENT_LIST_MAX];
    pmu_log_ids_reset();
    for (unsigned int k = 0; k < PMU_LOG_IDS_PER_DOMAIN / 32 - 1; k++) {
        raw_list(&l, 0x100 + 32 * k, 32);
        CHECK(pmu_log_ids_assign(1, &l, ids));
    }
    raw_list(&l, 0x100 + 32 * 3, 31);       /* 127 of 128 */
    CHECK(pmu_log_ids_assign(1, &l, ids));
    raw_list(&l, 0x100 + 32 * 3 + 30, 3);   /* one known, two new: one too many */
    CHECK(!pmu_log_ids_assign(1, &l, ids));
    raw_list(&l, 0x900, 1);                 /* another domain's next id is the next one */
    CHECK(pmu_log_ids_assign(0, &l, ids));
    CHECK_EQ(ids[0], PMU_LOG_IDS_PER_DOMAIN - 1);
    raw_list(&l, 0x900, 2);                 /* r0900 known (domain 0's), r0901 its last */
    CHECK(pmu_log_ids_assign(1, &l, ids));
    CHECK_EQ(ids[0], PMU_LOG_IDS_PER_DOMAIN - 1);
    CHECK_EQ(ids[1], PMU_LOG_IDS_PER_DOMAIN);
    raw_list(&l, 0x100, 32);                /* known events: still its to use */
    CHECK(pmu_log_ids_assign(1, &l, ids));
    CHECK_EQ(ids[31], 31);
    raw_list(&l, 0xa00, 1);                 /* nothing new past its share */
    CHECK(!pmu_log_ids_assign(1, &l, ids));
    CHECK(pmu_log_ids_assign(2, &l, ids));
    CHECK_EQ(ids[0], PMU_LOG_IDS_PER_DOMAIN + 1);
}
