/* Text writer for decoded logs (see log_text.h for the line format). */
#include "host-tools/log_text.h"

#include <inttypes.h>

#include "host-tools/guest_pmu_text.h"

static const char *name_or_null(const char *const *names, size_t count, uint8_t v)
{
    return v < count ? names[v] : NULL;
}

const char *log_text_mode_name(uint8_t mode)
{
    static const char *const names[] = { "hypervisor", "guest-kernel", "guest-user" };
    return name_or_null(names, sizeof(names) / sizeof(names[0]), mode);
}

const char *log_text_lifecycle_name(uint8_t event)
{
    static const char *const names[] = {
        NULL, "domain-create", "domain-start", "domain-stop", "domain-destroy",
        "vcpu-online", "vcpu-offline",
    };
    return name_or_null(names, sizeof(names) / sizeof(names[0]), event);
}

const char *log_text_symbols_name(uint8_t kind)
{
    static const char *const names[] = { NULL, "kallsyms", "proc-maps", "jit-map", "process",
                                         "kernel-build-id" };
    return name_or_null(names, sizeof(names) / sizeof(names[0]), kind);
}

const char *log_text_pmu_backend_name(uint8_t backend)
{
    static const char *const names[] = { "none", "hw", "soft", "broken" };
    return name_or_null(names, sizeof(names) / sizeof(names[0]), backend);
}

/* "name" or "?N" for values without a name. */
static void put_enum(FILE *out, const char *key, const char *name, unsigned v)
{
    if (name)
        fprintf(out, " %s=%s", key, name);
    else
        fprintf(out, " %s=?%u", key, v);
}

