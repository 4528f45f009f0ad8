/* Guest symbol chunks to log records (see pmu/sample/sampler.h). */
#include "pmu/sample/sampler.h"

static struct sampler_symbol_set *set_find(struct sampler_symbols *st, uint32_t domain,
                                           const struct vertigo_symbols_chunk *c)
{
    for (unsigned int i = 0; i < SAMPLER_SYMBOL_SETS; i++) {
        struct sampler_symbol_set *s = &st->sets[i];
        if (s->used && s->domain == domain && s->kind == c->kind && s->pid == c->pid &&
            s->epoch == c->epoch)
            return s;
    }
    return NULL;
}

/* Says in the log that Vertigo gave set s up unfinished: the host then
 * voids its chunks so far and counts it, instead of finding it open. */
static void set_abandon(const struct sampler_symbol_set *s, sampler_emit_symbols_fn emit,
                        void *ctx, uint32_t *dropped)
{
    struct log_symbols rec = {
        .domain = s->domain, .kind = (uint8_t)s->kind, .pid = s->pid, .epoch = s->epoch,
        .chunk = s->next_record, .abandoned = true,
    };
    if (!emit(ctx, &rec))
        (*dropped)++;
}

/* A free slot of the domain's own, else its least recently used one,
 * whose set is abandoned. */
static struct sampler_symbol_set *set_new(struct sampler_symbols *st, uint32_t domain,
                                          const struct vertigo_symbols_chunk *c,
                                          sampler_emit_symbols_fn emit, void *ctx,
                                          uint32_t *dropped)
{
    struct sampler_symbol_set *own = &st->sets[(domain % DOMAIN_MAX) * SAMPLER_SETS_PER_DOMAIN];
    struct sampler_symbol_set *s = &own[0];
    for (unsigned int i = 0; i < SAMPLER_SETS_PER_DOMAIN; i++) {
        if (!own[i].used) {
            s = &own[i];
            break;
        }
        if (own[i].last_use < s->last_use)
            s = &own[i];
    }
    if (s->used)
        set_abandon(s, emit, ctx, dropped);
    *s = (struct sampler_symbol_set){ .used = true, .domain = domain, .kind = c->kind,
                                      .pid = c->pid, .epoch = c->epoch };
    return s;
}

int64_t sampler_symbols_ship(struct sampler_symbols *st, uint32_t domain,
                             const struct vertigo_symbols_chunk *c, const uint8_t *data,
                             sampler_emit_symbols_fn emit, void *ctx, uint32_t *dropped)
{
    struct sampler_symbol_set *s = set_find(st, domain, c);
    if (c->chunk == 0)
        s = s ? s : set_new(st, domain, c, emit, ctx, dropped);
    else if (!s || c->chunk != s->next_chunk)
        return -VERTIGO_EINVAL;
    if (c->chunk == 0)
        s->next_record = 0;
    s->next_chunk = c->chunk + 1;
    s->last_use = ++st->clock;

    uint32_t done = 0;
    do {        /* at least one record, so an empty last chunk still ends the set */
        uint32_t n = c->len - done < LOG_TEXT_MAX ? c->len - done : LOG_TEXT_MAX;
        struct log_symbols rec = {
            .domain = domain, .kind = (uint8_t)c->kind, .pid = c->pid, .epoch = c->epoch,
            .chunk = s->next_record++, .last = c->last && done + n == c->len,
            .data = data + done, .len = n,
        };
        if (!emit(ctx, &rec))
            (*dropped)++;
        done += n;
    } while (done < c->len);
    if (c->last)
        s->used = false;
    return 0;
}
