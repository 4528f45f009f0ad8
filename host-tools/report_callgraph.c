/* Call chains under the report's rows (see report_callgraph.h). */
#define _GNU_SOURCE   /* qsort_r */
#include "host-tools/report_callgraph.h"

#include <stdlib.h>
#include <string.h>

#include "host-tools/vertigo.h"

#define NODES_MIN 256u
#define NONE UINT32_MAX
#define PERCENT 100.0
#define PREFIX_MAX 4096u
#define BRANCH_INDENT "          "    /* what a branch adds to the prefix, after its bar */
#define ENTRY_INDENT "            "    /* a row's tree, under its percentages */
#define CHAIN_MAX (LOG_STACK_MAX + 2u)

bool callgraph_parse(struct callgraph_options *o, const char *value, char *err, size_t err_len)
{
    static const char *const modes[] = { "none", "graph", "fractal", "flat", "folded" };
    o->mode = CALLGRAPH_GRAPH;
    o->order = CALLGRAPH_ORDER_DEFAULT;
    o->threshold = CALLGRAPH_THRESHOLD_DEFAULT;
    for (const char *w = value; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL) {
        size_t len = strcspn(w, ",");
        char word[32], *end;
        snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) - 1 ? len : sizeof(word) - 1), w);
        bool known = false;
        for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
            if (!strcmp(word, modes[m])) {
                o->mode = (enum callgraph_mode)m;
                known = true;
            }
        if (!strcmp(word, "caller") || !strcmp(word, "callee")) {
            o->order = !strcmp(word, "callee") ? CALLGRAPH_CALLEE : CALLGRAPH_CALLER;
            known = true;
        }
        known |= !strcmp(word, "function") || !strcmp(word, "percent");
        double t = strtod(word, &end);
        if (!known && len && end != word && !*end && t >= 0.0 && t <= PERCENT) {
            o->threshold = t;
            known = true;
        }
        if (!known || len >= sizeof(word)) {
            snprintf(err, err_len, "--call-graph '%s': unknown part '%.*s' (a type: graph, "
                     "fractal, flat, folded, none; a threshold in percent; caller or callee)",
                     value, (int)len, w);
            return false;
        }
    }
    return true;
}

#define INDEX_MIN 1024u
#define HASH_MUL 0x9e3779b97f4a7c15ull   /* 2^64 / golden ratio, odd */

static void *grow_or_exit(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "vertigo report: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    return p;
}

static uint32_t index_slot(uint32_t parent, uint32_t function, uint32_t mask)
{
    uint64_t h = ((uint64_t)parent << 32 | function) * HASH_MUL;
    return (uint32_t)(h >> 32) & mask;
}

/* Where (parent, function) is in the index, or the empty slot it would
 * take. Slots hold their key: one memory access per probe. */
static struct callgraph_slot *index_find(const struct callgraph *g, uint32_t parent,
                                         uint32_t function)
{
    uint32_t mask = g->index_cap - 1, i = index_slot(parent, function, mask);
    for (;; i = (i + 1) & mask) {
        struct callgraph_slot *s = &g->index[i];
        if (!s->node || (s->parent == parent && s->function == function))
            return s;
    }
}

