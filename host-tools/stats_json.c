/* `vertigo stats --json` (see stats_log.h). */
#include <inttypes.h>
#include <stdio.h>

#include "host-tools/stats_log.h"
#include "host-tools/text_quote.h"

static void put_header(FILE *out, const struct log_stats *s)
{
    if (!s->have_header) {
        fputs("\"header\":null,", out);
        return;
    }
    const struct log_stream_header *h = &s->header;
    fprintf(out, "\"header\":{\"version\":%u,\"cpu_count\":%u,\"tsc_hz\":%" PRIu64 ",\"build_id\":\"",
            h->version, h->cpu_count, h->tsc_hz);
    for (unsigned int i = 0; i < LOG_BUILD_ID_SIZE; i++)
        fprintf(out, "%02x", h->build_id[i]);
    fputs("\"},", out);
}

static void put_types(FILE *out, const struct log_stats *s)
{
    bool first = true;
    fputs("\"records_by_type\":{", out);
    for (unsigned int t = 0; t < 256; t++) {
        if (!s->per_type[t])
            continue;
        const char *name = logdec_type_name((uint8_t)t);
        if (name)
            fprintf(out, "%s\"%s\":%" PRIu64, first ? "" : ",", name, s->per_type[t]);
        else
            fprintf(out, "%s\"type-%u\":%" PRIu64, first ? "" : ",", t, s->per_type[t]);
        first = false;
    }
    fputs("},", out);
}

static void put_cpus(FILE *out, const struct log_stats *s)
{
    bool first = true;
    fputs("\"cpus\":[", out);
    for (unsigned int c = 0; c < LOG_MAX_CPUS; c++) {
        const struct cpu_stats *cs = &s->cpus[c];
        if (!cs->blocks && !cs->records)
            continue;
        uint64_t span = cs->blocks ? (uint64_t)(uint32_t)(cs->last_seq - cs->first_seq) + 1 : 0;
        char dropped[LOGDEC_COUNT_TEXT];
        fprintf(out, "%s{\"cpu\":%u,\"records\":%" PRIu64 ",\"blocks\":%" PRIu64 ",\"first_seq\":%u,"
                "\"last_seq\":%u,\"seq_gaps\":%" PRIu64 ",\"ring_dropped\":%s}", first ? "" : ",",
                c, cs->records, cs->blocks, cs->first_seq, cs->last_seq, span - cs->blocks,
                logdec_count_text(cs->dropped, dropped));
        first = false;
    }
    fputs("],", out);
}

static void put_loss(FILE *out, const struct logdec_totals *t)
{
    char dropped[LOGDEC_COUNT_TEXT], blocks[LOGDEC_COUNT_TEXT], records[LOGDEC_COUNT_TEXT];
    fprintf(out, "\"loss\":{\"ring_dropped\":%s,\"blocks_lost\":%s,\"records_lost\":%s},\"problems\":{",
            logdec_count_text(t->ring_dropped, dropped), logdec_count_text(t->blocks_lost, blocks),
            logdec_count_text(t->records_lost, records));
    bool first = true;
    for (int k = 0; k < LOGDEC_PROBLEM_KINDS; k++)
        if (t->problems[k]) {
            fprintf(out, "%s\"%s\":%" PRIu64, first ? "" : ",", logdec_problem_name(k), t->problems[k]);
            first = false;
        }
    fputs("},", out);
}

static void put_time(FILE *out, const struct log_stats *s)
{
    if (!s->have_tsc) {
        fputs("\"time_span\":null,", out);
        return;
    }
    uint64_t ticks = s->tsc_max - s->tsc_min;
    fprintf(out, "\"time_span\":{\"tsc_first\":%" PRIu64 ",\"tsc_last\":%" PRIu64 ",\"ticks\":%" PRIu64
            ",\"seconds\":", s->tsc_min, s->tsc_max, ticks);
    if (s->have_header && s->header.tsc_hz)
        fprintf(out, "%.9f},", (double)ticks / (double)s->header.tsc_hz);
    else
        fputs("null},", out);
}

