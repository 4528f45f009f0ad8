/* Decoder of the type-specific fields of each record type: the inverse
 * of vmm/log/log_encode.c, and the one place where every field's range is
 * checked (docs/log-format.md, "Validation"): a record whose fields break
 * a range is malformed, so the tools behind the decoder can index arrays
 * by mode, kind or count without checking again. Lenient where the format
 * allows extension: trailing field bytes of a known type are ignored,
 * unknown types keep their raw bytes. */
#include "host-tools/logdec.h"

#include "vmm/log/log_varint.h"

struct field_reader {
    const uint8_t *p;
    const uint8_t *end;
    bool bad;
};

/* One-byte varints (most fields) take the inline fast path. */
static inline __attribute__((always_inline)) uint64_t get_u64(struct field_reader *f)
{
    uint64_t v = 0;
    if (f->p < f->end && *f->p < LOG_VARINT_MORE)
        return *f->p++;
    if (!f->bad && log_varint_get(&f->p, f->end, &v) != 0)
        f->bad = true;
    return v;
}

static uint32_t get_u32(struct field_reader *f)
{
    uint64_t v = get_u64(f);
    if (v > UINT32_MAX)
        f->bad = true;
    return (uint32_t)v;
}

/* Marks the record malformed unless ok (a field outside its range). */
static void need(struct field_reader *f, bool ok)
{
    if (!ok)
        f->bad = true;
}

static uint8_t get_byte(struct field_reader *f)
{
    if (f->bad || f->p == f->end) {
        f->bad = true;
        return 0;
    }
    return *f->p++;
}

/* The rest of the fields as text of at most LOG_TEXT_MAX bytes. */
static const uint8_t *get_rest(struct field_reader *f, uint32_t *len)
{
    size_t n = (size_t)(f->end - f->p);
    if (n > LOG_TEXT_MAX)
        f->bad = true;
    *len = f->bad ? 0 : (uint32_t)n;
    const uint8_t *text = f->p;
    f->p = f->end;
    return text;
}

/* A count of array entries, at most max. */
static uint32_t get_count(struct field_reader *f, uint32_t max)
{
    uint32_t n = get_u32(f);
    if (n > max)
        f->bad = true;
    return f->bad ? 0 : n;
}

static void parse_console(struct field_reader *f, struct log_console *c)
{
    c->source = get_u32(f);
    c->text = (const char *)get_rest(f, &c->len);
}

static void parse_stack(struct field_reader *f, struct log_sample *s)
{
    uint64_t prev = s->rip;
    s->depth = get_count(f, LOG_STACK_MAX);
    need(f, s->depth > 0);   /* the flag promised a stack */
    for (uint32_t i = 0; i < s->depth; i++) {
        prev += (uint64_t)log_unzigzag(get_u64(f));
        s->stack[i] = prev;
    }
}

static void parse_sample(struct field_reader *f, struct log_sample *s)
{
    uint8_t flags = get_byte(f);
    need(f, !(flags & ~LOG_SAMPLE_FLAGS_MASK));
    s->mode = flags & LOG_SAMPLE_MODE_MASK;
    need(f, s->mode < LOG_MODE_COUNT);
    s->domain = get_u32(f);
    s->vcpu = get_u32(f);
    s->event = get_u32(f);
    s->rip = (uint64_t)log_unzigzag(get_u64(f));
    s->has_cr3 = (flags & LOG_SAMPLE_HAS_CR3) != 0;
    s->cr3 = s->has_cr3 ? get_u64(f) : 0;
    s->depth = 0;
    if (flags & LOG_SAMPLE_HAS_STACK)
        parse_stack(f, s);
}

static void parse_interval(struct field_reader *f, struct log_interval *iv)
{
    iv->domain = get_u32(f);
    iv->vcpu = get_u32(f);
    iv->number = get_u64(f);
    iv->instructions = get_u64(f);
    iv->tsc_span = get_u64(f);
    iv->count = get_count(f, LOG_INTERVAL_EVENTS_MAX);
    for (uint32_t i = 0; i < iv->count; i++) {
        struct log_interval_event *e = &iv->events[i];
        e->raw = get_u64(f);
        uint64_t off = get_u64(f);
        need(f, off <= iv->instructions);       /* off a counter longer than the row */
        e->running = iv->instructions - off;
    }
}

static uint32_t parse_values(struct field_reader *f, struct log_counter_value *v, uint32_t max)
{
    uint32_t n = get_count(f, max);
    for (uint32_t i = 0; i < n; i++) {
        v[i].id = get_u32(f);
        v[i].value = get_u64(f);
    }
    return n;
}

static void parse_swcounters(struct field_reader *f, struct log_swcounters *sw)
{
    sw->domain = get_u32(f);
    sw->vcpu = get_u32(f);
    sw->count = parse_values(f, sw->counters, LOG_SWCOUNTERS_MAX);
}

static void parse_lifecycle(struct field_reader *f, struct log_lifecycle *lc)
{
    lc->domain = get_u32(f);
    lc->vcpu = get_u32(f);
    lc->event = get_byte(f);
    need(f, lc->event > 0 && lc->event < LOG_LC_EVENT_COUNT);
    lc->arg = get_u64(f);
}

static void parse_symbols(struct field_reader *f, struct log_symbols *sym)
{
    sym->domain = get_u32(f);
    sym->kind = get_byte(f);
    need(f, sym->kind > 0 && sym->kind < LOG_SYM_KIND_COUNT);
    sym->pid = get_u32(f);
    sym->epoch = get_u64(f);
    sym->chunk = get_u32(f);
    uint8_t last = get_byte(f);
    need(f, last <= 2);
    sym->last = last == 1;
    sym->abandoned = last == 2;
    sym->data = get_rest(f, &sym->len);
    need(f, !sym->abandoned || sym->len == 0);
}

