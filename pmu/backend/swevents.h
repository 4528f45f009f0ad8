/* Hypervisor software events: things Vertigo itself counts per VCPU (VM
 * exits by reason, external interrupts, NMIs, hypercalls, EPT violations,
 * VCPU switches, log bytes and drops). They have perf-like names
 * ("exits:cpuid", "exits:all", "nmis:reflected", "hypercalls") and can be
 * listed next to hardware events in one event list (pmu/backend/pmu_events.h).
 * Portable: no hardware access, no allocation. */
#ifndef PMU_SWEVENTS_H
#define PMU_SWEVENTS_H

#include <stdbool.h>
#include <stdint.h>

/* Exit reasons kept per VCPU; equal to EXIT_STATS_REASONS so totals can be
 * compared with vmm/exit_stats.h (out-of-range reasons share the last slot). */
#define SWEVENT_EXIT_REASONS 80

enum swevent_kind {
    SWEVENT_EXITS_ALL,          /* "exits:all" (also "exits") */
    SWEVENT_EXITS_REASON,       /* "exits:<reason>"; reason in struct swevent */
    SWEVENT_INTERRUPTS,         /* external-interrupt exits (derived) */
    SWEVENT_NMIS_ALL,           /* "nmis": own + reflected (derived) */
    SWEVENT_NMIS_OWN,           /* NMIs Vertigo consumed (PMIs, self-NMIs) */
    SWEVENT_NMIS_REFLECTED,     /* NMIs passed on to the guest */
    SWEVENT_HYPERCALLS,         /* VMCALL exits (derived) */
    SWEVENT_EPT_VIOLATIONS,     /* EPT-violation exits (derived) */
    SWEVENT_VCPU_SWITCHES,
    SWEVENT_LOG_BYTES,
    SWEVENT_LOG_DROPS,
    SWEVENT_KIND_COUNT
};

/* One parsed software event. */
struct swevent {
    enum swevent_kind kind;
    uint16_t reason;            /* basic exit reason for SWEVENT_EXITS_REASON */
};

/* Per-VCPU counts. Zero-initialise (memset or = {0}) before use. */
struct swevent_counts {
    uint64_t exits[SWEVENT_EXIT_REASONS];
    uint64_t exits_all;
    uint64_t value[SWEVENT_KIND_COUNT];     /* kinds counted by swevent_add */
};

enum swevent_parse_result {
    SWEVENT_OK = 0,
    SWEVENT_UNKNOWN,            /* not a software event name */
    SWEVENT_BAD_REASON,         /* "exits:<x>" with an unknown reason */
};

/* Parses a software-event name of `len` characters (no modifiers) into
 * *out. Exit reasons are accepted by short name ("cpuid", "hlt", "io",
 * "ept_violation", ...) or by decimal number below SWEVENT_EXIT_REASONS. */
enum swevent_parse_result swevent_parse(const char *name, unsigned int len,
                                        struct swevent *out);

/* Records one VM exit of basic reason `reason` (bits 15:0 are used; reasons
 * beyond the table are counted in the last slot, as vmm/exit_stats.c does).
 * Interrupts, hypercalls and EPT violations are read from these counts, so
 * the exit handler makes this one call per exit and nothing else for them. */
void swevent_count_exit(struct swevent_counts *c, uint32_t reason);

/* Adds n to a kind that is not derived from exits: SWEVENT_NMIS_OWN,
 * SWEVENT_NMIS_REFLECTED, SWEVENT_VCPU_SWITCHES, SWEVENT_LOG_BYTES,
 * SWEVENT_LOG_DROPS. Returns false (and counts nothing) for other kinds. */
bool swevent_add(struct swevent_counts *c, enum swevent_kind kind, uint64_t n);

/* Current count of event ev. */
uint64_t swevent_read(const struct swevent_counts *c, const struct swevent *ev);

/* Writes the canonical name of ev ("exits:cpuid", "exits:17", "hypercalls")
 * into buf like snprintf; returns the full length. */
int swevent_name(const struct swevent *ev, char *buf, unsigned int size);

#endif
