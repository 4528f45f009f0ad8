/* vertigo annotate [options] SYMBOL FILE|-: the samples of one function
 * beside its instructions, as `perf annotate --stdio` prints them. The
 * samples whose own address (their leaf) is in a function named SYMBOL are
 * counted per address; the function's bytes (the ELF file it was named
 * from, or for a guest kernel function the --kernel-image text between its
 * kallsyms symbol and the next) are disassembled by objdump; each
 * instruction gets its share of the function's samples and their count
 * (those at its address, or inside it),
 * and each change of source line (the ELF file's DWARF; for the guest
 * kernel, a --kernel-image that is a vmlinux built with DWARF) is printed
 * before the instructions of that line, with the line's text when the
 * source file is readable here. One listing per binary a function of that name was
 * sampled in; exit status 1 when none was. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/objdump_run.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"

#define SOURCE_LINE_MAX 512u

/* The samples at one address of the function. */
struct hit {
    uint64_t addr, samples;
};

/* The function of SYMBOL in one binary, and its samples by address. */
struct target {
    const struct sym_frame *frame;   /* one frame named in it */
    uint32_t domain;
    struct hit *hits;
    size_t count, cap;
    uint64_t samples;
};

struct targets {
    struct target *t;
    size_t count, cap;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    *cap = *cap ? *cap * 2 : 16;
    while (*cap < need)
        *cap *= 2;
    p = realloc(p, *cap * elem);
    if (!p)
        vertigo_out_of_memory();
    return p;
}

static void add_hit(struct target *t, uint64_t addr, uint64_t samples)
{
    t->samples += samples;
    for (size_t i = 0; i < t->count; i++)
        if (t->hits[i].addr == addr) {
            t->hits[i].samples += samples;
            return;
        }
    t->hits = grow(t->hits, &t->cap, t->count + 1, sizeof(*t->hits));
    t->hits[t->count++] = (struct hit){ addr, samples };
}

/* The target of frame f's binary (and domain), new if need be. */
static struct target *target_of(struct targets *ts, const struct profile *p,
                                const struct sym_frame *f, uint32_t domain)
{
    for (size_t i = 0; i < ts->count; i++)
        if (ts->t[i].frame->image == f->image && ts->t[i].domain == domain)
            return &ts->t[i];
    (void)p;
    ts->t = grow(ts->t, &ts->cap, ts->count + 1, sizeof(*ts->t));
    ts->t[ts->count] = (struct target){ .frame = f, .domain = domain };
    return &ts->t[ts->count++];
}

static void collect(const struct profile *p, const char *symbol, struct targets *ts)
{
    for (uint64_t k = 0; k < p->sample_count; k++) {
        const struct profile_sample *s = &p->samples[k];
        const struct sym_frame *f = s->depth ? sym_frame(p->sym, s->frames[0]) : NULL;
        const struct sym_function *fn = f ? sym_function(p->sym, f->function) : NULL;
        if (fn && fn->known && !strcmp(fn->name, symbol))
            add_hit(target_of(ts, p, f, s->domain), f->addr, s->count);
    }
}

/* ---- The listing ----------------------------------------------------- */

struct listing {
    FILE *out;
    const struct profile *p;
    const struct target *t;
    char file[1024];             /* the source line printed last */
    uint32_t line;
    uint64_t shown;              /* samples printed beside instructions */
};

/* Line `line` of the host file `path`, or "" when it cannot be read. */
static void source_text(const char *path, uint32_t line, char out[SOURCE_LINE_MAX])
{
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    for (uint32_t n = 1; f && n <= line && fgets(out, SOURCE_LINE_MAX, f); n++)
        if (n < line)
            out[0] = '\0';
    if (f)
        fclose(f);
    out[strcspn(out, "\n")] = '\0';
    for (char *c = out; *c; c++)
        if ((unsigned char)*c < 0x20 && *c != '\t')
            *c = '?';
}

/* The samples of the instruction at [addr, next): those at addresses
 * inside it count for it too (an address a sample names, as the leaf, is
 * an instruction's start; this holds for any address). */
static uint64_t samples_in(const struct target *t, uint64_t addr, uint64_t next)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        if (t->hits[i].addr >= addr && t->hits[i].addr < next)
            n += t->hits[i].samples;
    return n;
}

struct insn_text {
    uint64_t addr;
    char *text;
};

struct insns {
    struct insn_text *v;
    size_t count, cap;
};

static bool keep_instruction(void *ctx, uint64_t addr, const char *text)
{
    struct insns *in = ctx;
    in->v = grow(in->v, &in->cap, in->count + 1, sizeof(*in->v));
    in->v[in->count].addr = addr;
    if (!(in->v[in->count].text = strdup(text)))
        vertigo_out_of_memory();
    in->count++;
    return true;
}

/* One instruction (with its source line first when that changes). */
static void put_instruction(struct listing *l, uint64_t addr, uint64_t next, const char *text)
{
    char file[1024], src[SOURCE_LINE_MAX];
    uint32_t line;
    if (sym_source_line(l->p->sym, l->t->domain, l->t->frame, addr, file, &line) &&
        (line != l->line || strcmp(file, l->file))) {
        source_text(file, line, src);
        fprintf(l->out, "%16s :   %s:%u\n", "", file, line);
        if (src[0])
            fprintf(l->out, "%16s :   %s\n", "", src);
        snprintf(l->file, sizeof(l->file), "%s", file);
        l->line = line;
    }
    uint64_t n = samples_in(l->t, addr, next);
    l->shown += n;
    if (n)
        fprintf(l->out, "%7.2f %8" PRIu64 " :   %" PRIx64 ":\t%s\n",
                100.0 * (double)n / (double)l->t->samples, n, addr, text);
    else
        fprintf(l->out, "%16s :   %" PRIx64 ":\t%s\n", "", addr, text);
}

