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
