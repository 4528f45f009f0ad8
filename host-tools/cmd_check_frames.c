/* vertigo check-frames [options] FILE|-: the frame checker. Every frame of
 * every sample is checked against the bytes of the binary it is named in
 * (host-tools/frame_check.h): a caller's return address must follow a call
 * instruction, the user RIP after a system call a syscall, an interrupted
 * RIP must start an instruction. Prints the frames checked, the invalid
 * ones per binary and cause, the unchecked ones per binary and reason,
 * and the first invalid frames with their samples; exits 5 when any frame
 * is invalid. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/frame_check.h"
#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"

#define EXAMPLES_SHOWN 2u           /* invalid frames shown per binary and cause */

/* Frames of one (binary, cause), counted once per sample occurrence. */
struct tally {
    const char *binary;
    enum frame_cause cause;
    enum frame_verdict verdict;
    uint64_t frames;
    unsigned int shown;          /* examples printed of it */
};

struct tallies {
    struct tally *t;
    size_t count, cap;
    uint64_t by_verdict[3];
};

/* Counts r n times; returns its tally (NULL for a valid frame). */
static struct tally *tally_add(struct tallies *ts, const struct frame_result *r, uint64_t n)
{
    ts->by_verdict[r->verdict] += n;
    if (r->verdict == FRAME_VALID)
        return NULL;
    for (size_t i = 0; i < ts->count; i++) {
        struct tally *t = &ts->t[i];
        if (t->cause == r->cause && !strcmp(t->binary, r->binary)) {
            t->frames += n;
            return t;
        }
    }
    if (ts->count == ts->cap) {
        size_t cap = ts->cap ? 2 * ts->cap : 16;
        struct tally *t = realloc(ts->t, cap * sizeof(*t));
        if (!t) {
            fprintf(stderr, "vertigo check-frames: out of memory\n");
            exit(VERTIGO_EXIT_USAGE);
        }
        ts->t = t;
        ts->cap = cap;
    }
    ts->t[ts->count++] = (struct tally){ r->binary, r->cause, r->verdict, n, 0 };
    return &ts->t[ts->count - 1];
}

static int tally_cmp(const void *a, const void *b)
{
    const struct tally *x = a, *y = b;
    if (x->frames != y->frames)
        return x->frames > y->frames ? -1 : 1;
    int c = strcmp(x->binary, y->binary);
    return c ? c : (int)x->cause - (int)y->cause;
}

static void print_tallies(FILE *out, const struct tallies *ts, enum frame_verdict v,
                          const char *title)
{
    if (!ts->by_verdict[v])
        return;
    fprintf(out, "# %s frames by binary and %s:\n", title, v == FRAME_INVALID ? "cause" : "reason");
    for (size_t i = 0; i < ts->count; i++)
        if (ts->t[i].verdict == v)
            fprintf(out, "%10" PRIu64 "  %-24s %s\n", ts->t[i].frames, ts->t[i].binary,
                    frame_cause_name(ts->t[i].cause));
}

/* One invalid frame with the sample it is in. */
static void print_example(FILE *out, const struct profile *p, const struct profile_sample *s,
                          uint32_t i, const struct frame_result *r)
{
    const struct sym_frame *f = sym_frame(p->sym, s->frames[i]);
    const struct sym_frame *callee = i ? sym_frame(p->sym, s->frames[i - 1]) : NULL;
    fprintf(out, "  %s %u %s sample, frame %u of %u: %#" PRIx64 " %s (%s)%s%s: %s\n",
            s->process.comm, s->process.pid, profile_mode_name(s->mode), i, s->depth, r->addr,
            sym_function(p->sym, f->function)->name, r->binary, callee ? " under " : "",
            callee ? sym_function(p->sym, callee->function)->name : "", frame_cause_name(r->cause));
}

static int check_frames(const struct profile *p, const char *input, const void *settings)
{
    (void)settings;
    struct frame_checker *c = frame_checker_new(p->sym);
    struct frame_result *res = malloc((LOG_STACK_MAX + 1) * sizeof(*res));
    struct tallies ts = { 0 };
    if (!c || !res) {
        fprintf(stderr, "vertigo check-frames: out of memory\n");
        exit(VERTIGO_EXIT_USAGE);
    }
    char *examples = NULL;
    size_t examples_len = 0;
    FILE *ex = open_memstream(&examples, &examples_len);
    bool shown = false;
    for (uint64_t k = 0; k < p->sample_count; k++) {
        const struct profile_sample *s = &p->samples[k];
        frame_check_sample(c, s, res);
        for (uint32_t i = 0; i < s->depth; i++) {
            struct tally *t = tally_add(&ts, &res[i], s->count);
            if (t && res[i].verdict == FRAME_INVALID && t->shown < EXAMPLES_SHOWN && ex) {
                print_example(ex, p, s, i, &res[i]);
                t->shown++;
                shown = true;
            }
        }
    }
    if (ex)
        fclose(ex);
    qsort(ts.t, ts.count, sizeof(*ts.t), tally_cmp);
    uint64_t all = ts.by_verdict[FRAME_VALID] + ts.by_verdict[FRAME_INVALID] +
                   ts.by_verdict[FRAME_UNCHECKED];
    printf("# check-frames: %s\n# samples: %" PRIu64 "; frames: %" PRIu64 " (valid %" PRIu64
           ", invalid %" PRIu64 ", unchecked %" PRIu64 ")\n", input, p->total, all,
           ts.by_verdict[FRAME_VALID], ts.by_verdict[FRAME_INVALID], ts.by_verdict[FRAME_UNCHECKED]);
    printf("# user frames left out: %" PRIu64 " (what a walk cannot vouch for: a return address of a "
           "frame-pointer walk in no mapping of its process, the context under an entry stub's first "
           "call, and their callers)\n", p->frames_cut);
    print_tallies(stdout, &ts, FRAME_INVALID, "invalid");
    print_tallies(stdout, &ts, FRAME_UNCHECKED, "unchecked");
    if (shown)
        printf("# invalid frames, the first of each binary and cause:\n%s", examples);
    free(examples);
    free(ts.t);
    free(res);
    frame_checker_free(c);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "vertigo check-frames: stdout: write error\n");
        return VERTIGO_EXIT_USAGE;
    }
    return ts.by_verdict[FRAME_INVALID] ? VERTIGO_EXIT_INVALID : VERTIGO_EXIT_OK;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo check-frames [--guest-root [DOM=]DIR] [--kallsyms [DOM=]FILE]\n"
                 "                            [--kernel-image [DOM=]FILE] [--vertigo-elf FILE]\n"
                 "                            [--domain-elf DOM=FILE] [--event E] FILE|-\n%s"
                 "Checks every frame of every sample against the binary it is named in: a\n"
                 "return address must follow a call, the user RIP after a system call a\n"
                 "syscall, an interrupted RIP must start an instruction (objdump). Prints\n"
                 "invalid frames per binary and cause; exit status 5 when there are any.\n",
            profile_options_help);
}

static const struct profile_cli_command check_command = {
    .name = "check-frames",
    .usage = usage,
    .write = check_frames,
};

int cmd_check_frames(int argc, char **argv)
{
    return profile_cli_run(&check_command, NULL, argc, argv);
}