/* The function's instructions with their samples; false when its bytes
 * or bounds are not at hand. */
static bool put_disassembly(struct listing *l, uint64_t start, uint64_t end)
{
    struct sym_code code;
    const char *why;
    struct insns in = { 0 };
    if (!sym_code_of(l->p->sym, l->t->domain, l->t->frame, start, &code, &why) ||
        end - code.start > code.size ||
        !objdump_code(code.bytes + (start - code.start), end - start, start, keep_instruction, &in))
        return false;
    for (size_t i = 0; i < in.count; i++) {
        put_instruction(l, in.v[i].addr, i + 1 < in.count ? in.v[i + 1].addr : end, in.v[i].text);
        free(in.v[i].text);
    }
    free(in.v);
    return !ferror(l->out);
}

/* Without the binary: the sampled addresses alone. */
static void put_addresses(struct listing *l)
{
    for (size_t i = 0; i < l->t->count; i++) {
        const struct hit *h = &l->t->hits[i];
        fprintf(l->out, "%7.2f %8" PRIu64 " :   %" PRIx64 "\n",
                100.0 * (double)h->samples / (double)l->t->samples, h->samples, h->addr);
        l->shown += h->samples;
    }
}

static int hit_cmp(const void *a, const void *b)
{
    const struct hit *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void put_target(FILE *out, const struct profile *p, const char *symbol, struct target *t)
{
    const char *image = sym_image(p->sym, t->frame->image)->name;
    const char *event = p->event_count == 1 ? p->events[0].name : "all events";
    qsort(t->hits, t->count, sizeof(*t->hits), hit_cmp);
    fprintf(out, " Percent  Samples |  Source code & Disassembly of %s for %s (%" PRIu64
            " samples)\n", image, event, t->samples);
    fprintf(out, "--------------------------------------------------------------------------------\n");
    uint64_t start, end;
    struct listing l = { .out = out, .p = p, .t = t };
    bool listed = sym_function_bounds(p->sym, t->domain, t->frame, &start, &end);
    if (listed)
        fprintf(out, "%16s :   %016" PRIx64 " <%s>:\n", "", start, symbol);
    if (!listed || !put_disassembly(&l, start, end)) {
        fprintf(out, "%16s :   (the bytes of %s are not at hand: sampled addresses only)\n", "", image);
        put_addresses(&l);
    }
    fprintf(out, "# %s (%s): %" PRIu64 " samples, %" PRIu64 " beside its instructions\n\n", symbol,
            image, t->samples, l.shown);
}

static int annotate(const struct profile *p, const char *input, const void *settings)
{
    (void)input;
    const char *symbol = *(const char *const *)settings;
    struct targets ts = { 0 };
    collect(p, symbol, &ts);
    for (size_t i = 0; i < ts.count; i++) {
        put_target(stdout, p, symbol, &ts.t[i]);
        free(ts.t[i].hits);
    }
    free(ts.t);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "vertigo annotate: stdout: write error\n");
        return VERTIGO_EXIT_USAGE;
    }
    if (!ts.count) {
        fprintf(stderr, "vertigo annotate: no sample's address is in a function named '%s'\n", symbol);
        return VERTIGO_EXIT_USAGE;
    }
    return VERTIGO_EXIT_OK;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo annotate [--guest-root [DOM=]DIR] [--kallsyms [DOM=]FILE]\n"
                 "                        [--kernel-image [DOM=]FILE] [--vertigo-elf FILE]\n"
                 "                        [--domain-elf DOM=FILE] [-e E] SYMBOL FILE|-\n%s"
                 "The samples of function SYMBOL per instruction (percent of its samples and\n"
                 "count) beside its disassembly (objdump) and source lines (DWARF), as\n"
                 "perf annotate --stdio prints them. SYMBOL and FILE come last.\n",
            profile_options_help);
}

static const struct profile_cli_command annotate_command = {
    .name = "annotate",
    .usage = usage,
    .write = annotate,
};

int cmd_annotate(int argc, char **argv)
{
    /* SYMBOL is the argument before the input (the last two). */
    const char *symbol = NULL;
    char **args = malloc(((size_t)argc + 1) * sizeof(*args));
    if (!args)
        vertigo_out_of_memory();
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (i == argc - 2 && i > 0 && argv[i][0] != '-' && argv[argc - 1][0] != '\0') {
            symbol = argv[i];
            continue;
        }
        args[n++] = argv[i];
    }
    args[n] = NULL;
    bool help = false;
    for (int i = 1; i < argc; i++)
        help |= !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
    int status;
    if (!symbol && !help) {
        fprintf(stderr, "vertigo annotate: no SYMBOL (it comes before the input)\n");
        usage(stderr);
        status = VERTIGO_EXIT_CMDLINE;
    } else {
        status = profile_cli_run(&annotate_command, &symbol, n, args);
    }
    free(args);
    return status;
}
