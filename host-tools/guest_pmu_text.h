/* Names for what the guest's virtual PMU records say (log types
 * guest-pmu-prog and guest-pmi): the counter ("gp0", "fixed1"), the event
 * its control selects in perf's words ("instructions:u", "cycles:uk",
 * "raw 0x01c2:k", with "+pmi" when its overflow interrupts) and how a PMI
 * went ("nmi", "vector", "masked"). Shared by `vertigo decode` and
 * `vertigo stats`. */
#ifndef HOST_TOOLS_GUEST_PMU_TEXT_H
#define HOST_TOOLS_GUEST_PMU_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define GUEST_PMU_TEXT_MAX 40u      /* bytes of any name below, NUL included */

/* counter: LOG_GUEST_COUNTER_FIXED numbering; "gpK", "fixedJ". */
void guest_pmu_counter_text(uint8_t counter, char out[GUEST_PMU_TEXT_MAX]);

/* The event counter's control selects, its modes and PMI bit. */
void guest_pmu_event_text(uint8_t counter, uint64_t control, char out[GUEST_PMU_TEXT_MAX]);

/* enum log_guest_pmi_delivery, or NULL for a value it does not define. */
const char *guest_pmu_delivery_name(uint8_t delivery);

#endif
