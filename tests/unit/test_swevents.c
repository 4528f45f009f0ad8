/* Hypervisor software events (pmu/backend/swevents.c): names, parsing, counting,
 * and that exit totals equal the VT-x core's exit statistics
 * (vmm/exit_stats.c) for the same sequence of exits. */
#include "pmu/backend/swevents.h"
#include "tests/unit/unit.h"
#include "vmm/exit_stats.h"
#include "vmx/vmx_defs.h"

static struct swevent parse_ok(const char *name)
{
    struct swevent ev = { SWEVENT_KIND_COUNT, 0 };
    CHECK_EQ(swevent_parse(name, (unsigned int)strlen(name), &ev), SWEVENT_OK);
    return ev;
}

TEST(swevents_parse_names)
{
    struct swevent ev = parse_ok("exits:cpuid");
    CHECK_EQ(ev.kind, SWEVENT_EXITS_REASON);
    CHECK_EQ(ev.reason, EXIT_REASON_CPUID);
    CHECK_EQ(parse_ok("exits:ept_violation").reason, EXIT_REASON_EPT_VIOLATION);
    CHECK_EQ(parse_ok("exits:io").reason, EXIT_REASON_IO_INSTRUCTION);
    CHECK_EQ(parse_ok("exits:52").reason, 52);
    CHECK_EQ(parse_ok("exits:all").kind, SWEVENT_EXITS_ALL);
    CHECK_EQ(parse_ok("exits").kind, SWEVENT_EXITS_ALL);
    CHECK_EQ(parse_ok("nmis:reflected").kind, SWEVENT_NMIS_REFLECTED);
    CHECK_EQ(parse_ok("nmis:own").kind, SWEVENT_NMIS_OWN);
    CHECK_EQ(parse_ok("nmis").kind, SWEVENT_NMIS_ALL);
    CHECK_EQ(parse_ok("hypercalls").kind, SWEVENT_HYPERCALLS);
    CHECK_EQ(parse_ok("interrupts").kind, SWEVENT_INTERRUPTS);
    CHECK_EQ(parse_ok("ept-violations").kind, SWEVENT_EPT_VIOLATIONS);
    CHECK_EQ(parse_ok("vcpu-switches").kind, SWEVENT_VCPU_SWITCHES);
    CHECK_EQ(parse_ok("log-bytes").kind, SWEVENT_LOG_BYTES);
    CHECK_EQ(parse_ok("log-drops").kind, SWEVENT_LOG_DROPS);

    struct swevent ev2;
    CHECK_EQ(swevent_parse("exits:nope", 10, &ev2), SWEVENT_BAD_REASON);
    CHECK_EQ(swevent_parse("exits:80", 8, &ev2), SWEVENT_BAD_REASON);
    CHECK_EQ(swevent_parse("exits:", 6, &ev2), SWEVENT_UNKNOWN);
    CHECK_EQ(swevent_parse("cycles", 6, &ev2), SWEVENT_UNKNOWN);
    CHECK_EQ(swevent_parse("hypercallsX", 11, &ev2), SWEVENT_UNKNOWN);
    CHECK_EQ(swevent_parse("hypercallsX", 10, &ev2), SWEVENT_OK);   /* length honoured */
}

TEST(swevents_names_round_trip)
{
    const char *names[] = { "exits:cpuid", "exits:hlt", "exits:all", "exits:17", "nmis:own",
                            "nmis:all", "hypercalls", "log-drops", "vcpu-switches" };
    for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct swevent ev = parse_ok(names[i]);
        char buf[32];
        swevent_name(&ev, buf, sizeof(buf));
        CHECK_STR(buf, names[i]);
    }
}

TEST(swevents_count_and_derive)
{
    struct swevent_counts c = { 0 };
    const uint32_t exits[] = { EXIT_REASON_CPUID, EXIT_REASON_CPUID, EXIT_REASON_VMCALL,
                               EXIT_REASON_EPT_VIOLATION, EXIT_REASON_EXTERNAL_INTERRUPT,
                               EXIT_REASON_EXTERNAL_INTERRUPT, EXIT_REASON_IO_INSTRUCTION,
                               EXIT_REASON_CPUID | EXIT_REASON_ENTRY_FAILURE };
    for (unsigned int i = 0; i < sizeof(exits) / sizeof(exits[0]); i++)
        swevent_count_exit(&c, exits[i]);
    struct swevent cpuid = parse_ok("exits:cpuid"), all = parse_ok("exits:all");
    struct swevent hc = parse_ok("hypercalls"), ept = parse_ok("ept-violations");
    struct swevent irq = parse_ok("interrupts"), nmis = parse_ok("nmis");
    CHECK_EQ(swevent_read(&c, &cpuid), 3);
    CHECK_EQ(swevent_read(&c, &all), 8);
    CHECK_EQ(swevent_read(&c, &hc), 1);
    CHECK_EQ(swevent_read(&c, &ept), 1);
    CHECK_EQ(swevent_read(&c, &irq), 2);
    CHECK(swevent_add(&c, SWEVENT_NMIS_OWN, 4));
    CHECK(swevent_add(&c, SWEVENT_NMIS_REFLECTED, 2));
    CHECK(!swevent_add(&c, SWEVENT_HYPERCALLS, 5));    /* derived: refused */
    CHECK(!swevent_add(&c, SWEVENT_NMIS_ALL, 5));
    CHECK_EQ(swevent_read(&c, &hc), 1);
    CHECK_EQ(swevent_read(&c, &nmis), 6);
    CHECK(swevent_add(&c, SWEVENT_LOG_BYTES, 4096));
    struct swevent lb = parse_ok("log-bytes");
    CHECK_EQ(swevent_read(&c, &lb), 4096);
}

TEST(swevents_match_exit_stats)
{
    struct swevent_counts c = { 0 };
    struct exit_stats s;
    memset(&s, 0, sizeof(s));
    uint32_t x = 12345;
    for (int i = 0; i < 5000; i++) {
        x = x * 1103515245u + 12345u;
        uint32_t reason = (x >> 16) % 100;      /* includes out-of-range reasons */
        swevent_count_exit(&c, reason);
        exit_stats_record(&s, reason, 1);
    }
    struct swevent all = parse_ok("exits:all");
    CHECK_EQ(swevent_read(&c, &all), s.total_exits);
    for (unsigned int r = 0; r < SWEVENT_EXIT_REASONS; r++) {
        struct swevent ev = { SWEVENT_EXITS_REASON, (uint16_t)r };
        CHECK_EQ(swevent_read(&c, &ev), s.count[r]);
    }
}
