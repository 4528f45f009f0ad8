/* Report and export tests: synthetic captures written by the real
 * encoder (tests/fixtures/profile/gen_profile.c) go through the decoder,
 * the symbolizer and the profile into `vertigo report`'s flat profile,
 * folded stacks and CSV; the shares, names and source lines printed must
 * be the ones the generator put in. One table holds the cases: how the
 * capture is made and loaded, which writer prints it, the text it must or
 * must not hold, and the case's own checks of rows and totals. Bad input
 * gets specific errors; hostile logs (tests/fuzz/hostile_logs.h) meet the
 * limits, and what a log lost shows in the report. */
#include <stdlib.h>
#include <string.h>

#include "host-tools/profile.h"
#include "host-tools/vertigo.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "vmm/log/log_emit.h"
#include "tests/fuzz/hostile_logs.h"
#include "tests/unit/unit.h"

#define UNITS 200u
#define PATH_LEN 512u
#define BUILD_LEN 256u
#define ERR_LEN 256u
#define TEXT_LEN 192u
#define EXPECT_MAX 4u
#define WORKLOAD_SRC "tests/fixtures/profile/workload.c"
#define KALLSYMS "tests/fixtures/profile/kallsyms.txt"

struct capture {
    char build[BUILD_LEN], root[PATH_LEN], workload[PATH_LEN], hv[PATH_LEN];
    char *data;
    size_t len;
    struct gen_profile_result expect;
};

static bool capture_make(struct capture *c, bool ship_kallsyms)
{
    memset(c, 0, sizeof(*c));
    if (!CHECK(gen_build_dir(c->build, sizeof(c->build))))
        return false;
    snprintf(c->root, sizeof(c->root), "%s/profile/root", c->build);
    snprintf(c->workload, sizeof(c->workload), "%s/profile/root/bin/workload", c->build);
    snprintf(c->hv, sizeof(c->hv), "%s/profile/hvmini", c->build);
    struct gen_profile_spec spec = { c->workload, c->hv, KALLSYMS, UNITS, ship_kallsyms, 0 };
    FILE *out = open_memstream(&c->data, &c->len);
    char err[ERR_LEN] = "";
    bool ok = gen_profile_write(&spec, out, &c->expect, err, sizeof(err));
    fclose(out);
    if (!ok)
        unit_fail(__FILE__, __LINE__, "gen_profile_write: %s", err);
    return ok;
}

/* Decodes the capture's bytes [0, len) into p. */
static bool load(struct profile *p, const struct capture *c, size_t len,
                 const struct profile_options *o, char *err, size_t err_len)
{
    if (!profile_init(p, o, err, err_len))
        return false;
    static const struct logdec_callbacks cb = { .record = profile_record };
    struct logdec *dec = malloc(sizeof(*dec));
    logdec_init(dec, &cb, p);
    logdec_feed(dec, c->data, len);
    logdec_finish(dec);
    free(dec);
    return profile_finish(p, o->event, err, err_len);
}

static struct profile_options options(const struct capture *c, const char *event)
{
    return (struct profile_options){ .sym = { c->root, NULL, c->hv }, .event = event,
                                     .timeline = true };
}

/* Finds the report row of symbol; reads its first percentage (and the
 * second, when pct2 is given: --children), its sample count and the rest
 * of the line after the name. */
static bool report_row(const char *text, const char *symbol, double *pct, double *pct2,
                       uint64_t *samples, const char **rest)
{
    size_t n = strlen(symbol);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (*line == '#')
            continue;
        const char *end = strchr(line, '\n'), *tag = NULL;
        static const char *const tags[] = { " [.] ", " [k] ", " [h] " };
        for (int t = 0; t < 3 && !tag; t++) {
            const char *hit = strstr(line, tags[t]);
            tag = hit && (!end || hit < end) ? hit : NULL;
        }
        if (!tag)
            continue;
        tag++;
        if (strncmp(tag + 4, symbol, n) || (tag[4 + n] != '\n' && tag[4 + n] != ' '))
            continue;
        unsigned long long s = 0;
        double a = 0, b = 0;
        if (pct2 && sscanf(line, " %lf%% %lf%% %llu", &a, &b, &s) != 3)
            return false;
        if (!pct2 && sscanf(line, " %lf%% %llu", &a, &s) != 2)
            return false;
        *pct = a;
        if (pct2)
            *pct2 = b;
        *samples = s;
        *rest = tag + 4 + n;
        return true;
    }
    return false;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Rounds like the report's "%.2f" and compares. */
static bool same_2dp(double printed, double exact)
{
    char a[32], b[32];
    snprintf(a, sizeof(a), "%.2f", printed);
    snprintf(b, sizeof(b), "%.2f", exact);
    return !strcmp(a, b);
}

/* The generator's count of a cycles sample's symbol. */
static uint64_t cycles_of(const struct capture *c, const char *symbol)
{
    return gen_expected(&c->expect, 0, symbol);
}

/* ---- The cases ---------------------------------------------------------- */

/* A case's capture, profile and printed text. */
struct output {
    const struct capture *c;
    struct profile p;
    char *text;
};

/* Text the output must hold (or, with absent, must not). With count_of,
 * fmt prints one %llu: the generator's cycles count of that symbol divided
 * by div (a row of one VCPU holds half of the two VCPUs' samples). */
