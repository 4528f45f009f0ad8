/* What the portable core calls in pmu/, declared here and implemented
 * once there (pmu/run/pmu_loop.c; the probe pmu/backend/pmu_probe.c):
 * the core never includes pmu/'s headers, struct vcpu's embedded PMU
 * part aside (pmu/pmu_vcpu.h). */
#ifndef VMM_PMU_HOOKS_H
#define VMM_PMU_HOOKS_H

#include <stdbool.h>

#include "boot/traps.h"

struct domain;

/* Start-up, in the platform report: probes the PMU (its two "pmu:"
 * report lines) and gives the log's stream header its description. */
void pmu_platform_probe(void);

/* Start-up, before any guest runs: registers the PMU's hypercalls (the
 * counting session's, sampling's, the paravirtual counters', the guest's
 * multiplexing sessions') with the dispatcher. False if a number was
 * taken already (a bug). */
bool pmu_hypercalls_register(void);

/* An NMI taken while Vertigo runs (NMI context): true if it was Vertigo's
 * (samples written) or a guest's NMI queued for this CPU's VCPU; false if
 * it is neither (spurious: the caller reports it). */
bool pmu_nmi_root(const struct trap_frame *frame);

/* The domain is ending, on the CPU that ends it: stops single-stepping
 * Vertigo, whose steps go to the counts first. Before any report. */
void pmu_domain_stopping(const struct domain *d);

/* The domain's PMU reports: the sampling statistics and the counting
 * session's totals, on the console and in the log. run_ends: no other
 * domain is left, so a sampling session (which samples every domain)
 * stops with this one; otherwise it goes on in the others. */
void pmu_domain_report(const struct domain *d, bool run_ends);

#endif
