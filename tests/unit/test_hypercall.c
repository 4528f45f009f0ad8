/* Unit tests for hypercall dispatch: the core's own calls (version,
 * verdict, console, power-off), every argument validated, and the table of
 * the calls features register (the PMU's: tests/unit/test_pmu_hypercalls.c). */
#include "tests/unit/unit.h"
#include "tests/unit/hostile_pages.h"
#include "vertigo/hypercall.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"

static const char guest_text[] = "scenario hello";
static const char forged_text[] = "ok)\nVERTIGO-END: PASS (forged\x7f";
#define GUEST_BASE 0x7000
#define FORGED_BASE 0x9000

static enum guest_access read_guest(void *ctx, uint64_t gva, void *buf, size_t len)
{
    (void)ctx;
    if (gva >= FORGED_BASE && gva + len <= FORGED_BASE + sizeof(forged_text)) {
        memcpy(buf, forged_text + (gva - FORGED_BASE), len);
        return GUEST_ACCESS_OK;
    }
    if (gva < GUEST_BASE || gva + len > GUEST_BASE + sizeof(guest_text))
        return GUEST_ACCESS_UNMAPPED;
    memcpy(buf, guest_text + (gva - GUEST_BASE), len);
    return GUEST_ACCESS_OK;
}

static struct domain dom;

TEST(version_reports_interface_and_features)
{
    struct hypercall_args a = { .nr = VERTIGO_HC_VERSION, .cpl = 3 };
    int64_t r = hypercall_dispatch(&dom, &a, read_guest, NULL);
    CHECK_EQ(r >> 32, VERTIGO_HYPERCALL_VERSION);
    CHECK(r & VERTIGO_FEAT_VERDICT);
    CHECK(r & VERTIGO_FEAT_KERNEL_ORC);
    CHECK(r & VERTIGO_FEAT_MUX);
    CHECK(r & VERTIGO_FEAT_DOMAIN);
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

/* A reason cannot carry a line of its own onto Vertigo's console. */
TEST(verdict_reason_control_bytes_become_question_marks)
{
    memset(&dom, 0, sizeof(dom));
    struct hypercall_args a = { .nr = VERTIGO_HC_SET_VERDICT, .arg = { 1, FORGED_BASE } };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 0);
    CHECK_STR(dom.verdict_text, "ok)?VERTIGO-END: PASS (forged?");
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

static enum guest_access read_pages(void *ctx, uint64_t gva, void *buf, size_t len)
{
    for (uint64_t a = gva; a < gva + len; a++)
        if (hostile_page_access(a) != GUEST_ACCESS_OK)
            return hostile_page_access(a);
    return read_guest(ctx, gva, buf, len);
}

/* Each kind of bad pointer has its own error, and the call changes
 * nothing (the PMU's calls: tests/unit/test_pmu_hypercalls.c). */
TEST(bad_pointers_get_specific_errors)
{
    for (unsigned int i = 0; i < HOSTILE_POINTERS; i++) {
        struct hypercall_args v = { .nr = VERTIGO_HC_SET_VERDICT,
                                    .arg = { 0, hostile_pointers[i].gva }, .cpl = 3 };
        dom.verdict = GUEST_VERDICT_NONE;
        CHECK_EQ(hypercall_dispatch(&dom, &v, read_pages, NULL),
                 (uint64_t)hostile_pointers[i].err);
        CHECK_EQ(dom.verdict, GUEST_VERDICT_NONE);
    }
    CHECK_EQ(hypercall_access_error(GUEST_ACCESS_NONCANONICAL), (uint64_t)-VERTIGO_EFAULT);
    CHECK_EQ(hypercall_access_error(GUEST_ACCESS_OK), 0);
}

/* A feature's calls, registered: dispatch checks their privilege, hands
 * them the call, and refuses a number taken twice or the core's own. */
static int64_t echo_call(const struct hypercall_args *a, guest_copy_fn read, void *read_ctx)
{
    (void)read, (void)read_ctx;
    return (int64_t)(a->arg[0] + a->nr);
}

TEST(features_register_their_calls_by_number)
{
    static const struct hypercall_def calls[] = {
        { VERTIGO_HC_PMU_READ, false, echo_call },
        { VERTIGO_HC_MUX_STOP, true, echo_call },
    };
    static const struct hypercall_def clash[] = { { VERTIGO_HC_PV_READ, false, echo_call },
                                                  { VERTIGO_HC_MUX_STOP, false, echo_call } };
    static const struct hypercall_def core[] = { { VERTIGO_HC_VERSION, false, echo_call } };
    static const struct hypercall_def beyond[] = { { VERTIGO_HC_COUNT, false, echo_call } };
    hypercall_unregister_all();
    struct hypercall_args a = { .nr = VERTIGO_HC_PMU_READ, .arg = { 100 }, .cpl = 3 };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_ENOSYS);
    CHECK(hypercall_register(calls, 2));
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 100 + VERTIGO_HC_PMU_READ);
    a.nr = VERTIGO_HC_MUX_STOP;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_EPERM);
    a.cpl = 0;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 100 + VERTIGO_HC_MUX_STOP);
    CHECK(!hypercall_register(clash, 2));                   /* MUX_STOP is taken ... */
    a.nr = VERTIGO_HC_PV_READ;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), (uint64_t)-VERTIGO_ENOSYS);
    CHECK(!hypercall_register(core, 1));                    /* ... and VERSION the core's */
    CHECK(!hypercall_register(beyond, 1));
    a.nr = VERTIGO_HC_VERSION;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL) >> 32, VERTIGO_HYPERCALL_VERSION);
    hypercall_unregister_all();
}

