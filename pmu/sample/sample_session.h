/* Sampling sessions. A session samples either PMU events every `period`
 * events (overflows of the counters pmu/sample/sample_apply.c programs) or guest
 * time at a frequency (the shared VM-exit timer). Either way the sample is
 * taken by a PMI that is a real NMI (pmu/run/pmu_pmi.h, pmu/sample/sample_nmi.h).
 *
 * Sessions start from the hypervisor command line
 *   sample.events=LIST sample.period=N [sample.depth=D]   event sampling
 *   sample.events=LIST sample.freq=F [sample.depth=D]     ... F times a second
 *   sample.hz=H [sample.depth=D]                          timer sampling
 * or from the guest kernel (VERTIGO_HC_SESSION_START/STOP), and stop at
 * the end of the domain. One session per run; each VCPU applies a session
 * change on its own CPU between an exit and the next entry. A session of
 * one process (VERTIGO_SESSION_PROCESS) samples only while the guest runs
 * on that process's page tables (sample_scope_set, pmu/sample/sample_nmi.h). */
#ifndef PMU_SAMPLE_SESSION_H
#define PMU_SAMPLE_SESSION_H

#include <stdint.h>

#include "vertigo/hypercall.h"
#include "vmm/hypercall.h"
#include "vmm/vcpu.h"

/* The session cmdline's sample.* options ask for, into *out; false if
 * none, or (printed, with the reason) if they are bad. */
bool sample_session_from_cmdline(const char *cmdline, struct vertigo_session *out);

/* Once per VCPU after its PMU started: makes v this CPU's sampled VCPU;
 * the first call starts the command line's session, if any. */
void sample_vcpu_start(struct vcpu *v);

/* Before each entry: applies a session that started or stopped since v
 * last ran. */
void sample_before_entry(struct vcpu *v);

/* v's counting events changed under the session applied to it (the
 * guest started or stopped its multiplexing session, which re-programs
 * v's context with its events alone): a session sampling events there is
 * applied again before v's next entry, beside the new counting events,
 * and samples nothing until then. */
void sample_vcpu_counting_changed(struct vcpu *v);

/* After each exit: a timer sample is due when the sampling deadline passed. */
void sample_after_exit(struct vcpu *v);

/* Who a session samples: every domain's VCPUs (a session from the command
 * line, or from a domain sample.control= names), or one domain's. */
#define SAMPLE_OWNER_MACHINE UINT32_MAX

/* Starts validated session s (sample_session_check) for `who` (printed),
 * sampling `owner`'s VCPUs (a domain id, or SAMPLE_OWNER_MACHINE): 0,
 * -VERTIGO_EBUSY when one runs, -VERTIGO_EINVAL when the backend cannot
 * sample its events or the TSC rate is unknown. */
int64_t sample_session_start(const struct vertigo_session *s, const char *who,
                             uint32_t owner);

/* Stops the running session: the samples it logged, or -VERTIGO_EINVAL. */
int64_t sample_session_stop(void);

/* A domain's kernel asks to stop the session: as sample_session_stop for
 * its own session, or for any with machine-wide control; -VERTIGO_EPERM
 * for a session another domain or the command line started. */
int64_t sample_session_stop_by(uint32_t domain);

/* True if sample.control= grants `domain`'s kernel machine-wide control:
 * its sessions sample every domain and it may stop any session. */
bool sample_domain_controls_machine(uint32_t domain);

/* End of the domain: prints the per-CPU sampling statistics of its
 * VCPUs' CPUs, and stops the session if the run ends with it (run_ends);
 * while other domains are left it goes on sampling them. */
void sample_report(const struct domain *d, bool run_ends);

/* End of the domain: the symbol records of its guest that were dropped
 * (pmu/sample/sample_guest.c), if any. */
void sample_symbols_report(const struct domain *d);

#endif
