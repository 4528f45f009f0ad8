/* Sample aggregation (see profile.h): raw samples hashed by their
 * contents while the log streams in, symbolized once each at the end. */
#include "host-tools/profile.h"
#include "host-tools/out_of_memory.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/keymap.h"
#include "host-tools/log_input.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

#define KEY_FIXED_WORDS 6u           /* ids, event+jit, mode+flags+count, cr3, period, maps */
#define KEY_MAX_WORDS (KEY_FIXED_WORDS + 1u + LOG_STACK_MAX)
_Static_assert(1u + LOG_STACK_MAX <= 64u, "profile_sample.at_address: a bit per frame");
#define TABLE_MIN 1024u
#define HASH_PRIME 0x9e3779b97f4a7c15ull
#define ERR_MAX 256u
#define PROFILE_WARNINGS_SHOWN 20u       /* file warnings named one by one */

struct raw_entry {
    uint64_t off;                    /* first key word in the arena */
    uint32_t words;
    uint64_t count;
    uint64_t last_offset;            /* the log offset of its latest sample record */
};

struct event_name {
    uint32_t id;
    uint32_t order;                  /* arrival: the last description of an id wins */
    char name[PROFILE_EVENT_NAME_MAX];
};

/* The periods of an event id (event-period records): the first, for
 * samples that arrived before any (another CPU's blocks may come first),
 * and the current one, which samples arriving now take. A VCPU's own
 * period (frequency mode) has an entry of its own, in force while its
 * `session` is the event's: a session-wide record (a new session) counts
 * up the event's and so ends every VCPU's. */
struct event_periods {
    uint64_t first, current;
    uint32_t session;
};

/* The last user-stack record of a CPU: it belongs to the samples of that
 * CPU that follow it with its domain, VCPU and RIP (the samples of one
 * PMI; include/vertigo/log_format.h, LOG_REC_USER_STACK). */
struct pending_user_stack {
    bool valid;
    struct log_user_stack us;
    uint8_t bytes[LOG_USER_STACK_MAX];
};

struct profile_raw {
    uint64_t *arena;
    size_t arena_len, arena_cap;
    struct raw_entry *ents;
    size_t count, cap;
    uint64_t *hash;                  /* per slot */
    uint32_t *slot;                  /* entry index + 1, 0 = empty */
    size_t tab_cap;
    struct event_name *names;        /* event-desc records, in arrival order */
    size_t name_count, name_cap;
    uint32_t *frames;                /* resolved frames of all samples */
    struct event_periods *periods;   /* by index in period_map */
    size_t period_count, period_cap;
    struct keymap period_map;        /* (event id, 0, 0) or (event id, 1, domain:vcpu) -> periods */
    struct pending_user_stack *user_stacks;     /* by CPU, allocated on the first */
};

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "vertigo: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    return p;
}

static void *reserve(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap * 2 : TABLE_MIN;
    while (n < need)
        n *= 2;
    *cap = n;
    return xrealloc(p, n * elem);
}

/* ---- Raw aggregation -------------------------------------------------- */

static uint64_t hash_words(const uint64_t *w, uint32_t n)
{
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ w[i]) * HASH_PRIME;
        h ^= h >> 29;
    }
    return h;
}

static void raw_rehash(struct profile_raw *r)
{
    size_t cap = r->tab_cap ? r->tab_cap * 2 : TABLE_MIN;
    uint64_t *hash = xrealloc(NULL, cap * sizeof(*hash));
    uint32_t *slot = calloc(cap, sizeof(*slot));
    if (!slot)
        vertigo_out_of_memory();
    for (size_t i = 0; i < r->tab_cap; i++) {
        if (!r->slot[i])
            continue;
        size_t j = r->hash[i] & (cap - 1);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        hash[j] = r->hash[i];
        slot[j] = r->slot[i];
    }
    free(r->hash);
    free(r->slot);
    r->hash = hash;
    r->slot = slot;
    r->tab_cap = cap;
}

static void raw_free(struct profile_raw *r)
{
    free(r->arena);
    free(r->ents);
    free(r->hash);
    free(r->slot);
    free(r->names);
    free(r->frames);
    free(r->periods);
    free(r->user_stacks);
    keymap_free(&r->period_map);
}

/* Counts the key of the sample record at offset; returns its entry's index. */
static size_t raw_add(struct profile_raw *r, const uint64_t *key, uint32_t words, uint64_t offset)
{
    if ((r->count + 1) * 2 > r->tab_cap)
        raw_rehash(r);
    uint64_t h = hash_words(key, words);
    size_t mask = r->tab_cap - 1, i = h & mask;
    for (; r->slot[i]; i = (i + 1) & mask) {
        struct raw_entry *e = &r->ents[r->slot[i] - 1];
        if (r->hash[i] == h && e->words == words &&
            !memcmp(&r->arena[e->off], key, words * sizeof(*key))) {
            e->count++;
            e->last_offset = offset;
            return r->slot[i] - 1;
        }
    }
    r->arena = reserve(r->arena, &r->arena_cap, r->arena_len + words, sizeof(*r->arena));
    memcpy(&r->arena[r->arena_len], key, words * sizeof(*key));
    r->ents = reserve(r->ents, &r->cap, r->count + 1, sizeof(*r->ents));
    r->ents[r->count] = (struct raw_entry){ r->arena_len, words, 1, offset };
    r->arena_len += words;
    r->hash[i] = h;
    r->slot[i] = (uint32_t)++r->count;
    return r->count - 1;
}

/* The periods of event id, or NULL when the log gave none (yet). */
static struct event_periods *periods_of(struct profile_raw *r, uint32_t id)
{
    uint32_t i = keymap_get(&r->period_map, id, 0, 0, KEYMAP_NONE);
    return i == KEYMAP_NONE ? NULL : &r->periods[i];
}

