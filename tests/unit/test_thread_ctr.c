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

static int64_t read_vcpu(void *ctx, uint32_t vcpu, uint32_t k)
{
    struct fake_reader *r = ctx;
    if (vcpu != 1)
        return -VERTIGO_EFAULT;                 /* the page's VCPU, as written */
    if (r->calls++ == 0 && r->switch_on_first) {
        vertigo_thread_fold(r->set, r->v->counts, 0);
        vcpu_runs(r->v, 400, 0);                /* another thread ran */
        vertigo_thread_resume(r->set, r->v->counts, 0);
        vertigo_thread_page_write(r->page, r->set, 0, 1, 2, 0);
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
    vertigo_thread_page_write(&page, &a, 0, 1, 2, 0);          /* not running yet */
    CHECK_EQ(vertigo_thread_page_read(&page, read_vcpu, &r, &value, &retries), 0);
    CHECK_EQ(value, 0);
    CHECK_EQ(r.calls, 0);                                   /* no exit when not running */
    CHECK_EQ(page.index, 0);
    CHECK_EQ(page.capabilities, 0);
    vertigo_thread_resume(&a, v.counts, 0);
    vertigo_thread_page_write(&page, &a, 0, 1, 2, 0);
    CHECK_EQ(page.lock % 2, 0);
    CHECK_EQ(page.pv_index, 1);
    CHECK_EQ(page.index, VERTIGO_PV_RDPMC + 1);             /* perf's: RDPMC ECX + 1 */
    CHECK_EQ(page.capabilities, VERTIGO_THREAD_CAPS);
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
    vertigo_thread_page_write(&page, &a, 0, 1, 2, 0);
    page.pv_index = 3;                                      /* a counter the VCPU lacks */
    CHECK_EQ(vertigo_thread_page_read(&page, read_vcpu, &r, &value, NULL),
             (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(value, 7);
}

/* ---- The VCPU's count without an exit ------------------------------------ */

static uint64_t fake_tsc_value;
static unsigned int fake_tsc_reads;
static struct vertigo_pv_page *rewrite_on_tsc;  /* Vertigo rewrites it at the first read */
static struct vertigo_thread_page *switch_on_tsc;   /* the module rewrites it then */

static uint64_t fake_tsc(void)
{
    if (fake_tsc_reads++ == 0 && rewrite_on_tsc) {
        rewrite_on_tsc->seq += 2;                /* an exit and an entry meanwhile */
        rewrite_on_tsc->counters[0].sum += 500;
        rewrite_on_tsc->entry_tsc = fake_tsc_value - 10;
    }
    if (fake_tsc_reads == 1 && switch_on_tsc) {
        switch_on_tsc->lock += 2;                /* switched out and in meanwhile */
        switch_on_tsc->offset -= 4000;
    }
    return fake_tsc_value;
}

static struct vertigo_pv_page pv_page_of(uint32_t flags0, uint32_t flags1)
{
    struct vertigo_pv_page p = { .magic = VERTIGO_PV_MAGIC, .seq = 4, .count = 2,
                                 .entry_tsc = 1000 };
    p.counters[0] = (struct vertigo_pv_counter){ .sum = 70, .flags = flags0 };
    p.counters[1] = (struct vertigo_pv_counter){ .sum = 90, .flags = flags1 };
    return p;
}

TEST(vcpu_count_without_exit_where_the_page_allows)
{
    const uint32_t all = VERTIGO_PV_ALL_MODES | VERTIGO_PV_TICKS | VERTIGO_PV_USER |
                         VERTIGO_PV_KERNEL;
    struct vertigo_pv_page p = pv_page_of(all, VERTIGO_PV_TICKS | VERTIGO_PV_KERNEL);
    uint64_t n = 0;
    fake_tsc_value = 1250;
    fake_tsc_reads = 0;
    rewrite_on_tsc = NULL;
    CHECK(vertigo_pv_count_now(&p, 0, VERTIGO_PV_USER, fake_tsc, &n));
    CHECK_EQ(n, 70 + 250);                                  /* sum + ticks since entry */
    CHECK(vertigo_pv_count_now(&p, 1, VERTIGO_PV_USER, fake_tsc, &n));
    CHECK_EQ(n, 90);                                        /* :k stands still in user mode */
    CHECK_EQ(fake_tsc_reads, 1);
    CHECK(!vertigo_pv_count_now(&p, 1, VERTIGO_PV_KERNEL, fake_tsc, &n));  /* its own mode */
    CHECK(!vertigo_pv_count_now(&p, 2, VERTIGO_PV_USER, fake_tsc, &n));    /* past the program */
    CHECK(!vertigo_pv_count_now(&p, 9, VERTIGO_PV_USER, fake_tsc, &n));
    p.counters[0].flags = all & ~VERTIGO_PV_TICKS;          /* ticks are not its events */
    CHECK(!vertigo_pv_count_now(&p, 0, VERTIGO_PV_USER, fake_tsc, &n));
}

TEST(vcpu_count_retries_across_a_rewrite)
{
    struct vertigo_pv_page p = pv_page_of(VERTIGO_PV_ALL_MODES | VERTIGO_PV_TICKS |
                                          VERTIGO_PV_USER | VERTIGO_PV_KERNEL, 0);
    uint64_t n = 0;
    fake_tsc_value = 2000;
    fake_tsc_reads = 0;
    rewrite_on_tsc = &p;
    CHECK(vertigo_pv_count_now(&p, 0, VERTIGO_PV_USER, fake_tsc, &n));
    CHECK_EQ(fake_tsc_reads, 2);
    CHECK_EQ(n, 570 + 10);                                  /* the new entry's, not 70 + 1000 */
    rewrite_on_tsc = NULL;
}

/* Another VCPU's :u count from its page, no exit: exact only while that
 * VCPU was entered in kernel mode (its count stands still until its next
 * exit rewrites the page); never from a page being written or rewritten,
 * a VCPU in user mode or a counter of kernel mode. */
TEST(parked_vcpu_count_only_when_exact)
{
    struct vertigo_pv_page p = pv_page_of(VERTIGO_PV_USER, VERTIGO_PV_KERNEL);
    uint64_t n = 0;
    p.entry_cpl = 0;
    CHECK_EQ(vertigo_pv_try_parked(&p, 0, &n), 1);
    CHECK_EQ(n, 70);
    CHECK_EQ(vertigo_pv_try_parked(&p, 1, &n), -1);         /* counts kernel mode */
    CHECK_EQ(vertigo_pv_try_parked(&p, 9, &n), -1);         /* past the counters */
    p.counters[0].flags = VERTIGO_PV_USER | VERTIGO_PV_ALL_MODES | VERTIGO_PV_KERNEL;
    CHECK_EQ(vertigo_pv_try_parked(&p, 0, &n), -1);         /* moves in the kernel too */
    p.counters[0].flags = VERTIGO_PV_USER;
    p.seq = 5;                                              /* Vertigo writes it */
    n = 1;
    CHECK_EQ(vertigo_pv_try_parked(&p, 0, &n), 0);
    CHECK(!vertigo_pv_count_parked(&p, 0, 3, &n));
    CHECK_EQ(n, 1);
    p.seq = 6;
    p.entry_cpl = 3;                                        /* entered in user mode */
    CHECK_EQ(vertigo_pv_try_parked(&p, 0, &n), -1);
    CHECK(!vertigo_pv_count_parked(&p, 0, 3, &n));
    p.entry_cpl = 0;
    CHECK(vertigo_pv_count_parked(&p, 0, 3, &n));
    CHECK_EQ(n, 70);
}

/* What pv_threads smp checks of a migrating thread: with both VCPUs
 * idle in the kernel but for it, its count over a window is the sum of
 * the two VCPUs' count differences, read as parked counts at the
 * window's ends from one VCPU. */
TEST(migrating_thread_equals_the_vcpus_pieces)
{
    struct vertigo_pv_page p0 = pv_page_of(VERTIGO_PV_USER, 0), p1 = pv_page_of(VERTIGO_PV_USER, 0);
    struct vertigo_thread_set m = started_set();
    uint64_t c0[2] = { 1000, 0 }, c1[2] = { 40, 0 }, a0, a1, b0, b1;
    p0.counters[0].sum = c0[0];
    p1.counters[0].sum = c1[0];
    vertigo_thread_resume(&m, c0, 0);
    uint64_t start = vertigo_thread_value(&m, 0, c0[0]);
    CHECK(vertigo_pv_count_parked(&p1, 0, 1, &b0));
    for (unsigned int trip = 0; trip < 5; trip++) {
        c0[0] += 333;                                       /* on VCPU 0 */
        vertigo_thread_fold(&m, c0, 0);
        vertigo_thread_resume(&m, c1, 0);
        c1[0] += 777;                                       /* on VCPU 1 */
        vertigo_thread_fold(&m, c1, 0);
        vertigo_thread_resume(&m, c0, 0);
    }
    c0[0] += 5;
    p0.counters[0].sum = c0[0];                             /* VCPU 0 in the kernel now */
    p1.counters[0].sum = c1[0];
    CHECK(vertigo_pv_count_parked(&p1, 0, 1, &b1));
    CHECK(vertigo_pv_count_parked(&p0, 0, 1, &a1));
    a0 = 1000;
    CHECK_EQ(vertigo_thread_value(&m, 0, c0[0]) - start, (a1 - a0) + (b1 - b0));
    CHECK_EQ(b1 - b0, 5 * 777);
}

static unsigned int exit_reads;

static uint32_t rdpmc_ecx;       /* what the last RDPMC read */
static uint64_t fake_rdpmc(uint32_t ecx)
{
    rdpmc_ecx = ecx;
    return 777;
}

static int64_t fake_exit_read(uint32_t k)
{
    exit_reads++;
    return k == 1 ? 5000 : -VERTIGO_EINVAL;
}

/* The a-mode read: the thread's offset plus its VCPU's count as that
 * VCPU's page tells user mode (the page the thread page points at), or
 * as an exit gives it for an own-mode counter; one attempt: a rewrite in
 * the middle says try again, pages the thread did not map or a failed
 * exit say the general way. */
TEST(thread_read_user_fast_path)
{
    static struct vertigo_thread_page page;
    static uint8_t vcpus[2][VERTIGO_PV_PAGE_BYTES] __attribute__((aligned(4096)));
    struct vertigo_pv_page *v1 = (struct vertigo_pv_page *)vcpus[1];
    const uint64_t mapped = (uint64_t)(uintptr_t)vcpus;
    struct sim_vcpu v = { { 100, 60 } };
    struct vertigo_thread_set a = started_set();
    uint64_t value = 0;
    *v1 = pv_page_of(0, 0);
    v1->counters[0].user_how = VERTIGO_PV_READ_TICKS;      /* sum 70, entry_tsc 1000 */
    v1->counters[1].user_how = VERTIGO_PV_READ_FIXED;      /* sum 90 */
    vertigo_thread_page_write(&page, &a, 0, 1, 2, mapped);  /* stopped: the sum */
    CHECK_EQ(page.vcpu_page, 0);
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), 1);
    CHECK_EQ(value, 0);
    CHECK_EQ(page.vcpu_counter, 0);
    vertigo_thread_resume(&a, v.counts, 0);                 /* start = 100, 60 */
    vertigo_thread_page_write(&page, &a, 0, 1, 2, mapped);
    CHECK_EQ(page.vcpu_page, mapped + VERTIGO_PV_PAGE_BYTES);
    CHECK_EQ(page.vcpu_counter, (uint64_t)(uintptr_t)&v1->counters[0]);
    fake_tsc_value = 1300;
    fake_tsc_reads = 0;
    rewrite_on_tsc = NULL;
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), 1);
    CHECK_EQ(value, 70 + 300 - 100);                        /* VCPU 1's count - start */
    CHECK_EQ(fake_tsc_reads, 1);
    vertigo_thread_page_write(&page, &a, 1, 1, 2, mapped);  /* counter 1 stands still */
    CHECK_EQ(page.vcpu_counter, (uint64_t)(uintptr_t)&v1->counters[1]);
    CHECK_EQ(vertigo_thread_try_read(&page, 1, fake_tsc, fake_rdpmc, fake_exit_read, &value), 1);
    CHECK_EQ(value, 90 - 60);
    CHECK_EQ(fake_tsc_reads, 1);                            /* no TSC for it */
    v1->counters[1].user_how = VERTIGO_PV_READ_EXIT;        /* own mode: the exit */
    exit_reads = 0;
    CHECK_EQ(vertigo_thread_try_read(&page, 1, fake_tsc, fake_rdpmc, fake_exit_read, &value), 1);
    CHECK_EQ(value, 5000 - 60);
    CHECK_EQ(exit_reads, 1);
    v1->counters[1].user_how = VERTIGO_PV_READ_RDPMC | (1u << 30) | 2;   /* hardware: fixed 2 */
    CHECK_EQ(vertigo_thread_try_read(&page, 1, fake_tsc, fake_rdpmc, fake_exit_read, &value), 1);
    CHECK_EQ(value, 90 + 777 - 60);                         /* sum + RDPMC - start */
    CHECK_EQ(rdpmc_ecx, (1u << 30) | 2);
    CHECK_EQ(exit_reads, 1);                                /* still the one above */
    CHECK_EQ(vertigo_thread_try_read(&page, 1, fake_tsc, NULL, fake_exit_read, &value), -1);
    v1->counters[0].user_how = VERTIGO_PV_READ_EXIT;        /* an exit that fails */
    vertigo_thread_page_write(&page, &a, 0, 1, 2, mapped);
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), -1);
    CHECK_EQ(exit_reads, 2);
    v1->counters[0].user_how = VERTIGO_PV_READ_TICKS;
    vertigo_thread_page_write(&page, &a, 0, 1, 2, 0);       /* the CPUs' pages not mapped */
    CHECK_EQ(page.vcpu_page, 0);
    CHECK_EQ(page.vcpu_counter, 0);
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), -1);
    vertigo_thread_page_write(&page, &a, 0, 2, 2, mapped);  /* a CPU past the mapping */
    CHECK_EQ(page.vcpu_page, 0);
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), -1);
    rewrite_on_tsc = v1;                                    /* an exit in the middle */
    fake_tsc_reads = 0;
    vertigo_thread_page_write(&page, &a, 0, 1, 2, mapped);
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), 0);
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), 1);
    CHECK_EQ(value, 570 + 10 - 100);                        /* the new entry's sum + ticks */
    rewrite_on_tsc = NULL;
    switch_on_tsc = &page;                                  /* a thread switch in the middle */
    fake_tsc_reads = 0;
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), 0);
    CHECK_EQ(vertigo_thread_try_read(&page, 0, fake_tsc, fake_rdpmc, fake_exit_read, &value), 1);
    CHECK_EQ(value, 570 + 10 - 100 - 4000);                 /* the new offset's */
    switch_on_tsc = NULL;
}