struct text_expect {
    const char *fmt;
    const char *count_of;
    unsigned div;
    bool absent;
};

struct report_case {
    const char *name;
    bool ship_kallsyms;          /* kallsyms in the log */
    const char *kallsyms_file;   /* --kallsyms */
    const char *event;           /* --event; NULL keeps both events */
    const char *comm;            /* --comm */
    bool (*export)(FILE *out, const struct profile *p);   /* NULL: the report */
    struct report_options report;
    struct text_expect expect[EXPECT_MAX];   /* up to the first without fmt */
    void (*check)(const struct output *o);   /* the case's own checks, or NULL */
};

/* g, f and h: the samples, shares (60/30/10) and entry lines intended. */
static void check_user_functions(const struct output *o)
{
    static const char *const fns[] = { "g", "f", "h" };
    static const char *const decl[] = { "void g(void)", "void f(void)", "void h(void)" };
    static const double intended[] = { 60.0, 30.0, 10.0 };
    for (int i = 0; i < 3; i++) {
        double pct = 0;
        uint64_t samples = 0;
        const char *rest = NULL;
        if (!CHECK(report_row(o->text, fns[i], &pct, NULL, &samples, &rest)))
            continue;
        CHECK_EQ(samples, gen_expected(&o->c->expect, 1, fns[i]));
        CHECK(same_2dp(pct, intended[i]));
        char where[64];
        snprintf(where, sizeof(where), "workload.c:%u", gen_source_line(WORKLOAD_SRC, decl[i]));
        CHECK(strstr(rest, where) != NULL && strchr(rest, '\n') > strstr(rest, where));
    }
}

/* Every cycles symbol the generator emitted has its row, count and share. */
static void check_every_cycles_row(const struct output *o)
{
    const struct gen_profile_result *x = &o->c->expect;
    CHECK_EQ(o->p.total, x->event_total[0]);
    for (uint32_t i = 0; i < x->expect_count; i++) {
        const struct gen_expect *e = &x->expect[i];
        if (e->event != 0)
            continue;
        double pct = 0;
        uint64_t samples = 0;
        const char *rest;
        if (!report_row(o->text, e->symbol, &pct, NULL, &samples, &rest)) {
            unit_fail(__FILE__, __LINE__, "no report row for %s", e->symbol);
            continue;
        }
        CHECK_EQ(samples, e->count);
        CHECK(same_2dp(pct, share(e->count, x->event_total[0])));
    }
}

/* Inclusive shares: main holds every user sample, f holds g's. */
static void check_children(const struct output *o)
{
    const struct capture *c = o->c;
    uint64_t total = c->expect.event_total[0], g = cycles_of(c, "g"), f = cycles_of(c, "f");
    uint64_t in_main = g + f + cycles_of(c, "h") + cycles_of(c, "jit_add") +
                       cycles_of(c, "jit_mul");
    double children = 0, self = 0;
    uint64_t samples = 0;
    const char *rest;
    CHECK(report_row(o->text, "main", &children, &self, &samples, &rest));
    CHECK(same_2dp(children, share(in_main, total)) && self == 0.0 && samples == 0);
    CHECK(report_row(o->text, "f", &children, &self, &samples, &rest));
    CHECK(same_2dp(children, share(f + g, total)) && same_2dp(self, share(f, total)));
    CHECK(report_row(o->text, "entry_SYSCALL_64", &children, &self, &samples, &rest));
    CHECK(same_2dp(children, share(cycles_of(c, "do_syscall_64"), total)));
    /* The first row is the one with the most inclusive samples: main. */
    const char *first = strstr(o->text, "\n  ");
    CHECK(first && strstr(first, "] main") < strchr(first + 1, '\n'));
}

static void check_two_events(const struct output *o)
{
    CHECK_EQ(o->p.event_count, 2);
}

/* The counts ending the folded lines add up to the cycles total. */
static void check_folded_total(const struct output *o)
{
    uint64_t sum = 0;
    for (const char *l = o->text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *space = strchr(l, '\n');
        while (space > l && *space != ' ')
            space--;
        sum += strtoull(space + 1, NULL, 10);
    }
    CHECK_EQ(sum, o->c->expect.event_total[0]);
}

/* The header, each event's samples column adding up to its total, and
 * g's row once per event and VCPU. */
static void check_csv_totals(const struct output *o)
{
    const char *text = o->text;
    static const char header[] = "event,domain,domain_name,vcpu,mode,pid,comm,image,symbol,"
                                 "source_file,source_line,samples,period_events,events,"
                                 "percent\n";
    CHECK(!strncmp(text, header, sizeof(header) - 1));
    uint64_t sums[2] = { 0 }, g_rows = 0;
    char needle[128];
    snprintf(needle, sizeof(needle), "tests/fixtures/profile/workload.c,%u,",
             gen_source_line(WORKLOAD_SRC, "void g(void)"));
    for (const char *l = strchr(text, '\n') + 1; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *end = strchr(l, '\n');
        const char *field[4], *at = end;    /* samples, period, events, percent */
        for (int k = 3; k >= 0; k--) {
            while (at > l && *--at != ',') {}
            field[k] = at + 1;
        }
        uint64_t n = strtoull(field[0], NULL, 10), period = strtoull(field[1], NULL, 10);
        bool instructions = !strncmp(l, "instructions,", 13);
        sums[instructions] += n;
        CHECK_EQ(period, instructions ? GEN_PERIOD_INSTRUCTIONS : GEN_PERIOD_CYCLES);
        CHECK_EQ(strtoull(field[2], NULL, 10), n * period);
        const char *hit = strstr(l, needle), *row = strstr(l, ",user,42,workload,/bin/workload,g,");
        g_rows += hit && hit < end && row && row < hit;
    }
    CHECK_EQ(sums[0], o->c->expect.event_total[0]);
    CHECK_EQ(sums[1], o->c->expect.event_total[1]);
    CHECK_EQ(g_rows, 4);   /* two events x two VCPUs */
}

