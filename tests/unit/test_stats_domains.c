/* `vertigo stats`' per-domain section (host-tools/stats_domains.c) fed a
 * synthetic log's records: three domains named by Vertigo's command line
 * (config record), one passive; their samples by mode, their VCPUs
 * online, and the exits and VCPU switches of their vcpu-stats records
 * summed over VCPUs, the most frequent exit reasons named; a domain that
 * did not end says its exits were not logged. */
#include <stdlib.h>
#include <string.h>

#include "host-tools/stats_domains.h"
#include "tests/unit/unit.h"

static struct stats_domains stats;

static void feed(uint8_t type, const union log_record_value *u)
{
    struct logdec_record r = { .type = type };
    memcpy(&r.u, u, sizeof(r.u));
    stats_domains_add(&stats, &r);
}

static void vcpu_stats(uint32_t domain, uint32_t vcpu, uint64_t cpuid, uint64_t timer,
                       uint64_t switches, uint64_t ticks)
{
    union log_record_value u = { .vcpu_stats = { .domain = domain, .vcpu = vcpu,
        .exits = cpuid + timer, .switches = switches, .switch_ticks = ticks, .count = 2,
        .reasons = { { 10, cpuid }, { 52, timer } } } };
    feed(LOG_REC_VCPU_STATS, &u);
}

static void samples(uint32_t domain, uint8_t mode, unsigned int n)
{
    union log_record_value u = { .sample = { .domain = domain, .mode = mode } };
    for (unsigned int i = 0; i < n; i++)
        feed(LOG_REC_SAMPLE, &u);
}

static void online(uint32_t domain, uint32_t vcpu)
{
    union log_record_value u = { .lifecycle = { .domain = domain, .vcpu = vcpu,
                                                .event = LOG_LC_VCPU_ONLINE } };
    feed(LOG_REC_LIFECYCLE, &u);
}

TEST(each_domain_by_name_with_its_samples_exits_and_switches)
{
    static const char config[] = "log=e9 dom.1.name=web dom.2.name=batch";
    memset(&stats, 0, sizeof(stats));
    feed(LOG_REC_CONFIG, &(union log_record_value){ .config = { config, sizeof(config) - 1 } });
    feed(LOG_REC_SYMBOLS, &(union log_record_value){ .symbols = { .domain = 0, .kind = 1 } });
    feed(LOG_REC_SYMBOLS, &(union log_record_value){ .symbols = { .domain = 2, .kind = 1 } });
    online(0, 0);
    online(0, 1);
    online(1, 0);
    online(2, 0);
    samples(0, LOG_MODE_GUEST_USER, 5);
    samples(0, LOG_MODE_HYPERVISOR, 1);
    samples(1, LOG_MODE_GUEST_KERNEL, 3);
    vcpu_stats(0, 0, 100, 7, 10, 12000);
    vcpu_stats(0, 1, 20, 1, 0, 0);
    vcpu_stats(1, 0, 2, 300, 11, 13200);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    stats_domains_print(out, &stats);
    fclose(out);
    CHECK_STR(text,
        "domains:\n"
        "  dom0 (domain 0): 2 vcpus online, 6 samples (hypervisor 1, kernel 0, user 5)\n"
        "    exits 128 (cpuid 120, preemption_timer 8); vcpu switches 10, 12000 TSC ticks of "
        "PMU switch work (1200 per switch)\n"
        "  web (domain 1, passive): 1 vcpus online, 3 samples (hypervisor 0, kernel 3, user 0)\n"
        "    exits 302 (preemption_timer 300, cpuid 2); vcpu switches 11, 13200 TSC ticks of "
        "PMU switch work (1200 per switch)\n"
        "  batch (domain 2): 1 vcpus online, 0 samples\n"
        "    exits and switches: not logged (the domain did not end in this log)\n");
    free(text);
}

/* Nothing seen, nothing printed; more domains than the table counts the
 * rest instead of dropping them silently. */
/* A domain restarted by its reset request starts again (domain-start) and
 * its VCPU comes online again: still one VCPU online. */
TEST(a_restarted_domain_counts_its_vcpus_once)
{
    memset(&stats, 0, sizeof(stats));
    for (int boot = 0; boot < 3; boot++) {
        feed(LOG_REC_LIFECYCLE, &(union log_record_value){ .lifecycle = {
            .domain = 1, .event = LOG_LC_DOMAIN_START } });
        online(1, 0);
    }
    CHECK_EQ(stats.count, 1);
    CHECK_EQ(stats.domains[0].vcpus_online, 1);
}

TEST(no_domain_prints_nothing_and_extra_domains_are_counted)
{
    char *text = NULL;
    size_t len = 0;
    memset(&stats, 0, sizeof(stats));
    FILE *out = open_memstream(&text, &len);
    stats_domains_print(out, &stats);
    fclose(out);
    CHECK_EQ(len, 0);
    free(text);
    for (uint32_t d = 0; d < STATS_DOMAINS_MAX + 3; d++)
        online(d, 0);
    CHECK_EQ(stats.count, STATS_DOMAINS_MAX);
    CHECK_EQ(stats.records_not_shown, 3);
}

/* Two VCPUs of 2^63 exits each: their sum does not fit in 64 bits, so the
 * domain's exits are unknown, with the record named, never a wrapped 0. */
TEST(exit_sums_past_64_bits_are_an_error_naming_the_record)
{
    memset(&stats, 0, sizeof(stats));
    union log_record_value u = { .vcpu_stats = { .domain = 3, .exits = 1ull << 63,
                                                 .count = 1, .reasons = { { 10, 1ull << 63 } } } };
    struct logdec_record r = { .type = LOG_REC_VCPU_STATS, .offset = 100 };
    memcpy(&r.u, &u, sizeof(r.u));
    stats_domains_add(&stats, &r);
    r.offset = 200;
    r.u.vcpu_stats.vcpu = 1;
    stats_domains_add(&stats, &r);
    CHECK(stats.overflow.hit);
    CHECK_EQ(stats.overflow.offset, 200);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    stats_domains_print(out, &stats);
    fclose(out);
    CHECK(strstr(text, "exits and switches: unknown (they add up past 2^64 - 1 at the vcpu-stats "
                       "record at offset 200)") != NULL);
    CHECK(!strstr(text, "exits 0"));
    free(text);
}
