/* Unit tests of the EPT sink windows (vmx/ept_sink.c) on a real EPT
 * (vmx/ept.c) built like domain 0's: an identity map with Vertigo's
 * ranges punched out. A window maps only a hidden page, and only to the
 * scratch page; a guest touching thousands of distinct addresses cannot
 * make the sink take more table pages than its budget; windows shared by
 * two VCPUs stay until the last one closes; every change tells every VCPU
 * to invalidate once; concurrent VCPUs keep the EPT consistent. */
#include "tests/unit/unit.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "vmx/ept_sink.h"

#define MiB 0x100000ull
#define GiB 0x40000000ull
#define POOL_PAGES 512
#define POOL_BASE  0x5000000000ull
#define SCRATCH    0x7000000000ull      /* the scratch page's host address */

static uint8_t *pool;
static unsigned int pool_used;
static struct ept ept;
static struct ept_sink sink;

/* Vertigo's image at 2 MiB (3 MiB long) and a 32 MiB heap at 1 GiB - 32 MiB. */
static const struct phys_range hidden[] = {
    { 0x200000, 0x500000 },
    { GiB - 32 * MiB, GiB },
};

static uint64_t pool_alloc(void *ctx)
{
    (void)ctx;
    if (pool_used >= POOL_PAGES)
        return 0;
    memset(pool + (size_t)pool_used * 4096, 0, 4096);
    return POOL_BASE + (uint64_t)pool_used++ * 4096;
}

static void *pool_virt(void *ctx, uint64_t pa)
{
    (void)ctx;
    if (pa < POOL_BASE || pa >= POOL_BASE + (uint64_t)pool_used * 4096)
        abort();
    return pool + (pa - POOL_BASE);
}

static void build(void)
{
    static const struct vmx_ept_caps caps = { .ept = true, .walk_4level = true,
        .memtype_wb = true, .memtype_uc = true, .page_2m = true, .page_1g = true };
    struct ept_page_source src = { pool_alloc, pool_virt, NULL };
    if (!pool)
        pool = malloc((size_t)POOL_PAGES * 4096);
    pool_used = 0;
    CHECK_EQ(ept_init(&ept, &src, &caps), EPT_OK);
    CHECK_EQ(ept_map(&ept, 0, 0, 4 * GiB, EPT_RWX, EPT_MT_WB), EPT_OK);
    for (unsigned int i = 0; i < 2; i++)
        CHECK_EQ(ept_unmap(&ept, hidden[i].base, hidden[i].end - hidden[i].base), EPT_OK);
    ept_sink_init(&sink, &ept, SCRATCH, hidden, 2);
}

static bool maps_scratch(uint64_t gpa)
{
    struct ept_translation t;
    return ept_translate(&ept, gpa, &t) && t.hpa == SCRATCH + (gpa & 0xfff) &&
           t.perms == (EPT_READ | EPT_WRITE) && t.type == EPT_MT_WB;
}

static bool unmapped(uint64_t gpa)
{
    struct ept_translation t;
    return !ept_translate(&ept, gpa, &t);
}

TEST(a_window_maps_a_hidden_page_to_the_scratch_page_and_back)
{
    build();
    uint64_t page = 0x201000;
    CHECK(unmapped(page));
    CHECK_EQ(ept_sink_open(&sink, 0, page + 0x123), EPT_SINK_OPENED);
    CHECK(maps_scratch(page + 0x10));
    CHECK(unmapped(page + 0x1000));                     /* one page only */
    CHECK_EQ(ept_sink_window(&sink, 0), page);
    CHECK_EQ(ept_sink_open(&sink, 0, 0x202000), EPT_SINK_REFUSED);    /* one per VCPU */
    CHECK(ept_sink_close(&sink, 0));
    CHECK(unmapped(page));
    CHECK_EQ(ept_sink_window(&sink, 0), 0);
}