/* perf's event count: the samples times the period the log gave. */
static void check_event_counts(const struct output *o)
{
    const struct gen_profile_result *x = &o->c->expect;
    char want[128];
    snprintf(want, sizeof(want), "# Event count (approx.): %llu (period %u)\n",
             (unsigned long long)x->event_total[0] * GEN_PERIOD_CYCLES, GEN_PERIOD_CYCLES);
    CHECK(strstr(o->text, want) != NULL);
    snprintf(want, sizeof(want), "# Event count (approx.): %llu (period %u)\n",
             (unsigned long long)x->event_total[1] * GEN_PERIOD_INSTRUCTIONS,
             GEN_PERIOD_INSTRUCTIONS);
    CHECK(strstr(o->text, want) != NULL);
    CHECK_EQ(o->p.events[0].events, x->event_total[0] * GEN_PERIOD_CYCLES);
}

/* --sort comm,dso,sym: perf's columns; the workload's process holds every
 * guest sample (its identity names the CR3 they carry), Vertigo the rest. */
static void check_comm_rows(const struct output *o)
{
    const struct capture *c = o->c;
    char want[160];
    const char *row = strstr(o->text, "  workload   /bin/workload       [.] g  ");
    snprintf(want, sizeof(want), "tests/fixtures/profile/workload.c:%u\n",
             gen_source_line(WORKLOAD_SRC, "void g(void)"));
    CHECK(row && strstr(row, want) && strstr(row, want) < strchr(row + 1, '\n') + 1);
    CHECK(strstr(o->text, "  [vertigo]  hvmini              [h] hv_handle_exit  ") != NULL);
    CHECK(strstr(o->text, "  workload   [kernel.kallsyms]   [k] do_syscall_64\n") != NULL);
    uint64_t vertigo = 0, workload = 0;
    for (uint64_t i = 0; i < o->p.sample_count; i++) {
        const struct profile_sample *s = &o->p.samples[i];
        *(strcmp(s->process.comm, GEN_COMM) ? &vertigo : &workload) += s->count;
        CHECK(!strcmp(s->process.comm, GEN_COMM) ? s->process.pid == GEN_PID
                                                 : !strcmp(s->process.comm, "[vertigo]"));
    }
    CHECK_EQ(vertigo, cycles_of(c, "hv_handle_exit"));
    CHECK_EQ(workload + vertigo, c->expect.event_total[0]);
}

/* ---- vertigo script and the Perfetto export ---------------------------- */

/* The length of name[0..n) without a trailing "+0xHEX" (perf's symbol
 * offset, which stackcollapse-perf.pl strips). */
static int strip_offset(const char *name, int n)
{
    int i = n;
    while (i > 0 && strchr("0123456789abcdef", name[i - 1]))
        i--;
    return i >= 3 && i < n && !strncmp(name + i - 3, "+0x", 3) ? i - 3 : n;
}

/* One frame line of perf script's call chain, "\tADDR NAME+0xOFF (DSO)",
 * as stackcollapse-perf.pl --kernel names it: without the offset, an
 * "[unknown]" function as its DSO's last path component in brackets,
 * "_[k]" for a kernel image (its name starts with '[' and is not unknown),
 * "_[i]" for an inlined function. A known function's frame must carry
 * its offset, as perf prints it. */
static void fold_frame(const char *line, const char *end, char *out, size_t len)
{
    bool hypervisor = end - line >= 4 && !strncmp(end - 4, " [h]", 4);   /* Vertigo's frame */
    if (hypervisor)
        end -= 4;
    const char *name = line + strspn(line, "\t ");
    name += strspn(name, "0123456789abcdef");
    name += strspn(name, " ");
    const char *dso = end;
    while (dso > name && strncmp(dso, " (", 2))
        dso--;
    const char *tail = dso + 2;
    int dso_len = (int)(end - tail) - 1;
    bool inlined = !strncmp(tail, "inlined)", 8);
    bool unknown = dso - name == 9 && !strncmp(name, "[unknown]", 9);
    int n = strip_offset(name, (int)(dso - name));
    CHECK(inlined || unknown || n < dso - name);
    bool kernel = *tail == '[' && strncmp(tail, "[unknown]", 9);
    const char *suffix = inlined ? "_[i]" : kernel ? "_[k]" : hypervisor ? "_[h]" : "";
    if (unknown && strncmp(tail, "[unknown])", 10)) {
        const char *base = tail + dso_len;
        while (base > tail && base[-1] != '/')
            base--;
        snprintf(out, len, "[%.*s]%s", (int)(tail + dso_len - base), base, suffix);
        return;
    }
    snprintf(out, len, "%.*s%s", n, name, suffix);
}

