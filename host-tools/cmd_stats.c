/* vertigo stats FILE|-: summarizes a log: bytes, records per type and per
 * CPU, block sequences and gaps, loss, time span, the latest PMU totals of
 * each VCPU, each domain's samples, exits and VCPU switches, and what each
 * guest did with its virtual PMU. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/log_input.h"
#include "host-tools/log_text.h"
#include "host-tools/profile_cli.h"
#include "host-tools/stats_log.h"
#include "host-tools/stats_domains.h"
#include "host-tools/stats_guest_pmu.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

static void on_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    struct log_stats *s = user;
    (void)offset;
    s->header = *h;
    s->have_header = true;
}

static void on_block(void *user, const struct log_block_header *h, uint64_t offset)
{
    struct cpu_stats *c = &((struct log_stats *)user)->cpus[h->cpu];
    (void)offset;
    if (!c->blocks)
        c->first_seq = h->seq;
    c->last_seq = h->seq;
    c->blocks++;
}

static struct vcpu_totals *find_vcpu(struct log_stats *s, uint32_t domain, uint32_t vcpu)
{
    for (uint32_t i = 0; i < s->vcpu_count; i++)
        if (s->vcpus[i].domain == domain && s->vcpus[i].vcpu == vcpu)
            return &s->vcpus[i];
    if (s->vcpu_count == STATS_VCPUS_MAX)
        return NULL;
    struct vcpu_totals *v = &s->vcpus[s->vcpu_count++];
    v->domain = domain;
    v->vcpu = vcpu;
    return v;
}

static void note_event_name(struct log_stats *s, const struct log_event_desc *ed)
{
    if (ed->event >= STATS_EVENTS_MAX)
        return;
    size_t n = ed->len < STATS_EVENT_NAME_MAX - 1 ? ed->len : STATS_EVENT_NAME_MAX - 1;
    memcpy(s->event_names[ed->event], ed->name, n);
    s->event_names[ed->event][n] = '\0';
    text_clean(s->event_names[ed->event]);   /* the guest's bytes, bound for a terminal */
}

static void on_record(void *user, const struct logdec_record *r)
{
    struct log_stats *s = user;
    s->per_type[r->type]++;
    s->per_type_bytes[r->type] += r->raw_len;
    s->cpus[r->cpu].records++;
    if (!s->have_tsc || r->tsc < s->tsc_min)
        s->tsc_min = r->tsc;
    if (!s->have_tsc || r->tsc > s->tsc_max)
        s->tsc_max = r->tsc;
    s->have_tsc = true;
    if (r->type == LOG_REC_LOSS)
        s->cpus[r->cpu].dropped += r->u.loss.dropped;
    if (r->type == LOG_REC_EVENT_DESC)
        note_event_name(s, &r->u.event_desc);
    guest_pmu_stats_add(&s->guest_pmu, r);
    stats_domains_add(&s->domains, r);
    if (r->type == LOG_REC_PMU_TOTALS) {
        struct vcpu_totals *v = find_vcpu(s, r->u.pmu_totals.domain, r->u.pmu_totals.vcpu);
        if (v)
            v->latest = r->u.pmu_totals;
        else
            s->totals_not_shown++;
    }
}

static void print_header(const struct log_stats *s)
{
    if (s->have_header)
        log_text_header(stdout, &s->header, 0);
    else
        printf("# no stream header\n");
}

static void print_types(const struct log_stats *s)
{
    printf("records by type:\n");
    for (unsigned t = 0; t < 256; t++) {
        if (!s->per_type[t])
            continue;
        const char *name = logdec_type_name((uint8_t)t);
        if (name)
            printf("  %-12s %" PRIu64, name, s->per_type[t]);
        else
            printf("  type-%-7u %" PRIu64, t, s->per_type[t]);
        printf("  (avg %.1f field bytes)\n", (double)s->per_type_bytes[t] / (double)s->per_type[t]);
    }
}

static void print_cpus(const struct log_stats *s)
{
    printf("by cpu:\n");
    for (unsigned c = 0; c < LOG_MAX_CPUS; c++) {
        const struct cpu_stats *cs = &s->cpus[c];
        if (!cs->blocks && !cs->records)
            continue;
        uint64_t span = cs->blocks ? (uint64_t)(uint32_t)(cs->last_seq - cs->first_seq) + 1 : 0;
        char dropped[LOGDEC_COUNT_TEXT];
        printf("  cpu %-3u records=%" PRIu64 " blocks=%" PRIu64 " seq=%u..%u seq_gaps=%" PRIu64
               " ring_dropped=%s\n", c, cs->records, cs->blocks, cs->first_seq,
               cs->last_seq, span - cs->blocks, logdec_count_text(cs->dropped, dropped));
    }
}