static void index_grow(struct callgraph *g)
{
    uint32_t cap = g->index_cap ? g->index_cap * 2 : INDEX_MIN;
    free(g->index);
    g->index = calloc(cap, sizeof(*g->index));
    if (!g->index) {
        fprintf(stderr, "vertigo report: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    g->index_cap = cap;
    for (uint32_t n = 0; n < g->count; n++)
        if (g->nodes[n].parent != NONE)
            *index_find(g, g->nodes[n].parent, g->nodes[n].function) =
                (struct callgraph_slot){ g->nodes[n].parent, g->nodes[n].function, n + 1 };
}

static uint32_t new_node(struct callgraph *g, uint32_t parent, uint32_t function)
{
    if (g->count == g->cap) {
        g->cap = g->cap ? g->cap * 2 : NODES_MIN;
        g->nodes = grow_or_exit(g->nodes, g->cap * sizeof(*g->nodes));
    }
    g->nodes[g->count] = (struct callgraph_node){ function, parent, 0, NONE, NONE };
    return g->count++;
}

uint32_t callgraph_root(struct callgraph *g)
{
    return new_node(g, NONE, NONE);
}

/* The child of parent for function: found in the index, or added as its
 * first child (the sibling order printing falls back on is unchanged). */
static uint32_t child_of(struct callgraph *g, uint32_t parent, uint32_t function)
{
    if ((g->count + 1u) * 2u > g->index_cap)
        index_grow(g);
    struct callgraph_slot *slot = index_find(g, parent, function);
    if (slot->node)
        return slot->node - 1;
    uint32_t c = new_node(g, parent, function);
    g->nodes[c].sibling = g->nodes[parent].child;
    g->nodes[parent].child = c;
    *slot = (struct callgraph_slot){ parent, function, c + 1 };
    return c;
}

void callgraph_add(struct callgraph *g, uint32_t root, const uint32_t *functions, uint32_t n,
                   uint64_t count)
{
    uint32_t at = root;
    g->nodes[at].count += count;
    for (uint32_t i = 0; i < n; i++) {
        at = child_of(g, at, functions[i]);
        g->nodes[at].count += count;
    }
}

void callgraph_free(struct callgraph *g)
{
    free(g->nodes);
    free(g->index);
    memset(g, 0, sizeof(*g));
}

/* ---- Printing --------------------------------------------------------------- */

struct printer {
    FILE *out;
    const struct callgraph *g;
    const struct symbolizer *sym;
    uint64_t total;
    const struct callgraph_options *o;
};

static double share(uint64_t part, uint64_t whole)
{
    return whole ? PERCENT * (double)part / (double)whole : 0.0;
}

static const char *name_of(const struct printer *pr, uint32_t node)
{
    return sym_function(pr->sym, pr->g->nodes[node].function)->name;
}

static int by_count(const void *a, const void *b, void *printer)
{
    const struct printer *pr = printer;
    const struct callgraph_node *x = &pr->g->nodes[*(const uint32_t *)a];
    const struct callgraph_node *y = &pr->g->nodes[*(const uint32_t *)b];
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(name_of(pr, *(const uint32_t *)a), name_of(pr, *(const uint32_t *)b));
}

/* The children of node worth showing (share of base at least the
 * threshold), largest first; returns how many, *all the children. */
static uint32_t shown_children(const struct printer *pr, uint32_t node, uint64_t base,
                               uint32_t **out, uint32_t *all)
{
    uint32_t n = 0, k = 0;
    for (uint32_t c = pr->g->nodes[node].child; c != NONE; c = pr->g->nodes[c].sibling)
        n++;
    *all = n;
    *out = malloc((n ? n : 1) * sizeof(**out));
    if (!*out)
        exit(VERTIGO_EXIT_USAGE);
    for (uint32_t c = pr->g->nodes[node].child; c != NONE; c = pr->g->nodes[c].sibling)
        if (share(pr->g->nodes[c].count, base) >= pr->o->threshold)
            (*out)[k++] = c;
    qsort_r(*out, k, sizeof(**out), by_count, (void *)pr);
    return k;
}

/* A straight run of the tree from node: its name, then each only child
 * that carries all of its parent's samples, one per line after prefix.
 * Returns the run's last node. */
static uint32_t print_run(const struct printer *pr, uint32_t node, const char *prefix)
{
    fprintf(pr->out, "%s\n", name_of(pr, node));
    for (;;) {
        const struct callgraph_node *n = &pr->g->nodes[node];
        uint32_t c = n->child;
        if (c == NONE || pr->g->nodes[c].sibling != NONE || pr->g->nodes[c].count != n->count)
            return node;
        node = c;
        fprintf(pr->out, "%s%s\n", prefix, name_of(pr, node));
    }
}

static void print_branches(const struct printer *pr, uint32_t node, const char *prefix, int depth)
{
    uint64_t base = pr->o->mode == CALLGRAPH_FRACTAL ? pr->g->nodes[node].count : pr->total;
    uint32_t *kids, all;
    uint32_t n = shown_children(pr, node, base, &kids, &all);
    for (uint32_t i = 0; i < n && depth < (int)CHAIN_MAX; i++) {
        bool last = i + 1 == n;
        char inner[PREFIX_MAX];
        snprintf(inner, sizeof(inner), "%s%c" BRANCH_INDENT, prefix, last ? ' ' : '|');
        fprintf(pr->out, "%s|" BRANCH_INDENT "\n%s%c--%.2f%%--", prefix, prefix, last ? ' ' : '|',
                share(pr->g->nodes[kids[i]].count, base));
        uint32_t end = print_run(pr, kids[i], inner);
        print_branches(pr, end, inner, depth + 1);
    }
    free(kids);
}

static void print_tree(const struct printer *pr, uint32_t root)
{
    uint32_t *kids, all;
    uint32_t n = shown_children(pr, root, pr->total, &kids, &all);
    fprintf(pr->out, ENTRY_INDENT "|\n");
    if (n == 1 && all == 1) {              /* one start: perf's "---" */
        fprintf(pr->out, ENTRY_INDENT "---");
        uint32_t end = print_run(pr, kids[0], ENTRY_INDENT "   ");
        print_branches(pr, end, ENTRY_INDENT "   ", 1);
    } else {
        print_branches(pr, root, ENTRY_INDENT, 0);
    }
    free(kids);
    fputc('\n', pr->out);
}

/* Every chain that ends at a node (flat and folded): the path to it in
 * path[0..depth]. */
static void print_chains(const struct printer *pr, uint32_t node, uint32_t *path, uint32_t depth)
{
    const struct callgraph_node *n = &pr->g->nodes[node];
    uint64_t below = 0;
    for (uint32_t c = n->child; c != NONE; c = pr->g->nodes[c].sibling)
        below += pr->g->nodes[c].count;
    double pct = share(n->count - below, pr->total);
    if (depth && n->count > below && pct >= pr->o->threshold) {
        if (pr->o->mode == CALLGRAPH_FOLDED) {
            fprintf(pr->out, "%.2f%% ", pct);
            for (uint32_t i = 0; i < depth; i++)
                fprintf(pr->out, "%s%s", i ? ";" : "", name_of(pr, path[i]));
            fputc('\n', pr->out);
        } else {
            fprintf(pr->out, "           %.2f%%\n", pct);
            for (uint32_t i = 0; i < depth; i++)
                fprintf(pr->out, "                %s\n", name_of(pr, path[i]));
            fputc('\n', pr->out);
        }
    }
    uint32_t *kids, all;
    uint32_t k = shown_children(pr, node, pr->total, &kids, &all);
    for (uint32_t i = 0; i < k && depth < CHAIN_MAX; i++) {
        path[depth] = kids[i];
        print_chains(pr, kids[i], path, depth + 1);
    }
    free(kids);
}

void callgraph_print(FILE *out, const struct callgraph *g, uint32_t root,
                     const struct symbolizer *sym, uint64_t total,
                     const struct callgraph_options *o)
{
    struct printer pr = { out, g, sym, total, o };
    uint32_t path[CHAIN_MAX];
    switch (o->mode) {
    case CALLGRAPH_NONE:
        return;
    case CALLGRAPH_GRAPH:
    case CALLGRAPH_FRACTAL:
        print_tree(&pr, root);
        return;
    case CALLGRAPH_FLAT:
    case CALLGRAPH_FOLDED:
        print_chains(&pr, root, path, 0);
        return;
    }
}
