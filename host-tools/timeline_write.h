/* The writers of `vertigo timeline`: the rows of interval multiplexing
 * sessions as a table (CSV or TSV), as Chrome Trace Event JSON (one
 * counter track per event and VCPU) and as a PNG of one panel per event
 * (gnuplot). ev[0..n-1] are the chosen events' ids. */
#ifndef HOST_TOOLS_TIMELINE_WRITE_H
#define HOST_TOOLS_TIMELINE_WRITE_H

#include <stdbool.h>
#include <stdio.h>

#include "host-tools/interval_rows.h"

/* The x axis of the trace and the plot. */
enum timeline_x {
    TIMELINE_X_TIME,            /* seconds from the first row (TSC / tsc_hz) */
    TIMELINE_X_INSTRUCTIONS,    /* the VCPU's retired instructions */
};

/* One line per row: domain, vcpu, interval, instructions, tsc, tsc_span,
 * then per event its extrapolated value and NAME:raw, NAME:running,
 * NAME:how (measured, extrapolated, unmeasured). sep is ',' or '\t'. */
bool timeline_write_table(FILE *out, const struct iv_set *s, const unsigned int *ev,
                          unsigned int n, char sep);

/* {"traceEvents":[...]}: a process per domain, a thread per VCPU, and a
 * counter ("ph":"C") per row and event, named "NAME" ("vN NAME" when the
 * log has several VCPUs), at the row's start. ts is in microseconds: of
 * time, or one per retired instruction with TIMELINE_X_INSTRUCTIONS. */
bool timeline_write_trace(FILE *out, const struct iv_set *s, const unsigned int *ev,
                          unsigned int n, enum timeline_x x);

/* A PNG at png, one panel per event over x, titled with the log and the
 * interval: a line per VCPU, the y axis from 0 labelled with the event and
 * "per N instr.", extrapolated values marked with circles and rows where
 * the event was not measured with crosses at 0, the x axis labelled with
 * its unit and the platform (plot_platform). keep_script (or NULL) keeps
 * the gnuplot script there and its data beside it. Returns an enum
 * vertigo_exit. */
int timeline_plot(const struct iv_set *s, const unsigned int *ev, unsigned int n,
                  enum timeline_x x, const char *png, const char *keep_script);

#endif