/* The period in force for event id on a domain's VCPU, 0 if none yet. */
static uint64_t period_now(struct profile_raw *r, uint32_t id, uint32_t domain, uint32_t vcpu)
{
    const struct event_periods *ep = periods_of(r, id);
    uint32_t i = keymap_get(&r->period_map, id, 1, (uint64_t)domain << 32 | vcpu, KEYMAP_NONE);
    if (i != KEYMAP_NONE && r->periods[i].session == (ep ? ep->session : 0))
        return r->periods[i].current;
    return ep ? ep->current : 0;
}

static void event_period_record(struct profile_raw *r, const struct log_event_period *ep)
{
    const struct event_periods *whole = periods_of(r, ep->event);
    uint32_t session = whole ? whole->session : 0;
    uint64_t which = ep->per_vcpu ? (uint64_t)ep->domain << 32 | ep->vcpu : 0;
    uint32_t i = keymap_get(&r->period_map, ep->event, ep->per_vcpu, which,
                            (uint32_t)r->period_count);
    if (i == r->period_count) {
        r->periods = reserve(r->periods, &r->period_cap, r->period_count + 1, sizeof(*r->periods));
        r->periods[r->period_count++] = (struct event_periods){ ep->period, ep->period, 0 };
    }
    r->periods[i].current = ep->period;
    r->periods[i].session = ep->per_vcpu ? session : r->periods[i].session + 1;
}

static void user_stack_record(struct profile_raw *r, uint16_t cpu, const struct log_user_stack *us)
{
    if (!r->user_stacks) {
        r->user_stacks = xrealloc(NULL, LOG_MAX_CPUS * sizeof(*r->user_stacks));
        for (unsigned int i = 0; i < LOG_MAX_CPUS; i++)
            r->user_stacks[i].valid = false;
    }
    struct pending_user_stack *ps = &r->user_stacks[cpu % LOG_MAX_CPUS];
    ps->valid = true;
    ps->us = *us;
    memcpy(ps->bytes, us->data, us->len);     /* the decoder checked len */
    ps->us.data = ps->bytes;
}

/* The user stack copied with sample s of cpu, or NULL; a sample that does
 * not match ends the CPU's pending copy. */
static const struct log_user_stack *user_stack_of(struct profile_raw *r, uint16_t cpu,
                                                  const struct log_sample *s)
{
    struct pending_user_stack *ps = r->user_stacks ? &r->user_stacks[cpu % LOG_MAX_CPUS] : NULL;
    if (!ps || !ps->valid)
        return NULL;
    if (s->mode == LOG_MODE_GUEST_USER && s->domain == ps->us.domain && s->vcpu == ps->us.vcpu &&
        s->rip == ps->us.regs[LOG_UREG_RIP])
        return &ps->us;
    ps->valid = false;
    return NULL;
}

/* Key layout: [domain<<32|vcpu] [event<<32|jit_seq]
 * [mode|has_cr3<<8|addrs<<16|identity_seq<<32] [cr3] [period, 0: none yet]
 * [maps_seq] addrs... The identity and maps positions are kept for every
 * sample with a CR3 (a kernel sample's CR3 names the process it
 * interrupted too, and its stack goes on into that process's). */
static void sample_record(struct profile *p, const struct log_sample *s, uint16_t cpu, uint64_t tsc,
                          uint64_t offset)
{
    uint64_t key[KEY_MAX_WORDS];
    uint32_t jit_seq = s->mode == LOG_MODE_GUEST_USER || s->has_cr3 ?
                       sym_jit_seq_at(p->sym, s->domain, tsc) : 0;
    uint32_t depth = s->depth;       /* the decoder checked it: <= LOG_STACK_MAX */
    const uint64_t *stack = s->stack;
    key[0] = (uint64_t)s->domain << 32 | s->vcpu;
    key[1] = (uint64_t)s->event << 32 | jit_seq;
    bool guest = s->has_cr3;     /* a hypervisor sample's: the guest's at its exit */
    uint32_t identity_seq = guest ? sym_identity_seq_at(p->sym, tsc) : 0;
    uint32_t maps_seq = guest ? sym_maps_seq_at(p->sym, tsc) : 0;
    const struct log_user_stack *us = user_stack_of(p->raw, cpu, s);
    uint64_t unwound[LOG_STACK_MAX];
    if (us) {                        /* DWARF unwinding replaces the frame-pointer chain */
        struct sym_where w = { .domain = s->domain, .mode = s->mode, .has_cr3 = s->has_cr3,
                               .cr3 = s->cr3, .jit_seq = jit_seq, .identity_seq = identity_seq,
                               .maps_seq = maps_seq };
        unsigned int n = sym_unwind_user(p->sym, &w, us, unwound, LOG_STACK_MAX);
        if (n) {
            stack = unwound;
            depth = n;
        }
    }
    key[2] = s->mode | (uint64_t)s->has_cr3 << 8 | (uint64_t)(depth + 1) << 16 |
             (uint64_t)identity_seq << 32;
    key[3] = s->has_cr3 ? s->cr3 : 0;
    key[4] = period_now(p->raw, s->event, s->domain, s->vcpu);
    key[5] = maps_seq;
    key[KEY_FIXED_WORDS] = s->rip;
    memcpy(&key[KEY_FIXED_WORDS + 1], stack, depth * sizeof(stack[0]));
    size_t entry = raw_add(p->raw, key, KEY_FIXED_WORDS + 1 + depth, offset);
    if (p->keep_timeline)
        timeline_add_sample(&p->timeline, tsc, entry);
    p->raw_samples++;
    if (tsc > p->newest_sample_tsc)
        p->newest_sample_tsc = tsc;
}

