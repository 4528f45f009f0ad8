/* Unit tests of the PMU's hypercalls as the dispatcher (vmm/hypercall.c)
 * reaches them once pmu_hypercalls_register registered them: each call's
 * privilege, its argument copied with the caller's rights and validated
 * (pmu/run/pmu_hypercalls.c, pmu/sample/sample_hypercalls.c,
 * pmu/pv/pv_hypercalls.c, pmu/mux/mux_hypercalls.c) before what the call
 * does, which fakes here stand for (linked instead of the PMU's), and the
 * symbol chunks shipped into log records (pmu/sample/sampler_symbols.c). */
#include "tests/unit/unit.h"
#include "tests/unit/hostile_pages.h"

#include <stdlib.h>

#include "pmu/mux/pmu_mux_guest.h"
#include "pmu/pv/pv_guest.h"
#include "pmu/run/pmu_run.h"
#include "pmu/sample/sample_guest.h"
#include "pmu/sample/sampler.h"
#include "vertigo/hypercall.h"
#include "vmm/hypercall.h"
#include "vmm/pmu_hooks.h"
#include "vmm/vcpu.h"

static const char guest_text[] = "scenario hello";
#define GUEST_BASE 0x7000

static enum guest_access read_guest(void *ctx, uint64_t gva, void *buf, size_t len)
{
    (void)ctx;
    if (gva < GUEST_BASE || gva + len > GUEST_BASE + sizeof(guest_text))
        return GUEST_ACCESS_UNMAPPED;
    memcpy(buf, guest_text + (gva - GUEST_BASE), len);
    return GUEST_ACCESS_OK;
}

static struct domain dom;

/* Every test runs with the PMU's calls registered, as Vertigo starts. */
__attribute__((constructor)) static void register_pmu_calls(void)
{
    if (!pmu_hypercalls_register())
        abort();
}

/* Registered once: a second registration of any of its numbers fails and
 * changes nothing. */
TEST(pmu_calls_register_once)
{
    CHECK(!pmu_hypercalls_register());
    struct hypercall_args a = { .nr = VERTIGO_HC_PV_READ, .arg = { 1 }, .cpl = 3 };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 1001);
}

/* A fake session: three events with counts 10, 20, 30. */
struct fake_session {
    uint64_t counts[3];
    uint64_t step;
};

static struct fake_session session;

int64_t pmu_run_guest_read(struct vcpu *v, uint64_t index)
{
    struct fake_session *s = &session;
    (void)v;
    if (index == VERTIGO_PMU_EVENT_COUNT)
        return 3;
    return index < 3 ? (int64_t)s->counts[index] : -VERTIGO_EINVAL;
}

int64_t pmu_run_guest_step(struct vcpu *v, uint64_t ticks)
{
    struct fake_session *s = &session;
    (void)v;
    int64_t prev = (int64_t)s->step;
    s->step = ticks;
    return prev;
}

TEST(pmu_calls_reach_the_session_from_any_cpl)
{
    session = (struct fake_session){ { 10, 20, 30 }, 10000 };
    struct hypercall_args a = { .nr = VERTIGO_HC_PMU_READ, .arg = { 1 }, .cpl = 3 };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 20);
    a.arg[0] = VERTIGO_PMU_EVENT_COUNT;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 3);
    a.arg[0] = 3;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_EINVAL);
    struct hypercall_args step = { .nr = VERTIGO_HC_PMU_STEP, .arg = { 1 }, .cpl = 3 };
    CHECK_EQ(hypercall_dispatch(&dom, &step, read_guest, NULL), 10000);
    CHECK_EQ(session.step, 1);
}

/* Without the PMU's calls registered (a core alone) its numbers are no
 * calls at all; with a VCPU that counts nothing the PMU answers 0 events
 * and no step to set (tests/unit/test_vpmu_wiring.c). */
TEST(pmu_calls_without_registration_are_enosys)
{
    hypercall_unregister_all();
    struct hypercall_args a = { .nr = VERTIGO_HC_PMU_READ, .arg = { VERTIGO_PMU_EVENT_COUNT } };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_ENOSYS);
    a.arg[0] = 0;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_ENOSYS);
    struct hypercall_args step = { .nr = VERTIGO_HC_PMU_STEP, .arg = { 1 } };
    CHECK_EQ(hypercall_dispatch(&dom, &step, read_guest, NULL), (uint64_t)-VERTIGO_ENOSYS);
    struct hypercall_args v = { .nr = VERTIGO_HC_VERSION };
    CHECK(hypercall_dispatch(&dom, &v, read_guest, NULL) & VERTIGO_FEAT_PMU);
    CHECK(pmu_hypercalls_register());
}

