/* A fake of the PMU policy's arch hooks (pmu/pmu_arch.h) and of the few
 * hypervisor services the policy calls (console, log, command line,
 * platform facts, PMU probe), for host tests of pmu/'s VM-exit wiring,
 * PMI and sampling code. The guest state, the timer, the NMIs sent and the
 * single-step area are plain fields a test sets and reads; the PMU MSRs
 * and LVTPC are those of the register-level model (tests/unit/pmu_model.h)
 * when `model` is set. Every hook call is also appended to `trace` (one
 * short word each), so tests can check the order of operations. */
#ifndef TESTS_UNIT_FAKE_PMU_ARCH_H
#define TESTS_UNIT_FAKE_PMU_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/percpu_step.h"
#include "lib/smp.h"
#include "pmu/backend/pmu.h"
#include "pmu/pmu_arch.h"
#include "pmu/backend/pmu_desc.h"
#include "pmu/backend/pmu_probe.h"
#include "tests/unit/pmu_model.h"
#include "vertigo/log_format.h"
#include "vmm/log/log_ring.h"

#define FAKE_TRACE_MAX   4096u
#define FAKE_DESCS_MAX   64u
#define FAKE_RING_BYTES  (64u * 1024u)

struct fake_arch {
    /* guest state of the last exit */
    unsigned int cpl;
    uint64_t rip, cr3, lstar;
    bool halted;
    uint64_t guest_stack[4];
    unsigned int guest_stack_len;
    uint64_t stack_rip, stack_cr3;      /* what the last stack walk was given */
    uint64_t tsc, exit_tsc, entry_tsc;
    uint32_t exit_reason;               /* basic reason of the last exit */
    /* the shared timer: requested ticks per user, UINT64_MAX: cancelled */
    uint64_t timer[2];
    bool timer_expired[2];
    unsigned int entry_ticks;
    /* the last entry plan */
    struct pmu_entry_plan plan;
    unsigned int plans;
    /* hardware offered */
    bool global_ctrl_switch, guest_timer;
    bool mode_traps_available, mode_traps;  /* can trap / traps on */
    bool halt_traps;                        /* the halt traps on */
    uint64_t perf_capabilities;
    struct pmu_model *model;            /* NULL: every PMU MSR access faults */
    /* NMIs and LVTPC */
    unsigned int nmis_sent;
    uint32_t last_nmi_dest;
    unsigned int guest_nmis_queued;     /* every NMI for the guest */
    unsigned int vcpu_nmis_queued;      /* of them, the VCPU's own virtual PMU's */
    bool lvtpc_claimed;
    uint32_t guest_lvtpc;               /* the guest's view of LVTPC */
    bool apic_takes_vectors;            /* a domain's virtual APIC: fixed-mode PMIs delivered */
    unsigned int pmi_vectors_taken;
    /* the guest's virtual PMU */
    bool rdpmc_exiting, cr4_pce;
    uint64_t nmi_handler;               /* the injected NMI handler it is in, 0: none */
    bool tsc_offsetting;                /* the guest's TSC can be set behind */
    uint64_t tsc_behind;                /* how far */
    /* the one page of guest RAM the guest may register for its
     * paravirtual counters, and what any other address gets */
    void *pv_page;
    uint64_t pv_page_gpa;
    enum guest_access pv_other_access;
    /* this CPU */
    unsigned int cpu;
    uint32_t apic_id;
    struct percpu_step steps[MAX_CPUS];
    bool tf;
    unsigned int tf_changes;
    uint64_t hv_stack[2];
    /* services */
    bool emulator;
    uint64_t tsc_hz;
    enum pmu_verdict verdict;
    struct pmu_desc desc;
    struct log_ring ring;
    uint8_t ring_storage[FAKE_RING_BYTES];
    bool log_on;
    struct log_event_desc descs[FAKE_DESCS_MAX];
    char desc_names[FAKE_DESCS_MAX][32];
    unsigned int desc_count;
    struct log_event_period periods[FAKE_DESCS_MAX];   /* log_hv_event_period */
    unsigned int period_count;
    unsigned int totals_records;
    struct log_pmu_desc header_pmu;     /* the last log_hv_set_pmu */
    char console[8192];                 /* everything printk wrote */
    char trace[FAKE_TRACE_MAX];         /* hook calls, space-separated */
};

extern struct fake_arch fake;

/* Everything zero/off, timers cancelled, the log ring empty and on, the
 * console and trace empty, CPU 0 with APIC ID 0x10. Also clears pmu/'s
 * run configuration and per-CPU state (a new run). */
void fake_arch_reset(void);

/* True if the console holds text. */
bool fake_console_has(const char *text);

#endif
