/* Reports and exports of a log with three domains (host-tools/profile.c,
 * cmd_report.c, the exporters, sym_domains.c): Vertigo's command line in
 * the log names domains 1 and 2 ("web", "batch"); domains 0 and 2 ship
 * their own kallsyms (the same addresses under other names: each
 * domain's samples must take its own), domain 1 ships nothing (passive:
 * raw addresses until the user gives its kallsyms); domain 2 ships a
 * process's maps and identity, its binary symbolized only from the guest
 * root given for it, its user samples taken on its VCPU 1. `--sort domain`
 * rows and the "# Domains:" breakdown show the names and shares, `--sort
 * domain,vcpu` one row per VCPU of each domain, CSV and folded stacks label the domain by
 * name, and the per-domain options refuse an unknown domain, a bad file
 * and a malformed DOM=PATH with specific errors. */
#define _GNU_SOURCE   /* memmem */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "host-tools/profile.h"
#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"
#include "tests/fixtures/profile/gen_profile.h"
#include "tests/unit/test_log_util.h"
#include "tests/unit/unit.h"
#include "vmm/log/log_emit.h"

#define KADDR        0xffffffff81000010ull
#define KSYMS(name)  "ffffffff81000000 T " name "\nffffffff81002000 T " name "_end\n"
#define PID          42u
#define CR3          0x2000ull
#define DOM0_SAMPLES 60u
#define WEB_SAMPLES  30u
#define BATCH_KERNEL 6u
#define BATCH_USER   4u
#define RING_BYTES   (256u * 1024u)
#define ERR_LEN      256u
#define PATH_LEN     512u
#define BUILD_LEN    256u

struct capture {
    struct log_test_stream st;
    char root[PATH_LEN], workload[PATH_LEN], web_kallsyms[PATH_LEN];
};

static uint64_t tsc = 1000;

static void symbols(struct log_ring *ring, uint32_t domain, uint8_t kind, uint32_t pid,
                    const char *text)
{
    struct log_symbols s = { .domain = domain, .kind = kind, .pid = pid, .last = true,
                             .data = (const uint8_t *)text, .len = (uint32_t)strlen(text) };
    CHECK(log_emit_symbols(ring, tsc += 10, &s));
}

static void samples(struct log_ring *ring, uint32_t domain, uint32_t vcpu, uint8_t mode,
                    uint64_t rip, unsigned int n)
{
    for (unsigned int i = 0; i < n; i++) {
        struct log_sample s = { .domain = domain, .vcpu = vcpu, .mode = mode, .rip = rip,
                                .has_cr3 = true, .cr3 = CR3 };
        CHECK(log_emit_sample(ring, tsc += 10, &s));
    }
}

/* Domain 2's process: the workload's text mapped as the agent ships it. */
static bool batch_process(struct log_ring *ring, const struct capture *c, uint64_t *g_addr)
{
    uint64_t start, end, offset, size;
    if (!CHECK(gen_elf_text(c->workload, &start, &end, &offset)) ||
        !CHECK(gen_elf_symbol(c->workload, "g", g_addr, &size)))
        return false;
    char maps[256], identity[64];
    snprintf(maps, sizeof(maps), "%08llx-%08llx r-xp %08llx 00:02 1001 /bin/workload\n",
             (unsigned long long)start, (unsigned long long)end, (unsigned long long)offset);
    snprintf(identity, sizeof(identity), "%u %llx batchjob\n", PID, (unsigned long long)CR3);
    symbols(ring, 2, LOG_SYM_PROC_MAPS, PID, maps);
    symbols(ring, 2, LOG_SYM_PROCESS, PID, identity);
    return true;
}