/* One sample of the script text at *at (header, frames, blank line) as a
 * folded stack, root first; advances *at and checks the time order. */
static char *fold_sample(const char **at, double *last_time)
{
    const char *l = *at, *end = strchr(l, '\n');
    const char *bracket = strstr(l, " [");      /* the CPU's, after the comm */
    bracket = bracket ? strstr(bracket, "] ") : NULL;
    if (!CHECK(end && bracket && bracket < end))
        return NULL;
    double t = strtod(bracket + 2, NULL);
    CHECK(t >= *last_time);
    *last_time = t;
    char frames[LOG_STACK_MAX * (SYM_INLINE_MAX + 1)][TEXT_LEN];
    unsigned n = 0;
    for (l = end + 1; *l == '\t' && n < sizeof(frames) / sizeof(frames[0]); l = end + 1) {
        end = strchr(l, '\n');
        fold_frame(l, end, frames[n++], sizeof(frames[0]));
    }
    char *stack = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&stack, &len);
    fprintf(out, "%.*s", (int)strcspn(*at, " "), *at);
    while (n-- > 0)
        fprintf(out, ";%s", frames[n]);
    fclose(out);
    *at = *l == '\n' ? l + 1 : l;
    return stack;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The script text folded stackcollapse-style: the folded export's lines. */
static void check_script_folds(const struct output *o)
{
    char **stacks = calloc(o->p.total + 1, sizeof(*stacks));
    uint64_t n = 0;
    double last_time = 0;
    for (const char *at = o->text; *at && n <= o->p.total;)
        if (!(stacks[n++] = fold_sample(&at, &last_time)))
            break;
    CHECK_EQ(n, o->p.total);
    qsort(stacks, n, sizeof(*stacks), str_cmp);
    char *folded = NULL, *want = NULL;
    size_t len = 0, want_len = 0;
    FILE *out = open_memstream(&folded, &len);
    for (uint64_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && !strcmp(stacks[i], stacks[j]); j++) {}
        fprintf(out, "%s %llu\n", stacks[i], (unsigned long long)(j - i));
    }
    fclose(out);
    out = open_memstream(&want, &want_len);
    export_folded(out, &o->p);
    fclose(out);
    CHECK_STR(folded, want);
    for (uint64_t i = 0; i < n; i++)
        free(stacks[i]);
    free(stacks);
    free(folded);
    free(want);
}

static unsigned count_of_text(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *at = text; (at = strstr(at, needle)); at++)
        n++;
    return n;
}

/* Every sample an instant event in time order on its VCPU's track, the
 * two VCPUs named, one counter event per unit of work. */
static void check_perfetto(const struct output *o)
{
    CHECK_EQ(count_of_text(o->text, "\"ph\":\"i\""), o->p.total);
    CHECK_EQ(count_of_text(o->text, "\"name\":\"thread_name\""), 2);
    /* per unit: the software counter, and the interval row's events that
     * ran (not event 1); the row's event named by its description alone
     * (no sample has it), its value the row's count, measured; event 0
     * extrapolated from a quarter of the row */
    CHECK_EQ(count_of_text(o->text, "\"ph\":\"C\""), UNITS * 3);
    char value[64];
    snprintf(value, sizeof(value), "\"args\":{\"value\":%u}}", GEN_INTERVAL_EXITS);
    unsigned named = 0;
    for (const char *at = o->text; (at = strstr(at, "{\"name\":\"VCPU 0 " GEN_INTERVAL_EVENT_NAME
                                                    "\",\"cat\":\"measured\",\"ph\":\"C\""));
         at++, named++)
        CHECK(strstr(at, value) && strstr(at, value) < strchr(at, '\n'));
    CHECK_EQ(named, UNITS);
    snprintf(value, sizeof(value), "\"args\":{\"value\":%u}}", 4 * GEN_INTERVAL_SCALED_RAW);
    named = 0;
    for (const char *at = o->text; (at = strstr(at, "\",\"cat\":\"extrapolated\",\"ph\":\"C\""));
         at++, named++)
        CHECK(strstr(at, value) && strstr(at, value) < strchr(at, '\n'));
    CHECK_EQ(named, UNITS);
    CHECK_EQ(count_of_text(o->text, "\"cat\":\"measured\""), UNITS);
    double last = 0;
    for (const char *at = o->text; (at = strstr(at, "\"ph\":\"i\",\"s\":\"t\",\"ts\":")); at++) {
        double ts = strtod(strchr(at, ':') + 1 + strlen("\"i\",\"s\":\"t\",\"ts\":"), NULL);
        CHECK(ts >= last);
        last = ts;
    }
}

