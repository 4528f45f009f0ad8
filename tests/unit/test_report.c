/* Report and export tests: synthetic captures written by the real
 * encoder (tests/fixtures/profile/gen_profile.c) go through the decoder,
 * the symbolizer and the profile into `vertigo report`'s flat profile,
 * folded stacks and CSV; the shares, names and source lines printed must
 * be the ones the generator put in. Bad input gets specific errors. */
#include <stdlib.h>
#include <string.h>

#include "host-tools/profile.h"
#include "host-tools/vertigo.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "tests/unit/unit.h"

#define UNITS 200u
#define PATH_LEN 512u
#define BUILD_LEN 256u
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
    struct gen_profile_spec spec = { c->workload, c->hv, KALLSYMS, UNITS, ship_kallsyms };
    FILE *out = open_memstream(&c->data, &c->len);
    char err[256] = "";
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
    return (struct profile_options){ .sym = { c->root, NULL, c->hv }, .event = event };
}

typedef bool (*writer_fn)(FILE *out, const struct profile *p);

static char *render_report(const struct profile *p, const struct report_options *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    report_write(out, p, o);
    fclose(out);
    return text;
}

static char *render(const struct profile *p, writer_fn fn)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(fn(out, p));
    fclose(out);
    return text;
}

/* Finds the report row of symbol; reads its first percentage, its sample
 * count and the rest of the line after the name. */
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

TEST(report_user_functions_have_known_shares_and_lines)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    struct profile p;
    char err[256];
    struct profile_options o = options(&c, "instructions");
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    char *text = render_report(&p, &(struct report_options){ .sort = REPORT_SORT_SAMPLES });
    static const char *const fns[] = { "g", "f", "h" };
    static const char *const decl[] = { "void g(void)", "void f(void)", "void h(void)" };
    static const double intended[] = { 60.0, 30.0, 10.0 };
    for (int i = 0; i < 3; i++) {
        double pct = 0;
        uint64_t samples = 0;
        const char *rest = NULL;
        if (!CHECK(report_row(text, fns[i], &pct, NULL, &samples, &rest)))
            continue;
        CHECK_EQ(samples, gen_expected(&c.expect, 1, fns[i]));
        CHECK(same_2dp(pct, intended[i]));
        char where[64];
        snprintf(where, sizeof(where), "workload.c:%u", gen_source_line(WORKLOAD_SRC, decl[i]));
        CHECK(strstr(rest, where) != NULL && strchr(rest, '\n') > strstr(rest, where));
    }
    CHECK(strstr(text, "# Samples: 2000 of event 'instructions'\n") != NULL);
    free(text);
    profile_free(&p);
    free(c.data);
}

TEST(report_resolves_every_mode_kernel_hypervisor_jit_unknown)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    struct profile p;
    char err[256];
    struct profile_options o = options(&c, "cycles");
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    CHECK_EQ(p.total, c.expect.event_total[0]);
    char *text = render_report(&p, &(struct report_options){ .sort = REPORT_SORT_SYMBOL });
    for (uint32_t i = 0; i < c.expect.expect_count; i++) {
        const struct gen_expect *e = &c.expect.expect[i];
        if (e->event != 0)
            continue;
        double pct = 0;
        uint64_t samples = 0;
        const char *rest;
        if (!CHECK(report_row(text, e->symbol, &pct, NULL, &samples, &rest))) {
            fprintf(stderr, "  no row for %s\n", e->symbol);
            continue;
        }
        CHECK_EQ(samples, e->count);
        CHECK(same_2dp(pct, share(e->count, c.expect.event_total[0])));
    }
    CHECK(strstr(text, "[kernel.kallsyms]         [k] do_syscall_64") != NULL);
    CHECK(strstr(text, "[testmod]                 [k] testmod_work") != NULL);
    CHECK(strstr(text, "perf-42.map               [.] jit_mul") != NULL);
    CHECK(strstr(text, "hvmini                    [h] hv_handle_exit  ") != NULL);
    free(text);
    profile_free(&p);
    free(c.data);
}