static bool capture_make(struct capture *c)
{
    char build[BUILD_LEN];
    memset(c, 0, sizeof(*c));
    if (!CHECK(gen_build_dir(build, sizeof(build))))
        return false;
    snprintf(c->root, sizeof(c->root), "%s/profile/root", build);
    snprintf(c->workload, sizeof(c->workload), "%s/profile/root/bin/workload", build);
    snprintf(c->web_kallsyms, sizeof(c->web_kallsyms), "%s/unit/web-kallsyms.txt", build);
    FILE *f = fopen(c->web_kallsyms, "w");
    if (!CHECK(f))
        return false;
    fputs(KSYMS("web_func"), f);
    fclose(f);

    static uint8_t storage[RING_BYTES];
    struct log_ring ring;
    static const char config[] = "log=e9 dom.1.name=web dom.2.name=batch dom.1=linux:k1:i1";
    uint64_t g_addr = 0;
    CHECK(log_ring_init(&ring, 0, storage, sizeof(storage)));
    log_emit_config(&ring, tsc, &(struct log_config){ config, sizeof(config) - 1 });
    log_emit_event_desc(&ring, tsc += 10, &(struct log_event_desc){ 0, 0x3c, "cycles", 6 });
    symbols(&ring, 0, LOG_SYM_KALLSYMS, 0, KSYMS("dom0_func"));
    symbols(&ring, 2, LOG_SYM_KALLSYMS, 0, KSYMS("batch_func"));
    bool ok = batch_process(&ring, c, &g_addr);
    samples(&ring, 0, 0, LOG_MODE_GUEST_KERNEL, KADDR, DOM0_SAMPLES);
    samples(&ring, 1, 0, LOG_MODE_GUEST_KERNEL, KADDR, WEB_SAMPLES);
    samples(&ring, 2, 0, LOG_MODE_GUEST_KERNEL, KADDR, BATCH_KERNEL);
    samples(&ring, 2, 1, LOG_MODE_GUEST_USER, g_addr, BATCH_USER);
    log_test_stream_header(&c->st, 1);
    log_test_drain(&c->st, &ring, 4096);
    return ok;
}

/* The capture, made once for every test (its files stay in the build
 * directory). */
static const struct capture *capture(void)
{
    static struct capture c;
    static bool made, ok;
    if (!made) {
        made = true;
        ok = capture_make(&c);
    }
    return ok ? &c : NULL;
}

/* Loads the capture as `vertigo report` does after its command line:
 * false with err set when the options are refused. */
static bool load(struct profile *p, const struct capture *c, const struct profile_options *o,
                 char *err)
{
    if (!profile_init(p, o, err, ERR_LEN))
        return false;
    struct logdec *dec = malloc(sizeof(*dec));
    logdec_init(dec, &profile_decoder_callbacks, p);
    logdec_feed(dec, c->st.data, c->st.len);
    logdec_finish(dec);
    free(dec);
    return sym_check_domains(p->sym, err, ERR_LEN) && profile_finish(p, NULL, err, ERR_LEN);
}

