/* Interval rows of a log (see interval_rows.h). */
#include "host-tools/interval_rows.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/log_input.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"
#include "pmu/mux/mux.h"
#include "vmm/log/log_varint.h"

/* Room for need more bytes; false (and no_memory) if there is none. */
static bool bytes_room(struct iv_set *s, size_t need)
{
    if (s->byte_cap - s->byte_count >= need)
        return true;
    size_t cap = s->byte_cap ? 2 * s->byte_cap : 4096;
    while (cap - s->byte_count < need)
        cap *= 2;
    uint8_t *bytes = realloc(s->bytes, cap);
    if (!bytes) {
        s->no_memory = true;
        return false;
    }
    s->bytes = bytes;
    s->byte_cap = cap;
    return true;
}

static void put_varint(struct iv_set *s, uint64_t v)
{
    s->byte_count += log_varint_put(s->bytes + s->byte_count, v);
}

void iv_add_row(struct iv_set *s, const struct log_interval *iv, uint64_t tsc, uint64_t offset)
{
    if (tsc < iv->tsc_span) {           /* it would have started before TSC 0 */
        log_overflow_note(&s->overflow, offset, "interval row of dom %u vcpu %u: its tsc_span "
                          "%" PRIu64 " is more than its TSC %" PRIu64, iv->domain, iv->vcpu,
                          iv->tsc_span, tsc);
        return;
    }
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct iv_row *rows = realloc(s->rows, cap * sizeof(*rows));
        if (!rows) {
            s->no_memory = true;
            return;
        }
        s->rows = rows;
        s->cap = cap;
    }
    /* the decoder checked count (<= IV_EVENTS_MAX) */
    if (!bytes_room(s, (1u + 2u * (size_t)iv->count) * LOG_VARINT_MAX))
        return;
    s->rows[s->count++] = (struct iv_row){
        .domain = iv->domain, .vcpu = iv->vcpu, .number = iv->number,
        .instructions = iv->instructions, .tsc_span = iv->tsc_span,
        .tsc_start = tsc - iv->tsc_span, .bytes = s->byte_count, .count = iv->count,
    };
    put_varint(s, offset);
    for (uint32_t e = 0; e < iv->count; e++) {
        put_varint(s, iv->events[e].raw);
        put_varint(s, iv->instructions - iv->events[e].running);
    }
    if (iv->count > s->event_count)
        s->event_count = iv->count;
}

/* The next varint of the row bytes at *p (iv_add_row wrote them). */
static uint64_t get_varint(const struct iv_set *s, const uint8_t **p)
{
    uint64_t v = 0;
    (void)log_varint_get(p, s->bytes + s->byte_count, &v);
    return v;
}

uint64_t iv_row_offset(const struct iv_set *s, const struct iv_row *r)
{
    const uint8_t *p = s->bytes + r->bytes;
    return get_varint(s, &p);
}

void iv_row_events(const struct iv_set *s, const struct iv_row *r, struct iv_events *out)
{
    const uint8_t *p = s->bytes + r->bytes;
    (void)get_varint(s, &p);            /* the offset */
    out->count = r->count;
    for (uint32_t e = 0; e < r->count; e++) {
        out->raw[e] = get_varint(s, &p);
        out->running[e] = r->instructions - get_varint(s, &p);
        out->how[e] = (uint8_t)mux_extrapolate(out->raw[e], r->instructions, out->running[e],
                                               &out->value[e]);
    }
}

static void on_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    (void)offset;
    ((struct iv_set *)user)->tsc_hz = h->tsc_hz;
    ((struct iv_set *)user)->pmu_backend = h->pmu.backend;
}