TEST(only_vertigos_hidden_pages_can_be_diverted)
{
    build();
    unsigned int tables = ept.tables;
    static const uint64_t refused[] = {
        0x100000, 0x500000, GiB, 4 * GiB, 0x10000000000ull, 0xfee00000, 0,
    };
    for (unsigned int i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        CHECK_EQ(ept_sink_open(&sink, 0, refused[i]), EPT_SINK_REFUSED);
    CHECK_EQ(ept.tables, tables);
    CHECK_EQ(ept_sink_open(&sink, 1, 0x4ff000), EPT_SINK_OPENED);     /* last hidden page */
    CHECK(ept_sink_close(&sink, 1));
    CHECK_EQ(ept_sink_open(&sink, MAX_CPUS, 0x201000), EPT_SINK_REFUSED);
}

/* The old sink took up to three table pages for each distinct unmapped
 * address anywhere and never gave them back: ~8,000 addresses emptied the
 * heap. Now 8,000 windows across every hidden page stay within budget. */
TEST(thousands_of_distinct_pages_stay_within_the_table_budget)
{
    build();
    unsigned int tables = ept.tables, opened = 0, exhausted = 0;
    for (unsigned int i = 0; i < 8000; i++) {
        uint64_t page = i % 2 ? 0x200000 + (uint64_t)(i % 768) * 4096
                              : GiB - 32 * MiB + (uint64_t)(i * 7919 % 8192) * 4096;
        enum ept_sink_status st = ept_sink_open(&sink, i % 4, page);
        if (st == EPT_SINK_OPENED) {
            opened++;
            CHECK(maps_scratch(page));
            CHECK(ept_sink_close(&sink, i % 4));
            CHECK(unmapped(page));
        } else {
            CHECK_EQ(st, EPT_SINK_EXHAUSTED);
            exhausted++;
        }
    }
    CHECK(opened >= 7000);
    CHECK(ept.tables - tables <= EPT_SINK_TABLES_MAX);
    CHECK_EQ(sink.tables_added, ept.tables - tables);
    CHECK(pool_used < POOL_PAGES);
    (void)exhausted;
}

TEST(the_budget_refuses_windows_once_spent)
{
    build();
    sink.tables_added = EPT_SINK_TABLES_MAX - 1;        /* as if spent elsewhere */
    unsigned int tables = ept.tables;
    CHECK_EQ(ept_sink_open(&sink, 0, GiB - MiB), EPT_SINK_EXHAUSTED);
    CHECK_EQ(ept.tables, tables);
    CHECK(unmapped(GiB - MiB));
}

TEST(a_shared_window_stays_until_the_last_vcpu_closes)
{
    build();
    uint64_t page = GiB - 16 * MiB;
    CHECK_EQ(ept_sink_open(&sink, 0, page), EPT_SINK_OPENED);
    CHECK_EQ(ept_sink_open(&sink, 1, page + 8), EPT_SINK_SHARED);
    CHECK(ept_sink_close(&sink, 0));
    CHECK(maps_scratch(page));                          /* VCPU 1 still writes */
    CHECK(ept_sink_close(&sink, 1));
    CHECK(unmapped(page));
    CHECK(ept_sink_close(&sink, 1));                    /* nothing open: fine */
}

TEST(every_change_makes_every_vcpu_invalidate_once)
{
    build();
    for (unsigned int v = 0; v < 4; v++)
        CHECK(!ept_sink_stale(&sink, v));
    CHECK_EQ(ept_sink_open(&sink, 0, 0x300000), EPT_SINK_OPENED);
    for (unsigned int v = 0; v < 4; v++) {
        CHECK(ept_sink_stale(&sink, v));
        CHECK(!ept_sink_stale(&sink, v));
    }
    CHECK_EQ(ept_sink_open(&sink, 1, 0x300000), EPT_SINK_SHARED);   /* no EPT change */
    CHECK(!ept_sink_stale(&sink, 2));
    CHECK(ept_sink_close(&sink, 0));
    CHECK(!ept_sink_stale(&sink, 3));                   /* still mapped for VCPU 1 */
    CHECK(ept_sink_close(&sink, 1));
    CHECK(ept_sink_stale(&sink, 3));                    /* unmapped: flush */
    CHECK(ept_sink_stale(&sink, 0));
}

/* Four VCPUs open and close windows at once, on a few common pages: the
 * lock keeps each page mapped while some window holds it, and unmapped
 * once none does. */
struct worker { unsigned int vcpu; unsigned int bad; };

static void *work(void *arg)
{
    struct worker *w = arg;
    for (unsigned int i = 0; i < 20000; i++) {
        uint64_t page = GiB - 32 * MiB + (uint64_t)((i + w->vcpu) % 3) * 4096;
        enum ept_sink_status st = ept_sink_open(&sink, w->vcpu, page);
        if (st != EPT_SINK_OPENED && st != EPT_SINK_SHARED) {
            w->bad++;
            continue;
        }
        sched_yield();
        if (!maps_scratch(page))            /* no other VCPU may unmap it meanwhile */
            w->bad++;
        if (!ept_sink_close(&sink, w->vcpu))
            w->bad++;
    }
    return NULL;
}

TEST(concurrent_windows_keep_the_ept_consistent)
{
    build();
    struct worker w[4];
    pthread_t t[4];
    for (unsigned int i = 0; i < 4; i++) {
        w[i] = (struct worker){ i, 0 };
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    for (unsigned int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(w[i].bad, 0);
    }
    for (unsigned int p = 0; p < 3; p++)
        CHECK(unmapped(GiB - 32 * MiB + p * 4096ull));
}
