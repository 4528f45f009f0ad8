/* vertigo export --format folded: Brendan Gregg's folded stacks, one line
 * per distinct call chain, root first: "main;f;g 123". The input of
 * flamegraph.pl and most flame-graph viewers. With several events in the
 * profile (no --event), each line starts with the event name as its root
 * frame ("cycles;main;f;g 123"). Lines are sorted; ';' inside a name
 * becomes ':' so it cannot split a frame. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/profile.h"
#include "host-tools/vertigo.h"

struct folded_line {
    char *stack;
    uint64_t count;
};

/* Appends s (a frame name when frame is true: ';' becomes ':'). */
static void append(char **buf, size_t *len, size_t *cap, const char *s, bool frame)
{
    size_t n = strlen(s);
    if (*len + n + 2 > *cap) {
        *cap = (*len + n + 2) * 2;
        *buf = realloc(*buf, *cap);
        if (!*buf)
            exit(VERTIGO_EXIT_USAGE);
    }
    for (size_t i = 0; i < n; i++)
        (*buf)[(*len)++] = frame && s[i] == ';' ? ':' : s[i];
    (*buf)[*len] = '\0';
}

/* The chain of s, root first, as one string (malloc'd). */
static char *fold(const struct profile *p, const struct profile_sample *s)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (p->event_count > 1) {
        append(&buf, &len, &cap, p->events[s->event].name, true);
        append(&buf, &len, &cap, ";", false);
    }
    for (uint32_t i = s->depth; i-- > 0;) {
        uint32_t fn = sym_frame(p->sym, s->frames[i])->function;
        append(&buf, &len, &cap, sym_function(p->sym, fn)->name, true);
        if (i)
            append(&buf, &len, &cap, ";", false);
    }
    return buf;
}

static int line_cmp(const void *a, const void *b)
{
    return strcmp(((const struct folded_line *)a)->stack, ((const struct folded_line *)b)->stack);
}

bool export_folded(FILE *out, const struct profile *p)
{
    struct folded_line *lines = calloc(p->sample_count + 1, sizeof(*lines));
    if (!lines)
        exit(VERTIGO_EXIT_USAGE);
    for (uint64_t i = 0; i < p->sample_count; i++)
        lines[i] = (struct folded_line){ fold(p, &p->samples[i]), p->samples[i].count };
    qsort(lines, p->sample_count, sizeof(*lines), line_cmp);
    bool ok = true;
    for (uint64_t i = 0; i < p->sample_count;) {
        uint64_t count = 0, j = i;
        for (; j < p->sample_count && !strcmp(lines[j].stack, lines[i].stack); j++)
            count += lines[j].count;
        ok &= fprintf(out, "%s %" PRIu64 "\n", lines[i].stack, count) > 0;
        i = j;
    }
    for (uint64_t i = 0; i < p->sample_count; i++)
        free(lines[i].stack);
    free(lines);
    return ok;
}
