/* Hypervisor software events: names, parsing and per-VCPU counting (see
 * pmu/backend/swevents.h). Exit-reason numbers come from lib/exit_names.h (SDM
 * Vol. 3D Appendix C). */
#include "pmu/backend/swevents.h"

#include "lib/format.h"
#include "lib/mem.h"
#include "lib/exit_names.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define DECIMAL_BASE 10u

_Static_assert(SWEVENT_EXIT_REASONS >= EXIT_REASON_COUNT,
               "every architectural exit reason has its own slot");

struct name_entry {
    const char *name;
    unsigned int value;
};

/* Names with a fixed meaning (no argument). */
static const struct name_entry kind_names[] = {
    { "exits",          SWEVENT_EXITS_ALL },
    { "exits:all",      SWEVENT_EXITS_ALL },
    { "interrupts",     SWEVENT_INTERRUPTS },
    { "nmis",           SWEVENT_NMIS_ALL },
    { "nmis:all",       SWEVENT_NMIS_ALL },
    { "nmis:own",       SWEVENT_NMIS_OWN },
    { "nmis:reflected", SWEVENT_NMIS_REFLECTED },
    { "hypercalls",     SWEVENT_HYPERCALLS },
    { "ept-violations", SWEVENT_EPT_VIOLATIONS },
    { "vcpu-switches",  SWEVENT_VCPU_SWITCHES },
    { "log-bytes",      SWEVENT_LOG_BYTES },
    { "log-drops",      SWEVENT_LOG_DROPS },
};

/* Short exit-reason names for "exits:<name>"; others go by number. */
static const struct name_entry reason_names[] = {
    { "exception_nmi",      EXIT_REASON_EXCEPTION_NMI },
    { "external_interrupt", EXIT_REASON_EXTERNAL_INTERRUPT },
    { "triple_fault",       EXIT_REASON_TRIPLE_FAULT },
    { "init",               EXIT_REASON_INIT_SIGNAL },
    { "sipi",               EXIT_REASON_SIPI },
    { "interrupt_window",   EXIT_REASON_INTERRUPT_WINDOW },
    { "nmi_window",         EXIT_REASON_NMI_WINDOW },
    { "cpuid",              EXIT_REASON_CPUID },
    { "hlt",                EXIT_REASON_HLT },
    { "invlpg",             EXIT_REASON_INVLPG },
    { "rdpmc",              EXIT_REASON_RDPMC },
    { "rdtsc",              EXIT_REASON_RDTSC },
    { "vmcall",             EXIT_REASON_VMCALL },
    { "cr",                 EXIT_REASON_CR_ACCESS },
    { "dr",                 EXIT_REASON_MOV_DR },
    { "io",                 EXIT_REASON_IO_INSTRUCTION },
    { "rdmsr",              EXIT_REASON_RDMSR },
    { "wrmsr",              EXIT_REASON_WRMSR },
    { "mwait",              EXIT_REASON_MWAIT },
    { "monitor",            EXIT_REASON_MONITOR },
    { "pause",              EXIT_REASON_PAUSE },
    { "apic_access",        EXIT_REASON_APIC_ACCESS },
    { "ept_violation",      EXIT_REASON_EPT_VIOLATION },
    { "ept_misconfig",      EXIT_REASON_EPT_MISCONFIG },
    { "rdtscp",             EXIT_REASON_RDTSCP },
    { "preemption_timer",   EXIT_REASON_PREEMPTION_TIMER },
    { "wbinvd",             EXIT_REASON_WBINVD },
    { "xsetbv",             EXIT_REASON_XSETBV },
    { "apic_write",         EXIT_REASON_APIC_WRITE },
};

static bool name_equals(const char *table_name, const char *name, unsigned int len)
{
    return strlen(table_name) == len && memcmp(table_name, name, len) == 0;
}

static const struct name_entry *find_name(const struct name_entry *table, unsigned int n,
                                          const char *name, unsigned int len)
{
    for (unsigned int i = 0; i < n; i++)
        if (name_equals(table[i].name, name, len))
            return &table[i];
    return NULL;
}