/* ---- Sampling sessions and symbol chunks ---------------------------------- */

#define ARG_BASE 0x10000u
#define ARG_SIZE 8192u
static uint8_t arg_mem[ARG_SIZE];

/* Guest memory of the argument tests: ARG_SIZE readable bytes at
 * ARG_BASE and the hostile pages of tests/unit/hostile_pages.h; nothing
 * else is mapped. */

static enum guest_access read_args(void *ctx, uint64_t gva, void *buf, size_t len)
{
    (void)ctx;
    for (uint64_t a = gva; a < gva + len; a++) {
        if (hostile_page_access(a) != GUEST_ACCESS_OK)
            return hostile_page_access(a);
        if (a < ARG_BASE || a >= ARG_BASE + ARG_SIZE)
            return GUEST_ACCESS_UNMAPPED;
    }
    memcpy(buf, arg_mem + (gva - ARG_BASE), len);
    return GUEST_ACCESS_OK;
}

struct fake_sampling {
    int starts, stops, symbol_calls, orc_calls;
    struct vertigo_session last_session;
    struct vertigo_kernel_orc last_orc;
    struct vertigo_symbols_chunk last_chunk;
    uint8_t last_data[VERTIGO_SYMBOLS_CHUNK_MAX];
    bool running;
};

static struct fake_sampling fake;

int64_t sample_guest_start(struct vcpu *v, const struct vertigo_session *s)
{
    struct fake_sampling *f = &fake;
    (void)v;
    if (f->running)
        return -VERTIGO_EBUSY;
    f->starts++;
    f->last_session = *s;
    f->running = true;
    return 0;
}

int64_t sample_guest_stop(struct vcpu *v)
{
    struct fake_sampling *f = &fake;
    (void)v;
    if (!f->running)
        return -VERTIGO_EINVAL;
    f->stops++;
    f->running = false;
    return 42;
}

int64_t sample_guest_symbols(struct vcpu *v, const struct vertigo_symbols_chunk *c,
                             const uint8_t *data)
{
    struct fake_sampling *f = &fake;
    (void)v;
    f->symbol_calls++;
    f->last_chunk = *c;
    memcpy(f->last_data, data, c->len);
    return 0;
}

int64_t sample_guest_kernel_orc(struct vcpu *v, const struct vertigo_kernel_orc *a,
                                guest_copy_fn read, void *read_ctx)
{
    struct fake_sampling *f = &fake;
    (void)v;
    (void)read, (void)read_ctx;
    f->orc_calls++;
    f->last_orc = *a;
    return 0;
}

static int64_t call(uint64_t nr, uint64_t arg, unsigned int cpl)
{
    struct hypercall_args a = { .nr = nr, .arg = { arg }, .cpl = cpl };
    return hypercall_dispatch(&dom, &a, read_args, NULL);
}

static struct vertigo_session good_session(void)
{
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 100000,
                                 .stack_depth = 16 };
    memcpy(s.events, "cycles:u", sizeof("cycles:u"));
    return s;
}

static int64_t start_with(const struct vertigo_session *s, unsigned int cpl)
{
    memcpy(arg_mem, s, sizeof(*s));
    return call(VERTIGO_HC_SESSION_START, ARG_BASE, cpl);
}

TEST(session_start_and_stop)
{
    memset(&fake, 0, sizeof(fake));
    struct vertigo_session s = good_session();
    CHECK_EQ(start_with(&s, 0), 0);
    CHECK_EQ(fake.starts, 1);
    CHECK_STR(fake.last_session.events, "cycles:u");
    CHECK_EQ(fake.last_session.period, 100000);
    CHECK_EQ(start_with(&s, 0), (uint64_t)-VERTIGO_EBUSY);
    CHECK_EQ(call(VERTIGO_HC_SESSION_STOP, 0, 0), 42);
    CHECK_EQ(call(VERTIGO_HC_SESSION_STOP, 0, 0), (uint64_t)-VERTIGO_EINVAL);
    /* a timer session needs no events and no period */
    struct vertigo_session t = { .abi_version = VERTIGO_SESSION_ABI,
                                 .flags = VERTIGO_SESSION_TIMER, .timer_hz = 1000 };
    CHECK_EQ(start_with(&t, 0), 0);
    CHECK_EQ(fake.starts, 2);
    /* user stacks copied with the samples (perf's --call-graph dwarf) */
    CHECK_EQ(call(VERTIGO_HC_SESSION_STOP, 0, 0), 42);
    s.flags = VERTIGO_SESSION_USER_STACK;
    CHECK_EQ(start_with(&s, 0), 0);
    CHECK_EQ(fake.last_session.flags, VERTIGO_SESSION_USER_STACK);
    /* one process's session (vertigo-ctl record) carries its page tables */
    CHECK_EQ(call(VERTIGO_HC_SESSION_STOP, 0, 0), 42);
    s.flags = VERTIGO_SESSION_PROCESS;
    s.process_cr3 = 0x12345000;
    CHECK_EQ(start_with(&s, 0), 0);
    CHECK_EQ(fake.last_session.process_cr3, 0x12345000);
}

