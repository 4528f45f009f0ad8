/* Domains declared on the command line (see vmm/domain/domain_config.h). */
#include "vmm/domain/domain_config.h"

#include "lib/cmdline.h"
#include "lib/format.h"
#include "lib/mem.h"

#define VALUE_MAX 320u      /* longest dom.N= value read (a kernel and 8 module roles) */
#define UNIKERNEL_MEM_DEFAULT (32ull << 20)
#define LINUX_MEM_DEFAULT (256ull << 20)
#define MULTIBOOT_MEM_DEFAULT (128ull << 20)

struct parse {
    char *err;
    size_t err_size;
};

static bool fail(struct parse *p, const char *fmt, const char *key, const char *value)
{
    fmt_snprintf(p->err, p->err_size, fmt, key, value);
    return false;
}

/* Copies the option's value; false with a message if it is present but
 * too long. *present tells whether the key was given at all. */
static bool read_option(struct parse *p, const char *cmdline, const char *key,
                        char *out, size_t out_size, bool *present)
{
    *present = cmdline_has(cmdline, key);
    if (*present && !cmdline_get(cmdline, key, out, out_size)) {
        fmt_snprintf(p->err, p->err_size, "%s=: value longer than %zu characters", key,
                     out_size - 1);
        return false;
    }
    return true;
}

static bool role_valid(const char *s, size_t len)
{
    if (len == 0 || len >= DOMAIN_ROLE_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] == ':')
            return false;
    return true;
}

static bool copy_role(char *dst, const char *src, size_t len)
{
    if (!role_valid(src, len))
        return false;
    memcpy(dst, src, len);
    dst[len] = '\0';
    return true;
}

/* "KERNEL[:MODULE...]": the kernel's role and its modules'. */
static bool parse_multiboot(const char *list, struct domain_spec *d)
{
    const char *colon = strchr(list, ':');
    size_t len = colon ? (size_t)(colon - list) : strlen(list);
    if (!copy_role(d->module, list, len))
        return false;
    while (colon) {
        list = colon + 1;
        colon = strchr(list, ':');
        len = colon ? (size_t)(colon - list) : strlen(list);
        if (d->module_count == DOMAIN_MODULES_MAX ||
            !copy_role(d->modules[d->module_count], list, len))
            return false;
        d->module_count++;
    }
    return true;
}

/* "unikernel:MODULE", "linux:KERNEL:INITRD" or "multiboot:KERNEL[:MODULE...]". */
static bool parse_kind(struct parse *p, const char *key, const char *value,
                       struct domain_spec *d)
{
    if (strncmp(value, "unikernel:", 10) == 0) {
        const char *m = value + 10;
        d->kind = DOMAIN_KIND_UNIKERNEL;
        d->mem_bytes = UNIKERNEL_MEM_DEFAULT;
        if (!copy_role(d->module, m, strlen(m)))
            return fail(p, "%s=%s: expected unikernel:MODULE with a module role of 1..31 "
                        "characters and no ':'", key, value);
        return true;
    }
    if (strncmp(value, "linux:", 6) == 0) {
        const char *k = value + 6, *colon = strchr(k, ':');
        d->kind = DOMAIN_KIND_LINUX;
        d->mem_bytes = LINUX_MEM_DEFAULT;
        if (!colon || !copy_role(d->module, k, (size_t)(colon - k)) ||
            !copy_role(d->initrd, colon + 1, strlen(colon + 1)))
            return fail(p, "%s=%s: expected linux:KERNEL_MODULE:INITRD_MODULE (module roles "
                        "of 1..31 characters)", key, value);
        return true;
    }
    if (strncmp(value, "multiboot:", 10) == 0) {
        d->kind = DOMAIN_KIND_MULTIBOOT;
        d->mem_bytes = MULTIBOOT_MEM_DEFAULT;
        if (!parse_multiboot(value + 10, d))
            return fail(p, "%s=%s: expected multiboot:KERNEL_MODULE[:MODULE...] (module roles "
                        "of 1..31 characters, at most 8 modules)", key, value);
        return true;
    }
    return fail(p, "%s=%s: unknown domain kind (expected unikernel:MODULE, "
                "linux:KERNEL_MODULE:INITRD_MODULE or multiboot:KERNEL_MODULE[:MODULE...])",
                key, value);
}