/* Kept in arrival order; profile_finish sorts them once. */
static void event_desc_record(struct profile_raw *r, const struct log_event_desc *ed)
{
    r->names = reserve(r->names, &r->name_cap, r->name_count + 1, sizeof(*r->names));
    struct event_name *n = &r->names[r->name_count];
    n->id = ed->event;
    n->order = (uint32_t)r->name_count++;
    size_t len = ed->len < PROFILE_EVENT_NAME_MAX - 1 ? ed->len : PROFILE_EVENT_NAME_MAX - 1;
    memcpy(n->name, ed->name, len);
    n->name[len] = '\0';
    text_clean(n->name);                 /* guest-chosen bytes bound for a terminal */
}

void profile_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    struct profile *p = user;
    (void)offset;
    if (p->have_build_id)
        return;
    p->have_build_id = true;
    p->tsc_hz = h->tsc_hz;
    memcpy(p->build_id, h->build_id, LOG_BUILD_ID_SIZE);
}

static void hex_id(const uint8_t *id, char *out)
{
    for (unsigned int i = 0; i < LOG_BUILD_ID_SIZE; i++)
        sprintf(out + 2 * i, "%02x", id[i]);
}

/* A Vertigo ELF other than the one that wrote the log names hypervisor
 * samples wrongly: say so (perf's build-id check). Logs whose header has
 * no build id (all zero) and ELFs without one are not checked. */
static void check_vertigo_elf(const struct profile *p, const char *cmd,
                              const struct profile_options *o)
{
    static const uint8_t none[LOG_BUILD_ID_SIZE];
    uint8_t elf_id[LOG_BUILD_ID_SIZE];
    if (!p->have_build_id || !memcmp(p->build_id, none, sizeof(none)) ||
        !sym_vertigo_build_id(p->sym, elf_id) || !memcmp(elf_id, p->build_id, sizeof(elf_id)))
        return;
    char want[2 * LOG_BUILD_ID_SIZE + 1], got[2 * LOG_BUILD_ID_SIZE + 1];
    hex_id(p->build_id, want);
    hex_id(elf_id, got);
    fprintf(stderr, "vertigo %s: warning: --vertigo-elf %s has build id %s, but the log was "
            "written by build %s: hypervisor samples will be misnamed\n", cmd,
            o->sym.vertigo_elf, got, want);
}

/* A record other than a symbols record. */
static void sample_or_stream_record(struct profile *p, const struct logdec_record *r)
{
    if (r->type == LOG_REC_SAMPLE)
        sample_record(p, &r->u.sample, r->cpu, r->tsc, r->offset);
    else if (r->type == LOG_REC_USER_STACK)
        user_stack_record(p->raw, r->cpu, &r->u.user_stack);
    else if (r->type == LOG_REC_EVENT_DESC)
        event_desc_record(p->raw, &r->u.event_desc);
    else if (r->type == LOG_REC_EVENT_PERIOD)
        event_period_record(p->raw, &r->u.event_period);
    else if (p->keep_timeline)
        timeline_add_counters(&p->timeline, r);
}

/* Which domains the log mentions, their names, which shipped symbols. */
static void note_domains(struct domain_names *dn, const struct logdec_record *r)
{
    if (r->type == LOG_REC_SAMPLE)
        domain_names_seen(dn, r->u.sample.domain);
    else if (r->type == LOG_REC_SYMBOLS)
        domain_names_shipped(dn, r->u.symbols.domain);
    else if (r->type == LOG_REC_LIFECYCLE)
        domain_names_seen(dn, r->u.lifecycle.domain);
    else if (r->type == LOG_REC_CONFIG)
        domain_names_config(dn, r->u.config.text, r->u.config.len);
}

/* A symbol record, in arrival order. When a set it completes takes its
 * place at or before a sample already read, that sample was named
 * without it: the samples read so far are void (profile_read_log). */
static void symbols_arrived(struct profile *p, const struct logdec_record *r)
{
    sym_add_record(p->sym, &r->u.symbols, r->tsc);
    p->symbol_records++;
    uint64_t oldest = sym_take_oldest_commit(p->sym);
    if (p->raw_samples && oldest <= p->newest_sample_tsc)
        p->samples_void = true;
}

void profile_record(void *user, const struct logdec_record *r)
{
    struct profile *p = user;
    if (p->rereading) {     /* the first pass's domains and symbols are known */
        if (r->type != LOG_REC_SYMBOLS)
            sample_or_stream_record(p, r);
        else if (++p->symbol_records_again > p->symbol_records)   /* a log still written */
            sym_add_record(p->sym, &r->u.symbols, r->tsc);
        return;
    }
    note_domains(p->domains, r);
    if (r->type == LOG_REC_SYMBOLS)
        symbols_arrived(p, r);
    else if (!p->samples_void)
        sample_or_stream_record(p, r);
}

const struct logdec_callbacks profile_decoder_callbacks = {
    .header = profile_header, .record = profile_record,
};

/* The samples read so far, void (profile_read_log): their aggregation,
 * the records they were read with, the timeline, but not the symbols. */
static void forget_samples(struct profile *p)
{
    raw_free(p->raw);
    memset(p->raw, 0, sizeof(*p->raw));
    raw_rehash(p->raw);
    timeline_free(&p->timeline);
    memset(&p->timeline, 0, sizeof(p->timeline));
    p->raw_samples = 0;
    p->newest_sample_tsc = 0;
}

bool profile_read_again(struct profile *p)
{
    if (!p->samples_void)
        return false;
    forget_samples(p);
    p->samples_void = false;
    p->rereading = true;
    return true;
}

int profile_read_log(struct profile *p, const char *cmd, const char *path, FILE *in,
                     struct logdec *dec)
{
    logdec_init(dec, &profile_decoder_callbacks, p);
    int status = log_input_feed(cmd, path, in, dec);
    if (status != VERTIGO_EXIT_OK || !profile_read_again(p))
        return status;
    if (fseek(in, 0, SEEK_SET)) {
        fprintf(stderr, "vertigo %s: %s: cannot read it again: %s\n", cmd, path, strerror(errno));
        return VERTIGO_EXIT_USAGE;
    }
    logdec_init(dec, &profile_decoder_callbacks, p);
    return log_input_feed(cmd, path, in, dec);
}

