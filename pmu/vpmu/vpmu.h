/* A VCPU's virtual architectural PMU: what the guest sees of CPUID leaf
 * 0xA, the performance-monitoring MSRs, RDPMC and the local APIC's LVT
 * performance-counter register (LVTPC), as Intel architectural
 * performance monitoring version 2 defines them (SDM Vol. 3B 20.2.1-20.2.2;
 * MSR layouts in Vol. 4 table 2-2). Portable: the VM-exit plumbing calls
 * it with the guest's MSR number and value, the backend tells it how many
 * events of a kind happened in which mode, and it says when a PMI is due.
 *
 * What it offers: GP_COUNTERS general-purpose counters and FIXED_COUNTERS
 * fixed counters, each VPMU_WIDTH bits wide, counting the architectural
 * events the backend can count (instructions, core cycles, reference
 * cycles); the others are marked unavailable in CPUID.0AH:EBX and a
 * counter programmed with them counts nothing. Version 2 has no full-width
 * counter aliases (CPUID.1 PDCM is hidden, so IA32_PERF_CAPABILITIES does
 * not exist), no AnyThread bit, no STATUS_SET/INUSE registers, no freeze
 * bits; LBR, PEBS and the DS area are not virtualized (their MSRs fault). */
#ifndef PMU_VPMU_H
#define PMU_VPMU_H

#include <stdbool.h>
#include <stdint.h>

#define VPMU_VERSION        2u
#define VPMU_MAX_GP         4u
#define VPMU_MAX_FIXED      3u
#define VPMU_WIDTH          48u

/* Register bits the virtual PMU's files share: IA32_PERFEVTSELx (SDM Vol.
 * 3B 20.2.1.1), the 4-bit fields of IA32_FIXED_CTR_CTRL (20.2.2) and the
 * local APIC's LVT performance-counter entry (Vol. 3A 11.5.1). */
#define VPMU_EVTSEL_USR     (1ull << 16)
#define VPMU_EVTSEL_OS      (1ull << 17)
#define VPMU_EVTSEL_EDGE    (1ull << 18)
#define VPMU_EVTSEL_INT     (1ull << 20)
#define VPMU_EVTSEL_ANY     (1ull << 21)    /* AnyThread: version 3 and later */
#define VPMU_EVTSEL_EN      (1ull << 22)
#define VPMU_EVTSEL_INV     (1ull << 23)
#define VPMU_EVTSEL_CMASK_SHIFT 24          /* counter mask: bits 31:24 */
#define VPMU_FIXED_OS       0x1u
#define VPMU_FIXED_USR      0x2u
#define VPMU_FIXED_PMI      0x8u
#define VPMU_LVT_MODE_SHIFT 8
#define VPMU_LVT_MODE_MASK  (7u << VPMU_LVT_MODE_SHIFT)
#define VPMU_LVT_MODE_NMI   (4u << VPMU_LVT_MODE_SHIFT)
#define VPMU_LVT_MASKED     (1u << 16)

/* The architectural events (CPUID.0AH:EBX bit numbers). */
enum vpmu_arch_event {
    VPMU_EV_CYCLES = 0, VPMU_EV_INSTRUCTIONS = 1, VPMU_EV_REF_CYCLES = 2,
    VPMU_EV_LLC_REFERENCES = 3, VPMU_EV_LLC_MISSES = 4, VPMU_EV_BRANCHES = 5,
    VPMU_EV_BRANCH_MISSES = 6, VPMU_EV_COUNT = 7,
};

enum vpmu_mode { VPMU_KERNEL, VPMU_USER };

/* The modes a counter counts in: user only, kernel only, both (the first
 * two are enum vpmu_mode's values). */
enum vpmu_modes { VPMU_ONLY_KERNEL = VPMU_KERNEL, VPMU_ONLY_USER = VPMU_USER, VPMU_BOTH_MODES,
                  VPMU_MODE_SETS };

struct vpmu_config {
    unsigned int gp_counters;       /* 0..VPMU_MAX_GP */
    unsigned int fixed_counters;    /* 0..VPMU_MAX_FIXED */
    uint32_t available;             /* bit e: event e (enum vpmu_arch_event) counts */
};

/* A counter some event advances in one mode: its GLOBAL_STATUS bit number
 * (GP counter k: k, fixed counter j: 32 + j) and whether it raises a PMI. */
struct vpmu_live {
    uint8_t bit;
    bool pmi;
};
#define VPMU_LIVE_MAX (VPMU_MAX_GP + VPMU_MAX_FIXED)

/* A counter that counts an available event while GLOBAL_CTRL enables it:
 * its GLOBAL_STATUS bit, whether it raises a PMI, and its modes (enum
 * vpmu_modes). */
struct vpmu_programmed {
    uint8_t bit;
    bool pmi;
    uint8_t modes;
};

/* A counter that raises a PMI, counting now: its bit and its modes. */
struct vpmu_pmi_counter {
    uint8_t bit;
    uint8_t modes;
};

