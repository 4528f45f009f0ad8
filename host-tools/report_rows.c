/* The rows of `vertigo report` (see report_rows.h). */
#define _GNU_SOURCE   /* qsort_r */
#include "host-tools/report_rows.h"
#include "host-tools/out_of_memory.h"

#include <stdlib.h>
#include <string.h>

#include "host-tools/vertigo.h"

#define MAX_CHAIN (LOG_STACK_MAX + 1u)
#define ROWS_MIN 64u

unsigned int report_keys(const struct report_options *o, enum report_key keys[REPORT_KEY_COUNT])
{
    switch (o->sort) {
    case REPORT_SORT_SYMBOL: keys[0] = REPORT_KEY_SYM; return 1;
    case REPORT_SORT_IMAGE:  keys[0] = REPORT_KEY_DSO; return 1;
    case REPORT_SORT_KEYS:
        memcpy(keys, o->keys, o->key_count * sizeof(keys[0]));
        return o->key_count;
    case REPORT_SORT_SAMPLES:
    case REPORT_SORT_DEFAULT: break;
    }
    keys[0] = REPORT_KEY_DSO;
    keys[1] = REPORT_KEY_SYM;
    return 2;
}

static void *grow(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "vertigo report: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    return p;
}

/* The row of function (of image) in sample s: its key fields, found or
 * added. */
static uint32_t row_of(struct report_table *t, const struct profile_sample *s, uint32_t image,
                       uint32_t function)
{
    struct report_row key = {
        .domain = t->has[REPORT_KEY_DOMAIN] ? s->domain : 0,
        .vcpu = t->has[REPORT_KEY_VCPU] ? s->vcpu : 0,
        .comm = t->has[REPORT_KEY_COMM] || t->has[REPORT_KEY_PID] ? s->process.comm : NULL,
        .pid = t->has[REPORT_KEY_PID] ? s->process.pid : 0,
        .image = t->has[REPORT_KEY_DSO] || t->has[REPORT_KEY_SYM] ? image : 0,
        .function = t->has[REPORT_KEY_SYM] ? function : UINT32_MAX,
    };
    uint32_t place = keymap_get(&t->place_map, key.domain, key.vcpu, 0, t->place_count);
    t->place_count += place == t->place_count;
    uint32_t i = keymap_get(&t->row_map, (uint64_t)key.pid << 32 | key.image, (uintptr_t)key.comm,
                            (uint64_t)place << 32 | key.function, t->row_count);
    if (i != t->row_count)
        return i;
    uint32_t ev = t->p->event_count;
    if (t->row_count == t->row_cap) {
        t->row_cap = t->row_cap ? t->row_cap * 2 : ROWS_MIN;
        t->rows = grow(t->rows, t->row_cap * sizeof(*t->rows));
        t->counts = grow(t->counts, t->row_cap * sizeof(*t->counts));
        t->counted_in = grow(t->counted_in, t->row_cap * sizeof(*t->counted_in));
    }
    t->counted_in[i] = 0;
    uint64_t *counts = calloc(2 * (size_t)ev + 1, sizeof(*counts));
    if (!counts)
        vertigo_out_of_memory();
    t->counts[i] = counts;
    key.self_ev = counts;
    key.children_ev = counts + ev;
    key.graph = UINT32_MAX;
    t->rows[t->row_count++] = key;
    return i;
}

/* The chain of sample s under row r, whose function is at frame k
 * (report_callgraph.h says which part, in which order). */
static void add_chain(struct report_table *t, uint32_t r, const struct profile_sample *s, uint32_t k)
{
    const struct callgraph_options *cg = &t->o->call_graph;
    bool children = t->o->children;
    bool caller = cg->order == CALLGRAPH_CALLER || (cg->order == CALLGRAPH_ORDER_DEFAULT && children);
    uint32_t chain[MAX_CHAIN], n = 0;
    uint32_t depth = s->depth < MAX_CHAIN ? s->depth : MAX_CHAIN;
    if (caller)                          /* down to the leaf: from the root, or the row's frame */
        for (uint32_t i = (children ? k : depth - 1) + 1; i-- > 0;)
            chain[n++] = sym_frame(t->p->sym, s->frames[i])->function;
    else                                 /* up to the root: from the leaf, or the row's frame */
        for (uint32_t i = children ? k : 0; i < depth; i++)
            chain[n++] = sym_frame(t->p->sym, s->frames[i])->function;
    if (t->rows[r].graph == UINT32_MAX)
        t->rows[r].graph = callgraph_root(&t->graph);
    callgraph_add(&t->graph, t->rows[r].graph, chain, n, s->count);
}

/* Counts s, the sample numbered stamp (index + 1), in row r, whose
 * function is at frame k: children once per sample, self when it is the
 * leaf's; with -g, the sample's chain goes under the row once. */
static void count_in(struct report_table *t, const struct profile_sample *s, uint64_t stamp,
                     uint32_t r, uint32_t k, bool self)
{
    struct report_row *row = &t->rows[r];
    bool graph = t->o->call_graph.mode != CALLGRAPH_NONE && s->depth;
    if (self) {
        row->self += s->count;
        row->self_ev[s->event] += s->count;
        if (graph && !t->o->children)
            add_chain(t, r, s, k);
    }
    if (t->counted_in[r] == stamp)
        return;
    t->counted_in[r] = stamp;
    row->children += s->count;
    row->children_ev[s->event] += s->count;
    if (graph && t->o->children)
        add_chain(t, r, s, k);
}

