/* Exit accounting (see vmm/exit_stats.h). */
#include "vmm/exit_stats.h"

#include "lib/exit_names.h"

void exit_stats_record(struct exit_stats *s, uint32_t reason, uint64_t cycles)
{
    if (reason >= EXIT_STATS_REASONS)
        reason = EXIT_STATS_REASONS - 1;
    s->count[reason]++;
    s->cycles[reason] += cycles;
    s->total_exits++;
    s->last_reason = reason;
    s->last_pending = true;
}

void exit_stats_record_entry(struct exit_stats *s, uint64_t cycles)
{
    if (!s->last_pending)
        return;
    s->last_pending = false;
    s->to_entry_count[s->last_reason]++;
    s->to_entry_cycles[s->last_reason] += cycles;
}

void exit_stats_print(const struct exit_stats *s, unsigned int vcpu_id,
                      int (*print)(const char *fmt, ...))
{
    uint64_t handling = 0;
    for (uint32_t r = 0; r < EXIT_STATS_REASONS; r++)
        handling += s->cycles[r];
    print("exits: vcpu %u: %lu exits, %lu cycles handling them, %lu cycles in the guest\n",
          vcpu_id, (unsigned long)s->total_exits, (unsigned long)handling,
          (unsigned long)s->guest_cycles);
    if (s->switches_in)
        print("exits: vcpu %u: %lu switches in, %lu cycles switching (%lu avg)\n", vcpu_id,
              (unsigned long)s->switches_in, (unsigned long)s->switch_cycles,
              (unsigned long)(s->switch_cycles / s->switches_in));
    for (uint32_t r = 0; r < EXIT_STATS_REASONS; r++) {
        if (!s->count[r])
            continue;
        print("exits: vcpu %u: %-24s %10lu exits %14lu cycles %8lu avg\n", vcpu_id,
              vmx_exit_reason_name(r), (unsigned long)s->count[r],
              (unsigned long)s->cycles[r], (unsigned long)(s->cycles[r] / s->count[r]));
    }
    for (uint32_t r = 0; r < EXIT_STATS_REASONS; r++) {
        if (!s->to_entry_count[r])
            continue;
        print("exits to entry: vcpu %u: %-24s %10lu exits %14lu cycles %8lu avg\n", vcpu_id,
              vmx_exit_reason_name(r), (unsigned long)s->to_entry_count[r],
              (unsigned long)s->to_entry_cycles[r],
              (unsigned long)(s->to_entry_cycles[r] / s->to_entry_count[r]));
    }
}