TEST(session_control_is_kernel_only)
{
    memset(&fake, 0, sizeof(fake));
    struct vertigo_session s = good_session();
    for (unsigned int cpl = 1; cpl <= 3; cpl++) {
        CHECK_EQ(start_with(&s, cpl), (uint64_t)-VERTIGO_EPERM);
        CHECK_EQ(call(VERTIGO_HC_SESSION_STOP, 0, cpl), (uint64_t)-VERTIGO_EPERM);
        CHECK_EQ(call(VERTIGO_HC_SYMBOLS, ARG_BASE, cpl), (uint64_t)-VERTIGO_EPERM);
    }
    CHECK_EQ(fake.starts + fake.stops + fake.symbol_calls, 0);
}

TEST(kernel_orc_declarations_are_kernel_only_and_validated)
{
    memset(&fake, 0, sizeof(fake));
    struct vertigo_kernel_orc k = {
        .abi_version = VERTIGO_KERNEL_ORC_ABI, .format = VERTIGO_ORC_LINUX_V1,
        .text_start = 0xffffffff81000000ull, .text_end = 0xffffffff82000000ull,
        .ip_table = 0xffffffff83000000ull, .orc_table = 0xffffffff84000000ull, .count = 1000,
    };
    memcpy(arg_mem, &k, sizeof(k));
    CHECK_EQ(call(VERTIGO_HC_KERNEL_ORC, ARG_BASE, 3), (uint64_t)-VERTIGO_EPERM);
    CHECK_EQ(fake.orc_calls, 0);
    CHECK_EQ(call(VERTIGO_HC_KERNEL_ORC, ARG_BASE, 0), 0);
    CHECK_EQ(fake.orc_calls, 1);
    CHECK_EQ(fake.last_orc.count, 1000);
    k.count = VERTIGO_KERNEL_ORC_MAX + 1;
    memcpy(arg_mem, &k, sizeof(k));
    CHECK_EQ(call(VERTIGO_HC_KERNEL_ORC, ARG_BASE, 0), (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(call(VERTIGO_HC_KERNEL_ORC, 0x10, 0), (uint64_t)-VERTIGO_EFAULT);
    CHECK_EQ(fake.orc_calls, 1);
}

TEST(session_fields_are_validated)
{
    memset(&fake, 0, sizeof(fake));
    struct vertigo_session s;
#define REFUSED(field_change) do { s = good_session(); field_change; \
        CHECK_EQ(start_with(&s, 0), (uint64_t)-VERTIGO_EINVAL); } while (0)
    REFUSED(s.abi_version = 1);                              /* before process_cr3 */
    REFUSED(s.abi_version = VERTIGO_SESSION_ABI + 1);
    REFUSED(s.flags = 1u << 4);
    REFUSED(s.flags = VERTIGO_SESSION_FREQ; s.period = 100001);  /* above 100000 a second */
    REFUSED(s.flags = VERTIGO_SESSION_FREQ | VERTIGO_SESSION_TIMER; s.timer_hz = 100);
    REFUSED(s.flags = VERTIGO_SESSION_PROCESS);             /* no page-table root */
    REFUSED(s.process_cr3 = 0x1000);                         /* a root without the flag */
    REFUSED(s.period = 0);
    REFUSED(s.period = 1);                                   /* a PMI per event */
    REFUSED(s.period = VERTIGO_SESSION_PERIOD_MIN - 1);
    REFUSED(s.period = (1ull << 48) + 1);
    REFUSED(s.stack_depth = VERTIGO_STACK_MAX + 1);
    REFUSED(s.events[0] = '\0');
    REFUSED(memset(s.events, 'x', sizeof(s.events)));     /* not NUL-terminated */
    REFUSED(s.flags = VERTIGO_SESSION_TIMER; s.timer_hz = 0);
    REFUSED(s.flags = VERTIGO_SESSION_TIMER; s.timer_hz = 100001);
#undef REFUSED
    CHECK_EQ(fake.starts, 0);
    s = good_session();
    s.period = 1ull << 48;
    s.stack_depth = VERTIGO_STACK_MAX;
    CHECK_EQ(start_with(&s, 0), 0);
    CHECK_EQ(call(VERTIGO_HC_SESSION_STOP, 0, 0), 42);
    s.period = VERTIGO_SESSION_PERIOD_MIN;      /* the shortest fixed period */
    CHECK_EQ(start_with(&s, 0), 0);
    CHECK_EQ(call(VERTIGO_HC_SESSION_STOP, 0, 0), 42);
    s.flags = VERTIGO_SESSION_FREQ;             /* frequency mode: 1..100000 a second */
    s.period = 100000;
    CHECK_EQ(start_with(&s, 0), 0);
    CHECK_EQ(fake.last_session.flags, VERTIGO_SESSION_FREQ);
    /* unreadable argument: -EFAULT, nothing started */
    fake.running = false;
    CHECK_EQ(call(VERTIGO_HC_SESSION_START, 0xdead0000, 0), (uint64_t)-VERTIGO_EFAULT);
    CHECK_EQ(call(VERTIGO_HC_SESSION_START, ARG_BASE + ARG_SIZE - 100, 0),
             (uint64_t)-VERTIGO_EFAULT);
    CHECK_EQ(fake.starts, 3);
}

static int64_t symbols_with(const struct vertigo_symbols_chunk *c)
{
    memcpy(arg_mem, c, sizeof(*c));
    return call(VERTIGO_HC_SYMBOLS, ARG_BASE, 0);
}

TEST(symbol_chunks_are_validated)
{
    memset(&fake, 0, sizeof(fake));
    static const char text[] = "ffffffff81000000 T _text\n";
    memcpy(arg_mem + 4096, text, sizeof(text) - 1);
    struct vertigo_symbols_chunk c = { .kind = 1, .data = ARG_BASE + 4096,
                                       .len = sizeof(text) - 1, .last = 1 };
    CHECK_EQ(symbols_with(&c), 0);
    CHECK_EQ(fake.symbol_calls, 1);
    CHECK_EQ(fake.last_chunk.len, sizeof(text) - 1);
    CHECK(memcmp(fake.last_data, text, sizeof(text) - 1) == 0);

    struct vertigo_symbols_chunk bad;
#define REFUSED(change, err) do { bad = c; change; \
        CHECK_EQ(symbols_with(&bad), (uint64_t)-(err)); } while (0)
    REFUSED(bad.kind = 0, VERTIGO_EINVAL);
    REFUSED(bad.kind = LOG_SYM_KIND_COUNT, VERTIGO_EINVAL);
    REFUSED(bad.len = VERTIGO_SYMBOLS_CHUNK_MAX + 1, VERTIGO_EINVAL);
    REFUSED(bad.reserved = 1, VERTIGO_EINVAL);
    REFUSED(bad.last = 2, VERTIGO_EINVAL);
    REFUSED(bad.data = 0xdead0000, VERTIGO_EFAULT);
    REFUSED(bad.data = ARG_BASE + ARG_SIZE - 4, VERTIGO_EFAULT);
#undef REFUSED
    CHECK_EQ(fake.symbol_calls, 1);
    CHECK_EQ(call(VERTIGO_HC_SYMBOLS, 0xdead0000, 0), (uint64_t)-VERTIGO_EFAULT);
    /* the largest chunk and kind 4 pass */
    c.kind = 4;
    c.len = VERTIGO_SYMBOLS_CHUNK_MAX;
    CHECK_EQ(symbols_with(&c), 0);
    CHECK_EQ(fake.symbol_calls, 2);
}

