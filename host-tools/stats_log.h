/* What `vertigo stats` gathers from a log while it is decoded: records
 * by type and CPU, block sequences, the time span, the latest PMU totals
 * of each VCPU, event names, each domain's samples, exits and switches
 * (stats_domains.h), the guests' virtual PMU use (stats_guest_pmu.h). The
 * text is cmd_stats.c's, the JSON (--json) stats_json.c's. */
#ifndef HOST_TOOLS_STATS_LOG_H
#define HOST_TOOLS_STATS_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "host-tools/logdec.h"
#include "host-tools/stats_domains.h"
#include "host-tools/stats_guest_pmu.h"

#define STATS_VCPUS_MAX 64u
#define STATS_EVENT_NAME_MAX 48u
#define STATS_EVENTS_MAX 64u

struct cpu_stats {
    uint64_t records, blocks;
    logdec_count dropped;        /* exact: loss records may sum past 2^64 */
    uint32_t first_seq, last_seq;
};

struct vcpu_totals {
    uint32_t domain, vcpu;
    struct log_pmu_totals latest;
};

struct log_stats {
    struct log_stream_header header;
    bool have_header;
    uint64_t per_type[256];
    uint64_t per_type_bytes[256];    /* type-specific field bytes */
    struct cpu_stats cpus[LOG_MAX_CPUS];
    bool have_tsc;
    uint64_t tsc_min, tsc_max;
    struct vcpu_totals vcpus[STATS_VCPUS_MAX];
    uint32_t vcpu_count;
    uint64_t totals_not_shown;   /* pmu-totals records of VCPUs beyond the table */
    char event_names[STATS_EVENTS_MAX][STATS_EVENT_NAME_MAX];
    struct guest_pmu_stats guest_pmu;
    struct stats_domains domains;
};

/* The whole summary as one JSON object (schema "vertigo-stats/1",
 * docs/user-guide.md "JSON output"). */
void stats_json(FILE *out, const struct log_stats *s, const struct logdec_totals *t);

#endif
