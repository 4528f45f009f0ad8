/* The call chains under each row of `vertigo report -g` (perf report's
 * --call-graph): the chains of a row's samples merged into a tree and
 * printed as perf prints them. A row's chains start at the row's function:
 * without --children, the samples whose leaf is the row's, from the leaf
 * to the root (callee order) or from the root to the leaf (caller order);
 * with --children, every sample whose chain holds the function, from it
 * towards the root (callee) or towards the leaf (caller, the default).
 *
 *   graph    a tree, each branch with its share of all samples
 *   fractal  a tree, each branch with its share of its parent's
 *   flat     every chain, its share, one frame per line
 *   folded   every chain on one line: "SHARE% a;b;c"
 *   none     rows only
 * Branches and chains under the threshold (percent, default 0.5) are not
 * shown. */
#ifndef HOST_TOOLS_REPORT_CALLGRAPH_H
#define HOST_TOOLS_REPORT_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host-tools/symbolize.h"

enum callgraph_mode { CALLGRAPH_NONE, CALLGRAPH_GRAPH, CALLGRAPH_FRACTAL, CALLGRAPH_FLAT,
                      CALLGRAPH_FOLDED };
enum callgraph_order { CALLGRAPH_ORDER_DEFAULT, CALLGRAPH_CALLEE, CALLGRAPH_CALLER };

struct callgraph_options {
    enum callgraph_mode mode;
    enum callgraph_order order;  /* DEFAULT: caller with --children, else callee */
    double threshold;            /* percent */
};

#define CALLGRAPH_THRESHOLD_DEFAULT 0.5

/* Parses perf's -g value "TYPE[,THRESHOLD][,ORDER]" (any order; TYPE
 * graph, fractal, flat, folded or none; ORDER caller or callee; perf's
 * sort key "function" and value "percent" accepted as the only ones
 * there are) into o. False with a message in err. */
bool callgraph_parse(struct callgraph_options *o, const char *value, char *err, size_t err_len);

struct callgraph_node {
    uint32_t function;           /* symbolizer function id; UINT32_MAX: a root */
    uint32_t parent;             /* UINT32_MAX: a root */
    uint64_t count;              /* samples through it */
    uint32_t child, sibling;     /* first child, next sibling; UINT32_MAX: none */
};

/* The nodes of every tree, and an index of them by (parent, function):
 * a node with thousands of children (a --children row's callers) is
 * found in constant time, not by walking its siblings. */
struct callgraph {
    struct callgraph_node *nodes;
    uint32_t count, cap;
    struct callgraph_slot { uint32_t parent, function, node; } *index;   /* node + 1, 0: empty */
    uint32_t index_cap;          /* open addressing: a power of two, at least twice count */
};

/* A new tree; returns its root. */
uint32_t callgraph_root(struct callgraph *g);

/* Adds count samples of the chain functions[0..n-1] (in display order)
 * under root. */
void callgraph_add(struct callgraph *g, uint32_t root, const uint32_t *functions, uint32_t n,
                   uint64_t count);

/* The tree under root, in o's mode, shares of total samples. */
void callgraph_print(FILE *out, const struct callgraph *g, uint32_t root,
                     const struct symbolizer *sym, uint64_t total,
                     const struct callgraph_options *o);

void callgraph_free(struct callgraph *g);

#endif
