/* The command line every callgrind harness of tests/bench takes,
 * "HARNESS CASE K": the case looked up by name in the harness's table (its
 * struct's first member is the name) and K, or the usage with every case's
 * name and NULL. */
#ifndef TESTS_BENCH_BENCH_ARGS_H
#define TESTS_BENCH_BENCH_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const void *bench_case_arg(int argc, char **argv, const void *cases, size_t size,
                                         size_t n, unsigned long *k)
{
    const char *base = cases;
    char *end = NULL;
    const void *c = NULL;
    *k = argc == 3 ? strtoul(argv[2], &end, 10) : 0;
    for (size_t i = 0; argc == 3 && i < n; i++)
        if (!strcmp(*(const char *const *)(base + i * size), argv[1]))
            c = base + i * size;
    if (c && end && !*end)
        return c;
    fprintf(stderr, "usage: %s CASE K\n  CASE:", argv[0]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %s", *(const char *const *)(base + i * size));
    fprintf(stderr, "\n");
    return NULL;
}

#endif