void log_text_quoted(FILE *out, const void *text, size_t len)
{
    const uint8_t *p = text;
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void log_text_header(FILE *out, const struct log_stream_header *h, uint64_t offset)
{
    fprintf(out, "# @%" PRIu64 " stream version=%u cpus=%u tsc_hz=%" PRIu64 " build=",
            offset, h->version, h->cpu_count, h->tsc_hz);
    for (unsigned i = 0; i < LOG_BUILD_ID_SIZE; i++)
        fprintf(out, "%02x", h->build_id[i]);
    put_enum(out, "pmu", log_text_pmu_backend_name(h->pmu.backend), h->pmu.backend);
    fprintf(out, " pmu_version=%u gp=%ux%u fixed=%ux%u types=", h->pmu.version,
            h->pmu.gp_count, h->pmu.gp_width, h->pmu.fixed_count, h->pmu.fixed_width);
    const char *sep = "";
    for (unsigned t = 0; t < 32; t++) {
        if (!(h->record_types & (1u << t)))
            continue;
        const char *name = logdec_type_name((uint8_t)t);
        if (name)
            fprintf(out, "%s%s", sep, name);
        else
            fprintf(out, "%s?%u", sep, t);
        sep = ",";
    }
    fputc('\n', out);
}

static void put_console(FILE *out, const struct log_console *c)
{
    if (c->source == LOG_CONSOLE_HYPERVISOR)
        fputs(" src=hv ", out);
    else
        fprintf(out, " src=dom%u ", c->source);
    log_text_quoted(out, c->text, c->len);
}

static void put_sample(FILE *out, const struct log_sample *s)
{
    fprintf(out, " dom=%u vcpu=%u", s->domain, s->vcpu);
    put_enum(out, "mode", log_text_mode_name(s->mode), s->mode);
    fprintf(out, " event=%u rip=0x%" PRIx64, s->event, s->rip);
    if (s->has_cr3)
        fprintf(out, " cr3=0x%" PRIx64, s->cr3);
    for (uint32_t i = 0; i < s->depth; i++)
        fprintf(out, "%s0x%" PRIx64, i ? "," : " stack=", s->stack[i]);
}

static void put_interval(FILE *out, const struct log_interval *iv)
{
    fprintf(out, " dom=%u vcpu=%u number=%" PRIu64 " instructions=%" PRIu64 " tsc_span=%" PRIu64,
            iv->domain, iv->vcpu, iv->number, iv->instructions, iv->tsc_span);
    for (uint32_t i = 0; i < iv->count; i++)
        fprintf(out, " %u=%" PRIu64 "/%" PRIu64, i, iv->events[i].raw, iv->events[i].running);
}

static void put_values(FILE *out, const struct log_counter_value *v, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        fprintf(out, " %u=%" PRIu64, v[i].id, v[i].value);
}

static void put_lifecycle(FILE *out, const struct log_lifecycle *lc)
{
    fprintf(out, " dom=%u vcpu=%u", lc->domain, lc->vcpu);
    put_enum(out, "event", log_text_lifecycle_name(lc->event), lc->event);
    fprintf(out, " arg=%" PRIu64, lc->arg);
}

static void put_symbols(FILE *out, const struct log_symbols *sym)
{
    fprintf(out, " dom=%u", sym->domain);
    put_enum(out, "kind", log_text_symbols_name(sym->kind), sym->kind);
    fprintf(out, " pid=%u epoch=%" PRIu64 " chunk=%u last=%d len=%u%s ",
            sym->pid, sym->epoch, sym->chunk, sym->last ? 1 : 0, sym->len,
            sym->abandoned ? " abandoned" : "");
    log_text_quoted(out, sym->data, sym->len);
}

static void put_event_desc(FILE *out, const struct log_event_desc *ed)
{
    fprintf(out, " event=%u code=0x%" PRIx64 " name=", ed->event, ed->code);
    log_text_quoted(out, ed->name, ed->len);
}

static void put_guest_pmu_prog(FILE *out, const struct log_guest_pmu_prog *gp)
{
    char counter[GUEST_PMU_TEXT_MAX], event[GUEST_PMU_TEXT_MAX];
    guest_pmu_counter_text(gp->counter, counter);
    guest_pmu_event_text(gp->counter, gp->control, event);
    fprintf(out, " dom=%u vcpu=%u counter=%s control=0x%" PRIx64 " event=\"%s\"", gp->domain,
            gp->vcpu, counter, gp->control, event);
}

static void put_guest_pmi(FILE *out, const struct log_guest_pmi *pmi)
{
    fprintf(out, " dom=%u vcpu=%u status=0x%" PRIx64, pmi->domain, pmi->vcpu, pmi->status);
    put_enum(out, "delivery", guest_pmu_delivery_name(pmi->delivery), pmi->delivery);
}

/* " dom=D vcpu=V ids=A,B,C" (ids= empty for none). */
static void put_interval_events(FILE *out, const struct log_interval_events *ie)
{
    fprintf(out, " dom=%u vcpu=%u ids=", ie->domain, ie->vcpu);
    for (uint32_t i = 0; i < ie->count; i++)
        fprintf(out, "%s%u", i ? "," : "", ie->ids[i]);
}

static void put_fields(FILE *out, const struct logdec_record *r)
{
    switch (r->type) {
    case LOG_REC_CONSOLE:    put_console(out, &r->u.console); break;
    case LOG_REC_SAMPLE:     put_sample(out, &r->u.sample); break;
    case LOG_REC_INTERVAL:   put_interval(out, &r->u.interval); break;
    case LOG_REC_SWCOUNTERS:
        fprintf(out, " dom=%u vcpu=%u", r->u.swcounters.domain, r->u.swcounters.vcpu);
        put_values(out, r->u.swcounters.counters, r->u.swcounters.count);
        break;
    case LOG_REC_LIFECYCLE:  put_lifecycle(out, &r->u.lifecycle); break;
    case LOG_REC_SYMBOLS:    put_symbols(out, &r->u.symbols); break;
    case LOG_REC_CONFIG:
        fputc(' ', out);
        log_text_quoted(out, r->u.config.text, r->u.config.len);
        break;
    case LOG_REC_LOSS:       fprintf(out, " dropped=%" PRIu64, r->u.loss.dropped); break;
    case LOG_REC_PMU_TOTALS:
        fprintf(out, " dom=%u vcpu=%u", r->u.pmu_totals.domain, r->u.pmu_totals.vcpu);
        put_values(out, r->u.pmu_totals.totals, r->u.pmu_totals.count);
        break;
    case LOG_REC_EVENT_DESC: put_event_desc(out, &r->u.event_desc); break;
    case LOG_REC_USER_STACK:
        fprintf(out, " dom=%u vcpu=%u rip=%#" PRIx64 " rsp=%#" PRIx64 " rbp=%#" PRIx64
                " bytes=%u", r->u.user_stack.domain, r->u.user_stack.vcpu,
                r->u.user_stack.regs[LOG_UREG_RIP], r->u.user_stack.regs[LOG_UREG_RSP],
                r->u.user_stack.regs[LOG_UREG_RBP], r->u.user_stack.len);
        break;
    case LOG_REC_EVENT_PERIOD:
        fprintf(out, " event=%u period=%" PRIu64, r->u.event_period.event,
                r->u.event_period.period);
        if (r->u.event_period.per_vcpu)
            fprintf(out, " dom=%u vcpu=%u", r->u.event_period.domain, r->u.event_period.vcpu);
        break;
    case LOG_REC_GUEST_PMU_PROG: put_guest_pmu_prog(out, &r->u.guest_pmu_prog); break;
    case LOG_REC_GUEST_PMI:  put_guest_pmi(out, &r->u.guest_pmi); break;
    case LOG_REC_VCPU_STATS:
        fprintf(out, " dom=%u vcpu=%u exits=%" PRIu64 " switches=%" PRIu64 " switch_ticks=%"
                PRIu64, r->u.vcpu_stats.domain, r->u.vcpu_stats.vcpu, r->u.vcpu_stats.exits,
                r->u.vcpu_stats.switches, r->u.vcpu_stats.switch_ticks);
        put_values(out, r->u.vcpu_stats.reasons, r->u.vcpu_stats.count);
        break;
    case LOG_REC_INTERVAL_EVENTS: put_interval_events(out, &r->u.interval_events); break;
    default:                 fprintf(out, " len=%u", r->raw_len); break;
    }
}

void log_text_record(FILE *out, const struct logdec_record *r)
{
    fprintf(out, "@%" PRIu64 " cpu=%u seq=%u #%" PRIu64 " tsc=%" PRIu64 " ",
            r->offset, r->cpu, r->block_seq, r->index, r->tsc);
    const char *name = logdec_type_name(r->type);
    if (name)
        fputs(name, out);
    else
        fprintf(out, "type-%u", r->type);
    put_fields(out, r);
    fputc('\n', out);
}

void log_text_problem(FILE *out, const struct logdec_problem *p)
{
    fprintf(out, "! @%" PRIu64 " %s bytes=%" PRIu64, p->offset,
            logdec_problem_name(p->kind), p->bytes);
    if (p->has_block)
        fprintf(out, " cpu=%u seq=%u", p->cpu, p->seq);
    if (p->blocks)
        fprintf(out, " blocks=%u", p->blocks);
    if (p->records_known)
        fprintf(out, " records_lost=%" PRIu64, p->records);
    fputc('\n', out);
}