/* What the programmed counters and GLOBAL_CTRL make of the counters now
 * (vpmu_derive_enabled): per mode (enum vpmu_mode), the counters an
 * available event advances, in the order of their bits; those of them
 * that raise a PMI; and whether some counter counts one mode only. */
struct vpmu_enabled {
    struct vpmu_live live[2][VPMU_LIVE_MAX];
    uint8_t live_count[2];
    struct vpmu_pmi_counter pmi[VPMU_LIVE_MAX];
    uint8_t pmi_count;
    bool one_mode;
};

struct vpmu {
    struct vpmu_config config;
    uint64_t counter_bits;          /* GLOBAL_CTRL's bits of the counters that exist */
    uint64_t evtsel[VPMU_MAX_GP];
    uint64_t pmc[VPMU_MAX_GP];
    uint64_t fixed[VPMU_MAX_FIXED];
    uint64_t fixed_ctrl;
    uint64_t global_ctrl;
    uint64_t global_status;
    uint32_t lvtpc;                 /* the guest's LVT performance-counter register */
    uint64_t pmis_delivered;        /* PMIs handed to the guest (LVTPC unmasked) */
    uint64_t pmis_masked;           /* PMIs LVTPC's mask bit swallowed, as hardware does */
    unsigned int nmis_pending;      /* PMIs the guest must receive as NMIs */
    unsigned int vectors_pending;   /* ... as its LVTPC vector (fixed delivery) */
    /* Derived from the event selects, FIXED_CTR_CTRL and the configuration
     * at a write of one of them (vpmu_init, vpmu_wrmsr): the counters that
     * count an available event once GLOBAL_CTRL enables them, in the order
     * of their bits, and GLOBAL_CTRL's bits of the counters that count one
     * mode only. Linux's PMI handler clears GLOBAL_CTRL and sets it again
     * to every counter's bit at every PMI, so its writes only filter these
     * (vpmu_derive_enabled). */
    struct vpmu_programmed programmed[VPMU_LIVE_MAX];
    uint8_t programmed_count;
    uint64_t one_mode_bits;
    /* Derived from those and GLOBAL_CTRL, so that counting, the PMI budgets
     * and the exit path's questions, which a guest's PMI handler asks at
     * each of its ten or so exits, do not decode the registers again. */
    struct vpmu_enabled enabled;
    /* What enabled was the last time GLOBAL_CTRL held memo_ctrl (not 0),
     * valid while the programming is the same (vpmu_derive clears it).
     * Linux's PMI handler and its tick clear GLOBAL_CTRL and set it back
     * to the value it held, so that write is one copy. */
    struct vpmu_enabled memo;
    uint64_t memo_ctrl;
    bool memo_valid;
};

/* Results of the guest's accesses. */
enum vpmu_access { VPMU_DONE, VPMU_GP };

/* Power-on state: counters and controls zero, LVTPC masked. */
void vpmu_init(struct vpmu *p, const struct vpmu_config *config);

/* The derived fields of struct vpmu made again from the registers (after
 * a write to an event select or FIXED_CTR_CTRL). */
void vpmu_derive(struct vpmu *p);

/* Those of them that GLOBAL_CTRL decides made again (after its write). */
void vpmu_derive_enabled(struct vpmu *p);

/* CPUID leaf 0xA as the guest sees it (regs: EAX, EBX, ECX, EDX). */
void vpmu_cpuid_leaf(const struct vpmu_config *config, uint32_t regs[4]);

/* True if msr is one of the virtual PMU's (whatever the access does). */
bool vpmu_owns_msr(const struct vpmu *p, uint32_t msr);

/* RDMSR/WRMSR of an owned MSR, with hardware's #GP rules (reserved bits,
 * read-only registers, counters that do not exist). Legacy counter writes
 * take bits 31:0 sign-extended; a write to a running counter counts on
 * from the new value. */
enum vpmu_access vpmu_rdmsr(struct vpmu *p, uint32_t msr, uint64_t *value);
enum vpmu_access vpmu_wrmsr(struct vpmu *p, uint32_t msr, uint64_t value);

/* One of the virtual PMU's registers, as a guest's MSR number names it
 * (vpmu_reg_of): its kind and, for an event select or a counter, its
 * index. VPMU_REG_NONE: no register of this PMU (its access faults). The
 * exit path decodes a WRMSR's number once and asks the rest of it. */
enum vpmu_reg_kind {
    VPMU_REG_NONE, VPMU_REG_GLOBAL_CTRL, VPMU_REG_GLOBAL_OVF_CTRL, VPMU_REG_GLOBAL_STATUS,
    VPMU_REG_FIXED_CTRL, VPMU_REG_EVTSEL, VPMU_REG_PMC, VPMU_REG_FIXED,
};
struct vpmu_reg {
    enum vpmu_reg_kind kind;
    unsigned int index;
};
struct vpmu_reg vpmu_reg_of(const struct vpmu *p, uint32_t msr);

/* vpmu_wrmsr of a decoded register. */
enum vpmu_access vpmu_reg_write(struct vpmu *p, struct vpmu_reg reg, uint64_t value);

