/* The event ids of each VCPU's interval rows (docs/log-format.md,
 * interval-events): entry k of a row is the k-th id of its VCPU's last
 * interval-events record before it in the log, or k itself when that VCPU
 * has none (a log from before those records, whose ids were the entries'
 * positions). What `vertigo timeline`, `vertigo correlate` and the
 * Perfetto export share. */
#ifndef HOST_TOOLS_INTERVAL_IDS_H
#define HOST_TOOLS_INTERVAL_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "host-tools/keymap.h"
#include "vertigo/log_format.h"

/* Every interval-events record kept (its count, then its ids), and each
 * VCPU's last one. */
struct interval_ids {
    struct keymap current;      /* (domain, vcpu) -> a list's reference */
    uint32_t *words;
    size_t count, cap;
};

/* The lists of VCPU (domain, vcpu) from now on: ie's. Exits with "out of
 * memory" when growing fails, as keymap does. */
void interval_ids_note(struct interval_ids *m, const struct log_interval_events *ie);

/* A reference to the VCPU's list now (0: it has none), to keep with a row. */
uint32_t interval_ids_current(struct interval_ids *m, uint32_t domain, uint32_t vcpu);

/* The event id of entry k of a row kept with list reference ref: the
 * list's k-th id, or k without a list or past its end. */
uint32_t interval_ids_of(const struct interval_ids *m, uint32_t ref, uint32_t k);

void interval_ids_free(struct interval_ids *m);

#endif