/* What writer makes of the profile, as a string (free it). */
static char *written(const struct profile *p, bool (*writer)(FILE *, const struct profile *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    writer(out, p);
    fclose(out);
    return text;
}

/* What writer makes of the capture loaded with o, as a string (free it);
 * NULL if it did not load. */
static char *output(const struct profile_options *o,
                    bool (*writer)(FILE *, const struct profile *))
{
    struct profile p;
    char err[ERR_LEN] = "";
    const struct capture *c = capture();
    char *text = c && CHECK(load(&p, c, o, err)) ? written(&p, writer) : NULL;
    if (c)
        profile_free(&p);
    return text;
}

static bool report_sorted_by(FILE *out, const struct profile *p, const char *keys, bool json)
{
    struct report_options o = { .sort = REPORT_SORT_DEFAULT, .json = json };
    char err[ERR_LEN];
    if (!report_parse_sort(&o, keys, err, sizeof(err)))
        return false;
    report_write(out, p, &o);
    return true;
}

static bool report_sorted(FILE *out, const struct profile *p)
{
    return report_sorted_by(out, p, "domain,sym", false);
}

static bool report_by_vcpu(FILE *out, const struct profile *p)
{
    return report_sorted_by(out, p, "domain,vcpu", false);
}

static bool report_by_vcpu_json(FILE *out, const struct profile *p)
{
    return report_sorted_by(out, p, "domain,vcpu", true);
}

static bool has(const char *text, const char *needle)
{
    if (text && strstr(text, needle))
        return true;
    unit_fail(__FILE__, __LINE__, "missing \"%s\" in:\n%s", needle, text ? text : "(null)");
    return false;
}

static struct profile_options with_files(const struct capture *c, const char *kallsyms_dom,
                                         const char *root_dom)
{
    struct profile_options o = { 0 };
    if (kallsyms_dom)
        o.sym.kallsyms[o.sym.kallsyms_count++] = (struct sym_domain_file){ kallsyms_dom,
                                                                            c->web_kallsyms };
    if (root_dom)
        o.sym.roots[o.sym.root_count++] = (struct sym_domain_file){ root_dom, c->root };
    return o;
}

/* Each domain by its name, its share and its own symbols; the passive
 * domain's samples at their raw address. */
TEST(report_sorted_by_domain_names_each_domain_and_its_share)
{
    struct profile_options o = { 0 };
    char *text = output(&o, report_sorted);
    has(text, "# Domains: dom0 60.00% (60 samples), web 30.00% (30 samples, passive), "
              "batch 10.00% (10 samples)\n");
    has(text, "# Sort: domain,sym\n");
    has(text, "    60.00%        60  dom0    [k] dom0_func\n");
    has(text, "    30.00%        30  web     [k] [unknown] 0xffffffff81000010\n");
    has(text, "     6.00%         6  batch   [k] batch_func\n");
    has(text, "     4.00%         4  batch   [.] [unknown] /bin/workload+0x");
    free(text);
}

/* --sort domain,vcpu: a row per VCPU of each domain (the batch domain's
 * two), also in the JSON report; vcpu alone merges the domains' VCPUs of
 * the same number, as perf's cpu key does the CPUs. */
TEST(report_sorted_by_domain_and_vcpu_splits_each_domains_vcpus)
{
    struct profile_options o = { 0 };
    char *text = output(&o, report_by_vcpu);
    has(text, "# Sort: domain,vcpu\n");
    has(text, "    60.00%        60  dom0    0\n");
    has(text, "    30.00%        30  web     0\n");
    has(text, "     6.00%         6  batch   0\n");
    has(text, "     4.00%         4  batch   1\n");
    free(text);
    text = output(&o, report_by_vcpu_json);
    has(text, "\"sort\":[\"domain\",\"vcpu\"]");
    has(text, "\"domain\":\"batch\",\"vcpu\":1");
    free(text);
    struct report_options r = { 0 };
    char err[ERR_LEN];
    CHECK(report_parse_sort(&r, "vcpu", err, sizeof(err)));
    CHECK(!report_parse_sort(&r, "vcpu,vcpu", err, sizeof(err)));
    has(err, "repeated sort key 'vcpu'");
}

/* --kallsyms DOM=FILE symbolizes the passive domain, by name or number;
 * --guest-root DOM=DIR gives domain 2's binaries; the others keep their
 * own symbols. */
TEST(per_domain_files_symbolize_their_domain_only)
{
    static const char *const keys[][2] = { { "web", "batch" }, { "1", "2" } };
    for (unsigned int k = 0; k < 2 && capture(); k++) {
        struct profile_options o = with_files(capture(), keys[k][0], keys[k][1]);
        char *text = output(&o, report_sorted);
        has(text, "  web     [k] web_func\n");
        has(text, "  dom0    [k] dom0_func\n");
        has(text, "  batch   [.] g  ");
        free(text);
    }
}

/* The plain --kallsyms FILE is domain 0's, as before several domains. */
TEST(plain_kallsyms_is_domain_0s)
{
    if (!capture())
        return;
    struct profile_options o = { .sym = { .kallsyms_path = capture()->web_kallsyms } };
    char *text = output(&o, report_sorted);
    has(text, "  dom0    [k] web_func\n");
    has(text, "  web     [k] [unknown] 0xffffffff81000010\n");
    has(text, "  batch   [k] batch_func\n");
    free(text);
}

/* CSV's domain_name column and the folded stacks' domain frame. */
TEST(exports_label_the_domain_by_name)
{
    struct profile_options o = { 0 };
    char *csv = output(&o, export_csv), *folded = output(&o, export_folded);
    has(csv, "event,domain,domain_name,vcpu,");
    has(csv, "cycles,1,web,0,kernel,");
    has(csv, "cycles,2,batch,1,user,42,batchjob,/bin/workload,");
    has(folded, "dom0;");
    has(folded, "web;");
    has(folded, "batch;batchjob;[workload] 4\n");
    free(csv);
    free(folded);
}

/* The gzipped pprof's bytes, inflated (free it); NULL if they are not gzip. */
static char *gunzipped(const char *gz, size_t len, size_t *out_len)
{
    size_t cap = 1u << 20;
    char *out = malloc(cap);
    z_stream z = { .next_in = (Bytef *)gz, .avail_in = (uInt)len, .next_out = (Bytef *)out,
                   .avail_out = (uInt)cap };
    bool ok = out && inflateInit2(&z, 16 + MAX_WBITS) == Z_OK;
    ok = ok && inflate(&z, Z_FINISH) == Z_STREAM_END;
    *out_len = z.total_out;
    inflateEnd(&z);
    if (!ok)
        free(out);
    return ok ? out : NULL;
}

/* pprof's string table holds the domains' names (the domain label) and
 * the numeric label's key domain_id. */
TEST(pprof_labels_the_domain_by_name)
{
    struct profile p;
    struct profile_options o = { 0 };
    char err[ERR_LEN] = "", *gz = NULL;
    size_t gz_len = 0, len = 0;
    if (!capture() || !CHECK(load(&p, capture(), &o, err)))
        return;
    FILE *out = open_memstream(&gz, &gz_len);
    CHECK(export_pprof(out, &p));
    fclose(out);
    char *pb = gunzipped(gz, gz_len, &len);
    /* strings are length-prefixed (a one-byte varint here) */
    static const char *const names[] = { "\004dom0", "\003web", "\005batch", "\011domain_id" };
    for (size_t i = 0; CHECK(pb) && i < sizeof(names) / sizeof(names[0]); i++)
        if (!memmem(pb, len, names[i], strlen(names[i])))
            unit_fail(__FILE__, __LINE__, "pprof has no string '%s'", names[i] + 1);
    free(pb);
    free(gz);
    profile_free(&p);
}

/* An option naming a domain the log lacks, and a file that cannot be
 * read, are refused with what is wrong. */
/* --domain-elf DOM=FILE: the domain runs one static image (a unikernel),
 * so every address of its samples, any mode and with no maps shipped, is
 * looked up in FILE; here domain 2's user sample finds g there without a
 * guest root, and its kernel samples, outside the image, no longer take
 * the kallsyms it shipped. The other domains keep their own symbols. */
TEST(domain_elf_symbolizes_every_address_of_its_domain)
{
    const struct capture *c = capture();
    if (!c)
        return;
    struct profile_options o = { 0 };
    o.sym.elves[o.sym.elf_count++] = (struct sym_domain_file){ "batch", c->workload };
    char *text = output(&o, report_sorted);
    has(text, "  batch   [.] g  ");
    has(text, "  batch   [k] [unknown] workload+0x");
    has(text, "  dom0    [k] dom0_func\n");
    has(text, "  web     [k] [unknown] 0xffffffff81000010\n");
    CHECK(text && !strstr(text, "batch_func"));
    free(text);
}

TEST(bad_domain_or_file_is_refused_specifically)
{
    const struct capture *c = capture();
    struct profile p;
    char err[ERR_LEN] = "";
    if (!c)
        return;
    struct profile_options o = with_files(c, "db", NULL);
    CHECK(!load(&p, c, &o, err));
    char want[ERR_LEN + PATH_LEN];
    snprintf(want, sizeof(want), "--kallsyms db=%s: no domain 'db' in the log (its domains: "
             "dom0 (0), web (1), batch (2))", c->web_kallsyms);
    CHECK_STR(err, want);
    profile_free(&p);

    o = with_files(c, NULL, "7");
    CHECK(!load(&p, c, &o, err));
    CHECK(strstr(err, "--guest-root 7=") && strstr(err, ": no domain '7' in the log"));
    profile_free(&p);

    o = (struct profile_options){ 0 };
    o.sym.kallsyms[o.sym.kallsyms_count++] = (struct sym_domain_file){ "web", "/nonexistent/k" };
    CHECK(!profile_init(&p, &o, err, sizeof(err)));
    CHECK_STR(err, "--kallsyms web=/nonexistent/k: No such file or directory");
    profile_free(&p);
    o = (struct profile_options){ 0 };
    o.sym.roots[o.sym.root_count++] = (struct sym_domain_file){ "batch", c->web_kallsyms };
    CHECK(!profile_init(&p, &o, err, sizeof(err)));
    snprintf(want, sizeof(want), "--guest-root batch=%s: not a directory", c->web_kallsyms);
    CHECK_STR(err, want);
    profile_free(&p);
    o = (struct profile_options){ 0 };
    o.sym.elves[o.sym.elf_count++] = (struct sym_domain_file){ "web", c->web_kallsyms };
    CHECK(!profile_init(&p, &o, err, sizeof(err)));
    snprintf(want, sizeof(want), "--domain-elf web=%s: not a readable ELF file", c->web_kallsyms);
    CHECK_STR(err, want);
    profile_free(&p);
    o = (struct profile_options){ 0 };
    o.sym.elves[o.sym.elf_count++] = (struct sym_domain_file){ "db", c->workload };
    CHECK(!load(&p, c, &o, err));
    CHECK(strstr(err, "--domain-elf db=") && strstr(err, ": no domain 'db' in the log"));
    profile_free(&p);
}

/* The command line: DOM=PATH forms, a path with '=' after a '/' is a
 * plain path, a DOM=PATH without a domain or a path is refused. */
TEST(command_line_forms_of_the_per_domain_options)
{
    static const struct { const char *value; int status; } cases[] = {
        { "=x", VERTIGO_EXIT_CMDLINE },
        { "web=", VERTIGO_EXIT_CMDLINE },
        { "a-domain-name-longer-than-31-bytes=x", VERTIGO_EXIT_CMDLINE },
        { "./no/such=file", VERTIGO_EXIT_USAGE },     /* a plain path: cannot be read */
        { "web=/no/such/file", VERTIGO_EXIT_USAGE },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[] = { "report", "--kallsyms", (char *)cases[i].value, "/dev/null", NULL };
        int status = cmd_report(4, argv);
        if (status != cases[i].status)
            unit_fail(__FILE__, __LINE__, "--kallsyms %s: exit %d, want %d", cases[i].value,
                      status, cases[i].status);
    }
    /* --domain-elf has no plain form: a FILE without DOM= is refused */
    static const char *const elf_values[] = { "uk.elf", "./dir/uk.elf", "=uk.elf", "1=" };
    for (size_t i = 0; i < sizeof(elf_values) / sizeof(elf_values[0]); i++) {
        char *argv[] = { "report", "--domain-elf", (char *)elf_values[i], "/dev/null", NULL };
        int status = cmd_report(4, argv);
        if (status != VERTIGO_EXIT_CMDLINE)
            unit_fail(__FILE__, __LINE__, "--domain-elf %s: exit %d, want %d", elf_values[i],
                      status, VERTIGO_EXIT_CMDLINE);
    }
}
