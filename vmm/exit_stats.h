/* Per-VCPU VM-exit accounting: count and handling cycles per exit reason.
 * Portable; printed when the guest ends. */
#ifndef VMM_EXIT_STATS_H
#define VMM_EXIT_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define EXIT_STATS_REASONS 80

struct exit_stats {
    uint64_t count[EXIT_STATS_REASONS];
    uint64_t cycles[EXIT_STATS_REASONS];    /* TSC cycles from the exit until its
                                             * handler and accounting returned */
    /* The whole of Vertigo's time per exit, entry path included: TSC
     * cycles from the exit to the same VCPU's next entry, for the exits
     * whose next entry was that VCPU's (no switch in between). */
    uint64_t to_entry_count[EXIT_STATS_REASONS];
    uint64_t to_entry_cycles[EXIT_STATS_REASONS];
    uint32_t last_reason;                   /* of the last exit, until its entry */
    bool last_pending;                      /* ... which was not switched away from */
    uint64_t guest_cycles;                  /* TSC cycles spent in the guest */
    uint64_t total_exits;
    uint64_t switches_in;                   /* times the VCPU got its CPU from another */
    uint64_t switch_cycles;                 /* TSC cycles of those switches */
};

/* Records one exit of basic reason `reason` (out-of-range reasons are
 * counted in the last slot) that took `cycles` to handle. */
void exit_stats_record(struct exit_stats *s, uint32_t reason, uint64_t cycles);

/* The VCPU enters again `cycles` after its last exit, with no other VCPU
 * run in between: charged to that exit's reason as the whole exit. */
void exit_stats_record_entry(struct exit_stats *s, uint64_t cycles);

/* Another VCPU takes the CPU: the last exit's entry is not measured. */
static inline void exit_stats_switched_out(struct exit_stats *s)
{
    s->last_pending = false;
}

/* Prints one line per reason that occurred, with count, total and average
 * handling cycles, through `print` (printk in the hypervisor). */
void exit_stats_print(const struct exit_stats *s, unsigned int vcpu_id,
                      int (*print)(const char *fmt, ...));

#endif