/* ---- Finishing: events, filter, symbolization ------------------------- */

static int id_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* By id, then arrival. */
static int name_cmp(const void *a, const void *b)
{
    const struct event_name *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The name of each event: its last non-empty description, else "eventID".
 * Events and names are both sorted by id: one merge. */
static void name_events(struct profile *p)
{
    struct profile_raw *r = p->raw;
    if (r->name_count)
        qsort(r->names, r->name_count, sizeof(*r->names), name_cmp);
    size_t n = 0;
    for (uint32_t e = 0; e < p->event_count; e++) {
        struct profile_event *ev = &p->events[e];
        snprintf(ev->name, sizeof(ev->name), "event%u", ev->id);
        for (; n < r->name_count && r->names[n].id <= ev->id; n++)
            if (r->names[n].id == ev->id && r->names[n].name[0])
                snprintf(ev->name, sizeof(ev->name), "%s", r->names[n].name);
    }
}

const char *profile_event_name(const struct profile *p, uint32_t id)
{
    const struct profile_raw *r = p->raw;
    size_t lo = 0, hi = r->name_count;      /* the first name of an id above id */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->names[mid].id <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo > 0 && r->names[lo - 1].id == id; lo--)     /* the last non-empty one */
        if (r->names[lo - 1].name[0])
            return r->names[lo - 1].name;
    return NULL;
}

/* The distinct event ids of the samples, sorted, named. */
static void collect_events(struct profile *p)
{
    struct profile_raw *r = p->raw;
    uint32_t *ids = xrealloc(NULL, r->count * sizeof(*ids));
    for (size_t i = 0; i < r->count; i++)
        ids[i] = (uint32_t)(r->arena[r->ents[i].off + 1] >> 32);
    qsort(ids, r->count, sizeof(*ids), id_cmp);
    p->events = xrealloc(NULL, r->count * sizeof(*p->events));
    for (size_t i = 0; i < r->count; i++)
        if (!p->event_count || p->events[p->event_count - 1].id != ids[i])
            p->events[p->event_count++] = (struct profile_event){ .id = ids[i] };
    free(ids);
    name_events(p);
}

static bool matches_event(const struct profile_event *e, const char *filter)
{
    char *end;
    unsigned long id = strtoul(filter, &end, 0);
    return !strcmp(e->name, filter) || (*filter && !*end && id == e->id);
}

/* Whether the filter is the event's name without its mode suffix
 * ("instructions" of "instructions:ukh"). */
static bool matches_base(const struct profile_event *e, const char *filter)
{
    size_t n = strlen(filter);
    return n && !strchr(filter, ':') && !strncmp(e->name, filter, n) && e->name[n] == ':';
}

/* Keeps only the event the filter names: by its whole name or id, else by
 * its name without the mode suffix when one event alone has that base;
 * false if none matches (or several do), or if
 * without a filter there are more events than a report has columns for. */
static bool filter_events(struct profile *p, const char *filter, char *err, size_t err_len)
{
    if (!filter && p->event_count > PROFILE_EVENTS_MAX) {
        snprintf(err, err_len, "the log's samples name %u events, more than the %u one profile "
                 "shows side by side (a Vertigo session samples at most %u): choose one with "
                 "--event E", p->event_count, PROFILE_EVENTS_MAX, LOG_EVENTS_MAX);
        return false;
    }
    if (!filter)
        return true;
    int found = -1, same_base = 0;
    for (uint32_t i = 0; i < p->event_count && found < 0; i++)
        if (matches_event(&p->events[i], filter))
            found = (int)i;
    for (uint32_t i = 0; i < p->event_count && found < 0; i++)
        if (matches_base(&p->events[i], filter))
            same_base++;
    for (uint32_t i = 0; i < p->event_count && found < 0 && same_base == 1; i++)
        if (matches_base(&p->events[i], filter))
            found = (int)i;
    if (found >= 0) {
        p->events[0] = p->events[found];
        p->event_count = 1;
        return true;
    }
    int n = snprintf(err, err_len, "%s event '%s' (this log has:",
                     same_base ? "ambiguous" : "unknown", filter);
    for (uint32_t i = 0; i < p->event_count && n > 0 && (size_t)n < err_len; i++)
        n += snprintf(err + n, err_len - (size_t)n, " %s", p->events[i].name);
    if (n > 0 && (size_t)n < err_len)
        snprintf(err + n, err_len - (size_t)n, "%s)", p->event_count ? "" : " no samples");
    return false;
}

