/* Domain 0: an unmodified Linux guest that owns the machine's devices.
 * Its RAM is the firmware's RAM minus Vertigo's memory (image, heap), the
 * boot information and the modules, identity-mapped by EPT. */
#include "boot/ap_boot.h"
#include "lib/cpu.h"
#include "boot/percpu.h"
#include "boot/run_end.h"
#include "vmm/acpi.h"
#include "vmm/loader/bzimage.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_private.h"
#include "vmm/loader/e820.h"
#include "vmm/loader/guest_modules.h"
#include "vmm/heap.h"
#include "vmm/loader/linux_boot.h"
#include "lib/mem.h"
#include "vmm/domain/smp_guest.h"
#include "vmm/vmx_hooks.h"

#define HOST_IDENTITY_LIMIT 0x100000000ull
#define MAX_HIDDEN (3 + BOOT_MAX_MODULES + DOMAIN_MAX - 1)

extern char __image_start[], __image_end[];

static struct domain dom0;
static struct e820_table guest_map;
static struct linux_boot_layout layout;
static struct linux_boot_state start_state;

__attribute__((noreturn)) static void fail(const char *what, const char *why)
{
    printk("vertigo: cannot start the Linux guest: %s: %s\n", what, why);
    run_end(RUN_FAIL, what);
}

/* Guest RAM the loader may write: inside one usable e820 entry and inside
 * Vertigo's identity map. */
static void *guest_ram(void *ctx, uint64_t gpa, uint64_t len)
{
    const struct e820_table *map = ctx;
    if (gpa + len < gpa || gpa + len > HOST_IDENTITY_LIMIT)
        return NULL;
    for (uint32_t i = 0; i < map->count; i++) {
        const struct mem_range *r = &map->entries[i];
        if (r->type == MEM_USABLE && gpa >= r->base && gpa + len <= r->base + r->length)
            return (void *)gpa;
    }
    return NULL;
}

static size_t hidden_ranges(const struct boot_info *bi, struct phys_range *out)
{
    size_t n = 0;
    out[n++] = (struct phys_range){ (uint64_t)__image_start, (uint64_t)__image_end };
    out[n++] = heap_range();
    out[n++] = (struct phys_range){ bi->info_phys, bi->info_phys + bi->info_size };
    for (uint32_t i = 0; i < bi->module_count; i++)
        out[n++] = (struct phys_range){ bi->modules[i].start, bi->modules[i].end };
    return n;
}

static void load_kernel(const struct boot_info *bi)
{
    static struct bzimage_info kernel;
    const char *guest_cmdline = "";
    const struct boot_module *k = guest_module_find(bi, "kernel", &guest_cmdline);
    const struct boot_module *initrd = guest_module_find(bi, "initrd", NULL);

    enum bzimage_status bs = bzimage_parse((const void *)k->start, k->end - k->start, &kernel);
    if (bs != BZIMAGE_OK)
        fail("bad kernel image", bzimage_strerror(bs));
    struct linux_boot_config cfg = {
        .kernel = &kernel,
        .initrd = (const void *)initrd->start,
        .initrd_size = initrd->end - initrd->start,
        .cmdline = guest_cmdline,
        .e820 = &guest_map,
        .rsdp_gpa = acpi_rsdp_phys(bi->rsdp),
        .use_1g_pages = (cpuid(0x80000001, 0).edx & CPUID_80000001_EDX_1G) != 0,
    };
    struct guest_mem mem = { guest_ram, &guest_map };
    enum linux_boot_status ls = linux_boot_load(&cfg, &mem, &layout, &start_state);
    if (ls != LINUX_BOOT_OK)
        fail("cannot load the kernel", linux_boot_strerror(ls));
    printk("linux: boot protocol %u.%02u, kernel at %#lx (%lu KiB reserved), initrd at "
           "%#lx (%lu KiB), command line \"%s\"\n", kernel.version >> 8, kernel.version & 0xff,
           layout.kernel_gpa, layout.kernel_size >> 10, layout.initrd_gpa,
           layout.initrd_size >> 10, guest_cmdline);
}

/* Starts the physical APs (before any VMXON) and gives the domain one
 * VCPU per online CPU, with the physical APIC IDs. */
static void create_vcpus(const struct boot_info *bi)
{
    uint32_t apic_ids[MAX_CPUS];
    unsigned int listed = acpi_madt_apic_ids(bi->rsdp, apic_ids, MAX_CPUS);
    unsigned int online = listed > 1 ? smp_start_aps(apic_ids, listed) : 1;

    memcpy(dom0.name, "dom0", 5);
    dom0.vcpu_count = online;
    for (unsigned int i = 0; i < online; i++) {
        dom0.vcpus[i] = (struct vcpu){ .id = i, .cpu = i, .domain = &dom0,
                                       .apic_id = percpu_of(i)->apic_id,
                                       .waits_for_sipi = i != 0 };
        if (i)
            vcpu_ap_assign(&dom0.vcpus[i]);
    }
}

/* Domain 0's VCPUs go first in their CPUs' schedulers, then the other
 * domains' VCPUs. */
static void share_cpus(const struct boot_info *bi)
{
    for (unsigned int i = 0; i < dom0.vcpu_count; i++)
        vmx_sched_add(&dom0.vcpus[i]);
    domains_build(bi);
}

__attribute__((noreturn)) void linux_domain_run(const struct boot_info *bi,
                                                struct page_allocator *pa)
{
    struct phys_range hidden[MAX_HIDDEN];

    create_vcpus(bi);
    domain_register(&dom0);

    if (!heap_init(pa, HEAP_BYTES))
        fail("too little memory", "no room for Vertigo's heap below 4 GiB");
    size_t nhidden = hidden_ranges(bi, hidden);
    unsigned int others = domains_reserve(bi, dom0.vcpu_count, pa, hidden, &nhidden);
    enum e820_status es = e820_build(&guest_map, bi->mem, bi->mem_count, hidden, nhidden);
    if (es != E820_OK)
        fail("cannot build the guest memory map", e820_strerror(es));
    printk("linux: guest RAM %lu MiB in %u e820 entries; Vertigo keeps [%#lx-%#lx) and "
           "its heap [%#lx-%#lx)\n", e820_usable_bytes(&guest_map) >> 20, guest_map.count,
           hidden[0].base, hidden[0].end, hidden[1].base, hidden[1].end);
    load_kernel(bi);

    struct acpi_pm_ports pm = acpi_pm_ports(bi->rsdp);
    io_policy_init(con_uart_port(0), pm.pm1a_cnt, pm.pm1b_cnt);
    if (!vmx_config_init() || !vmx_cpu_enable())
        fail("VT-x set-up failed", "see the message above");
    if (!vmx_domain_init(&dom0, &guest_map, hidden, nhidden))
        fail("VT-x set-up failed", "see the message above");
    if (others)
        share_cpus(bi);
    vmx_vcpu_run(&dom0.vcpus[0], &start_state);
}
