/* vertigo script [options] FILE|-: every sample in time order, in the text
 * shape of `perf script` with call chains, so the tools that read perf
 * script's output (FlameGraph's stackcollapse-perf.pl, speedscope, ...)
 * read it unchanged. Per sample, a header line
 *   COMM PID [VCPU] SECONDS.MICROS: PERIOD EVENT:
 * then one line per frame, leaf first, as perf prints a call chain
 *   <tab>ADDRESS FUNCTION+0xOFFSET (IMAGE)
 * ("[unknown]" for an unknown function, anonymous memory as perf names
 * it, "//anon"), where a function inlined at that address comes first as
 *   <tab>ADDRESS FUNCTION (inlined)
 * and a blank line. Times are the TSC at the log's TSC frequency (ticks
 * counted as nanoseconds when the log gives none). */
#include <inttypes.h>
#include <string.h>

#include "host-tools/perf_names.h"
#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"

#define NS_PER_SECOND 1000000000u
#define NS_PER_MICRO 1000u

/* perf's comm: a single word at the line's start, or the header would
 * not parse; guest names may hold anything. */
static void put_comm(FILE *out, const char *comm)
{
    if (!*comm)
        comm = SYM_COMM_UNKNOWN;
    for (; *comm; comm++)
        fputc(*comm == ' ' || *comm == '\t' ? '_' : *comm, out);
}

/* One frame as perf script prints a call chain's: "\tADDRESS NAME+0xOFF
 * (IMAGE)", "[unknown]" without offset for an unknown function; a
 * function inlined at the address comes first as "\tADDRESS NAME
 * (inlined)". A caller's address is its return address, and its offset
 * is counted from there, as perf counts it. */
static void put_frame(FILE *out, const struct profile *p, const struct sym_frame *f, bool leaf)
{
    uint64_t addr = leaf ? f->addr : f->addr + 1;    /* a caller's return address */
    const struct sym_inline *in = sym_frame_inlines(p->sym, f);
    for (uint32_t i = 0; i < f->inline_count; i++)
        fprintf(out, "\t%16" PRIx64 " %s (inlined)\n", addr, sym_function(p->sym, in[i].function)->name);
    const struct sym_function *fn = sym_function(p->sym, f->function);
    char dso[PERF_NAME_MAX];
    fprintf(out, "\t%16" PRIx64 " ", addr);
    if (fn->known)
        fprintf(out, "%s+0x%" PRIx64, fn->name, f->offset + (addr - f->addr));
    else
        fputs("[unknown]", out);
    fprintf(out, " (%s)\n", perf_dso(sym_image(p->sym, f->image)->name, f->mode, dso));
}

static void put_sample(FILE *out, const struct profile *p, const struct profile_occurrence *o)
{
    const struct profile_sample *s = &p->samples[o->sample];
    uint64_t ns = timeline_ns(o->tsc, p->tsc_hz);
    put_comm(out, s->process.comm);
    fprintf(out, " %5u [%03u] %5" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " %s: \n",
            s->process.pid, s->vcpu, ns / NS_PER_SECOND, ns % NS_PER_SECOND / NS_PER_MICRO,
            s->period, p->events[s->event].name);
    for (uint32_t i = 0; i < s->depth; i++)
        put_frame(out, p, sym_frame(p->sym, s->frames[i]), i == 0);
    fputc('\n', out);
}

bool script_write(FILE *out, const struct profile *p)
{
    const struct profile_timeline *t = &p->timeline;
    for (uint64_t i = 0; i < t->occ_count && !ferror(out); i++)
        put_sample(out, p, &t->occ[i]);
    return !ferror(out);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo script [--guest-root DIR] [--kallsyms FILE] [--vertigo-elf FILE]\n"
                 "                      [--event E] FILE|-\n%s"
                 "Prints every sample in time order as perf script does (header line, then\n"
                 "the call chain leaf first, then a blank line).\n",
            profile_options_help);
}

static int write_script(const struct profile *p, const char *input, const void *settings)
{
    (void)input;
    (void)settings;
    if (!script_write(stdout, p) || fflush(stdout)) {
        fprintf(stderr, "vertigo script: stdout: write error\n");
        return VERTIGO_EXIT_USAGE;
    }
    return VERTIGO_EXIT_OK;
}

static const struct profile_cli_command script_command = {
    .name = "script",
    .usage = usage,
    .write = write_script,
    .timeline = true,
};

int cmd_script(int argc, char **argv)
{
    return profile_cli_run(&script_command, NULL, argc, argv);
}
