/* perf-like event names and event lists: "cycles:u,instructions:k,r01c2,
 * exits:cpuid". Parses each name into what a counter must be programmed
 * with (event select, unit mask, user/kernel filter), checks it against
 * what the chosen backend can count and assigns every hardware event to a
 * counter (fixed counters for cycles/instructions/ref-cycles when they
 * exist). Software events (pmu/backend/swevents.h) share the list. Portable. */
#ifndef PMU_PMU_EVENTS_H
#define PMU_PMU_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/backend/pmu_desc.h"
#include "pmu/backend/swevents.h"

#define PMU_MAX_GP          8   /* GP counters Vertigo drives (more are left alone) */
#define PMU_MAX_FIXED       4   /* fixed counters 0-3 (SDM Vol. 3B, 20.2.2, 20.2.5) */
#define PMU_SOFT_COUNTERS   8   /* counters the software backend offers by default
                                   (pmu.soft.counters=); its model counts up
                                   to PMU_EVENT_LIST_MAX */
#define PMU_EVENT_LIST_MAX  32  /* overflow and mode masks are 32-bit */
#define PMU_EVENT_NAME_MAX  24

enum pmu_backend_kind {
    PMU_BACKEND_HW,             /* architectural PMU, pmu/hw/pmu_hw.c */
    PMU_BACKEND_SOFT,           /* TSC-based software PMU, pmu/soft/pmu_soft.c */
};

/* What the chosen backend can count. */
struct pmu_event_caps {
    enum pmu_backend_kind backend;
    struct pmu_desc desc;       /* HW: counters and architectural events */
    bool tsc_counts_instructions; /* SOFT: one TSC tick is one instruction (Bochs) */
    /* HW: the events rotate over the counters (interval multiplexing,
     * pmu/hw/mux_hw.h places them): a list is checked, not placed, and its
     * hardware events keep slot PMU_SLOT_NONE. */
    bool unplaced;
};

enum pmu_event_source {
    PMU_EVENT_HW,               /* counted by a PMU counter (either backend) */
    PMU_EVENT_SW,               /* hypervisor software event */
};

enum pmu_slot_kind {
    PMU_SLOT_NONE,
    PMU_SLOT_GP,                /* IA32_PMCx / PERFEVTSELx, x = slot_index */
    PMU_SLOT_FIXED,             /* IA32_FIXED_CTRx, x = slot_index */
    PMU_SLOT_SOFT,              /* software-backend counter slot_index */
};

/* Marks a raw event in pmu_event.arch. */
#define PMU_ARCH_RAW PMU_ARCH_EVENT_COUNT

struct pmu_event {
    char name[PMU_EVENT_NAME_MAX];  /* as written, truncated */
    enum pmu_event_source source;
    /* PMU_EVENT_HW */
    enum pmu_arch_event arch;   /* or PMU_ARCH_RAW */
    uint8_t event_select;       /* PERFEVTSEL bits 7:0 */
    uint8_t umask;              /* PERFEVTSEL bits 15:8 */
    bool user;                  /* count at CPL > 0 */
    bool kernel;                /* count at CPL 0 */
    bool hypervisor;            /* count while Vertigo runs (:h, as perf's) */
    int8_t fixed_index;         /* fixed counter that counts this event, or -1 */
    bool gp_ok;                 /* a GP counter can count it */
    enum pmu_slot_kind slot;    /* assigned counter (pmu_event_list_parse) */
    uint8_t slot_index;
    /* PMU_EVENT_SW */
    struct swevent sw;
};

struct pmu_event_list {
    unsigned int count;
    struct pmu_event events[PMU_EVENT_LIST_MAX];
};

enum pmu_event_err {
    PMU_EVERR_NONE = 0,
    PMU_EVERR_UNKNOWN_NAME,     /* not an event Vertigo knows */
    PMU_EVERR_BAD_MODIFIER,     /* modifier other than a set of u, k, h */
    PMU_EVERR_UNAVAILABLE,      /* this PMU lacks the event (CPUID 0AH) */
    PMU_EVERR_RAW_RANGE,        /* rUUEE beyond 0xffff or event select 0 */
    PMU_EVERR_TOO_MANY,         /* more events than counters (or list entries) */
    PMU_EVERR_SOFT_CYCLES_ONLY, /* software backend on real hardware: cycle-based only */
    PMU_EVERR_BAD_EXIT_REASON,  /* exits:<x> with an unknown reason */
    PMU_EVERR_HW_USER_HYPERVISOR, /* :uh on the hardware PMU (Vertigo runs at CPL 0) */
};

struct pmu_event_error {
    enum pmu_event_err code;
    unsigned int index;         /* position of the offending event in the list */
    char token[PMU_EVENT_NAME_MAX]; /* the offending text, truncated */
};

/* Parses one event "name[:mods]" of `len` characters against caps into
 * *ev (not yet assigned to a counter). Returns PMU_EVERR_NONE or the
 * specific reason it cannot be counted. */
enum pmu_event_err pmu_event_parse(const char *text, unsigned int len,
                                   const struct pmu_event_caps *caps,
                                   struct pmu_event *ev);

/* Parses a comma-separated event list and assigns every hardware event to a
 * counter: cycles/instructions/ref-cycles go to their fixed counter when it
 * exists and is free, everything else to the lowest free GP (or soft)
 * counter. On failure returns the error code, fills *err (may be NULL) and
 * leaves *out unspecified. */
enum pmu_event_err pmu_event_list_parse(const char *text,
                                        const struct pmu_event_caps *caps,
                                        struct pmu_event_list *out,
                                        struct pmu_event_error *err);

/* Short English text of an error code ("unknown event name"). */
const char *pmu_event_err_text(enum pmu_event_err code);

/* Formats err as "event 2 \"cyclez\": unknown event name" into buf like
 * snprintf; returns the full length. */
int pmu_event_error_format(const struct pmu_event_error *err, char *buf,
                           unsigned int size);

/* The capabilities of the software backend: TSC-based counters that can
 * count cycles and ref-cycles, plus instructions when one TSC tick is one
 * instruction (Bochs with clock sync=none). */
void pmu_event_caps_soft(struct pmu_event_caps *caps, bool tsc_counts_instructions);

/* The capabilities of the hardware backend for PMU description d. */
void pmu_event_caps_hw(struct pmu_event_caps *caps, const struct pmu_desc *d);

/* True if ev counts retired instructions (architectural event, fixed
 * counter 0 or raw 0x00c0): the events the emulated-instruction correction
 * adds to. */
bool pmu_event_counts_instructions(const struct pmu_event *ev);

/* True if ev counts in the guest mode of privilege level cpl (0 = kernel).
 * Inline: the software PMU asks it for every counter at every VM exit. */
static inline bool pmu_event_counts_at(const struct pmu_event *ev, unsigned int cpl)
{
    return cpl == 0 ? ev->kernel : ev->user;
}

/* True if ev counts in the guest at all (:u or :k); :h alone does not. */
static inline bool pmu_event_counts_guest(const struct pmu_event *ev)
{
    return ev->user || ev->kernel;
}

/* The code of ev in the log's event-desc records (LOG_EVENT_CODE in
 * include/vertigo/log_format.h): hardware events by their PERFEVTSEL
 * select and unit mask, software events by kind and exit reason. */
uint64_t pmu_event_log_code(const struct pmu_event *ev);

#endif