/* The thread's own TSC: ticks up to its last switch, plus those since its
 * switch-in while it runs (perf's time_offset with time_mult 1); the
 * time it spends off its CPU does not count. */
TEST(thread_ticks_are_its_own)
{
    static struct vertigo_thread_page page;
    struct sim_vcpu v = { { 0, 0 } };
    struct vertigo_thread_set a = started_set();
    fake_tsc_reads = 0;
    rewrite_on_tsc = NULL;
    vertigo_thread_resume(&a, v.counts, 1000);
    vertigo_thread_page_write(&page, &a, 0, 0, 1, 0);
    CHECK_EQ(page.time_mult, 1);
    CHECK_EQ(page.time_shift, 0);
    fake_tsc_value = 1250;
    CHECK_EQ(vertigo_thread_ticks(&page, fake_tsc), 250);
    vertigo_thread_fold(&a, v.counts, 1300);                /* off its CPU at 1300 */
    vertigo_thread_page_write(&page, &a, 0, 0, 1, 0);
    fake_tsc_value = 9000;                                  /* others run meanwhile */
    CHECK_EQ(vertigo_thread_ticks(&page, fake_tsc), 300);
    CHECK_EQ(page.capabilities, 0);
    vertigo_thread_resume(&a, v.counts, 9000);
    vertigo_thread_page_write(&page, &a, 0, 0, 1, 0);
    fake_tsc_value = 9040;
    CHECK_EQ(vertigo_thread_ticks(&page, fake_tsc), 340);
}

