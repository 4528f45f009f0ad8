/* Log record encoder: one function per record type, writing the field
 * layout given in docs/log-format.md section "Record fields". */
#include "vmm/log/log_encode.h"

#include "lib/log_crc.h"
#include "vmm/log/log_varint.h"
#include "lib/mem.h"

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    return p + log_varint_put(p, v);
}

/* For a field whose slot in the caller's buffer is LOG_VARINT_MAX bytes
 * (the *_FIELDS_MAX sizes count each 64-bit field so): the wide writer. */
static uint8_t *put_varint64(uint8_t *p, uint64_t v)
{
    return p + log_varint_put_wide(p, v);
}

static uint8_t *put_bytes(uint8_t *p, const void *src, uint32_t len)
{
    if (len)
        memcpy(p, src, len);
    return p + len;
}

static uint8_t *put_counter_values(uint8_t *p, const struct log_counter_value *v,
                                   uint32_t count)
{
    p = put_varint(p, count);
    for (uint32_t i = 0; i < count; i++) {
        p = put_varint(p, v[i].id);
        p = put_varint(p, v[i].value);
    }
    return p;
}

size_t log_encode_console(uint8_t *out, const struct log_console *c)
{
    if (c->len > LOG_TEXT_MAX)
        return 0;
    uint8_t *p = put_varint(out, c->source);
    return (size_t)(put_bytes(p, c->text, c->len) - out);
}

static uint8_t sample_flags(const struct log_sample *s)
{
    return (uint8_t)((s->mode & LOG_SAMPLE_MODE_MASK) | (s->has_cr3 ? LOG_SAMPLE_HAS_CR3 : 0) |
                     (s->depth ? LOG_SAMPLE_HAS_STACK : 0));
}

/* Return addresses are zigzag deltas from the previous one (the first
 * from the RIP): nearby code makes them short. */
static uint8_t *put_stack(uint8_t *p, const struct log_sample *s)
{
    uint64_t prev = s->rip;
    p = put_varint(p, s->depth);
    for (uint32_t i = 0; i < s->depth; i++) {
        p = put_varint64(p, log_zigzag((int64_t)(s->stack[i] - prev)));
        prev = s->stack[i];
    }
    return p;
}

size_t log_encode_sample(uint8_t *out, const struct log_sample *s)
{
    if (s->mode >= LOG_MODE_COUNT || s->depth > LOG_STACK_MAX)
        return 0;
    uint8_t *p = out;
    *p++ = sample_flags(s);
    if ((s->domain | s->vcpu | s->event) <= LOG_VARINT_BITS) {
        /* The usual case: three one-byte varints, no per-field tests. */
        p[0] = (uint8_t)s->domain;
        p[1] = (uint8_t)s->vcpu;
        p[2] = (uint8_t)s->event;
        p += 3;
    } else {
        p = put_varint(p, s->domain);
        p = put_varint(p, s->vcpu);
        p = put_varint(p, s->event);
    }
    p = put_varint64(p, log_zigzag((int64_t)s->rip));
    if (s->has_cr3)
        p = put_varint64(p, s->cr3);
    if (s->depth)
        p = put_stack(p, s);
    return (size_t)(p - out);
}

/* A row's instructions are every event's `enabled`: each event carries
 * only its raw count and the instructions it was off a counter (0 for an
 * event measured all along: one byte). */
size_t log_encode_interval(uint8_t *out, const struct log_interval *iv)
{
    if (iv->count > LOG_INTERVAL_EVENTS_MAX)
        return 0;
    for (uint32_t i = 0; i < iv->count; i++)
        if (iv->events[i].running > iv->instructions)
            return 0;
    uint8_t *p = put_varint(out, iv->domain);
    p = put_varint(p, iv->vcpu);
    p = put_varint(p, iv->number);
    p = put_varint(p, iv->instructions);
    p = put_varint(p, iv->tsc_span);
    p = put_varint(p, iv->count);
    for (uint32_t i = 0; i < iv->count; i++) {
        p = put_varint(p, iv->events[i].raw);
        p = put_varint(p, iv->instructions - iv->events[i].running);
    }
    return (size_t)(p - out);
}

size_t log_encode_swcounters(uint8_t *out, const struct log_swcounters *sw)
{
    if (sw->count > LOG_SWCOUNTERS_MAX)
        return 0;
    uint8_t *p = put_varint(out, sw->domain);
    p = put_varint(p, sw->vcpu);
    return (size_t)(put_counter_values(p, sw->counters, sw->count) - out);
}

size_t log_encode_lifecycle(uint8_t *out, const struct log_lifecycle *lc)
{
    if (lc->event == 0 || lc->event >= LOG_LC_EVENT_COUNT)
        return 0;
    uint8_t *p = put_varint(out, lc->domain);
    p = put_varint(p, lc->vcpu);
    *p++ = lc->event;
    return (size_t)(put_varint(p, lc->arg) - out);
}

size_t log_encode_symbols(uint8_t *out, const struct log_symbols *sym)
{
    if (sym->kind == 0 || sym->kind >= LOG_SYM_KIND_COUNT || sym->len > LOG_TEXT_MAX ||
        (sym->abandoned && (sym->last || sym->len)))
        return 0;
    uint8_t *p = put_varint(out, sym->domain);
    *p++ = sym->kind;
    p = put_varint(p, sym->pid);
    p = put_varint(p, sym->epoch);
    p = put_varint(p, sym->chunk);
    *p++ = sym->abandoned ? 2 : sym->last ? 1 : 0;
    return (size_t)(put_bytes(p, sym->data, sym->len) - out);
}