/* Decimal reason number below SWEVENT_EXIT_REASONS, or -1. */
static int parse_reason_number(const char *s, unsigned int len)
{
    unsigned int v = 0;
    if (len == 0 || len > 3)
        return -1;
    for (unsigned int i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * DECIMAL_BASE + (unsigned int)(s[i] - '0');
    }
    return v < SWEVENT_EXIT_REASONS ? (int)v : -1;
}

static enum swevent_parse_result parse_exit_reason(const char *arg, unsigned int len,
                                                   struct swevent *out)
{
    const struct name_entry *e = find_name(reason_names, ARRAY_LEN(reason_names), arg, len);
    int number = e ? (int)e->value : parse_reason_number(arg, len);
    if (number < 0)
        return SWEVENT_BAD_REASON;
    out->kind = SWEVENT_EXITS_REASON;
    out->reason = (uint16_t)number;
    return SWEVENT_OK;
}

enum swevent_parse_result swevent_parse(const char *name, unsigned int len,
                                        struct swevent *out)
{
    static const char exits_prefix[] = "exits:";
    const unsigned int prefix_len = sizeof(exits_prefix) - 1;

    const struct name_entry *e = find_name(kind_names, ARRAY_LEN(kind_names), name, len);
    if (e) {
        out->kind = (enum swevent_kind)e->value;
        out->reason = 0;
        return SWEVENT_OK;
    }
    if (len > prefix_len && memcmp(name, exits_prefix, prefix_len) == 0)
        return parse_exit_reason(name + prefix_len, len - prefix_len, out);
    return SWEVENT_UNKNOWN;
}

void swevent_count_exit(struct swevent_counts *c, uint32_t reason)
{
    reason &= EXIT_REASON_BASIC_MASK;
    if (reason >= SWEVENT_EXIT_REASONS)
        reason = SWEVENT_EXIT_REASONS - 1;
    c->exits[reason]++;
    c->exits_all++;
}

bool swevent_add(struct swevent_counts *c, enum swevent_kind kind, uint64_t n)
{
    switch (kind) {
    case SWEVENT_NMIS_OWN:
    case SWEVENT_NMIS_REFLECTED:
    case SWEVENT_VCPU_SWITCHES:
    case SWEVENT_LOG_BYTES:
    case SWEVENT_LOG_DROPS:
        c->value[kind] += n;
        return true;
    default:
        return false;
    }
}

uint64_t swevent_read(const struct swevent_counts *c, const struct swevent *ev)
{
    switch (ev->kind) {
    case SWEVENT_EXITS_ALL:
        return c->exits_all;
    case SWEVENT_EXITS_REASON:
        return ev->reason < SWEVENT_EXIT_REASONS ? c->exits[ev->reason] : 0;
    case SWEVENT_INTERRUPTS:
        return c->exits[EXIT_REASON_EXTERNAL_INTERRUPT];
    case SWEVENT_HYPERCALLS:
        return c->exits[EXIT_REASON_VMCALL];
    case SWEVENT_EPT_VIOLATIONS:
        return c->exits[EXIT_REASON_EPT_VIOLATION];
    case SWEVENT_NMIS_ALL:
        return c->value[SWEVENT_NMIS_OWN] + c->value[SWEVENT_NMIS_REFLECTED];
    default:
        return (unsigned int)ev->kind < SWEVENT_KIND_COUNT ? c->value[ev->kind] : 0;
    }
}

int swevent_name(const struct swevent *ev, char *buf, unsigned int size)
{
    if (ev->kind == SWEVENT_EXITS_REASON) {
        for (unsigned int i = 0; i < ARRAY_LEN(reason_names); i++)
            if (reason_names[i].value == ev->reason)
                return fmt_snprintf(buf, size, "exits:%s", reason_names[i].name);
        return fmt_snprintf(buf, size, "exits:%u", ev->reason);
    }
    /* kind_names lists the canonical name of each kind last. */
    const char *name = "?";
    for (unsigned int i = 0; i < ARRAY_LEN(kind_names); i++)
        if (kind_names[i].value == (unsigned int)ev->kind)
            name = kind_names[i].name;
    return fmt_snprintf(buf, size, "%s", name);
}