/* ---- i-mode periods ---------------------------------------------------------- */

static uint64_t value_of(const struct vertigo_thread_set *s, const struct sim_vcpu *v,
                         uint32_t i)
{
    return vertigo_thread_value(s, i, v->counts[i]);
}

TEST(thread_period_bounds)
{
    CHECK(vertigo_thread_period_ok(0));
    CHECK(!vertigo_thread_period_ok(1));
    CHECK(!vertigo_thread_period_ok(VERTIGO_THREAD_PERIOD_MIN - 1));
    CHECK(vertigo_thread_period_ok(VERTIGO_THREAD_PERIOD_MIN));
    CHECK(vertigo_thread_period_ok(VERTIGO_THREAD_PERIOD_MAX));
    CHECK(!vertigo_thread_period_ok(VERTIGO_THREAD_PERIOD_MAX + 1));
    CHECK(!vertigo_thread_period_ok(UINT64_MAX));
}

/* Two threads share a VCPU; A has a period of 1000 on counter 0. The
 * VCPU's overflow_at while A runs is exactly where A's own count reaches
 * the next multiple; B's turns never move it, and B has none. */
TEST(thread_overflow_at_follows_the_owner_across_switches)
{
    struct sim_vcpu v = { { 777, 0 } };
    struct vertigo_thread_set a = started_set(), b = started_set();
    vertigo_thread_set_period(&a, 0, 1000, 0);
    CHECK_EQ(vertigo_thread_overflow_at(&a, 0), 0);     /* not running */
    vertigo_thread_resume(&a, v.counts, 0);
    unsigned int fired = 0;
    for (unsigned int round = 0; round < 25; round++) {
        /* A runs 333 events, one at a time, as the VCPU would exit at
         * overflow_at: the interrupt comes exactly at each multiple */
        for (unsigned int n = 0; n < 333; n++) {
            vcpu_runs(&v, 1, 0);
            if (v.counts[0] != vertigo_thread_overflow_at(&a, 0))
                continue;
            uint64_t now[2] = { value_of(&a, &v, 0), value_of(&a, &v, 1) };
            CHECK_EQ(now[0] % 1000, 0);
            CHECK_EQ(vertigo_thread_overflows(&a, now, NULL), 1);
            fired++;
        }
        vertigo_thread_fold(&a, v.counts, 0);
        CHECK_EQ(vertigo_thread_overflow_at(&a, 0), 0);
        vertigo_thread_resume(&b, v.counts, 0);
        CHECK_EQ(vertigo_thread_overflow_at(&b, 0), 0);
        vcpu_runs(&v, 5000, 0);                 /* B's turn: more than a period */
        vertigo_thread_fold(&b, v.counts, 0);
        uint64_t bnow[2] = { b.sum[0], b.sum[1] };
        CHECK_EQ(vertigo_thread_overflows(&b, bnow, NULL), 0);
        vertigo_thread_resume(&a, v.counts, 0);
    }
    CHECK_EQ(a.sum[0], 25 * 333);
    CHECK_EQ(fired, 25 * 333 / 1000);
    CHECK_EQ(a.next[0], (25 * 333 / 1000 + 1) * 1000);
}