/* Each kind of bad pointer has its own error, for every call that takes
 * one, and the call changes nothing. */
TEST(bad_pointers_get_specific_errors)
{
    memset(&fake, 0, sizeof(fake));
    for (unsigned int i = 0; i < HOSTILE_POINTERS; i++) {
        uint64_t gva = hostile_pointers[i].gva, err = (uint64_t)hostile_pointers[i].err;
        CHECK_EQ(call(VERTIGO_HC_SESSION_START, gva, 0), err);
        CHECK_EQ(call(VERTIGO_HC_SYMBOLS, gva, 0), err);
        struct vertigo_symbols_chunk c = { .kind = 1, .data = gva, .len = 16 };
        memcpy(arg_mem, &c, sizeof(c));
        CHECK_EQ(call(VERTIGO_HC_SYMBOLS, ARG_BASE, 0), err);
    }
    CHECK_EQ(fake.starts + fake.symbol_calls, 0);
}

TEST(sampling_calls_without_registration)
{
    hypercall_unregister_all();
    struct hypercall_args a = { .nr = VERTIGO_HC_SESSION_START, .arg = { ARG_BASE } };
    struct vertigo_session s = good_session();
    memcpy(arg_mem, &s, sizeof(s));
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_args, NULL), (uint64_t)-VERTIGO_ENOSYS);
    a.nr = VERTIGO_HC_SESSION_STOP;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_args, NULL), (uint64_t)-VERTIGO_ENOSYS);
    CHECK(pmu_hypercalls_register());
}