static void on_record(void *user, const struct logdec_record *r)
{
    struct iv_set *s = user;
    if (r->type == LOG_REC_INTERVAL) {
        iv_add_row(s, &r->u.interval, r->tsc, r->offset);
    } else if (r->type == LOG_REC_CONFIG) {
        domain_names_config(&s->domains, r->u.config.text, r->u.config.len);
    } else if (r->type == LOG_REC_EVENT_DESC && r->u.event_desc.event < IV_EVENTS_MAX) {
        const struct log_event_desc *ed = &r->u.event_desc;
        size_t n = ed->len < IV_NAME_MAX - 1 ? ed->len : IV_NAME_MAX - 1;
        memcpy(s->names[ed->event], ed->name, n);
        s->names[ed->event][n] = '\0';
        text_clean(s->names[ed->event]);     /* the guest's bytes, bound for terminals */
    }
}

static int row_cmp(const void *a, const void *b)
{
    const struct iv_row *x = a, *y = b;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    if (x->vcpu != y->vcpu)
        return x->vcpu < y->vcpu ? -1 : 1;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return x->tsc_start < y->tsc_start ? -1 : x->tsc_start > y->tsc_start;
}

static bool same_vcpu(const struct iv_row *a, const struct iv_row *b)
{
    return a->domain == b->domain && a->vcpu == b->vcpu;
}

/* Row i follows row `prev` of the same VCPU: names a gap between them. */
static void note_gap(struct iv_set *s, const struct iv_row *prev, const struct iv_row *r,
                     const char *cmd, FILE *err)
{
    uint64_t first = prev ? prev->number + 1 : 0;
    if (r->number <= first)
        return;
    if (!log_add(&s->missing, r->number - first))
        log_overflow_note(&s->overflow, iv_row_offset(s, r), "interval row of dom %u vcpu %u: "
                          "the rows missing before it add up past 2^64 - 1", r->domain, r->vcpu);
    if (err)
        fprintf(err, "vertigo %s: dom %u vcpu %u: intervals %" PRIu64 "..%" PRIu64
                " missing (%" PRIu64 " rows lost)\n", cmd, r->domain, r->vcpu, first,
                r->number - 1, r->number - first);
}

/* Whether the rows are in order already (one VCPU's rows come in order;
 * then the sort and the memory it takes are spared). */
static bool rows_sorted(const struct iv_set *s)
{
    for (size_t i = 1; i < s->count; i++)
        if (row_cmp(&s->rows[i - 1], &s->rows[i]) > 0)
            return false;
    return true;
}

void iv_finish(struct iv_set *s, const char *cmd, FILE *err)
{
    if (!rows_sorted(s))
        qsort(s->rows, s->count, sizeof(*s->rows), row_cmp);
    size_t kept = 0;
    uint64_t x = 0;
    for (size_t i = 0; i < s->count; i++) {
        struct iv_row *r = &s->rows[i];
        const struct iv_row *prev = kept && same_vcpu(&s->rows[kept - 1], r) ? &s->rows[kept - 1]
                                                                             : NULL;
        if (prev && prev->number == r->number) {
            s->repeated++;
            continue;
        }
        note_gap(s, prev, r, cmd, err);
        x = prev ? x : 0;
        s->rows[kept] = *r;
        s->rows[kept].x_instructions = x;
        if (!log_add(&x, r->instructions))
            log_overflow_note(&s->overflow, iv_row_offset(s, r), "interval row of dom %u vcpu "
                              "%u: the VCPU's instructions add up past 2^64 - 1", r->domain,
                              r->vcpu);
        kept++;
    }
    s->count = kept;
    if (s->repeated && err)
        fprintf(err, "vertigo %s: %" PRIu64 " rows repeated an interval number (dropped)\n", cmd,
                s->repeated);
}

