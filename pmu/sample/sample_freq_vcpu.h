/* Frequency mode on a VCPU (sample.freq=, VERTIGO_SESSION_FREQ): each
 * sampled counter's period controller (pmu/sample/sample_freq.h) moves at every
 * overflow the VCPU takes, over the TSC ticks since its previous one, and
 * the VCPU's event-period records keep every sample attributed to the
 * period that produced it (docs/log-format.md, event-period). */
#ifndef PMU_SAMPLE_FREQ_VCPU_H
#define PMU_SAMPLE_FREQ_VCPU_H

#include <stdint.h>

#include "vmm/vcpu.h"

/* The period every sampled counter starts with at freq samples a second. */
uint64_t sample_freq_first_period(uint32_t freq);

/* Frequency mode for v's sampled counters (v->pmu.sample.mask, programmed
 * with sample_freq_first_period), or off with freq 0. */
void sample_freq_vcpu_start(struct vcpu *v, uint32_t freq);

/* The overflows of mask (bit i: counter i) were taken: each sampled
 * counter's next period from its rate since its previous overflow. */
void sample_freq_overflows(struct vcpu *v, uint32_t mask);

/* Before v's sample of counter i is logged: the VCPU's event-period record
 * if the period that sample stands for is not the one the log has. */
void sample_freq_log_period(struct vcpu *v, unsigned int i);

/* "pmu: vcpu N: sampled EVENT at F a second: ..." for each sampled counter. */
void sample_freq_vcpu_report(const struct vcpu *v);

#endif
