/* A sampling session's events on a VCPU's context: the sampled events are
 * counted next to the counting session's (pmu.events=), whose counts are
 * kept across the re-programming, and each sampled counter overflows every
 * `period` events. Positions in the context are the event ids of the
 * samples. */
#ifndef PMU_SAMPLE_APPLY_H
#define PMU_SAMPLE_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vcpu.h"

/* Checks that `events` (a comma-separated list) can be sampled on this
 * run's backend next to the counting session; else false with the reason
 * in why. Reads the PMU configuration first if no VCPU has started yet. */
bool sample_check(const char *events, char *why, unsigned int why_size);

/* Re-programs v's context on this CPU to count the counting session plus
 * `events` sampled every `period` events (NULL or "": sampling off), or
 * with freq (not 0) freq times a second, each counter's period adapting
 * (pmu/sample/sample_freq_vcpu.h), and sets v->pmu.sample.mask; arms
 * single-stepping when a software counter samples Vertigo. Call between
 * an exit and the next entry. False (printed) if it cannot. */
bool sample_apply(struct vcpu *v, const char *events, uint64_t period, uint32_t freq);

#endif
