/* The profiling log inside the hypervisor: one ring per CPU in Vertigo's
 * own memory, the log= command-line option, the stream header, and the
 * drain that moves blocks from the rings to the chosen device with
 * bounded work per VM exit and a full flush when the run ends.
 *
 * Producers call the log_hv_* emitters from any context on any CPU: printk
 * (through the console's record sink), the life-cycle points, the PMU
 * session's event descriptions and totals; the sampling code writes its
 * samples into log_hv_ring() itself (NMI context included). They only
 * write the calling CPU's ring and never block. With log=none (the
 * default) every emitter returns at once and nothing is written anywhere.
 * The stream header's facts (TSC rate, PMU) are pushed in with
 * log_hv_set_tsc_hz and log_hv_set_pmu; the log reads nothing above it. */
#ifndef VMM_LOG_HV_H
#define VMM_LOG_HV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vertigo/log_format.h"
#include "vmm/log/log_drain.h"
#include "vmm/log/log_ring.h"

#define LOG_HV_RING_BYTES  (64u * 1024u)   /* per CPU */
#define LOG_HV_POLL_BYTES  4096u           /* device bytes per log_hv_poll */

/* Reads log= from the hypervisor command line, opens the drain device
 * and prepares the rings. Call once on the boot CPU after con_init();
 * a bad value or a missing device is reported and means no log. With
 * log=e9 (or a UART the console uses) the console stops writing raw text
 * to that port: the binary stream owns it, console text travels in
 * console records (log_hv_console becomes the console's record sink).
 * Also records the command line as a config record. */
void log_hv_init(const char *cmdline);

/* The TSC rate for the stream header and the drain's rests (0, the
 * default, means unknown: no rests). vmm_start calls it once the TSC is
 * calibrated; the header takes the value current when it is sent. */
void log_hv_set_tsc_hz(uint64_t tsc_hz);

/* The PMU description for the stream header (all zero, backend none,
 * until set). Set after the PMU probe and again once the session's
 * backend is chosen; the header takes the value current when it is sent
 * (at the first poll or flush), so set it before the first guest entry. */
void log_hv_set_pmu(const struct log_pmu_desc *pmu);

/* Emits one event-description record (name of an event id in totals). */
void log_hv_event_desc(const struct log_event_desc *ed);

/* Emits one event-period record (what a sample of an event id stands for). */
void log_hv_event_period(const struct log_event_period *ep);

/* Emits one PMU-totals record (counts of one VCPU). */
void log_hv_pmu_totals(const struct log_pmu_totals *pt);

/* Emits one interval record (a row of an interval multiplexing session). */
void log_hv_interval(const struct log_interval *iv);

/* Emits one interval-events record (the event ids of a VCPU's next rows). */
void log_hv_interval_events(const struct log_interval_events *ie);

/* Emits one swcounters record (a VCPU's counts by id). */
void log_hv_swcounters(const struct log_swcounters *sw);

/* Emits one vcpu-stats record (a VCPU's exits and switches). */
void log_hv_vcpu_stats(const struct log_vcpu_stats *vs);

/* True once log_hv_init chose a working drain. */
bool log_hv_active(void);

/* The drain in use (kind LOG_DRAIN_NONE when inactive). vmx/io_policy.c
 * keeps a log UART away from the guest with it. */
struct log_drain log_hv_drain(void);

/* This CPU's ring, or NULL when inactive (for emitters in other
 * subsystems that call log_emit_* themselves, e.g. PMU samples). */
struct log_ring *log_hv_ring(void);

/* Emits one console record (source: the hypervisor) with len bytes of
 * text, cut to LOG_TEXT_MAX. The console's record sink (lib/console.h):
 * callable from any context, never blocks. */
void log_hv_console(const char *text, size_t len);

/* Emits one console record of a domain's output (source: its id), within
 * that domain's share of this CPU's ring (vmm/log/log_quota.h): a record past
 * it is refused and counted for the domain. */
void log_hv_domain_console(uint32_t domain, const char *text, size_t len);

/* Emits one symbols record of rec->domain's guest, within that domain's
 * share of this CPU's ring; false if refused there or dropped. */
bool log_hv_domain_symbols(const struct log_symbols *rec);

/* Records of a domain's guest refused over its share, on every CPU. */
uint64_t log_hv_domain_refused(uint32_t domain);

/* Emits one life-cycle record (enum log_lifecycle_event). */
void log_hv_lifecycle(uint32_t domain, uint32_t vcpu, enum log_lifecycle_event event,
                      uint64_t arg);

/* A VCPU is about to enter its guest for the first time: emits
 * vcpu-online (arg: the physical CPU) and, for VCPU 0, domain-create
 * (arg: the domain's VCPU count) and domain-start before it. */
void log_hv_vcpu_online(uint32_t domain, uint32_t vcpu, uint32_t cpu, uint32_t vcpu_count);

/* Bounded drain step for VM-exit and idle points: sends the stream header
 * if not yet sent, then at most LOG_HV_POLL_BYTES bytes of blocks to the
 * device, without waiting for it. Once every ring is empty the drain
 * rests (a tenth of a second of TSC time, or until the calling CPU's
 * ring holds 2 KiB) so blocks carry many records; a resting poll costs a
 * comparison with now_tsc (the caller's fresh TSC reading) and one ring
 * check. Returns at once if another drain is running (or this CPU is
 * inside one, e.g. from an NMI). */
void log_hv_poll(uint64_t now_tsc);

/* Sends everything the rings hold (and the pending loss counts), waiting
 * for the device. For the end of a domain and of the run (log_hv_init
 * registers it as a run_end flush hook). Skipped when this CPU is already
 * inside a drain. */
void log_hv_flush(void);

#endif