/* The position of id in the (sorted) events kept, or -1. */
static int event_index(const struct profile *p, uint32_t id)
{
    uint32_t lo = 0, hi = p->event_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->events[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->event_count && p->events[lo].id == id ? (int)lo : -1;
}

/* Symbolizes one raw entry into sample s, frames at out. Stack entries
 * are return addresses: the call is the byte before. */
/* Whether a kernel function switches a CPU from one task's kernel stack
 * to the next's (__switch_to_asm, which jumps to __switch_to): it returns
 * on the next task's stack, to the return address that task's last
 * switch left, or, for a new task's first switch, to the entry of
 * ret_from_fork, which copy_thread planted there without a call. */
static bool task_switch(const char *function)
{
    return !strcmp(function, "__switch_to_asm") || !strcmp(function, "__switch_to");
}

/* Whether a kernel function is where the CR3 may name another program
 * than the one whose saved user registers the stack holds (see
 * sym_where.program_gone): a process's exit and execve let go of its
 * program's page tables, and the scheduler's switch loads the next
 * task's CR3 (switch_mm_irqs_off, which ends in a jump to switch_ldt, so
 * a sample there has no switch_mm_irqs_off frame) before it moves to that
 * task's stack (__switch_to_asm), running __schedule's inlined
 * context_switch between the two: a sample in __schedule itself (the
 * leaf) may be there. */
static bool program_left(const char *function, bool leaf)
{
    return !strcmp(function, "do_exit") || !strcmp(function, "bprm_execve") ||
           !strcmp(function, "switch_mm_irqs_off") || task_switch(function) ||
           !strcmp(function, "switch_ldt") || (leaf && !strcmp(function, "__schedule"));
}

/* Whether a kernel function is a return thunk: the speculative-execution
 * mitigations (retbleed, SRSO, ITS) make functions jump to one in place of
 * their RET, and the thunk returns for them, so a sample in a thunk is, in
 * effect, at the return address the next frame holds: for program_left,
 * that frame is the leaf (a sample at its_return_thunk returning into
 * __schedule from switch_mm_irqs_off ran with the next task's CR3 on the
 * last task's stack). */
static bool return_thunk(const char *function)
{
    static const char *const thunks[] = {
        "__x86_return_thunk", "its_return_thunk", "retbleed_return_thunk", "srso_return_thunk",
        "srso_alias_return_thunk", "srso_safe_ret", "srso_alias_safe_ret",
    };
    for (size_t i = 0; i < sizeof(thunks) / sizeof(thunks[0]); i++)
        if (!strcmp(function, thunks[i]))
            return true;
    return false;
}

/* Whether frame f, a caller of the guest user frames before it, shows
 * that the frame-pointer walk had left frame-pointer code: a return
 * address that no mapping of the sample's process covers (a known
 * process: its identity or its maps name the CR3) is no return address.
 * Code built without frame pointers keeps data in RBP, and the walk took
 * that data for the next frame; neither it nor the frames the walk found
 * from it can be vouched for, so the stack ends before it. (The leaf and
 * the interrupted user RIP under a kernel entry are registers, not
 * walked: they stay, and a bad one is the frame checker's to report.) */
static bool walk_left_code(struct profile *p, const struct sym_where *w, const struct sym_frame *f,
                           bool user_before)
{
    return user_before && f->unmapped && sym_process_of(p->sym, w).pid != 0;
}

/* Whether kernel frame f is in an interrupt or exception entry stub
 * (asm_*) at or after the return from its first call (of error_entry or
 * paranoid_entry, which Linux's idtentry macros make within the stub's
 * first 16 bytes, before the stub moves its stack pointer onto the saved
 * registers): a caller frame there (named at its call's last byte), or
 * the leaf itself past the stub's first byte. That call pushes the
 * interrupted context's registers under its own return address, which
 * the kernel's ORC rule for the stub (its entry's IRET frame) does not
 * count: what a walk reads there as the interrupted context's RIP and
 * stack is those registers (a leaf right after the call read a data
 * address of busybox as the user RIP in Bochs). The frame itself is
 * true; the stack ends after it. A leaf before the call still had its
 * IRET frame where the rule says, but which bytes the call starts at is
 * the kernel build's, so those few contexts are left out too. */
#define ENTRY_STUB_FIRST_CALL_END 16u

static bool entry_stub_first_call(struct profile *p, const struct sym_frame *f, bool leaf)
{
    return f->mode == LOG_MODE_GUEST_KERNEL && (!leaf || f->offset > 0) &&
           f->offset < ENTRY_STUB_FIRST_CALL_END &&
           !strncmp(sym_function(p->sym, f->function)->name, "asm_", 4);
}

/* Whether return address addr, the caller of frames[depth - 1], is a
 * kernel function's entry that a task switch returns to (task_switch:
 * ret_from_fork): named by the address itself, where every other return
 * address is named by its call's last byte. (A caller named at its call
 * never has offset 0: a call is 2 bytes or more.) */
static bool planted_return(struct profile *p, const struct sym_where *at, const uint32_t *frames,
                           uint32_t depth, uint64_t addr)
{
    if (!depth)
        return false;
    const struct sym_frame *callee = sym_frame(p->sym, frames[depth - 1]);
    return callee->mode == LOG_MODE_GUEST_KERNEL &&
           task_switch(sym_function(p->sym, callee->function)->name) &&
           sym_kernel_function_at(p->sym, at->domain, addr);
}

/* Whether the guest kernel frame callee, the one before user address
 * addr in a stack, is an interrupt or exception entry stub (asm_*: every
 * idtentry of x86-64 Linux): addr is then the user RIP the interrupt or
 * exception saved, an instruction the CPU had not yet run, named at
 * itself (at the byte before it would name the previous instruction,
 * often another function). A system call's entry saves the address after
 * its syscall instruction, a return address like a caller's. */
static bool interrupted_user_rip(struct profile *p, const struct sym_frame *callee, uint64_t addr)
{
    return callee->mode == LOG_MODE_GUEST_KERNEL && addr < SYM_KERNEL_HALF_START &&
           !strncmp(sym_function(p->sym, callee->function)->name, "asm_", 4);
}

/* Whether kernel frames[0 .. depth) are a sample in an execve system call
 * under its entry (frames[depth - 1], entry_SYSCALL_*). */
static bool in_execve(struct profile *p, const uint32_t *frames, uint32_t depth)
{
    static const char *const execs[] = { "__x64_sys_execve", "__x64_sys_execveat",
                                         "__ia32_compat_sys_execve", "__ia32_compat_sys_execveat" };
    if (!depth || strncmp(sym_function(p->sym, sym_frame(p->sym, frames[depth - 1])->function)->name,
                          "entry_SYSCALL", 13))
        return false;
    for (uint32_t i = 0; i < depth; i++)
        for (size_t k = 0; k < sizeof(execs) / sizeof(execs[0]); k++)
            if (!strcmp(sym_function(p->sym, sym_frame(p->sym, frames[i])->function)->name, execs[k]))
                return true;
    return false;
}

/* The user RIP under an execve's entry, addr, resolved at itself when it
 * is the entry point of the ELF file mapped there (the new program's,
 * where load_elf_binary's start_thread sent it): that frame, else
 * UINT32_MAX (it follows the syscall of a failed execve, a return address). */
static uint32_t exec_entry_point(struct profile *p, struct sym_where *at, uint64_t addr)
{
    uint32_t id = sym_resolve(p->sym, at, addr);
    uint64_t entry;
    const char *binary;
    return sym_code_entry_point(p->sym, sym_frame(p->sym, id), &entry, &binary) && entry == addr ?
           id : UINT32_MAX;
}

/* The frame of raw address addr at position depth of a stack whose frames
 * before it are out[0 .. depth): named at addr itself when it is not a
 * return address (leaf: the sample's own or an exit's guest RIP; see
 * profile_sample.at_address), else at its call's last byte. */
static uint32_t resolve_frame(struct profile *p, struct sym_where *at, const uint32_t *out,
                              uint32_t depth, uint64_t addr, bool leaf, bool *at_address)
{
    const struct sym_frame *callee = depth ? sym_frame(p->sym, out[depth - 1]) : NULL;
    *at_address = leaf || planted_return(p, at, out, depth, addr) ||
                  (callee && interrupted_user_rip(p, callee, addr));
    if (*at_address)
        return sym_resolve(p->sym, at, addr);
    uint32_t id = callee && callee->mode == LOG_MODE_GUEST_KERNEL && addr < SYM_KERNEL_HALF_START &&
                  in_execve(p, out, depth) ? exec_entry_point(p, at, addr) : UINT32_MAX;
    *at_address = id != UINT32_MAX;
    return *at_address ? id : sym_resolve(p->sym, at, addr - 1);
}

/* Whether s names its process by an identity shipped after it (the
 * agent found the process only later: sym_process_guessed) while its
 * first user frame, a register (the sampled or saved user RIP), lies in
 * none of that process's mappings: that process's program has no code
 * there, so the sample is another's that had the same page-table root
 * before. */
static bool guess_refuted(struct profile *p, const struct profile_sample *s, const struct sym_where *w)
{
    for (uint32_t i = 0; i < s->depth; i++) {
        const struct sym_frame *f = sym_frame(p->sym, s->frames[i]);
        if (f->mode == LOG_MODE_GUEST_USER)
            return f->unmapped && sym_process_guessed(p->sym, w);
    }
    return false;
}

static void resolve_entry(struct profile *p, const uint64_t *key, uint32_t words,
                          struct profile_sample *s, uint32_t *out)
{
    struct sym_where w = {
        .domain = s->domain, .mode = s->mode, .has_cr3 = (key[2] >> 8) & 1,
        .cr3 = key[3], .jit_seq = (uint32_t)key[1], .identity_seq = (uint32_t)(key[2] >> 32),
        .maps_seq = (uint32_t)key[5],
    };
    struct sym_where vertigo = w;
    uint32_t n = words - KEY_FIXED_WORDS, depth = 0;
    bool user_before = false;            /* a guest user frame is in the stack already */
    bool thunks_only = true;             /* every frame so far a kernel return thunk */
    s->context = 0;
    s->cut = 0;
    s->at_address = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t addr = key[KEY_FIXED_WORDS + i];
        bool leaf = i == 0;
        if (s->mode == LOG_MODE_HYPERVISOR && w.has_cr3 && !s->context && i && i + 1 < n &&
            addr == LOG_EXIT_CONTEXT_MARK) {
            /* The guest's context at the exit: its RIP, then its callers. */
            s->context = depth;
            w.mode = key[KEY_FIXED_WORDS + i + 1] >= SYM_KERNEL_HALF_START ? LOG_MODE_GUEST_KERNEL
                                                                            : LOG_MODE_GUEST_USER;
            continue;
        }
        leaf |= s->context && depth == s->context;
        struct sym_where *at = s->context ? &w : &vertigo;
        bool at_address;
        out[depth] = resolve_frame(p, at, out, depth, addr, leaf, &at_address);
        s->at_address |= (uint64_t)at_address << depth;
        const struct sym_frame *f = sym_frame(p->sym, out[depth]);
        if (f->mode == LOG_MODE_GUEST_USER && walk_left_code(p, at, f, user_before && !leaf)) {
            s->cut = n - i;
            break;
        }
        user_before |= f->mode == LOG_MODE_GUEST_USER;
        depth++;
        if (f->mode == LOG_MODE_GUEST_KERNEL) {
            const char *name = sym_function(p->sym, f->function)->name;
            if (program_left(name, leaf || (depth > 1 && thunks_only)))
                at->program_gone = true;  /* the user frames below are not the CR3's program's */
            thunks_only = thunks_only && return_thunk(name);   /* only the frames from the leaf */
        } else {
            thunks_only = false;
        }
        if (entry_stub_first_call(p, f, leaf)) {
            s->cut = n - i - 1;
            break;
        }
    }
    s->depth = depth;
    s->frames = out;
    s->process = s->mode == LOG_MODE_HYPERVISOR && !s->context ?
                 sym_process_of(p->sym, &vertigo) : sym_process_of(p->sym, &w);
    if (guess_refuted(p, s, &w))
        s->process = (struct sym_process){ 0, SYM_COMM_UNKNOWN };
}