TEST(report_children_adds_callers)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    struct profile p;
    char err[256];
    struct profile_options o = options(&c, "cycles");
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    char *text = render_report(&p, &(struct report_options){ .children = true });
    uint64_t total = c.expect.event_total[0];
    uint64_t g = gen_expected(&c.expect, 0, "g"), f = gen_expected(&c.expect, 0, "f");
    uint64_t in_main = g + f + gen_expected(&c.expect, 0, "h") + gen_expected(&c.expect, 0, "jit_add") +
                       gen_expected(&c.expect, 0, "jit_mul");
    double children = 0, self = 0;
    uint64_t samples = 0;
    const char *rest;
    CHECK(report_row(text, "main", &children, &self, &samples, &rest));
    CHECK(same_2dp(children, share(in_main, total)) && self == 0.0 && samples == 0);
    CHECK(report_row(text, "f", &children, &self, &samples, &rest));
    CHECK(same_2dp(children, share(f + g, total)) && same_2dp(self, share(f, total)));
    CHECK(report_row(text, "entry_SYSCALL_64", &children, &self, &samples, &rest));
    CHECK(same_2dp(children, share(gen_expected(&c.expect, 0, "do_syscall_64"), total)));
    /* The first row is the one with the most inclusive samples: main. */
    const char *first = strstr(text, "\n  ");
    CHECK(first && strstr(first, "] main") < strchr(first + 1, '\n'));
    free(text);
    profile_free(&p);
    free(c.data);
}

TEST(report_by_mode_and_event_columns)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    struct profile p;
    char err[256];
    struct profile_options o = options(&c, NULL);
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    CHECK_EQ(p.event_count, 2);
    char *text = render_report(&p, &(struct report_options){ .by_mode = true });
    CHECK(strstr(text, "  cycles  instructions  Image") != NULL);
    CHECK(strstr(text, "# By domain, VCPU and mode:") != NULL);
    uint64_t hv = gen_expected(&c.expect, 0, "hv_handle_exit");
    char line[128];
    snprintf(line, sizeof(line), "       0     0  hypervisor %8llu", (unsigned long long)hv / 2);
    CHECK(strstr(text, line) != NULL);
    free(text);
    profile_free(&p);
    free(c.data);
}

TEST(folded_stacks_hold_the_call_chains)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    struct profile p;
    char err[256];
    struct profile_options o = options(&c, "cycles");
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    char *text = render(&p, export_folded);
    char want[128];
    snprintf(want, sizeof(want), "\nmain;f;g %llu\n", (unsigned long long)gen_expected(&c.expect, 0, "g"));
    CHECK(strstr(text, want) != NULL);
    snprintf(want, sizeof(want), "\nmain;h %llu\n", (unsigned long long)gen_expected(&c.expect, 0, "h"));
    CHECK(strstr(text, want) != NULL);
    snprintf(want, sizeof(want), "entry_SYSCALL_64;do_syscall_64 %llu\n",
             (unsigned long long)gen_expected(&c.expect, 0, "do_syscall_64"));
    CHECK(strstr(text, want) != NULL);
    uint64_t sum = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *space = strchr(l, '\n');
        while (space > l && *space != ' ')
            space--;
        sum += strtoull(space + 1, NULL, 10);
    }
    CHECK_EQ(sum, c.expect.event_total[0]);
    free(text);
    profile_free(&p);
    free(c.data);
}