static const struct report_case cases[] = {
    { .name = "report: user functions have known shares and lines", .ship_kallsyms = true,
      .event = "instructions", .report = { .sort = REPORT_SORT_SAMPLES },
      .expect = { { "# Samples: 2000 of event 'instructions'\n" } },
      .check = check_user_functions },
    { .name = "report: every mode resolves (kernel, module, hypervisor, JIT, unknown)",
      .ship_kallsyms = true, .event = "cycles", .report = { .sort = REPORT_SORT_SAMPLES },
      .expect = { { "[kernel.kallsyms]         [k] do_syscall_64" },
                  { "[testmod]                 [k] testmod_work" },
                  { "perf-42.map               [.] jit_mul" },
                  { "hvmini                    [h] hv_handle_exit  " } },
      .check = check_every_cycles_row },
    { .name = "report: event counts from the periods", .ship_kallsyms = true,
      .check = check_event_counts },
    { .name = "report --sort comm,dso,sym: perf's columns", .ship_kallsyms = true,
      .event = "cycles", .report = { .sort = REPORT_SORT_KEYS, .key_count = 3,
                                     .keys = { REPORT_KEY_COMM, REPORT_KEY_DSO, REPORT_KEY_SYM } },
      .expect = { { "# Overhead   Samples  Command    Shared Object       Symbol\n" },
                  { "# Sort: comm,dso,sym\n" } },
      .check = check_comm_rows },
    { .name = "report --sort pid,comm", .ship_kallsyms = true, .event = "cycles",
      .report = { .sort = REPORT_SORT_KEYS, .key_count = 2, .keys = { REPORT_KEY_PID, REPORT_KEY_COMM } },
      .expect = { { "# Overhead   Samples  Pid:Command  Command\n" },
                  { "  42:workload  workload\n" }, { "  0:[vertigo]  [vertigo]\n" } } },
    { .name = "report without --sort: perf's comm,dso,sym when processes are named",
      .ship_kallsyms = true, .event = "cycles", .report = { .sort = REPORT_SORT_DEFAULT },
      .expect = { { "# Sort: comm,dso,sym\n" }, { "# Overhead   Samples  Command    Shared Object" },
                  { "  workload   /bin/workload       [.] g  " } } },
    { .name = "report without --sort: samples when no process is named", .ship_kallsyms = true,
      .event = "cycles", .comm = "[vertigo]", .report = { .sort = REPORT_SORT_DEFAULT },
      .expect = { { "# Sort: samples\n" }, { "  Image  " }, { "Command", .absent = true } } },
    { .name = "report --comm keeps one process", .ship_kallsyms = true, .event = "cycles",
      .comm = "[vertigo]",
      .expect = { { "# Samples: %llu of event 'cycles'\n", "hv_handle_exit", 1 },
                  { "] g  ", .absent = true } } },
    { .name = "report --percent-limit hides small rows", .ship_kallsyms = true, .event = "cycles",
      .report = { .percent_limit = 6.0 },
      .expect = { { "] testmod_work", .absent = true }, { "[.] g  " } } },
    { .name = "report --children adds callers", .ship_kallsyms = true, .event = "cycles",
      .report = { .children = true }, .check = check_children },
    { .name = "report --by-mode with a column per event", .ship_kallsyms = true,
      .report = { .by_mode = true },
      .expect = { { "  cycles  instructions  Image" },
                  { "# By domain, VCPU and mode:" },
                  { "  dom0           0  hypervisor %8llu", "hv_handle_exit", 2 } },
      .check = check_two_events },
    { .name = "folded stacks hold the call chains", .ship_kallsyms = true, .event = "cycles",
      .export = export_folded,
      .expect = { { "\nworkload;main;f;g %llu\n", "g", 1 },
                  { "\nworkload;main;h %llu\n", "h", 1 },
                  { "\nworkload;entry_SYSCALL_64_[k];do_syscall_64_[k] %llu\n", "do_syscall_64", 1 },
                  { "[vertigo];hv_handle_exit_[h] %llu\n", "hv_handle_exit", 1 } },
      .check = check_folded_total },
    { .name = "csv rows sum to the totals", .ship_kallsyms = true, .export = export_csv,
      .expect = { { ",/lib/libmissing.so,[unknown] /lib/libmissing.so+0x1234,,0,%llu,100000,",
                    "[unknown] /lib/libmissing.so+0x1234", 2 } },
      .check = check_csv_totals },
    { .name = "script: time order, the folded stacks", .ship_kallsyms = true, .event = "cycles",
      .export = script_write,
      .expect = { { "workload    42 [000] " },
                  { " do_syscall_64+0x" },
                  { " [unknown] (/lib/libmissing.so)\n" },
                  { " entry_SYSCALL_64+0x" } },
      .check = check_script_folds },
    { .name = "perfetto: trace events on VCPU tracks", .ship_kallsyms = true,
      .export = export_perfetto,
      .expect = { { "\"args\":{\"name\":\"VCPU 1\"}}" },
                  { "{\"name\":\"VCPU 0 swcounter7\",\"ph\":\"C\",\"ts\":" },
                  { "\"cat\":\"instructions\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" } },
      .check = check_perfetto },
    { .name = "report: no kallsyms in the log and none given", .event = "cycles",
      .expect = { { "] do_syscall_64", .absent = true },
                  { "[k] [unknown] 0xffffffff81002100" } } },
    { .name = "report: kallsyms from a file when the log has none", .event = "cycles",
      .kallsyms_file = KALLSYMS, .expect = { { "] do_syscall_64" } } },
};

#define CASE_COUNT (sizeof(cases) / sizeof(cases[0]))

static char *render(const struct report_case *rc, const struct profile *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (rc->export)
        CHECK(rc->export(out, p));
    else
        report_write(out, p, &rc->report);
    fclose(out);
    return text;
}