/* ---- Symbol chunks to log records (pmu/sample/sampler_symbols.c) ------------------ */

struct shipped {
    unsigned int count;
    struct log_symbols recs[8];
    uint8_t text[8][LOG_TEXT_MAX];
};

static bool ship_emit(void *ctx, const struct log_symbols *rec)
{
    struct shipped *sh = ctx;
    if (sh->count == 8)
        return false;
    sh->recs[sh->count] = *rec;
    if (rec->len)
        memcpy(sh->text[sh->count], rec->data, rec->len);
    sh->recs[sh->count].data = sh->text[sh->count];
    sh->count++;
    return true;
}

TEST(symbol_chunks_become_numbered_records)
{
    static struct sampler_symbols st;
    static struct shipped sh;
    static uint8_t data[VERTIGO_SYMBOLS_CHUNK_MAX];
    uint32_t dropped = 0;
    for (unsigned int i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)('a' + i % 26);
    struct vertigo_symbols_chunk c = { .kind = 3, .pid = 42, .epoch = 7, .chunk = 0,
                                       .len = VERTIGO_SYMBOLS_CHUNK_MAX };
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped), 0);
    CHECK_EQ(sh.count, 3);              /* 2048 bytes: 1000 + 1000 + 48 */
    CHECK_EQ(sh.recs[2].len, 48);
    CHECK_EQ(sh.recs[0].chunk + sh.recs[1].chunk + sh.recs[2].chunk, 0 + 1 + 2);
    CHECK(!sh.recs[2].last);
    CHECK(memcmp(sh.text[1], data + LOG_TEXT_MAX, LOG_TEXT_MAX) == 0);
    /* out of sequence: refused, nothing written */
    c.chunk = 2;
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped),
             (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(sh.count, 3);
    /* the next chunk continues the numbering; an empty last chunk ends the set */
    c.chunk = 1;
    c.len = 10;
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped), 0);
    CHECK_EQ(sh.recs[3].chunk, 3);
    c.chunk = 2;
    c.len = 0;
    c.last = 1;
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped), 0);
    CHECK_EQ(sh.count, 5);
    CHECK_EQ(sh.recs[4].chunk, 4);
    CHECK(sh.recs[4].last);
    CHECK_EQ(sh.recs[4].pid, 42);
    CHECK_EQ(sh.recs[4].epoch, 7);
    /* the set is closed: a chunk 3 is out of sequence, a new chunk 0 restarts */
    c.chunk = 3;
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped),
             (uint64_t)-VERTIGO_EINVAL);
    c.chunk = 0;
    c.len = 5;
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped), 0);
    CHECK_EQ(sh.recs[5].chunk, 0);
    CHECK_EQ(dropped, 0);
}

/* One set more than Vertigo reassembles at once for a domain: the
 * domain's least recently used one is given up, with a record that says
 * so, and cannot be continued. */
