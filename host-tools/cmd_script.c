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

/* The fields of -F, in the order a sample prints them. */
enum script_field {
    F_COMM, F_PID, F_TID, F_CPU, F_TIME, F_PERIOD, F_EVENT, F_IP, F_SYM, F_SYMOFF, F_DSO,
    F_COUNT,
};

static const char *const field_names[F_COUNT] = {
    "comm", "pid", "tid", "cpu", "time", "period", "event", "ip", "sym", "symoff", "dso",
};

#define FIELD(f) (1u << (f))
/* perf script's default for a sample with a call chain. */
#define DEFAULT_FIELDS (FIELD(F_COMM) | FIELD(F_PID) | FIELD(F_CPU) | FIELD(F_TIME) | \
                        FIELD(F_PERIOD) | FIELD(F_EVENT) | FIELD(F_IP) | FIELD(F_SYM) | \
                        FIELD(F_SYMOFF) | FIELD(F_DSO))

struct script_args {
    unsigned int fields;         /* FIELD() bits */
    bool ns;                     /* --ns: nanoseconds */
};

static bool has(const struct script_args *a, enum script_field f)
{
    return a->fields & FIELD(f);
}

/* One frame as perf script prints a call chain's: "\tADDRESS NAME+0xOFF
 * (IMAGE)", "[unknown]" without offset for an unknown function; a
 * function inlined at the address comes first as "\tADDRESS NAME
 * (inlined)". A caller's address is its return address, and its offset
 * is counted from there, as perf counts it. -F leaves out the parts not
 * asked for. */
static void put_frame(FILE *out, const struct profile *p, const struct profile_sample *s, uint32_t i,
                      const struct script_args *a)
{
    const struct sym_frame *f = sym_frame(p->sym, s->frames[i]);
    uint64_t addr = profile_frame_address(s, i, f);    /* a caller's return address */
    const struct sym_inline *in = sym_frame_inlines(p->sym, f);
    for (uint32_t k = 0; has(a, F_SYM) && k < f->inline_count; k++) {
        fputc('\t', out);
        if (has(a, F_IP))
            fprintf(out, "%16" PRIx64 " ", addr);
        fprintf(out, "%s (inlined)\n", sym_function(p->sym, in[k].function)->name);
    }
    const struct sym_function *fn = sym_function(p->sym, f->function);
    char dso[PERF_NAME_MAX];
    fputc('\t', out);
    if (has(a, F_IP))
        fprintf(out, "%16" PRIx64, addr);
    if (has(a, F_SYM) && fn->known)
        fprintf(out, " %s", fn->name);
    if (has(a, F_SYM) && fn->known && has(a, F_SYMOFF))
        fprintf(out, "+0x%" PRIx64, f->offset + (addr - f->addr));
    if (has(a, F_SYM) && !fn->known)
        fputs(" [unknown]", out);
    if (has(a, F_DSO))
        fprintf(out, " (%s)", perf_dso(sym_image(p->sym, f->image)->name, f->mode, dso));
    if (f->mode == LOG_MODE_HYPERVISOR)
        fputs(" [h]", out);      /* Vertigo's: stackcollapse-perf.pl reads past it */
    fputc('\n', out);
}

static void put_header(FILE *out, const struct profile *p, const struct profile_sample *s,
                       uint64_t tsc, const struct script_args *a)
{
    uint64_t ns = timeline_ns(tsc, p->tsc_hz);
    if (has(a, F_COMM))
        put_comm(out, s->process.comm);
    if (has(a, F_PID) && has(a, F_TID))
        fprintf(out, " %5u/%-5u", s->process.pid, s->process.pid);
    else if (has(a, F_PID) || has(a, F_TID))
        fprintf(out, " %5u", s->process.pid);
    if (has(a, F_CPU))
        fprintf(out, " [%03u]", s->vcpu);
    if (has(a, F_TIME) && a->ns)
        fprintf(out, " %5" PRIu64 ".%09" PRIu64 ":", ns / NS_PER_SECOND, ns % NS_PER_SECOND);
    else if (has(a, F_TIME))
        fprintf(out, " %5" PRIu64 ".%06" PRIu64 ":", ns / NS_PER_SECOND,
                ns % NS_PER_SECOND / NS_PER_MICRO);
    if (has(a, F_PERIOD))
        fprintf(out, " %10" PRIu64, s->period);
    if (has(a, F_EVENT))
        fprintf(out, " %s:", p->events[s->event].name);
    fputs(" \n", out);
}