static void parse_pmu_totals(struct field_reader *f, struct log_pmu_totals *pt)
{
    pt->domain = get_u32(f);
    pt->vcpu = get_u32(f);
    pt->count = parse_values(f, pt->totals, LOG_EVENTS_MAX);
}

static void parse_vcpu_stats(struct field_reader *f, struct log_vcpu_stats *vs)
{
    vs->domain = get_u32(f);
    vs->vcpu = get_u32(f);
    vs->exits = get_u64(f);
    vs->switches = get_u64(f);
    vs->switch_ticks = get_u64(f);
    vs->count = parse_values(f, vs->reasons, LOG_VCPU_STATS_REASONS_MAX);
}

static void parse_event_desc(struct field_reader *f, struct log_event_desc *ed)
{
    ed->event = get_u32(f);
    ed->code = get_u64(f);
    ed->name = (const char *)get_rest(f, &ed->len);
}

static void parse_event_period(struct field_reader *f, struct log_event_period *ep)
{
    ep->event = get_u32(f);
    ep->period = get_u64(f);
    need(f, ep->period > 0);
    /* A per-VCPU period carries both; one without the other is cut short. */
    ep->per_vcpu = !f->bad && f->p < f->end;
    ep->domain = ep->per_vcpu ? get_u32(f) : 0;
    ep->vcpu = ep->per_vcpu ? get_u32(f) : 0;
}

static void parse_user_stack(struct field_reader *f, struct log_user_stack *us)
{
    us->domain = get_u32(f);
    us->vcpu = get_u32(f);
    for (unsigned int i = 0; i < LOG_UREG_COUNT; i++)
        us->regs[i] = get_u64(f);
    us->data = get_rest(f, &us->len);
    need(f, us->len <= LOG_USER_STACK_MAX);
}

static void parse_guest_pmu_prog(struct field_reader *f, struct log_guest_pmu_prog *gp)
{
    gp->domain = get_u32(f);
    gp->vcpu = get_u32(f);
    gp->counter = get_byte(f);
    gp->control = get_u64(f);
    need(f, gp->counter < LOG_GUEST_COUNTER_LIMIT &&
            gp->control <= LOG_GUEST_CONTROL_MAX(gp->counter));
}

static void parse_guest_pmi(struct field_reader *f, struct log_guest_pmi *pmi)
{
    pmi->domain = get_u32(f);
    pmi->vcpu = get_u32(f);
    pmi->status = get_u64(f);
    pmi->delivery = get_byte(f);
    need(f, pmi->delivery < LOG_GUEST_PMI_DELIVERY_COUNT);
}

static void parse_interval_events(struct field_reader *f, struct log_interval_events *ie)
{
    ie->domain = get_u32(f);
    ie->vcpu = get_u32(f);
    ie->count = get_u32(f);
    need(f, ie->count <= LOG_INTERVAL_EVENTS_MAX);
    for (uint32_t i = 0; !f->bad && i < ie->count; i++)
        ie->ids[i] = get_u32(f);
}

static void parse_known(struct field_reader *f, struct logdec_record *r)
{
    switch (r->type) {
    case LOG_REC_CONSOLE:    parse_console(f, &r->u.console); break;
    case LOG_REC_SAMPLE:     parse_sample(f, &r->u.sample); break;
    case LOG_REC_INTERVAL:   parse_interval(f, &r->u.interval); break;
    case LOG_REC_SWCOUNTERS: parse_swcounters(f, &r->u.swcounters); break;
    case LOG_REC_LIFECYCLE:  parse_lifecycle(f, &r->u.lifecycle); break;
    case LOG_REC_SYMBOLS:    parse_symbols(f, &r->u.symbols); break;
    case LOG_REC_CONFIG:
        r->u.config.text = (const char *)get_rest(f, &r->u.config.len);
        need(f, r->u.config.len > 0);
        break;
    case LOG_REC_LOSS:
        r->u.loss.dropped = get_u64(f);
        need(f, r->u.loss.dropped > 0);   /* a ring that dropped nothing writes none */
        break;
    case LOG_REC_PMU_TOTALS: parse_pmu_totals(f, &r->u.pmu_totals); break;
    case LOG_REC_EVENT_DESC: parse_event_desc(f, &r->u.event_desc); break;
    case LOG_REC_EVENT_PERIOD: parse_event_period(f, &r->u.event_period); break;
    case LOG_REC_USER_STACK: parse_user_stack(f, &r->u.user_stack); break;
    case LOG_REC_GUEST_PMU_PROG: parse_guest_pmu_prog(f, &r->u.guest_pmu_prog); break;
    case LOG_REC_GUEST_PMI:  parse_guest_pmi(f, &r->u.guest_pmi); break;
    case LOG_REC_VCPU_STATS: parse_vcpu_stats(f, &r->u.vcpu_stats); break;
    case LOG_REC_INTERVAL_EVENTS: parse_interval_events(f, &r->u.interval_events); break;
    default: break;
    }
}

int logdec_parse_fields(struct logdec_record *r, const uint8_t *p, const uint8_t *end)
{
    struct field_reader f = { .p = p, .end = end, .bad = false };
    r->raw = p;
    r->raw_len = (uint32_t)(end - p);
    if (r->raw_len > LOG_FIELDS_MAX)
        return -1;
    parse_known(&f, r);
    return f.bad ? -1 : 0;
}