/* An interrupt that comes late (the thread was switched out first): the
 * fold's check finds every period crossed, once; a reset restarts them. */
TEST(thread_overflow_found_late_is_not_lost)
{
    struct sim_vcpu v = { { 0, 0 } };
    struct vertigo_thread_set a = started_set();
    vertigo_thread_set_period(&a, 1, 1000, 250);        /* counter 1: from 250 */
    vertigo_thread_resume(&a, v.counts, 0);
    CHECK_EQ(vertigo_thread_overflow_at(&a, 1), 1250);
    vcpu_runs(&v, 0, 3400);
    vertigo_thread_fold(&a, v.counts, 0);
    uint64_t overflows = 0;
    CHECK_EQ(vertigo_thread_overflows(&a, a.sum, &overflows), 2);
    CHECK_EQ(overflows, 3);                     /* 1250, 2250, 3250 */
    CHECK_EQ(a.next[1], 4250);
    CHECK_EQ(vertigo_thread_overflows(&a, a.sum, &overflows), 0);  /* once */
    memset(a.sum, 0, sizeof(a.sum));
    vertigo_thread_restart_periods(&a);
    CHECK_EQ(a.next[1], 1000);
    CHECK_EQ(a.next[0], 0);
    vertigo_thread_set_period(&a, 1, 0, 0);
    CHECK_EQ(vertigo_thread_overflow_at(&a, 1), 0);
}