/* Whether item is one of the comma-separated words of list. */
static bool in_list(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *w = list; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL)
        if (!strncmp(w, item, n) && (w[n] == ',' || !w[n]))
            return true;
    return false;
}

/* Whether s passes the --comms, --pids, --dsos and --symbols filters. */
static bool sample_wanted(const struct profile *p, const struct profile_sample *s)
{
    char pid[16];
    if (p->filter.pid)
        snprintf(pid, sizeof(pid), "%u", s->process.pid);
    const struct sym_frame *leaf = sym_frame(p->sym, s->frames[0]);
    return (!p->filter.comm || in_list(p->filter.comm, s->process.comm)) &&
           (!p->filter.pid || in_list(p->filter.pid, pid)) &&
           (!p->filter.dso || in_list(p->filter.dso, sym_image(p->sym, leaf->image)->name)) &&
           (!p->filter.symbols ||
            in_list(p->filter.symbols, sym_function(p->sym, leaf->function)->name));
}

/* --time: the occurrences outside the ranges leave the timeline and their
 * raw entries' counts (percentages are of the first to the last sample's
 * time, every sample decoded). */
static void filter_time(struct profile *p)
{
    struct profile_timeline *t = &p->timeline;
    if (!p->filter.time.count || !t->occ_count)
        return;
    uint64_t first = UINT64_MAX, last = 0;
    for (uint64_t i = 0; i < t->occ_count; i++) {
        first = t->occ[i].tsc < first ? t->occ[i].tsc : first;
        last = t->occ[i].tsc > last ? t->occ[i].tsc : last;
    }
    time_filter_resolve(&p->filter.time, timeline_ns(first, p->tsc_hz), timeline_ns(last, p->tsc_hz));
    uint64_t kept = 0;
    for (uint64_t i = 0; i < t->occ_count; i++) {
        if (time_filter_keeps(&p->filter.time, timeline_ns(t->occ[i].tsc, p->tsc_hz)))
            t->occ[kept++] = t->occ[i];
        else
            p->raw->ents[t->occ[i].sample].count--;
    }
    t->occ_count = kept;
}