size_t log_encode_user_stack(uint8_t *out, const struct log_user_stack *us)
{
    if (us->len > LOG_USER_STACK_MAX)
        return 0;
    uint8_t *p = put_varint(out, us->domain);
    p = put_varint(p, us->vcpu);
    for (unsigned int i = 0; i < LOG_UREG_COUNT; i++)
        p = put_varint64(p, us->regs[i]);
    return (size_t)(put_bytes(p, us->data, us->len) - out);
}

size_t log_encode_config(uint8_t *out, const struct log_config *cfg)
{
    if (cfg->len == 0 || cfg->len > LOG_TEXT_MAX)
        return 0;
    return (size_t)(put_bytes(out, cfg->text, cfg->len) - out);
}

size_t log_encode_loss(uint8_t *out, const struct log_loss *loss)
{
    return (size_t)(put_varint(out, loss->dropped) - out);
}

size_t log_encode_pmu_totals(uint8_t *out, const struct log_pmu_totals *pt)
{
    if (pt->count > LOG_EVENTS_MAX)
        return 0;
    uint8_t *p = put_varint(out, pt->domain);
    p = put_varint(p, pt->vcpu);
    return (size_t)(put_counter_values(p, pt->totals, pt->count) - out);
}

size_t log_encode_vcpu_stats(uint8_t *out, const struct log_vcpu_stats *vs)
{
    if (vs->count > LOG_VCPU_STATS_REASONS_MAX)
        return 0;
    uint8_t *p = put_varint(out, vs->domain);
    p = put_varint(p, vs->vcpu);
    p = put_varint(p, vs->exits);
    p = put_varint(p, vs->switches);
    p = put_varint(p, vs->switch_ticks);
    return (size_t)(put_counter_values(p, vs->reasons, vs->count) - out);
}

size_t log_encode_event_desc(uint8_t *out, const struct log_event_desc *ed)
{
    if (ed->len > LOG_TEXT_MAX)
        return 0;
    uint8_t *p = put_varint(out, ed->event);
    p = put_varint(p, ed->code);
    return (size_t)(put_bytes(p, ed->name, ed->len) - out);
}

size_t log_encode_event_period(uint8_t *out, const struct log_event_period *ep)
{
    if (ep->period == 0)
        return 0;
    uint8_t *p = put_varint(out, ep->event);
    p = put_varint(p, ep->period);
    if (ep->per_vcpu) {          /* appended fields: older decoders ignore them */
        p = put_varint(p, ep->domain);
        p = put_varint(p, ep->vcpu);
    }
    return (size_t)(p - out);
}

size_t log_encode_guest_pmu_prog(uint8_t *out, const struct log_guest_pmu_prog *gp)
{
    if (gp->counter >= LOG_GUEST_COUNTER_LIMIT || gp->control > LOG_GUEST_CONTROL_MAX(gp->counter))
        return 0;
    uint8_t *p = put_varint(out, gp->domain);
    p = put_varint(p, gp->vcpu);
    *p++ = gp->counter;
    return (size_t)(put_varint(p, gp->control) - out);
}

size_t log_encode_guest_pmi(uint8_t *out, const struct log_guest_pmi *pmi)
{
    if (pmi->delivery >= LOG_GUEST_PMI_DELIVERY_COUNT)
        return 0;
    uint8_t *p = put_varint(out, pmi->domain);
    p = put_varint(p, pmi->vcpu);
    p = put_varint(p, pmi->status);
    *p++ = pmi->delivery;
    return (size_t)(p - out);
}

size_t log_encode_interval_events(uint8_t *out, const struct log_interval_events *ie)
{
    if (ie->count > LOG_INTERVAL_EVENTS_MAX)
        return 0;
    uint8_t *p = put_varint(out, ie->domain);
    p = put_varint(p, ie->vcpu);
    p = put_varint(p, ie->count);
    for (uint32_t i = 0; i < ie->count; i++)
        p = put_varint(p, ie->ids[i]);
    return (size_t)(p - out);
}

void log_encode_stream_header(uint8_t out[LOG_STREAM_HEADER_SIZE],
                              const struct log_stream_info *info)
{
    struct log_stream_header h;
    memset(&h, 0, sizeof(h));
    h.magic = LOG_STREAM_MAGIC;
    h.version = LOG_FORMAT_VERSION;
    h.header_size = LOG_STREAM_HEADER_SIZE;
    h.endian_tag = LOG_ENDIAN_TAG;
    h.cpu_count = info->cpu_count;
    h.tsc_hz = info->tsc_hz;
    memcpy(h.build_id, info->build_id, LOG_BUILD_ID_SIZE);
    h.pmu = info->pmu;
    h.record_types = info->record_types;
    h.header_crc = log_crc32c(0, &h, LOG_STREAM_HEADER_CRC_OFFSET);
    memcpy(out, &h, sizeof(h));
}

void log_encode_block_checksums(struct log_block_header *h, const uint8_t *payload)
{
    h->payload_crc = log_crc32c(0, payload, h->payload_len);
    h->header_crc = log_crc32c(0, h, LOG_BLOCK_HEADER_CRC_OFFSET);
}
