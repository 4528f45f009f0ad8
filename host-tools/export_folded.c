/* vertigo export --format folded: Brendan Gregg's folded stacks, one line
 * per distinct call chain, root first: "workload;main;f;g 123". The input
 * of flamegraph.pl and most flame-graph viewers. The root frame is the
 * process name (perf script | stackcollapse-perf.pl does the same), and a
 * guest kernel frame ends in "_[k]" (FlameGraph colours those as kernel
 * code), a frame of Vertigo's in "_[h]" (on top of the guest's frames at
 * the exit it handled, under the guest's process; Vertigo's background
 * work under "[vertigo]"); a function inlined into a frame follows it
 * with "_[i]". An
 * unknown function is its image's last path component in brackets, as
 * stackcollapse-perf.pl folds perf script's "[unknown]" ("[libc.so.6]").
 * With several events in the profile (no --event), each line
 * starts with the event name before the process ("cycles;workload;main;f;g
 * 123"); with samples of several domains, the domain's name comes before
 * the process ("web;nginx;main 12", after the event if there is one). Lines are sorted; ';' inside a name
 * becomes ':' so it cannot split a frame. Lines are compared and written
 * straight from the frames, never all held as text: memory stays that of
 * the profile however long the names are. */
#define _GNU_SOURCE   /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/perf_names.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/profile.h"
#include "host-tools/vertigo.h"

#define KERNEL_SUFFIX "_[k]"
#define HYPERVISOR_SUFFIX "_[h]"
#define INLINE_SUFFIX "_[i]"

/* Reads the folded line of one sample a byte at a time: its parts are
 * the event's name (with several events), the process name, then the
 * frames' names from the root (a kernel frame's with its suffix), with a
 * ';' between two parts. */
struct fold_cursor {
    const struct profile *p;
    const struct profile_sample *s;
    uint32_t next, parts;        /* the next part, how many there are */
    uint32_t lead;               /* parts before the process: event, domain */
    char domain[DOMAIN_NAME_MAX];
    const char *text;            /* the rest of the current part */
    const char *suffix;          /* written after it */
    char unknown[PERF_NAME_MAX]; /* the text of an unknown function's frame */
};

static void fold_start(struct fold_cursor *c, const struct profile *p, const struct profile_sample *s)
{
    uint32_t lead = (p->event_count > 1) + profile_several_domains(p);
    uint32_t parts = lead + 1;
    for (uint32_t i = 0; i < s->depth; i++)
        parts += 1 + sym_frame(p->sym, s->frames[i])->inline_count;
    *c = (struct fold_cursor){ .p = p, .s = s, .parts = parts, .lead = lead, .text = "",
                               .suffix = "" };
}

/* Part k of the frames, counted from the root: each frame is its
 * function, then the functions inlined there from the outermost in (FlameGraph's
 * "_[i]" marks them). Its suffix in *suffix. */
static const char *frame_part(struct fold_cursor *c, uint32_t k, const char **suffix)
{
    const struct symbolizer *sym = c->p->sym;
    for (uint32_t i = c->s->depth; i-- > 0;) {
        const struct sym_frame *f = sym_frame(sym, c->s->frames[i]);
        if (k > f->inline_count) {
            k -= 1 + f->inline_count;
            continue;
        }
        *suffix = f->mode == LOG_MODE_GUEST_KERNEL ? KERNEL_SUFFIX : k ? INLINE_SUFFIX :
                  f->mode == LOG_MODE_HYPERVISOR ? HYPERVISOR_SUFFIX : "";
        uint32_t fn = k ? sym_frame_inlines(sym, f)[f->inline_count - k].function : f->function;
        if (!sym_function(sym, fn)->known)
            return perf_unknown_frame(sym_image(sym, f->image)->name, f->mode, c->unknown);
        return sym_function(sym, fn)->name;
    }
    return "";
}

/* Part k's text; its suffix in *suffix. */
static const char *part_text(struct fold_cursor *c, uint32_t k, const char **suffix)
{
    uint32_t event_part = c->p->event_count > 1;
    *suffix = "";
    if (event_part && k == 0)
        return c->p->events[c->s->event].name;
    if (c->lead > event_part && k == event_part)
        return profile_domain_name(c->p, c->s->domain, c->domain);
    if (k == c->lead)
        return c->s->process.comm;
    return frame_part(c, k - c->lead - 1, suffix);
}

/* The next byte of the line, or -1 at its end. */
static int fold_next(struct fold_cursor *c)
{
    while (!*c->text) {
        if (*c->suffix) {
            c->text = c->suffix;
            c->suffix = "";
            break;
        }
        if (c->next == c->parts)
            return -1;
        c->text = part_text(c, c->next++, &c->suffix);
        if (c->next > 1)
            return ';';
    }
    char ch = *c->text++;
    return ch == ';' ? ':' : (unsigned char)ch;
}

static int fold_cmp(const void *a, const void *b, void *profile)
{
    const struct profile *p = profile;
    struct fold_cursor x, y;
    fold_start(&x, p, &p->samples[*(const uint64_t *)a]);
    fold_start(&y, p, &p->samples[*(const uint64_t *)b]);
    for (;;) {
        int cx = fold_next(&x), cy = fold_next(&y);
        if (cx != cy || cx < 0)
            return cx - cy;
    }
}

static bool write_line(FILE *out, const struct profile *p, const struct profile_sample *s,
                       uint64_t count)
{
    struct fold_cursor c;
    fold_start(&c, p, s);
    for (int ch; (ch = fold_next(&c)) >= 0;)
        fputc(ch, out);
    return fprintf(out, " %" PRIu64 "\n", count) > 0;
}

bool export_folded(FILE *out, const struct profile *p)
{
    uint64_t *order = malloc((p->sample_count + 1) * sizeof(*order));
    if (!order)
        vertigo_out_of_memory();
    for (uint64_t i = 0; i < p->sample_count; i++)
        order[i] = i;
    qsort_r(order, p->sample_count, sizeof(*order), fold_cmp, (void *)p);
    bool ok = true;
    for (uint64_t i = 0, j; i < p->sample_count; i = j) {
        uint64_t count = 0;
        for (j = i; j < p->sample_count && !fold_cmp(&order[i], &order[j], (void *)p); j++)
            count += p->samples[order[j]].count;
        ok &= write_line(out, p, &p->samples[order[i]], count);
    }
    free(order);
    return ok && !ferror(out);
}
