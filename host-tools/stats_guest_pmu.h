/* `vertigo stats`' guest-PMU section: per VCPU, the events its guest
 * programmed on its virtual PMU (guest-pmu-prog records, named as perf
 * names them: host-tools/guest_pmu_text.h) and the PMIs injected into it,
 * by delivery (guest-pmi records). Fed the decoded records one by one. */
#ifndef HOST_TOOLS_STATS_GUEST_PMU_H
#define HOST_TOOLS_STATS_GUEST_PMU_H

#include <stdint.h>
#include <stdio.h>

#include "host-tools/logdec.h"

#define GUEST_PMU_STATS_VCPUS 64u
#define GUEST_PMU_STATS_PROGS 32u       /* programmings listed per VCPU */

struct guest_pmu_stats_vcpu {
    uint32_t domain, vcpu;
    uint32_t prog_count;
    struct log_guest_pmu_prog progs[GUEST_PMU_STATS_PROGS];
    uint64_t progs_not_listed;          /* further distinct programmings */
    uint64_t pmis[LOG_GUEST_PMI_DELIVERY_COUNT];
};

struct guest_pmu_stats {
    uint32_t vcpu_count;
    struct guest_pmu_stats_vcpu vcpus[GUEST_PMU_STATS_VCPUS];
    uint64_t records_not_shown;         /* records of VCPUs beyond the table */
};

/* Takes r if it is a guest-pmu-prog or guest-pmi record. */
void guest_pmu_stats_add(struct guest_pmu_stats *s, const struct logdec_record *r);

/* Prints the section (nothing if no such record was seen). */
void guest_pmu_stats_print(FILE *out, const struct guest_pmu_stats *s);

#endif
