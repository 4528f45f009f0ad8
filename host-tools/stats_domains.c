/* `vertigo stats`' per-domain section (see stats_domains.h). */
#include "host-tools/stats_domains.h"

#include <inttypes.h>

#define TOP_REASONS 4u                  /* exit reasons shown per domain */

static struct stats_domain *domain_of(struct stats_domains *s, uint32_t id)
{
    for (uint32_t i = 0; i < s->count; i++)
        if (s->domains[i].id == id)
            return &s->domains[i];
    if (s->count == STATS_DOMAINS_MAX) {
        s->records_not_shown++;
        return NULL;
    }
    s->domains[s->count] = (struct stats_domain){ .id = id };
    return &s->domains[s->count++];
}

/* Adds a VCPU's counts to its domain's, all or none: a sum that would
 * pass 2^64 - 1 leaves the domain's sums as they were and marks them
 * unknown from that record on (log_arith.h). */
static void add_vcpu_stats(struct stats_domains *s, struct stats_domain *d,
                           const struct log_vcpu_stats *vs, uint64_t offset)
{
    struct stats_domain sum = *d;
    bool ok = !d->overflow && log_add(&sum.exits, vs->exits) &&
              log_add(&sum.switches, vs->switches) && log_add(&sum.switch_ticks, vs->switch_ticks);
    for (uint32_t i = 0; ok && i < vs->count; i++)      /* the decoder checked count */
        ok = log_add(vs->reasons[i].id < SWEVENT_EXIT_REASONS ? &sum.by_reason[vs->reasons[i].id]
                                                             : &sum.reasons_beyond,
                     vs->reasons[i].value);
    d->vcpu_stats++;
    if (ok) {
        sum.vcpu_stats = d->vcpu_stats;
        *d = sum;
    } else if (!d->overflow) {
        d->overflow = true;
        d->overflow_offset = offset;
        log_overflow_note(&s->overflow, offset, "vcpu-stats of domain %u: its exits or switches "
                          "add up past 2^64 - 1", d->id);
    }
}

void stats_domains_add(struct stats_domains *s, const struct logdec_record *r)
{
    struct stats_domain *d = NULL;
    switch (r->type) {
    case LOG_REC_CONFIG:
        domain_names_config(&s->names, r->u.config.text, r->u.config.len);
        return;
    case LOG_REC_SYMBOLS:
        domain_names_shipped(&s->names, r->u.symbols.domain);
        domain_of(s, r->u.symbols.domain);
        return;
    case LOG_REC_SAMPLE:
        if ((d = domain_of(s, r->u.sample.domain)) && r->u.sample.mode < LOG_MODE_COUNT)
            d->samples[r->u.sample.mode]++;
        return;
    case LOG_REC_LIFECYCLE:
        if (!(d = domain_of(s, r->u.lifecycle.domain)))
            return;
        if (r->u.lifecycle.event == LOG_LC_VCPU_ONLINE)
            d->vcpus_online++;
        else if (r->u.lifecycle.event == LOG_LC_DOMAIN_START)
            d->vcpus_online = 0;    /* a restarted domain's VCPUs come online again */
        return;
    case LOG_REC_VCPU_STATS:
        if ((d = domain_of(s, r->u.vcpu_stats.domain)))
            add_vcpu_stats(s, d, &r->u.vcpu_stats, r->offset);
        return;
    default:
        return;
    }
}

/* " (cpuid 120, io 40, ...)": the TOP_REASONS most frequent reasons. */
static void print_top_reasons(FILE *out, const struct stats_domain *d)
{
    bool shown[SWEVENT_EXIT_REASONS] = { false };
    unsigned int n = 0;
    for (; n < TOP_REASONS; n++) {
        int best = -1;
        for (int r = 0; r < (int)SWEVENT_EXIT_REASONS; r++)
            if (!shown[r] && d->by_reason[r] && (best < 0 || d->by_reason[r] > d->by_reason[best]))
                best = r;
        if (best < 0)
            break;
        shown[best] = true;
        char name[48];
        swevent_name(&(struct swevent){ SWEVENT_EXITS_REASON, (uint16_t)best }, name, sizeof(name));
        fprintf(out, "%s%s %" PRIu64, n ? ", " : " (", name + sizeof("exits:") - 1,
                d->by_reason[best]);
    }
    if (n)
        fputc(')', out);
}

static void print_domain(FILE *out, const struct stats_domains *s, const struct stats_domain *d)
{
    char name[DOMAIN_NAME_MAX];
    uint64_t samples = d->samples[0] + d->samples[1] + d->samples[2];
    fprintf(out, "  %s (domain %u%s): %u vcpus online, %" PRIu64 " samples",
            domain_name(&s->names, d->id, name), d->id,
            domain_passive(&s->names, d->id) ? ", passive" : "", d->vcpus_online, samples);
    if (samples)
        fprintf(out, " (hypervisor %" PRIu64 ", kernel %" PRIu64 ", user %" PRIu64 ")",
                d->samples[LOG_MODE_HYPERVISOR], d->samples[LOG_MODE_GUEST_KERNEL],
                d->samples[LOG_MODE_GUEST_USER]);
    fputc('\n', out);
    if (!d->vcpu_stats) {
        fprintf(out, "    exits and switches: not logged (the domain did not end in this log)\n");
        return;
    }
    if (d->overflow) {
        fprintf(out, "    exits and switches: unknown (they add up past 2^64 - 1 at the "
                "vcpu-stats record at offset %" PRIu64 ")\n", d->overflow_offset);
        return;
    }
    fprintf(out, "    exits %" PRIu64, d->exits);
    print_top_reasons(out, d);
    fprintf(out, "; vcpu switches %" PRIu64 ", %" PRIu64 " TSC ticks of PMU switch work",
            d->switches, d->switch_ticks);
    if (d->switches)
        fprintf(out, " (%" PRIu64 " per switch)", d->switch_ticks / d->switches);
    fputc('\n', out);
}

void stats_domains_print(FILE *out, const struct stats_domains *s)
{
    if (!s->count)
        return;
    fprintf(out, "domains:\n");
    for (uint64_t last = 0, done = 0; done < s->count; done++) {    /* by domain number */
        const struct stats_domain *next = NULL;
        for (uint32_t i = 0; i < s->count; i++) {
            const struct stats_domain *d = &s->domains[i];
            if ((!done || d->id > last) && (!next || d->id < next->id))
                next = d;
        }
        print_domain(out, s, next);
        last = next->id;
    }
    if (s->records_not_shown)
        fprintf(out, "  (%" PRIu64 " records of domains beyond the first %u not shown)\n",
                s->records_not_shown, STATS_DOMAINS_MAX);
}