static void put_pmu_totals(FILE *out, const struct log_stats *s)
{
    fputs("\"pmu_totals\":[", out);
    for (uint32_t i = 0; i < s->vcpu_count; i++) {
        const struct vcpu_totals *v = &s->vcpus[i];
        fprintf(out, "%s{\"domain\":%u,\"vcpu\":%u,\"events\":{", i ? "," : "", v->domain, v->vcpu);
        for (uint32_t e = 0; e < v->latest.count; e++) {
            uint32_t id = v->latest.totals[e].id;
            char name[STATS_EVENT_NAME_MAX];
            if (id < STATS_EVENTS_MAX && s->event_names[id][0])
                snprintf(name, sizeof(name), "%s", s->event_names[id]);
            else
                snprintf(name, sizeof(name), "event%u", id);
            fputs(e ? "," : "", out);
            json_put_string(out, name);
            fprintf(out, ":%" PRIu64, v->latest.totals[e].value);
        }
        fputs("}}", out);
    }
    fprintf(out, "],\"pmu_totals_not_shown\":%" PRIu64 ",", s->totals_not_shown);
}

static void put_domain(FILE *out, const struct stats_domains *ds, const struct stats_domain *d)
{
    char name[DOMAIN_NAME_MAX];
    fprintf(out, "{\"id\":%u,\"name\":", d->id);
    json_put_string(out, domain_name(&ds->names, d->id, name));
    fprintf(out, ",\"passive\":%s,\"vcpus_online\":%u,\"samples\":{\"hypervisor\":%" PRIu64
            ",\"kernel\":%" PRIu64 ",\"user\":%" PRIu64 "}", domain_passive(&ds->names, d->id) ? "true" : "false",
            d->vcpus_online, d->samples[LOG_MODE_HYPERVISOR], d->samples[LOG_MODE_GUEST_KERNEL],
            d->samples[LOG_MODE_GUEST_USER]);
    if (!d->vcpu_stats || d->overflow) {        /* not logged, or past 2^64 - 1 */
        fputs(",\"exits\":null,\"switches\":null}", out);
        return;
    }
    fprintf(out, ",\"exits\":{\"total\":%" PRIu64 ",\"by_reason\":{", d->exits);
    bool first = true;
    for (unsigned int r = 0; r < SWEVENT_EXIT_REASONS; r++) {
        if (!d->by_reason[r])
            continue;
        char reason[48];
        swevent_name(&(struct swevent){ SWEVENT_EXITS_REASON, (uint16_t)r }, reason, sizeof(reason));
        fprintf(out, "%s\"%s\":%" PRIu64, first ? "" : ",", reason + sizeof("exits:") - 1,
                d->by_reason[r]);
        first = false;
    }
    fprintf(out, "}},\"switches\":{\"count\":%" PRIu64 ",\"pmu_ticks\":%" PRIu64 "}}", d->switches,
            d->switch_ticks);
}

/* By domain number, as the text lists them. */
static void put_domains(FILE *out, const struct stats_domains *ds)
{
    fputs("\"domains\":[", out);
    for (uint64_t last = 0, done = 0; done < ds->count; done++) {
        const struct stats_domain *next = NULL;
        for (uint32_t i = 0; i < ds->count; i++) {
            const struct stats_domain *d = &ds->domains[i];
            if ((!done || d->id > last) && (!next || d->id < next->id))
                next = d;
        }
        fputs(done ? "," : "", out);
        put_domain(out, ds, next);
        last = next->id;
    }
    fputs("]", out);
}

void stats_json(FILE *out, const struct log_stats *s, const struct logdec_totals *t)
{
    fputs("{\"schema\":\"vertigo-stats/1\",", out);
    put_header(out, s);
    fprintf(out, "\"bytes\":{\"total\":%" PRIu64 ",\"in_blocks\":%" PRIu64 "},\"headers\":%" PRIu64
            ",\"blocks\":%" PRIu64 ",\"records\":%" PRIu64 ",", t->bytes, t->block_bytes, t->headers,
            t->blocks, t->records);
    put_types(out, s);
    put_cpus(out, s);
    put_loss(out, t);
    put_time(out, s);
    put_pmu_totals(out, s);
    put_domains(out, &s->domains);
    fputs("}\n", out);
}