TEST(an_evicted_symbol_set_is_logged_as_abandoned)
{
    static struct sampler_symbols st;
    static struct shipped sh;
    uint32_t dropped = 0;
    uint8_t data[4] = "abc";
    struct vertigo_symbols_chunk c = { .kind = LOG_SYM_PROC_MAPS, .len = 3 };
    for (uint32_t pid = 1; pid <= SAMPLER_SETS_PER_DOMAIN; pid++) {
        c.pid = pid;
        CHECK_EQ(sampler_symbols_ship(&st, 5, &c, data, ship_emit, &sh, &dropped), 0);
        sh.count = 0;
    }
    c.pid = 1;                      /* pid 1's set is used again: pid 2's is oldest */
    c.chunk = 1;
    CHECK_EQ(sampler_symbols_ship(&st, 5, &c, data, ship_emit, &sh, &dropped), 0);
    sh.count = 0;
    c.pid = 100;
    c.chunk = 0;
    CHECK_EQ(sampler_symbols_ship(&st, 5, &c, data, ship_emit, &sh, &dropped), 0);
    CHECK_EQ(sh.count, 2);
    CHECK(sh.recs[0].abandoned && !sh.recs[0].last);
    CHECK_EQ(sh.recs[0].pid, 2);
    CHECK_EQ(sh.recs[0].domain, 5);
    CHECK_EQ(sh.recs[0].chunk, 1);  /* the record number its next chunk would have had */
    CHECK_EQ(sh.recs[0].len, 0);
    CHECK_EQ(sh.recs[1].pid, 100);
    c.pid = 2;
    c.chunk = 1;
    CHECK_EQ(sampler_symbols_ship(&st, 5, &c, data, ship_emit, &sh, &dropped),
             (uint64_t)-VERTIGO_EINVAL);
    /* Sets are per domain: the same identity in another domain is another set. */
    c.pid = 100;
    CHECK_EQ(sampler_symbols_ship(&st, 6, &c, data, ship_emit, &sh, &dropped),
             (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(dropped, 0);
}

/* One domain opening 17 sets (more than its slots) abandons only its own:
 * another domain's set, opened first and idle since, still continues. */
TEST(a_domain_flooding_symbol_sets_abandons_only_its_own)
{
    static struct sampler_symbols st;
    static struct shipped sh;
    uint32_t dropped = 0;
    uint8_t data[4] = "abc";
    struct vertigo_symbols_chunk c = { .kind = LOG_SYM_KALLSYMS, .len = 3 };
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped), 0);
    c.kind = LOG_SYM_PROC_MAPS;
    for (uint32_t pid = 1; pid <= 17; pid++) {
        c.pid = pid;
        CHECK_EQ(sampler_symbols_ship(&st, 3, &c, data, ship_emit, &sh, &dropped), 0);
        for (unsigned int i = 0; i < sh.count; i++)
            CHECK(!sh.recs[i].abandoned || sh.recs[i].domain == 3);
        sh.count = 0;
    }
    c = (struct vertigo_symbols_chunk){ .kind = LOG_SYM_KALLSYMS, .len = 3, .chunk = 1,
                                        .last = 1 };
    CHECK_EQ(sampler_symbols_ship(&st, 0, &c, data, ship_emit, &sh, &dropped), 0);
    CHECK_EQ(sh.count, 1);
    CHECK(sh.recs[0].last && !sh.recs[0].abandoned);
    CHECK_EQ(sh.recs[0].chunk, 1);
    CHECK_EQ(dropped, 0);
}

/* ---- Paravirtual counters: what dispatch checks before the PMU sees a call */

struct fake_pv {
    unsigned int pages, programs, reads;
    uint64_t last_gpa, last_vector;
    struct vertigo_pv_program last_program;
};

static struct fake_pv fpv;

int64_t pv_guest_page(struct vcpu *v, uint64_t gpa)
{
    struct fake_pv *f = &fpv;
    (void)v;
    f->pages++;
    f->last_gpa = gpa;
    return 0;
}

int64_t pv_guest_program(struct vcpu *v, const struct vertigo_pv_program *p)
{
    struct fake_pv *f = &fpv;
    (void)v;
    f->programs++;
    f->last_program = *p;
    return 2;
}

int64_t pv_guest_read(struct vcpu *v, uint64_t index)
{
    struct fake_pv *f = &fpv;
    (void)v;
    f->reads++;
    return (int64_t)(1000 + index);
}

int64_t pv_guest_vector(struct vcpu *v, uint64_t vector)
{
    struct fake_pv *f = &fpv;
    (void)v;
    f->last_vector = vector;
    return vector == 2 ? 0 : -VERTIGO_EINVAL;
}

/* A PMU call; `registered` false: with no feature's calls registered. */
static int64_t pv_call(bool registered, uint64_t nr, uint64_t arg, unsigned int cpl)
{
    struct hypercall_args a = { .nr = nr, .arg = { arg }, .cpl = cpl };
    if (!registered)
        hypercall_unregister_all();
    int64_t r = hypercall_dispatch(&dom, &a, read_args, NULL);
    if (!registered)
        CHECK(pmu_hypercalls_register());
    return r;
}

