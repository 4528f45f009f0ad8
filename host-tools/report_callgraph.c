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

static uint32_t new_node(struct callgraph *g, uint32_t function)
{
    if (g->count == g->cap) {
        g->cap = g->cap ? g->cap * 2 : NODES_MIN;
        g->nodes = realloc(g->nodes, g->cap * sizeof(*g->nodes));
        if (!g->nodes) {
            fprintf(stderr, "vertigo report: out of memory\n");
            exit(VERTIGO_EXIT_USAGE);
        }
    }
    g->nodes[g->count] = (struct callgraph_node){ function, 0, NONE, NONE };
    return g->count++;
}

uint32_t callgraph_root(struct callgraph *g)
{
    return new_node(g, NONE);
}

void callgraph_add(struct callgraph *g, uint32_t root, const uint32_t *functions, uint32_t n,
                   uint64_t count)
{
    uint32_t at = root;
    g->nodes[at].count += count;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = g->nodes[at].child;
        while (c != NONE && g->nodes[c].function != functions[i])
            c = g->nodes[c].sibling;
        if (c == NONE) {
            c = new_node(g, functions[i]);
            g->nodes[c].sibling = g->nodes[at].child;
            g->nodes[at].child = c;
        }
        g->nodes[c].count += count;
        at = c;
    }
}

void callgraph_free(struct callgraph *g)
{
    free(g->nodes);
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
