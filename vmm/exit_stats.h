/* Per-VCPU VM-exit accounting: count and handling cycles per exit reason.
 * Portable; printed when the guest ends. */
#ifndef VMM_EXIT_STATS_H
#define VMM_EXIT_STATS_H

#include <stdint.h>

#define EXIT_STATS_REASONS 80

struct exit_stats {
    uint64_t count[EXIT_STATS_REASONS];
    uint64_t cycles[EXIT_STATS_REASONS];    /* TSC cycles from exit to re-entry */
    uint64_t guest_cycles;                  /* TSC cycles spent in the guest */
    uint64_t total_exits;
    uint64_t switches_in;                   /* times the VCPU got its CPU from another */
    uint64_t switch_cycles;                 /* TSC cycles of those switches */
};

/* Records one exit of basic reason `reason` (out-of-range reasons are
 * counted in the last slot) that took `cycles` to handle. */
void exit_stats_record(struct exit_stats *s, uint32_t reason, uint64_t cycles);

/* Prints one line per reason that occurred, with count, total and average
 * handling cycles, through `print` (printk in the hypervisor). */
void exit_stats_print(const struct exit_stats *s, unsigned int vcpu_id,
                      int (*print)(const char *fmt, ...));

#endif