/* s with its newlines written as \n, for failure messages. */
static const char *escaped(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 3 < len; s++) {
        if (*s == '\n')
            out[n++] = '\\';
        out[n++] = *s == '\n' ? 'n' : *s;
    }
    out[n] = '\0';
    return out;
}

static void check_text(const struct report_case *rc, const struct output *o)
{
    for (const struct text_expect *e = rc->expect; e < rc->expect + EXPECT_MAX && e->fmt; e++) {
        char want[TEXT_LEN];
        if (e->count_of)
            snprintf(want, sizeof(want), e->fmt,
                     (unsigned long long)(cycles_of(o->c, e->count_of) / e->div));
        else
            snprintf(want, sizeof(want), "%s", e->fmt);
        char shown[2 * TEXT_LEN];
        if ((strstr(o->text, want) != NULL) == e->absent)
            unit_fail(__FILE__, __LINE__, "%s: %s \"%s\"", rc->name,
                      e->absent ? "unexpected" : "missing", escaped(want, shown, sizeof(shown)));
    }
}

static void run_case(const struct report_case *rc, const struct capture *c)
{
    struct output o = { .c = c };
    char err[ERR_LEN] = "";
    struct profile_options po = options(c, rc->event);
    po.sym.kallsyms_path = rc->kallsyms_file;
    po.comm = rc->comm;
    if (!load(&o.p, c, c->len, &po, err, sizeof(err))) {
        unit_fail(__FILE__, __LINE__, "%s: load: %s", rc->name, err);
        profile_free(&o.p);
        return;
    }
    o.text = render(rc, &o.p);
    check_text(rc, &o);
    if (rc->check)
        rc->check(&o);
    free(o.text);
    profile_free(&o.p);
}

TEST(report_and_export_cases)
{
    struct capture with_kallsyms = { 0 }, without = { 0 };
    bool made = capture_make(&with_kallsyms, true) && capture_make(&without, false);
    for (size_t i = 0; made && i < CASE_COUNT; i++)
        run_case(&cases[i], cases[i].ship_kallsyms ? &with_kallsyms : &without);
    free(with_kallsyms.data);
    free(without.data);
}

/* ---- Bad input ----------------------------------------------------------- */

struct error_case {
    const char *event;
    const char *guest_root;      /* NULL: the capture's */
    const char *err;
};

static const struct error_case error_cases[] = {
    { "bogus", NULL, "unknown event 'bogus' (this log has: cycles instructions)" },
    { NULL, "/nonexistent/guest-root",
      "--guest-root /nonexistent/guest-root: No such file or directory" },
    { NULL, WORKLOAD_SRC, "--guest-root " WORKLOAD_SRC ": not a directory" },
};

/* profile_load with stderr silenced. */
static int load_quietly(struct profile *p, const char *path, const struct profile_options *o)
{
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int status = profile_load(p, "report", path, o);
    fclose(stderr);
    stderr = saved;
    return status;
}

TEST(bad_input_gets_specific_errors)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
        const struct error_case *ec = &error_cases[i];
        struct profile p;
        char err[ERR_LEN] = "";
        struct profile_options o = options(&c, ec->event);
        if (ec->guest_root)
            o.sym.guest_root = ec->guest_root;
        CHECK(!load(&p, &c, c.len, &o, err, sizeof(err)));
        CHECK_STR(err, ec->err);
        profile_free(&p);
    }

    /* A truncated file: profile_load reports damage and keeps what it read. */
    struct profile p;
    char path[PATH_LEN];
    snprintf(path, sizeof(path), "%s/profile/truncated.bin", c.build);
    FILE *f = fopen(path, "wb");
    size_t cut = c.len / 2;
    CHECK(f && fwrite(c.data, 1, cut, f) == cut && fclose(f) == 0);
    struct profile_options o = options(&c, NULL);
    CHECK_EQ(load_quietly(&p, path, &o), VERTIGO_EXIT_DAMAGED);
    CHECK(p.total > 0 && p.total < c.expect.event_total[0] + c.expect.event_total[1]);
    profile_free(&p);
    CHECK_EQ(load_quietly(&p, "/nonexistent.bin", &o), VERTIGO_EXIT_USAGE);
    profile_free(&p);
    free(c.data);
}

/* ---- Hostile logs ---------------------------------------------------------- */

/* profile_load on the hostile log kind scaled by n, from memory, with
 * stderr silenced; the report's text in *text (NULL unless loaded). */
static int load_hostile(struct profile *p, const char *kind, uint32_t n, const char *event,
                        const struct report_options *ro, char **text)
{
    struct log_test_stream s = { 0 };
    struct profile_options o = { .event = event };
    char err[ERR_LEN];
    *text = NULL;
    if (!CHECK(hostile_log_write(kind, n, &s)) || !CHECK(profile_init(p, &o, err, sizeof(err))))
        return -1;
    struct logdec *dec = malloc(sizeof(*dec));
    logdec_init(dec, &profile_decoder_callbacks, p);
    logdec_feed(dec, s.data, s.len);
    logdec_finish(dec);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int status = profile_complete(p, "report", kind, &o, dec);
    fclose(stderr);
    stderr = saved;
    free(dec);
    log_test_stream_free(&s);
    if (status == VERTIGO_EXIT_OK || status == VERTIGO_EXIT_DAMAGED) {
        size_t len;
        FILE *out = open_memstream(text, &len);
        report_write(out, p, ro);
        fclose(out);
    }
    return status;
}