/* Adds s to its leaf's row (self) and, once per distinct row of its
 * chain, the functions inlined at each frame included (perf's inlined
 * call sites), to the children counts; with leaf_only, to the leaf's row
 * alone. */
static void add_sample(struct report_table *t, const struct profile_sample *s, uint64_t stamp)
{
    for (uint32_t i = 0; i < s->depth && i < MAX_CHAIN; i++) {
        const struct sym_frame *f = sym_frame(t->p->sym, s->frames[i]);
        count_in(t, s, stamp, row_of(t, s, f->image, f->function), i, i == 0);
        if (t->leaf_only)            /* the other frames count in children alone */
            return;
        const struct sym_inline *in = sym_frame_inlines(t->p->sym, f);
        for (uint32_t k = 0; t->has[REPORT_KEY_SYM] && k < f->inline_count && k < SYM_INLINE_MAX; k++)
            count_in(t, s, stamp, row_of(t, s, f->image, in[k].function), i, false);
    }
}

/* The mode of a function: the mode of the first frame that names it
 * (as its symbol or inlined there). */
uint8_t *report_function_modes(const struct profile *p)
{
    uint32_t n = sym_function_count(p->sym);
    uint8_t *modes = malloc(n ? n : 1);
    if (!modes)
        vertigo_out_of_memory();
    memset(modes, LOG_MODE_COUNT, n);
    for (uint64_t i = 0; i < p->sample_count; i++)
        for (uint32_t k = 0; k < p->samples[i].depth; k++) {
            const struct sym_frame *f = sym_frame(p->sym, p->samples[i].frames[k]);
            const struct sym_inline *in = sym_frame_inlines(p->sym, f);
            if (modes[f->function] == LOG_MODE_COUNT)
                modes[f->function] = f->mode;
            for (uint32_t j = 0; j < f->inline_count; j++)
                if (modes[in[j].function] == LOG_MODE_COUNT)
                    modes[in[j].function] = f->mode;
        }
    return modes;
}

/* Compares the values of one key. */
static int key_cmp(const struct report_table *t, enum report_key k, const struct report_row *x,
                   const struct report_row *y)
{
    const struct symbolizer *sym = t->p->sym;
    switch (k) {
    case REPORT_KEY_COMM:
        return strcmp(x->comm, y->comm);
    case REPORT_KEY_PID:
        return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : strcmp(x->comm, y->comm);
    case REPORT_KEY_DSO:
        return strcmp(sym_image(sym, x->image)->name, sym_image(sym, y->image)->name);
    case REPORT_KEY_DOMAIN:
        return x->domain != y->domain ? (x->domain < y->domain ? -1 : 1) : 0;
    case REPORT_KEY_VCPU:
        return x->vcpu != y->vcpu ? (x->vcpu < y->vcpu ? -1 : 1) : 0;
    case REPORT_KEY_SYM:
    case REPORT_KEY_COUNT:
        break;
    }
    return strcmp(sym_function(sym, x->function)->name, sym_function(sym, y->function)->name);
}

static int row_cmp(const void *a, const void *b, void *table)
{
    const struct report_table *t = table;
    const struct report_row *x = a, *y = b;
    uint64_t kx = t->o->children ? x->children : x->self;
    uint64_t ky = t->o->children ? y->children : y->self;
    if (kx != ky)
        return kx > ky ? -1 : 1;
    enum report_key keys[REPORT_KEY_COUNT];
    unsigned int n = report_keys(t->o, keys);
    if (t->o->sort == REPORT_SORT_SAMPLES) {   /* the default: by name, then image */
        keys[0] = REPORT_KEY_SYM;
        keys[1] = REPORT_KEY_DSO;
    }
    for (unsigned int i = 0; i < n; i++) {
        int c = key_cmp(t, keys[i], x, y);
        if (c)
            return c;
    }
    return 0;
}

void report_table_build(struct report_table *t, const struct profile *p,
                        const struct report_options *o)
{
    memset(t, 0, sizeof(*t));
    t->p = p;
    t->o = o;
    enum report_key keys[REPORT_KEY_COUNT];
    unsigned int n = report_keys(o, keys);
    for (unsigned int i = 0; i < n; i++)
        t->has[keys[i]] = true;
    t->leaf_only = !o->children && !o->json;
    for (uint64_t i = 0; i < p->sample_count; i++)
        add_sample(t, &p->samples[i], i + 1);
    /* Rows move when sorted: their counters stay where they are. */
    if (t->row_count)
        qsort_r(t->rows, t->row_count, sizeof(*t->rows), row_cmp, t);
}

void report_table_free(struct report_table *t)
{
    for (uint32_t i = 0; i < t->row_count; i++)
        free(t->counts[i]);
    free(t->counts);
    free(t->counted_in);
    free(t->rows);
    keymap_free(&t->row_map);
    keymap_free(&t->place_map);
    callgraph_free(&t->graph);
}