static bool parse_mem(struct parse *p, const char *key, const char *value, uint64_t *mem)
{
    uint64_t v;
    if (!cmdline_parse_u64(value, &v))
        return fail(p, "%s=%s: not a size (a number with an optional K, M or G)", key, value);
    if (v < DOMAIN_MEM_MIN || v > DOMAIN_MEM_MAX)
        return fail(p, "%s=%s: out of range (4M .. 64G)", key, value);
    if (v % DOMAIN_MEM_ALIGN)
        return fail(p, "%s=%s: not a multiple of 2M", key, value);
    *mem = v;
    return true;
}

static bool parse_cpu(struct parse *p, const char *key, const char *value, unsigned int cpus,
                      unsigned int *cpu)
{
    uint64_t v;
    if (!cmdline_parse_u64(value, &v))
        return fail(p, "%s=%s: not a CPU number", key, value);
    if (v >= cpus) {
        fmt_snprintf(p->err, p->err_size, "%s=%s: no such CPU (this machine has %u)",
                     key, value, cpus);
        return false;
    }
    *cpu = (unsigned int)v;
    return true;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_';
}

static bool parse_name(struct parse *p, const char *key, const char *value, char *name)
{
    size_t len = strlen(value);
    bool ok = len > 0 && len < DOMAIN_NAME_MAX;
    for (size_t i = 0; ok && i < len; i++)
        ok = name_char(value[i]);
    if (!ok)
        return fail(p, "%s=%s: a name is 1..15 letters, digits, '-' or '_'", key, value);
    memcpy(name, value, len + 1);
    return true;
}

static bool parse_cmdline(struct parse *p, const char *key, const char *value,
                          struct domain_spec *d)
{
    if (d->kind == DOMAIN_KIND_UNIKERNEL)
        return fail(p, "%s=%s: a unikernel takes no command line here (its arguments are "
                    "the rest of its module's line)", key, value);
    memcpy(d->cmdline, value, strlen(value) + 1);
    d->has_cmdline = true;
    return true;
}

static bool parse_x2apic(struct parse *p, const char *key, const char *value,
                        struct domain_spec *d)
{
    if (d->kind != DOMAIN_KIND_MULTIBOOT)
        return fail(p, "%s=%s: only a multiboot domain can be without an x2APIC (a Linux "
                    "domain's APIC starts in x2APIC mode)", key, value);
    if (strcmp(value, "on") && strcmp(value, "off"))
        return fail(p, "%s=%s: on or off", key, value);
    d->no_x2apic = strcmp(value, "off") == 0;
    return true;
}

/* "C,C,...": one CPU per VCPU, distinct, each below `cpus`. */
static bool parse_cpu_list(struct parse *p, const char *key, const char *value,
                           unsigned int cpus, struct domain_spec *d, unsigned int *count)
{
    const char *s = value;
    *count = 0;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char one[12];
        uint64_t v;
        if (*count == DOMAIN_VCPUS_MAX)
            return fail(p, "%s=%s: more than 8 CPUs (a domain has at most 8 VCPUs)", key,
                        value);
        if (len == 0 || len >= sizeof(one))
            return fail(p, "%s=%s: expected CPU numbers separated by ','", key, value);
        memcpy(one, s, len);
        one[len] = '\0';
        if (!cmdline_parse_u64(one, &v))
            return fail(p, "%s=%s: expected CPU numbers separated by ','", key, value);
        if (v >= cpus) {
            fmt_snprintf(p->err, p->err_size, "%s=%s: no such CPU %s (this machine has %u)",
                         key, value, one, cpus);
            return false;
        }
        for (unsigned int i = 0; i < *count; i++)
            if (d->cpus[i] == v) {
                fmt_snprintf(p->err, p->err_size, "%s=%s: CPU %s named twice (a domain's "
                             "VCPUs run on distinct CPUs)", key, value, one);
                return false;
            }
        d->cpus[(*count)++] = (unsigned int)v;
        if (!comma)
            return true;
        s = comma + 1;
    }
}

