/* Building the domains declared beside domain 0 (see vmm/domain/domain_private.h). */
#include "vmm/domain/domain_private.h"

#include "boot/platform.h"
#include "boot/run_end.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_mboot.h"
#include "vmm/domain/domain_mboot_map.h"
#include "vmm/domain/domain_vhw.h"
#include "vmm/domain/smp_guest.h"
#include "lib/format.h"
#include "vmm/loader/guest_modules.h"
#include "lib/mem.h"
#include "vmm/loader/unikernel_boot.h"
#include "vmm/vhw/testdev.h"
#include "vmm/vmx_hooks.h"

#define HOST_IDENTITY_LIMIT 0x100000000ull  /* Vertigo reaches RAM below 4 GiB */

static struct domain_config config;
static struct domain domains[DOMAIN_MAX];           /* [0] unused: domain 0 is elsewhere */
static struct linux_boot_state start_states[DOMAIN_MAX];
static uint64_t testdev_hpa[DOMAIN_MAX];            /* a multiboot domain's test memory; 0: none */

__attribute__((noreturn)) static void refuse(unsigned int n, const char *why)
{
    printk("vertigo: dom.%u: %s\n", n, why);
    run_end(RUN_FAIL, "bad domain declaration");
}

static const char *kind_name(enum domain_kind kind)
{
    return kind == DOMAIN_KIND_LINUX ? "linux" : kind == DOMAIN_KIND_MULTIBOOT ? "multiboot"
                                                                            : "unikernel";
}

static void check_role(const struct boot_info *bi, unsigned int n, const char *role)
{
    if (guest_module_find(bi, role, NULL))
        return;
    printk("vertigo: dom.%u=%s:%s...: no GRUB module has the role '%s'\n", n,
           kind_name(config.dom[n].kind), config.dom[n].module, role);
    run_end(RUN_FAIL, "bad domain declaration");
}

static void check_module(const struct boot_info *bi, unsigned int n)
{
    const struct domain_spec *spec = &config.dom[n];
    check_role(bi, n, spec->module);
    if (spec->kind == DOMAIN_KIND_LINUX)
        check_role(bi, n, spec->initrd);
    for (unsigned int i = 0; i < spec->module_count; i++)
        check_role(bi, n, spec->modules[i]);
}

/* "C" or "C0,C1,...": the CPU of each VCPU. */
static const char *cpu_list(const struct domain_spec *spec, char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    for (unsigned int i = 0; i < spec->vcpus && at < size; i++) {
        int n = fmt_snprintf(out + at, size - at, i ? ",%u" : "%u", spec->cpus[i]);
        at += n > 0 ? (size_t)n : 0;
    }
    return out;
}

/* The memory a multiboot domain takes besides its RAM: QEMU's pc-testdev
 * memory (vmm/vhw/testdev.h), if it fits in its map; 0 and a message
 * saying why if not (the domain then runs without it). */
static uint64_t testdev_bytes(unsigned int n, const struct domain_spec *spec)
{
    char why[128];
    if (domain_mboot_testdev_fits(spec->mem_bytes, why, sizeof(why)))
        return TESTDEV_IOMEM_BYTES;
    printk("vertigo: dom.%u: no pc-testdev memory at %#llx: %s\n", n, TESTDEV_IOMEM_GPA, why);
    return 0;
}

