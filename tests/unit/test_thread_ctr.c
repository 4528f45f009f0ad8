/* Per-thread paravirtual counters (guestlib/vertigo_thread_ctr.h): threads
 * switching on simulated VCPUs get exactly their own counts, their sum is
 * the VCPU's count, migration keeps them exact, and the page reader gives
 * the value the module would compute, retrying across a switch. */
#include "guestlib/vertigo_thread_ctr.h"
#include "tests/unit/unit.h"

/* A VCPU counting two events: counts[] only grow. */
struct sim_vcpu {
    uint64_t counts[2];
};

static void vcpu_runs(struct sim_vcpu *v, uint64_t a, uint64_t b)
{
    v->counts[0] += a;
    v->counts[1] += b;
}

static struct vertigo_thread_set started_set(void)
{
    struct vertigo_thread_set s = { .count = 2, .started = true };
    return s;
}

TEST(thread_switches_split_the_vcpu_counts_exactly)
{
    struct sim_vcpu v = { { 1000, 5 } };        /* counted before anyone started */
    struct vertigo_thread_set a = started_set(), b = started_set();
    uint64_t tsc = 0;
    vertigo_thread_resume(&a, v.counts, tsc);
    for (unsigned int round = 0; round < 10; round++) {
        vcpu_runs(&v, 300, 3);                  /* A's turn */
        tsc += 300;
        vertigo_thread_fold(&a, v.counts, tsc);
        vertigo_thread_resume(&b, v.counts, tsc);
        vcpu_runs(&v, 700, 7);                  /* B's turn */
        tsc += 700;
        vertigo_thread_fold(&b, v.counts, tsc);
        vertigo_thread_resume(&a, v.counts, tsc);
    }
    vcpu_runs(&v, 11, 1);
    CHECK_EQ(vertigo_thread_value(&a, 0, v.counts[0]), 3011);
    CHECK_EQ(vertigo_thread_value(&a, 1, v.counts[1]), 31);
    CHECK_EQ(vertigo_thread_value(&b, 0, v.counts[0]), 7000);
    CHECK_EQ(vertigo_thread_value(&b, 1, v.counts[1]), 70);
    CHECK_EQ(vertigo_thread_value(&a, 0, v.counts[0]) + vertigo_thread_value(&b, 0, v.counts[0]),
             v.counts[0] - 1000);
    CHECK_EQ(b.enabled_ticks, 7000);
}

/* A thread that moves to another VCPU folds on the old one and starts on
 * the new one; a thread that never started is left alone. */
TEST(thread_migration_and_unstarted_threads)
{
    struct sim_vcpu v0 = { { 50, 0 } }, v1 = { { 90000, 0 } };
    struct vertigo_thread_set a = started_set(), idle = { .count = 2 };
    vertigo_thread_resume(&a, v0.counts, 0);
    vertigo_thread_resume(&idle, v0.counts, 0);
    CHECK(!idle.running);
    vcpu_runs(&v0, 10, 0);
    vertigo_thread_fold(&a, v0.counts, 10);
    vertigo_thread_fold(&a, v0.counts, 10);     /* a second fold adds nothing */
    vertigo_thread_resume(&a, v1.counts, 20);
    vcpu_runs(&v1, 25, 0);
    CHECK_EQ(vertigo_thread_value(&a, 0, v1.counts[0]), 35);
    CHECK_EQ(vertigo_thread_value(&idle, 0, v1.counts[0]), 0);
}

struct fake_reader {
    struct sim_vcpu *v;
    volatile struct vertigo_thread_page *page;
    struct vertigo_thread_set *set;
    unsigned int calls;
    bool switch_on_first;       /* the thread is switched out and in meanwhile */
};

static int64_t read_vcpu(void *ctx, uint32_t k)
{
    struct fake_reader *r = ctx;
    if (r->calls++ == 0 && r->switch_on_first) {
        vertigo_thread_fold(r->set, r->v->counts, 0);
        vcpu_runs(r->v, 400, 0);                /* another thread ran */
        vertigo_thread_resume(r->set, r->v->counts, 0);
        vertigo_thread_page_write(r->page, r->set, 0, 1);
    }
    return k < 2 ? (int64_t)r->v->counts[k] : -VERTIGO_EINVAL;
}

TEST(thread_page_reader_matches_the_module)
{
    static struct vertigo_thread_page page;
    struct sim_vcpu v = { { 100, 0 } };
    struct vertigo_thread_set a = started_set();
    struct fake_reader r = { &v, &page, &a, 0, false };
    uint64_t value = 0;
    uint32_t retries = 0;
    vertigo_thread_page_write(&page, &a, 0, 1);             /* not running yet */
    CHECK_EQ(vertigo_thread_page_read(&page, read_vcpu, &r, &value, &retries), 0);
    CHECK_EQ(value, 0);
    CHECK_EQ(r.calls, 0);                                   /* no exit when not running */
    vertigo_thread_resume(&a, v.counts, 0);
    vertigo_thread_page_write(&page, &a, 0, 1);
    CHECK_EQ(page.lock % 2, 0);
    CHECK_EQ(page.pv_index, 1);
    CHECK_EQ(page.magic, VERTIGO_THREAD_MAGIC);
    CHECK_EQ(page.pmc_width, 64);
    vcpu_runs(&v, 42, 0);
    CHECK_EQ(vertigo_thread_page_read(&page, read_vcpu, &r, &value, &retries), 0);
    CHECK_EQ(value, 42);
    CHECK_EQ(retries, 0);
    r.switch_on_first = true;                               /* a switch mid-read */
    r.calls = 0;
    vcpu_runs(&v, 8, 0);
    CHECK_EQ(vertigo_thread_page_read(&page, read_vcpu, &r, &value, &retries), 0);
    CHECK_EQ(value, 50);                                    /* the other thread's 400 not in */
    CHECK_EQ(retries, 1);
    CHECK_EQ(r.calls, 2);
}

TEST(thread_page_reader_passes_errors_and_waits_out_odd_locks)
{
    static struct vertigo_thread_page page;
    struct sim_vcpu v = { { 0, 0 } };
    struct vertigo_thread_set a = started_set();
    struct fake_reader r = { &v, &page, &a, 0, false };
    uint64_t value = 7;
    vertigo_thread_resume(&a, v.counts, 0);
    vertigo_thread_page_write(&page, &a, 0, 1);
    page.pv_index = 3;                                      /* a counter the VCPU lacks */
    CHECK_EQ(vertigo_thread_page_read(&page, read_vcpu, &r, &value, NULL),
             (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(value, 7);
}