static void print_loss(const struct logdec_totals *t)
{
    char dropped[LOGDEC_COUNT_TEXT], blocks[LOGDEC_COUNT_TEXT], records[LOGDEC_COUNT_TEXT];
    printf("loss: ring_dropped=%s blocks_lost=%s records_lost=%s\n",
           logdec_count_text(t->ring_dropped, dropped), logdec_count_text(t->blocks_lost, blocks),
           logdec_count_text(t->records_lost, records));
    printf("problems:");
    bool any = false;
    for (int k = 0; k < LOGDEC_PROBLEM_KINDS; k++) {
        if (t->problems[k]) {
            printf(" %s=%" PRIu64, logdec_problem_name(k), t->problems[k]);
            any = true;
        }
    }
    printf("%s\n", any ? "" : " none");
}

static void print_time(const struct log_stats *s)
{
    if (!s->have_tsc) {
        printf("time span: no records\n");
        return;
    }
    uint64_t ticks = s->tsc_max - s->tsc_min;
    printf("time span: tsc %" PRIu64 "..%" PRIu64 " = %" PRIu64 " ticks", s->tsc_min,
           s->tsc_max, ticks);
    if (s->have_header && s->header.tsc_hz)
        printf(" = %.6f s", (double)ticks / (double)s->header.tsc_hz);
    printf("\n");
}

static void print_pmu_totals(const struct log_stats *s)
{
    if (!s->vcpu_count)
        return;
    printf("pmu totals (latest per vcpu):\n");
    for (uint32_t i = 0; i < s->vcpu_count; i++) {
        const struct vcpu_totals *v = &s->vcpus[i];
        printf("  dom %u vcpu %u:", v->domain, v->vcpu);
        for (uint32_t e = 0; e < v->latest.count; e++) {
            uint32_t id = v->latest.totals[e].id;
            const char *name = id < STATS_EVENTS_MAX && s->event_names[id][0] ? s->event_names[id] : NULL;
            if (name)
                printf(" %s=%" PRIu64, name, v->latest.totals[e].value);
            else
                printf(" event%u=%" PRIu64, id, v->latest.totals[e].value);
        }
        printf("\n");
    }
    if (s->totals_not_shown)
        printf("  (%" PRIu64 " pmu-totals records of VCPUs beyond the first %u not shown)\n",
               s->totals_not_shown, STATS_VCPUS_MAX);
}

static void print_stats(const struct log_stats *s, const struct logdec_totals *t)
{
    print_header(s);
    printf("bytes: total=%" PRIu64 " in_blocks=%" PRIu64 " headers=%" PRIu64 "\n",
           t->bytes, t->block_bytes, t->headers);
    printf("blocks: %" PRIu64 "  records: %" PRIu64 "\n", t->blocks, t->records);
    print_types(s);
    print_cpus(s);
    print_loss(t);
    print_time(s);
    print_pmu_totals(s);
    stats_domains_print(stdout, &s->domains);
    guest_pmu_stats_print(stdout, &s->guest_pmu);
}

const char cmd_stats_help[] = "summarize a profiling log: records, CPUs, loss, time span";

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo stats [--json] [-i] FILE|-\n"
                 "Summarizes a profiling log: its stream header, bytes, records by type and by\n"
                 "CPU, block sequences and gaps, loss, time span, the latest PMU totals of each\n"
                 "VCPU, each domain's samples, exits and VCPU switches, the guests' use of their\n"
                 "virtual PMU.\n"
                 "  -i, --input FILE    the log (the same as giving FILE; - for stdin)\n"
                 "  --json              one JSON object instead (schema vertigo-stats/1)\n"
                 "  -h, --help          this text;  --version  the version\n");
}

static bool set_json(void *settings, const char *unused)
{
    (void)unused;
    *(bool *)settings = true;
    return true;
}

int cmd_stats(int argc, char **argv)
{
    static const struct profile_cli_option options[] = { { "--json", false, set_json } };
    static const struct profile_cli_command command = {
        .name = "stats", .options = options, .option_count = 1, .usage = usage,
    };
    bool json = false;
    const char *input;
    int parsed = profile_cli_args(&command, &json, argc, argv, &input);
    if (parsed >= 0)
        return parsed;
    static const struct logdec_callbacks cb = {
        .header = on_header, .block = on_block, .record = on_record,
    };
    struct log_stats *s = calloc(1, sizeof(*s));
    struct logdec *dec = malloc(sizeof(*dec));
    int status = VERTIGO_EXIT_USAGE;
    if (s && dec) {
        logdec_init(dec, &cb, s);
        status = log_input_decode("stats", input, dec);
    } else {
        fprintf(stderr, "vertigo stats: out of memory\n");
    }
    if (status == VERTIGO_EXIT_OK) {
        if (json)
            stats_json(stdout, s, &dec->totals);
        else
            print_stats(s, &dec->totals);
        status = log_input_exit_status("stats", input, dec);
        log_overflow_print(stderr, "stats", input, &s->domains.overflow);
        if (s->domains.overflow.hit && status == VERTIGO_EXIT_OK)
            status = VERTIGO_EXIT_OVERFLOW;
        if (status != VERTIGO_EXIT_NO_LOG)
            status = log_output_status("stats", status);
    }
    free(dec);
    free(s);
    return status;
}