unsigned int domains_reserve(const struct boot_info *bi, unsigned int cpus,
                             struct page_allocator *pa, struct phys_range *hidden,
                             size_t *count)
{
    char err[160];
    if (!domain_config_parse(bi->cmdline, cpus, &config, err, sizeof(err))) {
        printk("vertigo: %s\n", err);
        run_end(RUN_FAIL, "bad domain option");
    }
    for (unsigned int n = 1; n < DOMAIN_MAX; n++) {
        const struct domain_spec *spec = &config.dom[n];
        if (spec->kind == DOMAIN_KIND_NONE)
            continue;
        check_module(bi, n);
        uint64_t extra = spec->kind == DOMAIN_KIND_MULTIBOOT ? testdev_bytes(n, spec) : 0;
        uint64_t base = palloc_alloc(pa, (spec->mem_bytes + extra) / PAGE_SIZE,
                                     DOMAIN_MEM_ALIGN, HOST_IDENTITY_LIMIT);
        if (!base) {
            printk("vertigo: dom.%u.mem=%lu MiB: no free 2 MiB-aligned block that large "
                   "below 4 GiB\n", n, spec->mem_bytes >> 20);
            run_end(RUN_FAIL, "no memory for a domain");
        }
        domains[n].vmx.ram_hpa = base;
        testdev_hpa[n] = extra ? base + spec->mem_bytes : 0;
        hidden[(*count)++] = (struct phys_range){ base, base + spec->mem_bytes + extra };
        char cpus_text[DOMAIN_VCPUS_MAX * 4];
        printk("domain %u (%s): %s '%s', %lu MiB of RAM at [%#lx-%#lx), %s %s\n", n,
               spec->name, kind_name(spec->kind), spec->module, spec->mem_bytes >> 20, base,
               base + spec->mem_bytes, spec->vcpus > 1 ? "cpus" : "cpu",
               cpu_list(spec, cpus_text, sizeof(cpus_text)));
    }
    if (config.count)
        printk("sched: slice %u us of guest time\n", config.slice_us);
    return config.count;
}

/* The domain's RAM as the loader writes it: [0, mem) of the block. */
static void *domain_ram(void *ctx, uint64_t gpa, uint64_t len)
{
    const struct domain *d = ctx;
    uint64_t mem = config.dom[d->id].mem_bytes;
    if (gpa > mem || len > mem - gpa)
        return NULL;
    return (void *)(d->vmx.ram_hpa + gpa);
}

static void load_unikernel(const struct boot_info *bi, struct domain *d)
{
    const struct domain_spec *spec = &config.dom[d->id];
    const char *args = "";
    const struct boot_module *m = guest_module_find(bi, spec->module, &args);
    struct uk_boot_config cfg = {
        (const void *)m->start, m->end - m->start, spec->mem_bytes, d->id,
        platform_tsc_hz(), args,
    };
    struct guest_mem mem = { domain_ram, d };
    struct uk_boot_layout layout;
    int bad;
    enum uk_boot_status st = uk_boot_load(&cfg, &mem, &layout, &start_states[d->id], &bad);
    if (st != UK_BOOT_OK) {
        printk("vertigo: dom.%u=unikernel:%s: cannot load the module: %s", d->id,
               spec->module, uk_boot_strerror(st));
        printk(bad >= 0 ? " (program header %d)\n" : "\n", bad);
        run_end(RUN_FAIL, "bad unikernel module");
    }
    printk("domain %u (%s): %u segments at [%#lx-%#lx), entry %#lx, free RAM [%#lx-%#lx)\n",
           d->id, d->name, layout.segments, layout.load_start, layout.load_end,
           start_states[d->id].rip, layout.free_start, layout.free_end);
}

/* Loads domain d's images; false if a multiboot image was refused (the
 * domain then does not run). */
static bool load_domain(const struct boot_info *bi, struct domain *d)
{
    const struct domain_spec *spec = &config.dom[d->id];
    struct guest_mem mem = { domain_ram, d };
    char why[160];

    if (spec->kind == DOMAIN_KIND_LINUX) {
        domain_vhw_build(bi, d, spec, &mem, &start_states[d->id]);
    } else if (spec->kind == DOMAIN_KIND_MULTIBOOT) {
        if (!domain_mboot_build(bi, d, spec, &mem, testdev_hpa[d->id] != 0,
                                &start_states[d->id], why, sizeof(why))) {
            char what[DOMAIN_ROLE_MAX + 24];
            fmt_snprintf(what, sizeof(what), "multiboot kernel '%s'", spec->module);
            domain_refused(d, what, why);
            return false;
        }
    } else {
        load_unikernel(bi, d);
    }
    return true;
}