/* A sample's period: the one in force when it arrived, else the event's
 * first (it came before the record, from another CPU), else unknown (1). */
static uint64_t sample_period(struct profile *p, const uint64_t *key, struct profile_event *e)
{
    const struct event_periods *ep = periods_of(p->raw, e->id);
    uint64_t period = key[4] ? key[4] : ep ? ep->first : 0;
    e->period_known |= period != 0;
    period = period ? period : 1;
    e->period = !e->total || e->period == period ? period : 0;
    return period;
}

/* The events a sample stands for (its count times its period) added to
 * its event's, checked: every other sum or product of them a writer makes
 * (a CSV row's events, a pprof value) is at most the event's, so this is
 * the one check they need. The offset where the event's events first
 * pass 2^63 - 1 is kept for pprof, whose values are signed. */
static void add_events(struct profile *p, struct profile_event *e, const struct profile_sample *s,
                       uint64_t offset)
{
    uint64_t events;
    if (!log_mul(s->count, s->period, &events) || !log_add(&e->events, events)) {
        log_overflow_note(&p->overflow, offset, "sample of event '%s': the events its samples "
                          "stand for (samples x period) add up past 2^64 - 1", e->name);
        return;
    }
    if (e->events > INT64_MAX && !e->past_int64) {
        e->past_int64 = true;
        e->int64_offset = offset;
    }
}

static void resolve_all(struct profile *p)
{
    struct profile_raw *r = p->raw;
    p->samples = xrealloc(NULL, r->count * sizeof(*p->samples));
    r->frames = xrealloc(NULL, r->arena_len * sizeof(*r->frames));
    uint64_t *to_sample = p->keep_timeline ? xrealloc(NULL, r->count * sizeof(*to_sample)) : NULL;
    size_t frames_used = 0;
    for (size_t i = 0; i < r->count; i++) {
        const uint64_t *key = &r->arena[r->ents[i].off];
        int ev = event_index(p, (uint32_t)(key[1] >> 32));
        if (to_sample)
            to_sample[i] = TIMELINE_DROPPED;
        if (ev < 0 || !r->ents[i].count)     /* another event, or every one out of --time */
            continue;
        struct profile_sample *s = &p->samples[p->sample_count];
        *s = (struct profile_sample){
            .domain = (uint32_t)(key[0] >> 32), .vcpu = (uint32_t)key[0],
            .mode = (uint8_t)(key[2] & LOG_SAMPLE_MODE_MASK), .event = (uint32_t)ev,
            .count = r->ents[i].count,
        };
        resolve_entry(p, key, r->ents[i].words, s, &r->frames[frames_used]);
        if (!sample_wanted(p, s))
            continue;
        s->period = sample_period(p, key, &p->events[ev]);
        if (to_sample)
            to_sample[i] = p->sample_count;
        p->sample_count++;
        frames_used += s->depth;
        p->events[ev].total += s->count;         /* counts of records: below 2^64 */
        add_events(p, &p->events[ev], s, r->ents[i].last_offset);
        p->total += s->count;
        uint64_t cut;
        if (__builtin_mul_overflow((uint64_t)s->cut, s->count, &cut) ||
            __builtin_add_overflow(p->frames_cut, cut, &p->frames_cut))
            p->frames_cut = UINT64_MAX;          /* (a hostile log's counts: saturated) */
    }
    if (to_sample)
        timeline_finish(&p->timeline, to_sample);
    free(to_sample);
}

bool profile_finish(struct profile *p, const char *event, char *err, size_t err_len)
{
    collect_events(p);
    if (!filter_events(p, event, err, err_len))
        return false;
    filter_time(p);
    resolve_all(p);
    if (p->overflow.hit) {
        snprintf(err, err_len, "the record at offset %" PRIu64 ": %s (the log is corrupt)",
                 p->overflow.offset, p->overflow.what);
        return false;
    }
    for (uint64_t i = 1; i < p->sample_count && !p->several_domains; i++)
        p->several_domains = p->samples[i].domain != p->samples[0].domain;
    return true;
}

/* ---- Life cycle ------------------------------------------------------- */

/* A --pid list holds numbers only. */
static bool pids_ok(const char *list, char *err, size_t err_len)
{
    for (const char *w = list; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL) {
        size_t n = strspn(w, "0123456789");
        if (!n || (w[n] && w[n] != ',')) {
            snprintf(err, err_len, "--pid %s: not a list of process numbers", list);
            return false;
        }
    }
    return true;
}