/* True if a WRMSR of value to reg would change nothing (and not #GP): an
 * event select, FIXED_CTR_CTRL or GLOBAL_CTRL written with the value it
 * holds, or GLOBAL_OVF_CTRL with no bit to clear. A counter write never
 * is: its value counts on from the write (and a lazily counted counter's
 * value is not up to date before a take). */
bool vpmu_reg_write_changes_nothing(const struct vpmu *p, struct vpmu_reg reg, uint64_t value);

/* What a write to reg, one of the virtual PMU's, can change beyond its
 * register: VPMU_MSR_PROGRAM what a counter counts (an event select,
 * FIXED_CTR_CTRL: its event and modes, a new programming for the log),
 * VPMU_MSR_ENABLE which counters run (GLOBAL_CTRL: the modes counted
 * change, the programmings do not), VPMU_MSR_COUNT neither (a counter's
 * value, GLOBAL_OVF_CTRL's acknowledgement of overflows: the writes of a
 * guest's PMI handler but one). Any other register (VPMU_REG_NONE,
 * GLOBAL_STATUS) is taken as a programming. */
enum vpmu_msr_role { VPMU_MSR_COUNT, VPMU_MSR_ENABLE, VPMU_MSR_PROGRAM };
enum vpmu_msr_role vpmu_reg_role(struct vpmu_reg reg);

/* RDPMC with ECX = index (bit 30: fixed counter, bit 31: 32-bit fast
 * read), from privilege level cpl with CR4.PCE as given: #GP for user
 * mode without PCE or a counter that does not exist. */
enum vpmu_access vpmu_rdpmc(const struct vpmu *p, uint32_t ecx, unsigned int cpl, bool cr4_pce,
                            uint64_t *value);

/* The guest's LVTPC: vector, delivery mode and mask are writable. */
uint32_t vpmu_lvtpc_read(const struct vpmu *p);
void vpmu_lvtpc_write(struct vpmu *p, uint32_t value);

/* n events of kind ev happened in mode: every counter enabled for them
 * advances; a counter that wraps at its width sets its GLOBAL_STATUS bit
 * and, with its interrupt bit, raises a PMI delivered through LVTPC. */
void vpmu_count(struct vpmu *p, enum vpmu_arch_event ev, enum vpmu_mode mode, uint64_t n);

/* n events of every kind the backend counts (config.available) happened
 * in mode, as a backend whose events all advance together counts them:
 * vpmu_count of each, except that counters of different events that wrap
 * at the same event raise one PMI, as hardware raises one for overflows
 * it takes together. */
void vpmu_count_every_event(struct vpmu *p, enum vpmu_mode mode, uint64_t n);

/* Counters measured elsewhere (on hardware counters) wrapped: their
 * GLOBAL_STATUS bits (GP k: k, fixed j: 32 + j) are set and, if one of
 * them has its interrupt bit, one PMI goes through LVTPC, as hardware
 * raises one for overflows it takes together. Bits of counters that do
 * not exist are ignored. */
void vpmu_overflowed(struct vpmu *p, uint64_t status_bits);

/* How many events of kind ev in mode until a counter whose overflow
 * raises a PMI wraps (UINT64_MAX: none): the backend's next deadline. */
uint64_t vpmu_events_to_pmi(const struct vpmu *p, enum vpmu_arch_event ev, enum vpmu_mode mode);

/* For a backend whose events all advance together (each available event
 * counts the same n events per mode): budget[m] is how many events
 * counted in the modes m (enum vpmu_modes) until a counter counting in
 * exactly those modes raises a PMI by wrapping (UINT64_MAX: none). A PMI
 * is due once the events of either mode since then reach budget[mode] or
 * their sum reaches budget[VPMU_BOTH_MODES]. */
void vpmu_pmi_budget(const struct vpmu *p, uint64_t budget[VPMU_MODE_SETS]);

/* True if some counter counts (a backend can skip the guest's PMU
 * otherwise). */
bool vpmu_active(const struct vpmu *p);

/* The event filter for the hardware backend (an allow-list, as KVM's PMU
 * event filter can be): true if evtsel's event select and unit mask name
 * one of the architectural events (SDM Vol. 3B table 20-1), the only
 * events the virtual PMU offers in CPUID leaf 0xA. A model-specific raw
 * event (uncore-facing, off-core, or one whose counts reveal another
 * domain's or Vertigo's activity) is never programmed on a real counter
 * for a guest. */
bool vpmu_event_allowed(uint64_t evtsel);

/* True if some counting counter counts in user or kernel mode only (a
 * backend must then tell the two apart exactly). */
bool vpmu_counts_one_mode(const struct vpmu *p);

/* True if some counter counts an event in some mode (none while Linux's
 * PMI handler has GLOBAL_CTRL cleared): events counted while it is false
 * advance nothing. Inline: asked at every access of the guest's. */
static inline bool vpmu_counts_anything(const struct vpmu *p)
{
    return (p->enabled.live_count[VPMU_KERNEL] | p->enabled.live_count[VPMU_USER]) != 0;
}

#endif
