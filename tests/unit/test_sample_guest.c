/* What the sampling hypercalls do once their arguments are validated
 * (pmu/sample/sample_guest.c), on the fake arch: a domain's kernel starts
 * and stops its sessions, ships symbol chunks into the log (each domain's
 * dropped records said once and totalled at its end) and declares its
 * kernel's unwind tables (frame pointers taken once; ORC tables refused
 * without memory for Vertigo's copy). */
#include "tests/unit/unit.h"

#include "pmu/pmu_loop.h"
#include "pmu/sample/sample_guest.h"
#include "pmu/sample/sample_session.h"
#include "tests/unit/fake_pmu_arch.h"
#include "tests/unit/test_log_util.h"
#include "vmm/hv_cmdline.h"
#include "vmm/vcpu.h"

static struct domain dom;

/* One VCPU of domain `id` on the software backend. */
static struct vcpu *start(uint32_t id)
{
    fake_arch_reset();
    hv_cmdline_set("pmu=soft");
    fake.guest_timer = fake.global_ctrl_switch = true;
    fake.emulator = true;
    fake.verdict = PMU_BROKEN;
    memset(&dom, 0, sizeof(dom));
    dom.id = id;
    dom.vcpu_count = 1;
    dom.vcpus[0].domain = &dom;
    pmu_vcpu_start(&dom.vcpus[0]);
    return &dom.vcpus[0];
}

static enum guest_access unreadable(void *ctx, uint64_t gva, void *buf, size_t len)
{
    (void)ctx, (void)gva, (void)buf, (void)len;
    return GUEST_ACCESS_UNMAPPED;
}

TEST(a_domain_starts_and_stops_its_own_session)
{
    struct vcpu *v = start(0);
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI, .period = 100000,
                                 .stack_depth = 8 };
    memcpy(s.events, "instructions:u", sizeof("instructions:u"));
    CHECK_EQ(sample_guest_start(v, &s), 0);
    CHECK_EQ(sample_guest_start(v, &s), (uint64_t)-VERTIGO_EBUSY);
    CHECK(sample_guest_stop(v) >= 0);
    CHECK_EQ(sample_guest_stop(v), (uint64_t)-VERTIGO_EINVAL);     /* none runs */
}

TEST(symbol_chunks_reach_the_log_as_records)
{
    static const char text[] = "ffffffff81000000 T _text\n";
    struct vcpu *v = start(0);
    struct vertigo_symbols_chunk c = { .kind = LOG_SYM_KALLSYMS, .len = sizeof(text) - 1,
                                       .last = 1 };
    CHECK_EQ(sample_guest_symbols(v, &c, (const uint8_t *)text), 0);
    struct log_test_decoded d;
    log_test_decode_ring(&fake.ring, &d);
    size_t found = 0;
    for (size_t i = 0; i < d.count; i++)
        if (d.values[i].type == LOG_REC_SYMBOLS) {
            found++;
            CHECK_EQ(d.values[i].u.symbols.len, sizeof(text) - 1);
            CHECK(d.values[i].u.symbols.last);
        }
    CHECK_EQ(found, 1);
    log_test_decoded_free(&d);
    c.chunk = 5;                                    /* out of sequence */
    CHECK_EQ(sample_guest_symbols(v, &c, (const uint8_t *)text), (uint64_t)-VERTIGO_EINVAL);
}

/* With the log off every record is dropped: said once when it starts, the
 * count at the domain's end. */
TEST(dropped_symbol_records_are_said_once_and_totalled)
{
    static const char text[] = "ffffffff81000000 T _text\n";
    struct vcpu *v = start(3);
    fake.log_on = false;
    struct vertigo_symbols_chunk c = { .kind = LOG_SYM_KALLSYMS, .len = sizeof(text) - 1 };
    CHECK_EQ(sample_guest_symbols(v, &c, (const uint8_t *)text), 0);
    c.chunk = 1;
    CHECK_EQ(sample_guest_symbols(v, &c, (const uint8_t *)text), 0);
    CHECK(fake_console_has("sample: domain 3: symbol records dropped (its share of the log "
                           "full, or the log off); the count follows at its end\n"));
    sample_symbols_report(&dom);
    CHECK(fake_console_has("sample: domain 3: 2 symbol records dropped\n"));
}

TEST(kernel_unwind_tables_are_declared_once)
{
    struct vcpu *v = start(0);
    struct vertigo_kernel_orc fp = { .abi_version = VERTIGO_KERNEL_ORC_ABI,
                                     .format = VERTIGO_ORC_FRAME_POINTER };
    CHECK_EQ(sample_guest_kernel_orc(v, &fp, unreadable, NULL), 0);
    CHECK(fake_console_has("sample: domain 0: kernel stacks by frame pointers\n"));
    CHECK_EQ(sample_guest_kernel_orc(v, &fp, unreadable, NULL), (uint64_t)-VERTIGO_EBUSY);
    CHECK(fake_console_has("sample: domain 0: kernel unwind tables refused (error"));
    /* ORC tables on a fresh domain: no memory for Vertigo's copy here */
    v = start(1);
    struct vertigo_kernel_orc orc = {
        .abi_version = VERTIGO_KERNEL_ORC_ABI, .format = VERTIGO_ORC_LINUX_V1,
        .text_start = 0xffffffff81000000ull, .text_end = 0xffffffff82000000ull,
        .ip_table = 0xffffffff83000000ull, .orc_table = 0xffffffff84000000ull, .count = 1000,
    };
    CHECK(sample_guest_kernel_orc(v, &orc, unreadable, NULL) < 0);
    CHECK(fake_console_has("sample: domain 1: kernel unwind tables refused (error"));
}
