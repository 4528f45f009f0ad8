/* `vertigo stats`' per-domain section: for each domain the log mentions,
 * by the name Vertigo's command line gave it (host-tools/domain_names.h),
 * its VCPUs, its samples by mode, whether it is passive (shipped no
 * symbols), and from its vcpu-stats records (written when it ended) its
 * VM exits, the most frequent exit reasons, and its VCPU switches with the
 * TSC ticks their PMU work took. Fed the decoded records one by one.
 * The sums are checked: a domain whose sums would pass 2^64 - 1 shows
 * them as unknown, naming the record, and `overflow` holds the first. */
#ifndef HOST_TOOLS_STATS_DOMAINS_H
#define HOST_TOOLS_STATS_DOMAINS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "host-tools/domain_names.h"
#include "host-tools/log_arith.h"
#include "host-tools/logdec.h"
#include "pmu/backend/swevents.h"

#define STATS_DOMAINS_MAX 16u           /* domains listed */

struct stats_domain {
    uint32_t id;
    uint64_t samples[LOG_MODE_COUNT];
    uint32_t vcpus_online;              /* vcpu-online records since its last
                                         * domain-start (a restart starts it again) */
    uint32_t vcpu_stats;                /* vcpu-stats records (VCPUs that reported) */
    uint64_t exits, switches, switch_ticks;
    uint64_t by_reason[SWEVENT_EXIT_REASONS];
    uint64_t reasons_beyond;            /* exits of reasons past the table */
    bool overflow;                      /* a sum passed 2^64 - 1: the sums are unknown */
    uint64_t overflow_offset;           /* at the record of this offset */
};

struct stats_domains {
    struct domain_names names;
    uint32_t count;
    struct stats_domain domains[STATS_DOMAINS_MAX];
    uint64_t records_not_shown;         /* records of domains beyond the table */
    struct log_overflow overflow;       /* the first sum that passed 2^64 - 1 */
};

/* Takes r (samples, symbols, life-cycle, config and vcpu-stats records). */
void stats_domains_add(struct stats_domains *s, const struct logdec_record *r);

/* Prints the section (nothing if no domain was seen). */
void stats_domains_print(FILE *out, const struct stats_domains *s);

#endif