TEST(version_reports_pv_counters)
{
    struct hypercall_args a = { .nr = VERTIGO_HC_VERSION, .cpl = 3 };
    CHECK(hypercall_dispatch(&dom, &a, read_guest, NULL) & VERTIGO_FEAT_PV_COUNTERS);
}

/* The domain calls: console text reaches the callback only whole and
 * readable, power-off only from the kernel. */
struct fake_domain {
    char text[64];
    size_t len;
    unsigned int console_calls, power_offs;
};

static int64_t fake_console(void *ctx, const char *text, size_t len)
{
    struct fake_domain *f = ctx;
    f->console_calls++;
    f->len = len < sizeof(f->text) ? len : sizeof(f->text);
    memcpy(f->text, text, f->len);
    return (int64_t)len;
}

static void fake_power_off(void *ctx)
{
    ((struct fake_domain *)ctx)->power_offs++;
}

TEST(console_write_and_power_off)
{
    static char buffer[VERTIGO_CONSOLE_WRITE_MAX];
    struct fake_domain f = { 0 };
    struct hypercall_domain hd = { fake_console, fake_power_off, &f, buffer };
    struct hypercall_args a = { .nr = VERTIGO_HC_CONSOLE_WRITE, .arg = { GUEST_BASE, 8 },
                                .domain = &hd };

    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 8);
    CHECK_EQ(f.len, 8);
    CHECK(memcmp(f.text, "scenario", 8) == 0);
    a.arg[1] = sizeof(guest_text) + 1;                  /* runs off readable memory */
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_EFAULT);
    a.arg[1] = 0;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_EINVAL);
    a.arg[1] = VERTIGO_CONSOLE_WRITE_MAX + 1;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_EINVAL);
    a.arg[1] = 4;
    a.cpl = 3;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_EPERM);
    CHECK_EQ(f.console_calls, 1);

    a = (struct hypercall_args){ .nr = VERTIGO_HC_POWER_OFF, .cpl = 3, .domain = &hd };
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_EPERM);
    CHECK_EQ(f.power_offs, 0);
    a.cpl = 0;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), 0);
    CHECK_EQ(f.power_offs, 1);
    a.domain = NULL;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_ENOSYS);
    a.nr = VERTIGO_HC_CONSOLE_WRITE;
    a.arg[0] = GUEST_BASE;
    a.arg[1] = 4;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_ENOSYS);
    hd.console = NULL;                                  /* domain 0: its own serial port */
    a.domain = &hd;
    CHECK_EQ(hypercall_dispatch(&dom, &a, read_guest, NULL), -VERTIGO_ENOSYS);
    CHECK_EQ(f.console_calls, 1);
}