/* Domain n's test memory, zeroed (as QEMU's starts), for its EPT; NULL if
 * it has none. Vertigo reaches it through its identity map, as the RAM. */
static const struct private_extra_map *testdev_map(unsigned int n)
{
    static struct private_extra_map map;
    if (!testdev_hpa[n])
        return NULL;
    memset((void *)testdev_hpa[n], 0, TESTDEV_IOMEM_BYTES);
    map = (struct private_extra_map){ TESTDEV_IOMEM_GPA, testdev_hpa[n], TESTDEV_IOMEM_BYTES,
                                      "pc-testdev memory" };
    return &map;
}

static const struct boot_info *boot_modules;     /* kept for domains_reload */

/* VCPU i of domain d on CPU spec->cpus[i], x2APIC ID i; every VCPU but
 * the first waits for its domain's INIT and SIPI (vmm/domain/smp_guest.h). */
static void create_vcpus(struct domain *d, const struct domain_spec *spec)
{
    d->vcpu_count = spec->vcpus;
    for (unsigned int i = 0; i < spec->vcpus; i++)
        d->vcpus[i] = (struct vcpu){ .id = i, .cpu = spec->cpus[i], .apic_id = i, .domain = d,
                                     .waits_for_sipi = i != 0 };
}

void domains_build(const struct boot_info *bi)
{
    boot_modules = bi;
    for (unsigned int n = 1; n < DOMAIN_MAX; n++) {
        const struct domain_spec *spec = &config.dom[n];
        struct domain *d = &domains[n];
        if (spec->kind == DOMAIN_KIND_NONE)
            continue;
        d->id = n;
        memcpy(d->name, spec->name, sizeof(d->name));
        create_vcpus(d, spec);
        d->restart_on_reboot = spec->restart_on_reboot;
        if (!load_domain(bi, d))
            continue;
        if (!vmx_domain_init_private(d, d->vmx.ram_hpa, spec->mem_bytes, testdev_map(n)))
            refuse(n, "VT-x set-up failed (see the message above)");
        d->vmx.boot_state = &start_states[n];
        for (unsigned int i = 0; i < d->vcpu_count; i++)
            if (!vmx_sched_add(&d->vcpus[i]))
                refuse(n, "too many VCPUs on one of its CPUs");
        domain_register(d);
    }
    if (!config.count)
        return;
    if (!platform_tsc_hz())
        refuse(1, "the TSC rate is unknown: sched.slice= cannot be converted");
    vmx_sched_set_slice(sched_slice_ticks(config.slice_us, platform_tsc_hz()));
}

void domains_reload(struct domain *d)
{
    struct guest_mem mem = { domain_ram, d };
    domain_vhw_build(boot_modules, d, &config.dom[d->id], &mem, &start_states[d->id]);
}

/* Its first VCPU, or an AP whose SIPI has come (taken now). */
static bool may_start(struct vcpu *v)
{
    return v->id == 0 || vcpu_sipi_take(v);
}

struct vcpu *domains_first_vcpu(unsigned int cpu)
{
    for (unsigned int n = 1; n < DOMAIN_MAX; n++) {
        struct domain *d = &domains[n];
        if (config.dom[n].kind == DOMAIN_KIND_NONE || !d->vmx.boot_state ||
            __atomic_load_n(&d->ended, __ATOMIC_ACQUIRE))
            continue;
        for (unsigned int i = 0; i < d->vcpu_count; i++)
            if (d->vcpus[i].cpu == cpu && may_start(&d->vcpus[i]))
                return &d->vcpus[i];
    }
    return NULL;
}

bool domains_declared(const char *cmdline)
{
    char key[8];
    for (unsigned int n = 1; n < DOMAIN_MAX; n++) {
        fmt_snprintf(key, sizeof(key), "dom.%u", n);
        if (cmdline_has(cmdline, key))
            return true;
    }
    return false;
}