bool profile_init(struct profile *p, const struct profile_options *o, char *err, size_t err_len)
{
    memset(p, 0, sizeof(*p));
    if (o->pid && !pids_ok(o->pid, err, err_len))
        return false;
    if (o->time && !time_filter_parse(&p->filter.time, o->time, err, err_len))
        return false;
    p->filter.comm = o->comm;
    p->filter.pid = o->pid;
    p->filter.dso = o->dso;
    p->filter.symbols = o->symbols;
    p->quiet = o->quiet;
    p->keep_timeline = o->timeline || p->filter.time.count;   /* --time needs every sample's time */
    p->raw = calloc(1, sizeof(*p->raw));
    if (!p->raw) {
        snprintf(err, err_len, "out of memory");
        return false;
    }
    raw_rehash(p->raw);
    p->domains = calloc(1, sizeof(*p->domains));
    p->sym = p->domains ? sym_create(&o->sym, err, err_len) : NULL;
    if (!p->domains)
        snprintf(err, err_len, "out of memory");
    if (p->sym)
        sym_set_domain_names(p->sym, p->domains);
    return p->sym != NULL;
}

void profile_free(struct profile *p)
{
    if (p->raw) {
        raw_free(p->raw);
        free(p->raw);
    }
    timeline_free(&p->timeline);
    sym_destroy(p->sym);
    free(p->domains);
    free(p->events);
    free(p->samples);
    memset(p, 0, sizeof(*p));
}

/* What the symbol records lost, on one line, when they lost anything. */
static void print_symbol_problems(const struct profile *p, const char *cmd, const char *path)
{
    const struct sym_problems *sp = &p->loss.symbols;
    if (!sp->bad_lines && !sp->broken_sets && !sp->restarted_sets && !sp->abandoned_sets &&
        !sp->unfinished_sets)
        return;
    fprintf(stderr, "vertigo %s: %s: symbol data lost: %" PRIu64 " malformed lines ignored, %"
            PRIu64 " sets broken (a chunk missing), %" PRIu64 " restarted before their last "
            "chunk, %" PRIu64 " abandoned by Vertigo, %" PRIu64 " never finished; samples they "
            "would name may show as [unknown]\n",
            cmd, path, sp->bad_lines, sp->broken_sets, sp->restarted_sets, sp->abandoned_sets,
            sp->unfinished_sets);
}

/* Guest files that could not serve as symbol sources: the first few by
 * name, then how many more (a hostile log may name thousands). */
static void print_warnings(const struct profile *p, const char *cmd)
{
    size_t n = sym_warning_count(p->sym);
    for (size_t i = 0; i < n && i < PROFILE_WARNINGS_SHOWN; i++)
        fprintf(stderr, "vertigo %s: warning: --guest-root: %s; its samples show as [unknown]\n",
                cmd, sym_warning(p->sym, i));
    if (n > PROFILE_WARNINGS_SHOWN)
        fprintf(stderr, "vertigo %s: warning: --guest-root: %zu more files could not be read\n",
                cmd, n - PROFILE_WARNINGS_SHOWN);
}

int profile_complete(struct profile *p, const char *cmd, const char *path,
                     const struct profile_options *o, const struct logdec *dec)
{
    char err[ERR_MAX];
    int status = log_input_exit_status(cmd, path, dec);
    if (status != VERTIGO_EXIT_OK && status != VERTIGO_EXIT_DAMAGED)
        return status;
    p->loss.ring_dropped = dec->totals.ring_dropped;
    p->loss.records_lost = dec->totals.records_lost;
    p->loss.blocks_lost = dec->totals.blocks_lost;
    sym_get_problems(p->sym, &p->loss.symbols);
    if (!o->quiet)
        check_vertigo_elf(p, cmd, o);
    if (!sym_check_domains(p->sym, err, sizeof(err)) ||
        !profile_finish(p, o->event, err, sizeof(err))) {
        if (p->overflow.hit) {
            log_overflow_print(stderr, cmd, path, &p->overflow);
            return VERTIGO_EXIT_OVERFLOW;
        }
        fprintf(stderr, "vertigo %s: %s\n", cmd, err);
        return VERTIGO_EXIT_USAGE;
    }
    if (!o->quiet) {
        print_symbol_problems(p, cmd, path);
        print_warnings(p, cmd);
    }
    return status;
}

int profile_load(struct profile *p, const char *cmd, const char *path,
                 const struct profile_options *o)
{
    char err[ERR_MAX];
    if (!profile_init(p, o, err, sizeof(err))) {
        fprintf(stderr, "vertigo %s: %s\n", cmd, err);
        return VERTIGO_EXIT_USAGE;
    }
    struct logdec *dec = malloc(sizeof(*dec));
    if (!dec) {
        fprintf(stderr, "vertigo %s: out of memory\n", cmd);
        return VERTIGO_EXIT_USAGE;
    }
    FILE *in = log_input_open_twice(cmd, path);
    int status = in ? profile_read_log(p, cmd, path, in, dec) : VERTIGO_EXIT_USAGE;
    if (in)
        fclose(in);
    if (status == VERTIGO_EXIT_OK)
        status = profile_complete(p, cmd, path, o, dec);
    free(dec);
    return status;
}

const char *profile_mode_name(uint8_t mode)
{
    static const char *const names[LOG_MODE_COUNT] = { "hypervisor", "kernel", "user" };
    return mode < LOG_MODE_COUNT ? names[mode] : "?";
}

const char *profile_domain_name(const struct profile *p, uint32_t domain,
                                char buf[DOMAIN_NAME_MAX])
{
    static const struct domain_names none;
    return domain_name(p->domains ? p->domains : &none, domain, buf);
}

bool profile_several_domains(const struct profile *p)
{
    return p->several_domains;
}