static bool parse_vcpus(struct parse *p, const char *key, const char *value,
                        struct domain_spec *d)
{
    uint64_t v;
    if (!cmdline_parse_u64(value, &v) || v < 1 || v > DOMAIN_VCPUS_MAX)
        return fail(p, "%s=%s: expected a VCPU count of 1..8", key, value);
    if (v > 1 && d->kind != DOMAIN_KIND_LINUX)
        return fail(p, "%s=%s: only a Linux domain has several VCPUs (a unikernel or a "
                    "multiboot kernel has one)", key, value);
    d->vcpus = (unsigned int)v;
    return true;
}

/* dom.N.cpu=, dom.N.vcpus= and dom.N.cpus= together: each VCPU's CPU. */
struct cpu_options {
    bool cpu, vcpus, cpus;          /* given */
    unsigned int listed;            /* CPUs in dom.N.cpus= */
};

static bool place_vcpus(struct parse *p, unsigned int n, unsigned int cpus,
                        const struct cpu_options *o, struct domain_spec *d)
{
    if (o->cpu && (o->cpus || d->vcpus > 1)) {
        fmt_snprintf(p->err, p->err_size, "dom.%u.cpu=: a domain with dom.%u.cpus= or "
                     "several VCPUs names its CPUs in dom.%u.cpus= only", n, n, n);
        return false;
    }
    if (o->cpus && !o->vcpus && o->listed > 1 && d->kind != DOMAIN_KIND_LINUX) {
        fmt_snprintf(p->err, p->err_size, "dom.%u.cpus=: only a Linux domain has several "
                     "VCPUs (a unikernel or a multiboot kernel has one)", n);
        return false;
    }
    if (o->cpus && o->vcpus && o->listed != d->vcpus) {
        fmt_snprintf(p->err, p->err_size, "dom.%u.cpus=: %u CPUs listed for dom.%u.vcpus=%u "
                     "(one CPU per VCPU)", n, o->listed, n, d->vcpus);
        return false;
    }
    if (o->cpus) {
        d->vcpus = o->listed;
        return true;
    }
    if (d->vcpus > cpus) {
        fmt_snprintf(p->err, p->err_size, "dom.%u.vcpus=%u: this machine has %u CPUs (a "
                     "domain's VCPUs run on distinct CPUs)", n, d->vcpus, cpus);
        return false;
    }
    for (unsigned int i = 1; i < d->vcpus; i++)
        d->cpus[i] = i;             /* VCPU i on CPU i (VCPU 0 on CPU 0 unless dom.N.cpu=) */
    return true;
}

/* dom.N.on_reboot=restart|end: what a Linux domain's reset request does
 * (vmm/domain/domain.h, domain_reset). */
static bool parse_on_reboot(struct parse *p, const char *key, const char *value,
                            struct domain_spec *d)
{
    if (d->kind != DOMAIN_KIND_LINUX)
        return fail(p, "%s=%s: only a Linux domain restarts from its images", key, value);
    if (strcmp(value, "restart") && strcmp(value, "end"))
        return fail(p, "%s=%s: restart or end", key, value);
    d->restart_on_reboot = strcmp(value, "restart") == 0;
    return true;
}

/* The sub-options of dom.N (mem, cpu, name, cmdline, x2apic, vcpus, cpus,
 * on_reboot);
 * each is an error without dom.N=. */
static bool parse_sub(struct parse *p, const char *cmdline, unsigned int n, unsigned int cpus,
                      struct domain_spec *d)
{
    static const char *const subs[] = { "mem", "cpu", "name", "cmdline", "x2apic", "vcpus",
                                        "cpus", "on_reboot" };
    char key[24], value[DOMAIN_CMDLINE_MAX];
    struct cpu_options o = { 0 };
    bool present;