static void put_sample(FILE *out, const struct profile *p, const struct profile_occurrence *o,
                       const struct script_args *a)
{
    const struct profile_sample *s = &p->samples[o->sample];
    put_header(out, p, s, o->tsc, a);
    if (!(a->fields & (FIELD(F_IP) | FIELD(F_SYM) | FIELD(F_DSO))))
        return;
    for (uint32_t i = 0; i < s->depth; i++)
        put_frame(out, p, s, i, a);
    fputc('\n', out);
}

static bool write_samples(FILE *out, const struct profile *p, const struct script_args *a)
{
    const struct profile_timeline *t = &p->timeline;
    for (uint64_t i = 0; i < t->occ_count && !ferror(out); i++)
        put_sample(out, p, &t->occ[i], a);
    return !ferror(out);
}

bool script_write(FILE *out, const struct profile *p)
{
    const struct script_args a = { DEFAULT_FIELDS, false };
    return write_samples(out, p, &a);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo script [-F FIELDS] [--ns] [-q] [--time RANGES] [-e E] [-c C]\n"
                 "                      [--pids P] [-d D] [-S S] [--guest-root [DOM=]DIR]\n"
                 "                      [--kallsyms [DOM=]FILE] [--vertigo-elf FILE] [-i] FILE|-\n"
                 "Prints every sample in time order as perf script does (header line, then\n"
                 "the call chain leaf first, then a blank line).\n%s"
                 "  -F, --fields LIST   the fields to print, in perf's names: comm, pid, tid\n"
                 "                      (the pid: Vertigo knows processes, not threads), cpu (the\n"
                 "                      VCPU), time, period, event, ip, sym, symoff, dso; or\n"
                 "                      changes to the default (comm,pid,cpu,time,period,event,\n"
                 "                      ip,sym,symoff,dso) as +FIELD,-FIELD. Without ip, sym\n"
                 "                      and dso no call chain is printed\n"
                 "  --ns                times with 9 decimals (nanoseconds) instead of 6\n",
            profile_options_help);
}

/* One field name of -F; F_COUNT after a message if unknown. */
static enum script_field field_named(const char *w, size_t len)
{
    for (unsigned int f = 0; f < F_COUNT; f++)
        if (strlen(field_names[f]) == len && !strncmp(field_names[f], w, len))
            return (enum script_field)f;
    fprintf(stderr, "vertigo script: -F: unknown field '%.*s' (", (int)len, w);
    for (unsigned int f = 0; f < F_COUNT; f++)
        fprintf(stderr, "%s%s", f ? ", " : "", field_names[f]);
    fprintf(stderr, ")\n");
    return F_COUNT;
}

/* -F LIST: the fields, or +FIELD/-FIELD changes to the default (not
 * mixed, as perf has it). */
static bool set_fields(void *settings, const char *list)
{
    struct script_args *a = settings;
    bool changes = *list == '+' || *list == '-';
    a->fields = changes ? DEFAULT_FIELDS : 0;
    for (const char *w = list; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL) {
        char sign = *w == '+' || *w == '-' ? *w : 0;
        if (!sign != !changes) {
            fprintf(stderr, "vertigo script: -F %s: +FIELD and -FIELD changes cannot be mixed "
                    "with a list of fields\n", list);
            return false;
        }
        const char *name = w + (sign != 0);
        enum script_field f = field_named(name, strcspn(name, ","));
        if (f == F_COUNT)
            return false;
        if (sign == '-')
            a->fields &= ~FIELD(f);
        else
            a->fields |= FIELD(f);
    }
    return true;
}

static bool set_ns(void *settings, const char *unused)
{
    (void)unused;
    ((struct script_args *)settings)->ns = true;
    return true;
}

static int write_script(const struct profile *p, const char *input, const void *settings)
{
    (void)input;
    if (!write_samples(stdout, p, settings) || fflush(stdout)) {
        fprintf(stderr, "vertigo script: stdout: write error\n");
        return VERTIGO_EXIT_USAGE;
    }
    return VERTIGO_EXIT_OK;
}

static const struct profile_cli_option script_options[] = {
    { "--fields|-F", true, set_fields },
    { "--ns", false, set_ns },
};

static const struct profile_cli_command script_command = {
    .name = "script",
    .options = script_options,
    .option_count = sizeof(script_options) / sizeof(script_options[0]),
    .usage = usage,
    .write = write_script,
    .timeline = true,
};

int cmd_script(int argc, char **argv)
{
    struct script_args a = { DEFAULT_FIELDS, false };
    return profile_cli_run(&script_command, &a, argc, argv);
}
