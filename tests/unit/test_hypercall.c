/* Unit tests for hypercall dispatch: every argument is validated. */
#include "tests/unit/unit.h"
#include "vertigo/hypercall.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"

static const char guest_text[] = "scenario hello";
#define GUEST_BASE 0x7000

static bool read_guest(void *ctx, uint64_t gva, void *buf, size_t len)
{
    (void)ctx;
    if (gva < GUEST_BASE || gva + len > GUEST_BASE + sizeof(guest_text))
        return false;
    memcpy(buf, guest_text + (gva - GUEST_BASE), len);
    return true;
}

static struct domain dom;

TEST(version_reports_interface_and_features)
{
    struct hypercall_args a = { .nr = VERTIGO_HC_VERSION, .cpl = 3 };
    int64_t r = hypercall_dispatch(&dom, &a, read_guest, NULL);
    CHECK_EQ(r >> 32, VERTIGO_HYPERCALL_VERSION);
    CHECK(r & VERTIGO_FEAT_VERDICT);
}

TEST(verdict_with_reason)
{
    memset(&dom, 0, sizeof(dom));
    struct hypercall_args a = { .nr = VERTIGO_HC_SET_VERDICT, .arg = { 0, GUEST_BASE } };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 0);
    CHECK_EQ(dom.verdict, GUEST_VERDICT_PASS);
    CHECK_STR(dom.verdict_text, "scenario hello");
    a.arg[0] = 1;
    a.arg[1] = 0;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 0);
    CHECK_EQ(dom.verdict, GUEST_VERDICT_FAIL);
    CHECK_STR(dom.verdict_text, "");
}

TEST(bad_arguments_are_refused_and_change_nothing)
{
    memset(&dom, 0, sizeof(dom));
    struct hypercall_args bad_code = { .nr = VERTIGO_HC_SET_VERDICT, .arg = { 7, 0 } };
    CHECK_EQ(hypercall_dispatch(&dom, &bad_code, read_guest, NULL), (uint64_t)-VERTIGO_EINVAL);
    struct hypercall_args bad_ptr = { .nr = VERTIGO_HC_SET_VERDICT, .arg = { 0, 0xdead0000 } };
    CHECK_EQ(hypercall_dispatch(&dom, &bad_ptr, read_guest, NULL), (uint64_t)-VERTIGO_EFAULT);
    /* a string running off the end of readable memory */
    struct hypercall_args cut = { .nr = VERTIGO_HC_SET_VERDICT,
                                  .arg = { 0, GUEST_BASE + sizeof(guest_text) - 1 } };
    CHECK_EQ(hypercall_dispatch(&dom, &cut, read_guest, NULL), 0);
    CHECK_EQ(dom.verdict, GUEST_VERDICT_PASS);
    dom.verdict = GUEST_VERDICT_NONE;
    struct hypercall_args unknown = { .nr = 999 };
    CHECK_EQ(hypercall_dispatch(&dom, &unknown, read_guest, NULL), (uint64_t)-VERTIGO_ENOSYS);
    CHECK_EQ(dom.verdict, GUEST_VERDICT_NONE);
}

/* A fake session: three events with counts 10, 20, 30. */
struct fake_session {
    uint64_t counts[3];
    uint64_t step;
};

static int64_t fake_read(void *ctx, uint64_t index)
{
    struct fake_session *s = ctx;
    if (index == VERTIGO_PMU_EVENT_COUNT)
        return 3;
    return index < 3 ? (int64_t)s->counts[index] : -VERTIGO_EINVAL;
}

static int64_t fake_step(void *ctx, uint64_t ticks)
{
    struct fake_session *s = ctx;
    int64_t prev = (int64_t)s->step;
    s->step = ticks;
    return prev;
}

TEST(pmu_calls_reach_the_session_from_any_cpl)
{
    struct fake_session s = { { 10, 20, 30 }, 10000 };
    struct hypercall_pmu pmu = { fake_read, fake_step, &s };
    struct hypercall_args a = { .nr = VERTIGO_HC_PMU_READ, .arg = { 1 }, .cpl = 3, .pmu = &pmu };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 20);
    a.arg[0] = VERTIGO_PMU_EVENT_COUNT;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 3);
    a.arg[0] = 3;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_EINVAL);
    struct hypercall_args step = { .nr = VERTIGO_HC_PMU_STEP, .arg = { 1 }, .cpl = 3, .pmu = &pmu };
    CHECK_EQ(hypercall_dispatch(&dom, &step, read_guest, NULL), 10000);
    CHECK_EQ(s.step, 1);
}

TEST(pmu_calls_without_wiring_report_no_session)
{
    struct hypercall_args a = { .nr = VERTIGO_HC_PMU_READ, .arg = { VERTIGO_PMU_EVENT_COUNT } };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 0);
    a.arg[0] = 0;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_EINVAL);
    struct hypercall_args step = { .nr = VERTIGO_HC_PMU_STEP, .arg = { 1 } };
    CHECK_EQ(hypercall_dispatch(&dom, &step, read_guest, NULL), (uint64_t)-VERTIGO_EINVAL);
    struct hypercall_args v = { .nr = VERTIGO_HC_VERSION };
    CHECK(hypercall_dispatch(&dom, &v, read_guest, NULL) & VERTIGO_FEAT_PMU);
}