TEST(csv_rows_sum_to_the_totals)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    struct profile p;
    char err[256];
    struct profile_options o = options(&c, NULL);
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    char *text = render(&p, export_csv);
    CHECK(!strncmp(text, "event,domain,vcpu,mode,image,symbol,source_file,source_line,samples,percent\n", 76));
    uint64_t sums[2] = { 0 }, g_rows = 0;
    char needle[128];
    snprintf(needle, sizeof(needle), ",user,/bin/workload,g,tests/fixtures/profile/workload.c,%u,",
             gen_source_line(WORKLOAD_SRC, "void g(void)"));
    for (const char *l = strchr(text, '\n') + 1; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *end = strchr(l, '\n');
        const char *comma = end;
        while (comma > l && *--comma != ',') {}
        const char *prev = comma;
        while (prev > l && *--prev != ',') {}
        uint64_t n = strtoull(prev + 1, NULL, 10);
        sums[!strncmp(l, "instructions,", 13)] += n;
        const char *hit = strstr(l, needle);
        g_rows += hit && hit < end;
    }
    CHECK_EQ(sums[0], c.expect.event_total[0]);
    CHECK_EQ(sums[1], c.expect.event_total[1]);
    CHECK_EQ(g_rows, 4);   /* two events x two VCPUs */
    char missing[160];
    snprintf(missing, sizeof(missing), ",/lib/libmissing.so,[unknown] /lib/libmissing.so+0x1234,,0,%llu,",
             (unsigned long long)gen_expected(&c.expect, 0, "[unknown] /lib/libmissing.so+0x1234") / 2);
    CHECK(strstr(text, missing) != NULL);
    free(text);
    profile_free(&p);
    free(c.data);
}

TEST(kallsyms_from_a_file_when_the_log_has_none)
{
    struct capture c;
    if (!capture_make(&c, false))
        return;
    struct profile p;
    char err[256];
    struct profile_options o = options(&c, "cycles");
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    char *text = render_report(&p, &(struct report_options){ 0 });
    CHECK(strstr(text, "] do_syscall_64") == NULL);
    CHECK(strstr(text, "[k] [unknown] 0xffffffff81002100") != NULL);
    free(text);
    profile_free(&p);
    o.sym.kallsyms_path = KALLSYMS;
    CHECK(load(&p, &c, c.len, &o, err, sizeof(err)));
    text = render_report(&p, &(struct report_options){ 0 });
    CHECK(strstr(text, "] do_syscall_64") != NULL);
    free(text);
    profile_free(&p);
    free(c.data);
}

TEST(bad_input_gets_specific_errors)
{
    struct capture c;
    if (!capture_make(&c, true))
        return;
    struct profile p;
    char err[256] = "";
    struct profile_options o = options(&c, "bogus");
    CHECK(!load(&p, &c, c.len, &o, err, sizeof(err)));
    CHECK_STR(err, "unknown event 'bogus' (this log has: cycles instructions)");
    profile_free(&p);

    o = options(&c, NULL);
    o.sym.guest_root = "/nonexistent/guest-root";
    CHECK(!profile_init(&p, &o, err, sizeof(err)));
    CHECK_STR(err, "--guest-root /nonexistent/guest-root: No such file or directory");
    profile_free(&p);
    o.sym.guest_root = WORKLOAD_SRC;
    CHECK(!profile_init(&p, &o, err, sizeof(err)));
    CHECK_STR(err, "--guest-root " WORKLOAD_SRC ": not a directory");
    profile_free(&p);

    /* A truncated file: profile_load reports damage and keeps what it read. */
    char path[PATH_LEN];
    snprintf(path, sizeof(path), "%s/profile/truncated.bin", c.build);
    FILE *f = fopen(path, "wb");
    size_t cut = c.len / 2;
    CHECK(f && fwrite(c.data, 1, cut, f) == cut && fclose(f) == 0);
    o = options(&c, NULL);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int status = profile_load(&p, "report", path, &o);
    fclose(stderr);
    stderr = saved;
    CHECK_EQ(status, VERTIGO_EXIT_DAMAGED);
    CHECK(p.total > 0 && p.total < c.expect.event_total[0] + c.expect.event_total[1]);
    profile_free(&p);
    CHECK_EQ(profile_load(&p, "report", "/nonexistent.bin", &o), VERTIGO_EXIT_USAGE);
    profile_free(&p);
    free(c.data);
}