    for (unsigned int s = 0; s < sizeof(subs) / sizeof(subs[0]); s++) {
        fmt_snprintf(key, sizeof(key), "dom.%u.%s", n, subs[s]);
        if (!read_option(p, cmdline, key, value, sizeof(value), &present))
            return false;
        if (!present)
            continue;
        if (d->kind == DOMAIN_KIND_NONE) {
            fmt_snprintf(p->err, p->err_size, "%s=%s: domain %u is not declared (no dom.%u=)",
                         key, value, n, n);
            return false;
        }
        o.cpu |= s == 1;
        o.vcpus |= s == 5;
        o.cpus |= s == 6;
        bool ok = s == 0 ? parse_mem(p, key, value, &d->mem_bytes)
                : s == 1 ? parse_cpu(p, key, value, cpus, &d->cpus[0])
                : s == 2 ? parse_name(p, key, value, d->name)
                : s == 3 ? parse_cmdline(p, key, value, d)
                : s == 4 ? parse_x2apic(p, key, value, d)
                : s == 5 ? parse_vcpus(p, key, value, d)
                : s == 6 ? parse_cpu_list(p, key, value, cpus, d, &o.listed)
                         : parse_on_reboot(p, key, value, d);
        if (!ok)
            return false;
    }
    return d->kind == DOMAIN_KIND_NONE || place_vcpus(p, n, cpus, &o, d);
}

static bool parse_domain(struct parse *p, const char *cmdline, unsigned int n,
                         unsigned int cpus, struct domain_spec *d)
{
    char key[16], value[VALUE_MAX];
    bool present;

    fmt_snprintf(d->name, sizeof(d->name), "dom%u", n);
    d->vcpus = 1;
    fmt_snprintf(key, sizeof(key), "dom.%u", n);
    if (!read_option(p, cmdline, key, value, sizeof(value), &present))
        return false;
    if (present && !parse_kind(p, key, value, d))
        return false;
    return parse_sub(p, cmdline, n, cpus, d);
}

static bool names_distinct(struct parse *p, const struct domain_config *cfg)
{
    for (unsigned int i = 0; i < DOMAIN_MAX; i++)
        for (unsigned int j = i + 1; j < DOMAIN_MAX; j++)
            if (cfg->dom[j].kind != DOMAIN_KIND_NONE &&
                strcmp(cfg->dom[i].name, cfg->dom[j].name) == 0) {
                fmt_snprintf(p->err, p->err_size, "dom.%u.name=%s: domain %u has that name",
                             j, cfg->dom[j].name, i);
                return false;
            }
    return true;
}

bool domain_config_parse(const char *cmdline, unsigned int cpus,
                         struct domain_config *cfg, char *err, size_t err_size)
{
    struct parse p = { err, err_size };
    char value[VALUE_MAX];
    bool present;

    memset(cfg, 0, sizeof(*cfg));
    memcpy(cfg->dom[0].name, "dom0", 5);
    cfg->slice_us = SCHED_SLICE_DEFAULT_US;
    if (!read_option(&p, cmdline, "sched.slice", value, sizeof(value), &present))
        return false;
    if (present && !sched_slice_parse(value, &cfg->slice_us))
        return fail(&p, "%s=%s: expected a time of 100us .. 1s with unit us, ms or s",
                    "sched.slice", value);
    for (unsigned int n = 1; n < DOMAIN_MAX; n++) {
        if (!parse_domain(&p, cmdline, n, cpus, &cfg->dom[n]))
            return false;
        cfg->count += cfg->dom[n].kind != DOMAIN_KIND_NONE;
    }
    return names_distinct(&p, cfg);
}

bool sched_slice_parse(const char *text, uint32_t *slice_us)
{
    uint64_t v = 0, scale;
    const char *p = text;

    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > SCHED_SLICE_MAX_US)
            return false;
    }
    if (strcmp(p, "us") == 0)
        scale = 1;
    else if (strcmp(p, "ms") == 0)
        scale = 1000;
    else if (strcmp(p, "s") == 0)
        scale = 1000000;
    else
        return false;
    v *= scale;
    if (v < SCHED_SLICE_MIN_US || v > SCHED_SLICE_MAX_US)
        return false;
    *slice_us = (uint32_t)v;
    return true;
}

uint64_t sched_slice_ticks(uint32_t slice_us, uint64_t tsc_hz)
{
    /* slice_us <= 10^6 and tsc_hz < 2^44 (17 THz): the product fits. */
    uint64_t ticks = slice_us * tsc_hz / 1000000u;
    return ticks ? ticks : 1;
}
