/* A counting session configured on Vertigo's command line, and the choice
 * of PMU backend (portable policy; the run-time wiring is pmu/run/pmu_run.c):
 *
 *   pmu=auto|hw|soft|off   backend; auto = hw if the probe says the PMU
 *                          counts ("hardware"), else soft. Default auto.
 *   pmu.events=LIST        events every VCPU counts (pmu/backend/pmu_events.h
 *                          names, hardware and software events mixed);
 *                          no list: no session, no counting overhead.
 *   pmu.step=N             software backend: guest TSC ticks per step of
 *                          user/kernel attribution (default 10000; 1 is
 *                          exact in Bochs and slow; the guest can change it
 *                          with VERTIGO_HC_PMU_STEP).
 *   pmu.period=N           overflow period of every hardware event (0 or
 *                          absent: count only). Overflows are counted.
 *   pmu.soft.counters=N    software backend: counters offered (1..32,
 *                          default 8); a list needing more is refused,
 *                          unless multiplexed:
 *   pmu.interval=N         interval multiplexing (pmu/mux/pmu_mux.h): one log
 *                          row per N retired instructions per VCPU, the
 *                          events rotating over the counters in turns of
 *   pmu.subinterval=S      S instructions (default N / the number of sets).
 * At the end of the run every VCPU's totals go to the log (event-desc and
 * PMU-totals records) and to the console. */
#ifndef PMU_PMU_SESSION_H
#define PMU_PMU_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu/backend/pmu.h"
#include "pmu/backend/pmu_desc.h"

#define PMU_SESSION_DEFAULT_STEP 10000u
#define PMU_SESSION_EVENTS_MAX   512u     /* bytes of pmu.events= text */

enum pmu_choice {
    PMU_CHOICE_AUTO,
    PMU_CHOICE_HW,
    PMU_CHOICE_SOFT,
    PMU_CHOICE_OFF,
};

/* What the session runs with, decided once at start-up. */
enum pmu_session_backend {
    PMU_SESSION_NONE,           /* pmu=off, or pmu=hw without a working PMU */
    PMU_SESSION_HW,
    PMU_SESSION_SOFT,
};

/* Parses the value of pmu= ("auto", "hw", "soft", "off"); false if unknown. */
bool pmu_choice_parse(const char *text, enum pmu_choice *out);

/* The backend for choice given the probe's verdict: auto takes hw only for
 * PMU_HARDWARE, hw needs PMU_HARDWARE (else none), soft is always soft. */
enum pmu_session_backend pmu_session_decide(enum pmu_choice choice, enum pmu_verdict verdict);

/* Short name of a session backend ("hw", "soft", "none"). */
const char *pmu_session_backend_name(enum pmu_session_backend b);

/* The backend chosen for this run (PMU_SESSION_NONE until chosen); the
 * log stream header names it. */
void pmu_session_set_current(enum pmu_session_backend b);
enum pmu_session_backend pmu_session_current(void);

/* Formats "name=count name=count ..." for every event of ctx into buf like
 * snprintf (counts through be, software events from sw). */
int pmu_session_format_totals(const struct pmu_backend *be, const struct pmu_ctx *ctx,
                              const struct swevent_counts *sw, char *buf, unsigned int size);

struct domain;

/* End of the run: prints every counting VCPU's totals ("pmu: vcpu N:
 * name=count ...") and writes them to the log (per VCPU, the
 * event-description records of its events' run-wide ids, then its
 * PMU-totals record). Does nothing more without a session. First, session or not,
 * one vcpu-stats record per VCPU (exits, VCPU switches). Hypervisor only
 * (pmu/run/pmu_report.c). */
void pmu_session_report(const struct domain *d);

/* Writes one event-description record: event id `id` is `name` (at most
 * name_max bytes, NUL-terminated if shorter) with LOG_EVENT_CODE `code`.
 * The only writer of these records (pmu/run/pmu_report.c). */
void pmu_log_event_desc(uint32_t id, const char *name, size_t name_max, uint64_t code);

/* One event-description record per event of ctx: counters[i] names the
 * run-wide id log_ids[i]. */
void pmu_log_event_names(const struct pmu_ctx *ctx);

#endif