static unsigned count_lines(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        n += !strncmp(l, needle, strlen(needle));
    return n;
}

/* profile_finish on the hostile log kind scaled by n with the event
 * filter event: its result, the reason in err (ERR_LEN bytes). */
static bool finish_hostile(const char *kind, uint32_t n, const char *event, char *err)
{
    struct profile p;
    struct profile_options o = { .event = event };
    struct log_test_stream s = { 0 };
    CHECK(hostile_log_write(kind, n, &s));
    CHECK(profile_init(&p, &o, err, ERR_LEN));
    struct logdec *dec = malloc(sizeof(*dec));
    logdec_init(dec, &profile_decoder_callbacks, &p);
    logdec_feed(dec, s.data, s.len);
    logdec_finish(dec);
    bool ok = profile_finish(&p, event, err, ERR_LEN);
    free(dec);
    log_test_stream_free(&s);
    profile_free(&p);
    return ok;
}

/* --event without a mode suffix names the one event with that base;
 * with two such events it is refused as ambiguous, naming them. */
/* The report of the hostile log kind scaled by n with the event filter
 * event exits with status and (unless needle is NULL) holds needle. */
static void check_hostile_report(const char *kind, uint32_t n, const char *event, int status,
                                 const char *needle)
{
    struct profile p;
    struct report_options ro = { .sort = REPORT_SORT_SAMPLES };
    char *text;
    CHECK_EQ(load_hostile(&p, kind, n, event, &ro, &text), status);
    if (needle)
        CHECK(text && strstr(text, needle));
    free(text);
    profile_free(&p);
}

TEST(event_filter_without_mode_suffix)
{
    check_hostile_report("modes", 0, "cycles", VERTIGO_EXIT_OK, "# Samples: 1 of event 'cycles:ukh'\n");
    check_hostile_report("modes", 0, "instructions:k", VERTIGO_EXIT_OK, "of event 'instructions:k'\n");
    char err[ERR_LEN] = "";
    CHECK(!finish_hostile("modes", 0, "instructions", err));
    CHECK_STR(err, "ambiguous event 'instructions' (this log has: cycles:ukh instructions:u "
                   "instructions:k)");
}

TEST(more_events_than_columns_need_an_event_filter)
{
    struct profile p;
    struct report_options ro = { .sort = REPORT_SORT_SAMPLES };
    char *text;
    CHECK_EQ(load_hostile(&p, "events", PROFILE_EVENTS_MAX, NULL, &ro, &text), VERTIGO_EXIT_OK);
    CHECK_EQ(p.event_count, PROFILE_EVENTS_MAX);
    free(text);
    profile_free(&p);
    CHECK_EQ(load_hostile(&p, "events", PROFILE_EVENTS_MAX + 1, NULL, &ro, &text), VERTIGO_EXIT_USAGE);
    free(text);
    profile_free(&p);
    CHECK_EQ(load_hostile(&p, "events", 1000, "ev999", &ro, &text), VERTIGO_EXIT_OK);
    CHECK(text && strstr(text, "# Samples: 1 of event 'ev999'\n"));
    free(text);
    profile_free(&p);
    char err[ERR_LEN];
    CHECK(!finish_hostile("events", 40, NULL, err));
    CHECK_STR(err, "the log's samples name 40 events, more than the 32 one profile shows side by "
                   "side (a Vertigo session samples at most 32): choose one with --event E");
}

TEST(by_mode_has_a_row_for_every_vcpu)
{
    struct profile p;
    struct report_options ro = { .by_mode = true };
    char *text;
    CHECK_EQ(load_hostile(&p, "vcpus", 300, NULL, &ro, &text), VERTIGO_EXIT_OK);
    CHECK_EQ(count_lines(text ? strstr(text, "# By domain") : NULL, "  dom0        "), 300);
    CHECK(text && strstr(text, "  dom0         299  kernel            1     0.33%\n"));
    free(text);
    profile_free(&p);
}

/* The CSV export's `events` column added up over its rows. */
static uint64_t csv_events(const struct profile *p)
{
    char *csv = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&csv, &len);
    CHECK(export_csv(out, p));
    fclose(out);
    uint64_t sum = 0;
    for (const char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        const char *end = strchr(l + 1, '\n'), *at = end;
        for (int k = 0; k < 2 && at > l; k++)      /* events is the last but one */
            while (at > l && *--at != ',') {}
        sum += strtoull(at + 1, NULL, 10);
    }
    free(csv);
    return sum;
}

/* Frequency mode: each sample weighs the period in force on its own VCPU
 * (a VCPU's own period, until a new session's ends it); the event count
 * adds them up. */