int iv_load(struct iv_set *s, const char *cmd, const char *path)
{
    static const struct logdec_callbacks cb = { .header = on_header, .record = on_record };
    struct logdec *dec = malloc(sizeof(*dec));
    memset(s, 0, sizeof(*s));
    if (!dec) {
        fprintf(stderr, "vertigo %s: out of memory\n", cmd);
        return VERTIGO_EXIT_USAGE;
    }
    s->source = path;
    logdec_init(dec, &cb, s);
    int status = log_input_decode(cmd, path, dec);
    if (status == VERTIGO_EXIT_OK)
        status = log_input_exit_status(cmd, path, dec);
    free(dec);
    if (s->no_memory) {
        fprintf(stderr, "vertigo %s: out of memory\n", cmd);
        return VERTIGO_EXIT_USAGE;
    }
    if (status != VERTIGO_EXIT_OK && status != VERTIGO_EXIT_DAMAGED)
        return status;
    iv_finish(s, cmd, stderr);
    if (s->missing || s->repeated)
        status = VERTIGO_EXIT_DAMAGED;
    log_overflow_print(stderr, cmd, path, &s->overflow);
    if (s->overflow.hit)
        status = VERTIGO_EXIT_OVERFLOW;
    return status;
}

void iv_free(struct iv_set *s)
{
    free(s->rows);
    free(s->bytes);
    memset(s, 0, sizeof(*s));
}

const char *iv_event_name(const struct iv_set *s, unsigned int e, char *buf, size_t size)
{
    if (e < IV_EVENTS_MAX && s->names[e][0])
        snprintf(buf, size, "%s", s->names[e]);
    else
        snprintf(buf, size, "event%u", e);
    return buf;
}

/* The event named (or numbered) by the len bytes at text, or -1. */
static int find_event(const struct iv_set *s, const char *text, size_t len)
{
    char name[IV_NAME_MAX];
    for (unsigned int e = 0; e < s->event_count; e++) {
        iv_event_name(s, e, name, sizeof(name));
        if (strlen(name) == len && !memcmp(name, text, len))
            return (int)e;
    }
    char *end;
    unsigned long id = strtoul(text, &end, 10);
    if (len && end == text + len && id < s->event_count)
        return (int)id;
    return -1;
}

int iv_pick_events(const struct iv_set *s, const char *cmd, const char *list, unsigned int *out)
{
    unsigned int n = 0;
    if (!list) {
        for (unsigned int e = 0; e < s->event_count; e++)
            out[n++] = e;
        return (int)n;
    }
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        int e = find_event(s, p, len);
        if (e < 0 || n == IV_EVENTS_MAX) {
            fprintf(stderr, "vertigo %s: %s '%.*s' (the rows have %u events: names from the "
                    "log's event-desc records, or ids 0..%u)\n", cmd,
                    e < 0 ? "unknown event" : "too many events at", (int)len, p, s->event_count,
                    s->event_count ? s->event_count - 1 : 0);
            return -1;
        }
        out[n++] = (unsigned int)e;
        if (!p[len])
            return (int)n;
        p += len + 1;
    }
}

const char *iv_how_name(enum iv_how how)
{
    switch (how) {
    case IV_MEASURED: return "measured";
    case IV_SCALED: return "extrapolated";
    case IV_UNMEASURED: return "unmeasured";
    }
    return "?";
}

_Static_assert(IV_MEASURED == (int)MUX_MEASURED && IV_SCALED == (int)MUX_SCALED &&
               IV_UNMEASURED == (int)MUX_UNMEASURED, "iv_how mirrors mux_estimate");

uint64_t iv_interval_length(const struct iv_set *s)
{
    uint64_t shortest_full = UINT64_MAX, largest = 0;
    for (size_t i = 0; i < s->count; i++) {
        const struct iv_row *r = &s->rows[i];
        bool last = i + 1 == s->count || s->rows[i + 1].domain != r->domain ||
                    s->rows[i + 1].vcpu != r->vcpu;
        largest = r->instructions > largest ? r->instructions : largest;
        if (!last && r->instructions < shortest_full)
            shortest_full = r->instructions;
    }
    return shortest_full != UINT64_MAX ? shortest_full : largest;
}
