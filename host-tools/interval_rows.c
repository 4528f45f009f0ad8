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
    if (!bytes_room(s, (2u + 2u * (size_t)iv->count) * LOG_VARINT_MAX))
        return;
    s->rows[s->count++] = (struct iv_row){
        .domain = iv->domain, .vcpu = iv->vcpu, .number = iv->number,
        .instructions = iv->instructions, .tsc_span = iv->tsc_span,
        .tsc_start = tsc - iv->tsc_span, .bytes = s->byte_count, .count = iv->count,
    };
    put_varint(s, offset);
    put_varint(s, interval_ids_current(&s->lists, iv->domain, iv->vcpu));
    for (uint32_t e = 0; e < iv->count; e++) {
        put_varint(s, iv->events[e].raw);
        put_varint(s, iv->instructions - iv->events[e].running);
    }
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

/* The row's list of event ids (interval_ids_of), after its offset. */
static uint32_t row_list(const struct iv_set *s, const struct iv_row *r, const uint8_t **p)
{
    *p = s->bytes + r->bytes;
    (void)get_varint(s, p);             /* the offset */
    return (uint32_t)get_varint(s, p);
}

/* The set's event (column) of id, or IV_EVENTS_MAX if it has none. */
static unsigned int column_of(const struct iv_set *s, uint32_t id)
{
    unsigned int lo = 0, hi = s->event_count;
    while (lo < hi) {
        unsigned int mid = lo + (hi - lo) / 2;
        if (s->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->event_count && s->ids[lo] == id ? lo : IV_EVENTS_MAX;
}

void iv_row_events(const struct iv_set *s, const struct iv_row *r, struct iv_events *out)
{
    const uint8_t *p;
    uint32_t list = row_list(s, r, &p);
    out->count = s->event_count;
    memset(out->in_row, 0, sizeof(out->in_row));
    for (unsigned int c = 0; c < s->event_count; c++) {
        out->raw[c] = out->running[c] = out->value[c] = 0;
        out->how[c] = IV_UNMEASURED;
    }
    for (uint32_t e = 0; e < r->count; e++) {
        uint64_t raw = get_varint(s, &p), running = r->instructions - get_varint(s, &p);
        unsigned int c = column_of(s, interval_ids_of(&s->lists, list, e));
        if (c == IV_EVENTS_MAX)
            continue;                   /* past the set's events: refused by iv_load */
        out->raw[c] = raw;
        out->running[c] = running;
        out->how[c] = (uint8_t)mux_extrapolate(raw, r->instructions, running, &out->value[c]);
        out->in_row[c] = 1;
    }
}

static void on_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    (void)offset;
    ((struct iv_set *)user)->tsc_hz = h->tsc_hz;
    ((struct iv_set *)user)->pmu_backend = h->pmu.backend;
}

/* Event id ed->event is named ed->name (the last description wins). */
static void note_desc(struct iv_set *s, const struct log_event_desc *ed)
{
    uint32_t i = keymap_get(&s->desc_of, ed->event, 0, 0, (uint32_t)s->desc_count);
    if (i == s->desc_count) {
        if (s->desc_count == s->desc_cap) {
            size_t cap = s->desc_cap ? 2 * s->desc_cap : 16;
            char (*descs)[IV_NAME_MAX] = realloc(s->descs, cap * sizeof(*descs));
            if (!descs) {
                s->no_memory = true;
                return;
            }
            s->descs = descs;
            s->desc_cap = cap;
        }
        s->desc_count++;
    }
    size_t n = ed->len < IV_NAME_MAX - 1 ? ed->len : IV_NAME_MAX - 1;
    memcpy(s->descs[i], ed->name, n);
    s->descs[i][n] = '\0';
    text_clean(s->descs[i]);            /* the guest's bytes, bound for terminals */
}

static void on_record(void *user, const struct logdec_record *r)
{
    struct iv_set *s = user;
    if (r->type == LOG_REC_INTERVAL) {
        iv_add_row(s, &r->u.interval, r->tsc, r->offset);
    } else if (r->type == LOG_REC_CONFIG) {
        domain_names_config(&s->domains, r->u.config.text, r->u.config.len);
    } else if (r->type == LOG_REC_INTERVAL_EVENTS) {
        interval_ids_note(&s->lists, &r->u.interval_events);
    } else if (r->type == LOG_REC_EVENT_DESC) {
        note_desc(s, &r->u.event_desc);
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

/* Adds id to the set's events (ascending), or counts it in more_ids. */
static void add_event(struct iv_set *s, uint32_t id)
{
    unsigned int c = column_of(s, id);
    if (c != IV_EVENTS_MAX)
        return;
    if (s->event_count == IV_EVENTS_MAX) {
        s->more_ids++;
        return;
    }
    unsigned int at = s->event_count;
    while (at > 0 && s->ids[at - 1] > id) {
        s->ids[at] = s->ids[at - 1];
        at--;
    }
    s->ids[at] = id;
    s->event_count++;
}

/* The set's events: every id a row has (rows of one VCPU's session share
 * a list: looked at once), then their names. */
static void find_events(struct iv_set *s)
{
    uint32_t last_list = UINT32_MAX, last_count = 0;
    s->event_count = 0;
    s->more_ids = 0;
    for (size_t i = 0; i < s->count; i++) {
        const uint8_t *p;
        uint32_t list = row_list(s, &s->rows[i], &p), count = (uint32_t)s->rows[i].count;
        if (list == last_list && count <= last_count)
            continue;
        for (uint32_t e = 0; e < count; e++)
            add_event(s, interval_ids_of(&s->lists, list, e));
        last_list = list;
        last_count = count;
    }
    for (unsigned int c = 0; c < s->event_count; c++) {
        uint32_t d = keymap_get(&s->desc_of, s->ids[c], 0, 0, KEYMAP_NONE);
        snprintf(s->names[c], sizeof(s->names[c]), "%s", d == KEYMAP_NONE ? "" : s->descs[d]);
    }
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
    find_events(s);
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
    if (s->more_ids) {
        fprintf(stderr, "vertigo %s: the interval rows have %u events between them, more than "
                "the %u one set of rows holds\n", cmd, s->event_count + s->more_ids,
                IV_EVENTS_MAX);
        return VERTIGO_EXIT_USAGE;
    }
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
    interval_ids_free(&s->lists);
    keymap_free(&s->desc_of);
    free(s->descs);
    memset(s, 0, sizeof(*s));
}

const char *iv_event_name(const struct iv_set *s, unsigned int e, char *buf, size_t size)
{
    if (e < s->event_count && s->names[e][0])
        snprintf(buf, size, "%s", s->names[e]);
    else
        snprintf(buf, size, "event%u", e < s->event_count ? s->ids[e] : e);
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
    unsigned int c = id <= UINT32_MAX ? column_of(s, (uint32_t)id) : IV_EVENTS_MAX;
    if (len && end == text + len && c != IV_EVENTS_MAX)
        return (int)c;
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
                    "log's event-desc records, or their ids %u..%u)\n", cmd,
                    e < 0 ? "unknown event" : "too many events at", (int)len, p, s->event_count,
                    s->event_count ? s->ids[0] : 0,
                    s->event_count ? s->ids[s->event_count - 1] : 0);
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