TEST(each_sample_weighs_its_vcpus_period)
{
    struct profile p;
    struct report_options ro = { 0 };
    char *text, want[96];
    CHECK_EQ(load_hostile(&p, "periods", 0, NULL, &ro, &text), VERTIGO_EXIT_OK);
    CHECK_EQ(p.events[0].total, 7);
    CHECK_EQ(p.events[0].events, HOSTILE_PERIODS_EVENTS);
    snprintf(want, sizeof(want), "# Event count (approx.): %u (several periods)\n",
             HOSTILE_PERIODS_EVENTS);
    CHECK(text && strstr(text, want));
    free(text);
    CHECK_EQ(csv_events(&p), HOSTILE_PERIODS_EVENTS);
    profile_free(&p);
    CHECK_EQ(load_hostile(&p, "periods", 1000, NULL, &ro, &text), VERTIGO_EXIT_OK);
    CHECK_EQ(p.events[0].total, 7 + 1000);
    CHECK_EQ(p.events[0].events, HOSTILE_PERIODS_EVENTS + 1000 * 1001 / 2);
    free(text);
    profile_free(&p);
}

TEST(what_the_log_lost_heads_the_report)
{
    struct profile p;
    struct report_options ro = { 0 };
    char *text;
    CHECK_EQ(load_hostile(&p, "loss", 2, NULL, &ro, &text), VERTIGO_EXIT_DAMAGED);
    CHECK(text && strstr(text, "\n# Lost: 36893488147419103230 records dropped by Vertigo's "
                               "rings, 0 records (0 blocks) to corruption or gaps, 0 symbol sets "
                               "(0 broken, 0 restarted, 0 abandoned, 0 unfinished), 0 malformed symbol lines\n"));
    free(text);
    profile_free(&p);
    CHECK_EQ(load_hostile(&p, "unfinished", 3, NULL, &ro, &text), VERTIGO_EXIT_OK);
    CHECK(text && strstr(text, "3 symbol sets (0 broken, 0 restarted, 0 abandoned, 3 unfinished)"));
    free(text);
    profile_free(&p);
    CHECK_EQ(load_hostile(&p, "ranges", 2, NULL, &ro, &text), VERTIGO_EXIT_DAMAGED);
    CHECK(text && strstr(text, "0 records dropped by Vertigo's rings, 14 records (0 blocks)"));
    CHECK_EQ(p.total, 0);
    free(text);
    profile_free(&p);
    CHECK_EQ(load_hostile(&p, "vcpus", 3, NULL, &ro, &text), VERTIGO_EXIT_OK);
    CHECK(text && !strstr(text, "# Lost:"));
    free(text);
    profile_free(&p);
}

/* ---- Inlined code ---------------------------------------------------------- */

/* An address of tests/fixtures/profile/inlined.c's outer() in step(),
 * inlined there through scale(): found by its line. */
static uint64_t inlined_address(const char *elf, uint32_t line)
{
    char err[ERR_LEN];
    uint64_t outer = 0, size = 0, found = 0;
    struct symbolizer *s = sym_create(&(struct sym_options){ .vertigo_elf = elf }, err, sizeof(err));
    if (!CHECK(s != NULL) || !CHECK(gen_elf_symbol(elf, "outer", &outer, &size))) {
        sym_destroy(s);
        return 0;
    }
    struct sym_where h = { .mode = LOG_MODE_HYPERVISOR };
    for (uint64_t a = outer; a < outer + size && !found; a++)
        found = sym_frame(s, sym_resolve(s, &h, a))->line == line ? a : 0;
    sym_destroy(s);
    return found;
}

/* Hypervisor samples in inlined code: the report's children count the
 * inlined function, folded stacks show it as "_[i]" under its caller. */
TEST(inlined_functions_in_reports_and_folded_stacks)
{
    char build[BUILD_LEN], elf[PATH_LEN], err[ERR_LEN];
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return;
    snprintf(elf, sizeof(elf), "%s/profile/inlined", build);
    uint64_t addr = inlined_address(elf, gen_source_line("tests/fixtures/profile/inlined.c",
                                                         "step's work"));
    if (!CHECK(addr != 0))
        return;
    static uint8_t storage[1 << 16];
    struct log_ring ring;
    struct log_test_stream st = { 0 };
    log_ring_init(&ring, 0, storage, sizeof(storage));
    log_test_stream_header(&st, 1);
    for (int i = 0; i < 10; i++)
        CHECK(log_emit_sample(&ring, 100 + (uint64_t)i,
                              &(struct log_sample){ .mode = LOG_MODE_HYPERVISOR, .rip = addr }));
    log_test_drain(&st, &ring, 4096);
    struct profile p;
    struct profile_options o = { .sym = { .vertigo_elf = elf } };
    if (!CHECK(profile_init(&p, &o, err, sizeof(err))))
        return;
    struct logdec *dec = malloc(sizeof(*dec));
    logdec_init(dec, &profile_decoder_callbacks, &p);
    logdec_feed(dec, st.data, st.len);
    logdec_finish(dec);
    CHECK(profile_finish(&p, NULL, err, sizeof(err)));
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    report_write(out, &p, &(struct report_options){ .children = true });
    fputc('\n', out);
    export_folded(out, &p);
    fclose(out);
    CHECK(strstr(text, "   100.00%     0.00%         0  inlined                   [h] scale  ") != NULL);
    CHECK(strstr(text, "   100.00%     0.00%         0  inlined                   [h] step  ") != NULL);
    CHECK(strstr(text, "   100.00%   100.00%        10  inlined                   [h] outer  ") != NULL);
    CHECK(strstr(text, "\n[vertigo];outer_[h];scale_[i];step_[i] 10\n") != NULL);
    free(text);
    free(dec);
    profile_free(&p);
    log_test_stream_free(&st);
}