TEST(pv_page_is_kernel_only_and_page_aligned)
{
    memset(&fpv, 0, sizeof(fpv));
    for (unsigned int cpl = 1; cpl <= 3; cpl++)
        CHECK_EQ(pv_call(true, VERTIGO_HC_PV_PAGE, 0x5000, cpl),
                 (uint64_t)-VERTIGO_EPERM);
    static const uint64_t unaligned[] = { 1, 0x5008, 0x5fff, 0x8000000000000800ull };
    for (unsigned int i = 0; i < sizeof(unaligned) / sizeof(unaligned[0]); i++)
        CHECK_EQ(pv_call(true, VERTIGO_HC_PV_PAGE, unaligned[i], 0),
                 (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(fpv.pages, 0);
    CHECK_EQ(pv_call(true, VERTIGO_HC_PV_PAGE, 0x5000, 0), 0);
    CHECK_EQ(fpv.last_gpa, 0x5000);
    CHECK_EQ(pv_call(true, VERTIGO_HC_PV_PAGE, 0, 0), 0);   /* unregister */
    CHECK_EQ(fpv.pages, 2);
    CHECK_EQ(pv_call(false, VERTIGO_HC_PV_PAGE, 0x5000, 0), (uint64_t)-VERTIGO_ENOSYS);
}

static int64_t program_with(const struct vertigo_pv_program *p, unsigned int cpl)
{
    memcpy(arg_mem, p, sizeof(*p));
    return pv_call(true, VERTIGO_HC_PV_PROGRAM, ARG_BASE, cpl);
}

TEST(pv_program_header_is_validated)
{
    memset(&fpv, 0, sizeof(fpv));
    struct vertigo_pv_program p = { .abi_version = VERTIGO_PV_ABI };
    memcpy(p.events, "instructions:u,cycles", sizeof("instructions:u,cycles"));
    CHECK_EQ(program_with(&p, 3), (uint64_t)-VERTIGO_EPERM);
    CHECK_EQ(program_with(&p, 0), 2);
    CHECK_STR(fpv.last_program.events, "instructions:u,cycles");
    struct vertigo_pv_program bad = p;
    bad.abi_version = VERTIGO_PV_ABI + 1;
    CHECK_EQ(program_with(&bad, 0), (uint64_t)-VERTIGO_EINVAL);
    bad = p;
    bad.reserved = 1;
    CHECK_EQ(program_with(&bad, 0), (uint64_t)-VERTIGO_EINVAL);
    bad = p;
    memset(bad.events, 'x', sizeof(bad.events));      /* no NUL */
    CHECK_EQ(program_with(&bad, 0), (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(pv_call(true, VERTIGO_HC_PV_PROGRAM, 0x10, 0), (uint64_t)-VERTIGO_EFAULT);
    CHECK_EQ(fpv.programs, 1);
    memcpy(arg_mem, &p, sizeof(p));
    CHECK_EQ(pv_call(false, VERTIGO_HC_PV_PROGRAM, ARG_BASE, 0), (uint64_t)-VERTIGO_ENOSYS);
}

/* The vector call is the kernel's, reaches the VCPU's check unchanged,
 * and without paravirtual counters says there are none. */
TEST(pv_vector_is_kernel_only)
{
    memset(&fpv, 0, sizeof(fpv));
    for (unsigned int cpl = 1; cpl <= 3; cpl++)
        CHECK_EQ(pv_call(true, VERTIGO_HC_PV_VECTOR, 2, cpl), (uint64_t)-VERTIGO_EPERM);
    CHECK_EQ(fpv.last_vector, 0);
    CHECK_EQ(pv_call(true, VERTIGO_HC_PV_VECTOR, 2, 0), 0);
    CHECK_EQ(pv_call(true, VERTIGO_HC_PV_VECTOR, 0x1234, 0), (uint64_t)-VERTIGO_EINVAL);
    CHECK_EQ(fpv.last_vector, 0x1234);
    CHECK_EQ(pv_call(false, VERTIGO_HC_PV_VECTOR, 2, 0), (uint64_t)-VERTIGO_ENOSYS);
}

TEST(pv_read_from_any_cpl)
{
    memset(&fpv, 0, sizeof(fpv));
    CHECK_EQ(pv_call(true, VERTIGO_HC_PV_READ, 1, 3), 1001);
    CHECK_EQ(pv_call(true, VERTIGO_HC_PV_READ, 0, 0), 1000);
    CHECK_EQ(fpv.reads, 2);
    CHECK_EQ(pv_call(false, VERTIGO_HC_PV_READ, 0, 3), (uint64_t)-VERTIGO_ENOSYS);
}

/* ---- Interval multiplexing sessions: what dispatch checks first ----------- */

struct fake_mux {
    unsigned int starts, stops;
    struct vertigo_mux last;
};

static struct fake_mux fmux;

int64_t pmu_mux_guest_start(struct vcpu *v, const struct vertigo_mux *m)
{
    struct fake_mux *f = &fmux;
    (void)v;
    f->starts++;
    f->last = *m;
    return 3;
}

int64_t pmu_mux_guest_stop(struct vcpu *v)
{
    struct fake_mux *f = &fmux;
    (void)v;
    f->stops++;
    return 7;
}

static int64_t mux_start_with(const struct vertigo_mux *m, unsigned int cpl)
{
    memcpy(arg_mem, m, sizeof(*m));
    return pv_call(true, VERTIGO_HC_MUX_START, ARG_BASE, cpl);
}

/* Headers dispatch refuses: another ABI version, a reserved field set, an
 * event list without its NUL, an empty one. */
static void spoil_version(struct vertigo_mux *m) { m->abi_version++; }
static void spoil_reserved(struct vertigo_mux *m) { m->reserved = 1; }
static void spoil_nul(struct vertigo_mux *m) { memset(m->events, 'x', sizeof(m->events)); }
static void spoil_empty(struct vertigo_mux *m) { m->events[0] = '\0'; }
static void (*const mux_spoils[])(struct vertigo_mux *) = {
    spoil_version, spoil_reserved, spoil_nul, spoil_empty,
};

/* The header reaches the PMU (which checks events and lengths as the
 * command line's, tests/unit/test_mux_session.c) only when whole. */
TEST(mux_start_is_kernel_only_and_its_header_is_validated)
{
    memset(&fmux, 0, sizeof(fmux));
    struct vertigo_mux m = { .abi_version = VERTIGO_MUX_ABI, .interval = 1000000,
                             .subinterval = 100000 };
    memcpy(m.events, "instructions:u,cycles:k,branches", sizeof("instructions:u,cycles:k,branches"));
    for (unsigned int cpl = 1; cpl <= 3; cpl++)
        CHECK_EQ(mux_start_with(&m, cpl), (uint64_t)-VERTIGO_EPERM);
    CHECK_EQ(mux_start_with(&m, 0), 3);
    CHECK_STR(fmux.last.events, "instructions:u,cycles:k,branches");
    CHECK_EQ(fmux.last.interval, 1000000);
    CHECK_EQ(fmux.last.subinterval, 100000);
    for (unsigned int i = 0; i < sizeof(mux_spoils) / sizeof(mux_spoils[0]); i++) {
        struct vertigo_mux bad = m;
        mux_spoils[i](&bad);
        CHECK_EQ(mux_start_with(&bad, 0), (uint64_t)-VERTIGO_EINVAL);
    }
    CHECK_EQ(fmux.starts, 1);
    /* pointers: unmapped, supervisor-only for a kernel caller is fine
     * (readable), device memory */
    CHECK_EQ(pv_call(true, VERTIGO_HC_MUX_START, 0x10, 0), (uint64_t)-VERTIGO_EFAULT);
    CHECK_EQ(pv_call(true, VERTIGO_HC_MUX_START, MMIO_PAGE, 0), (uint64_t)-VERTIGO_EMMIO);
    CHECK_EQ(pv_call(true, VERTIGO_HC_MUX_START, ARG_BASE + ARG_SIZE - 8, 0),
             (uint64_t)-VERTIGO_EFAULT);         /* runs off the readable bytes */
    CHECK_EQ(fmux.starts, 1);
    memcpy(arg_mem, &m, sizeof(m));
    CHECK_EQ(pv_call(false, VERTIGO_HC_MUX_START, ARG_BASE, 0), (uint64_t)-VERTIGO_ENOSYS);
}

TEST(mux_stop_is_kernel_only)
{
    memset(&fmux, 0, sizeof(fmux));
    CHECK_EQ(pv_call(true, VERTIGO_HC_MUX_STOP, 0, 3), (uint64_t)-VERTIGO_EPERM);
    CHECK_EQ(fmux.stops, 0);
    CHECK_EQ(pv_call(true, VERTIGO_HC_MUX_STOP, 0, 0), 7);
    CHECK_EQ(fmux.stops, 1);
    CHECK_EQ(pv_call(false, VERTIGO_HC_MUX_STOP, 0, 0), (uint64_t)-VERTIGO_ENOSYS);
}
