/* Building a Linux domain beside domain 0 (see vmm/domain/domain_vhw.h). */
#include "vmm/domain/domain_vhw.h"

#include "lib/cpu.h"
#include "boot/platform.h"
#include "boot/run_end.h"
#include "vmm/vhw/acpi_build.h"
#include "vmm/loader/bzimage.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_config.h"
#include "vmm/loader/guest_modules.h"
#include "vmm/loader/linux_boot.h"
#include "lib/cmdline.h"
#include "lib/format.h"
#include "lib/mem.h"

#define ACPI_PAGE_GPA   0x9f000ul       /* the last page below the legacy hole */
#define ACPI_PAGE_BYTES 4096u
#define HIGH_RAM_GPA    0x100000ul      /* [0xa0000, 1 MiB): the legacy hole */
#define CMDLINE_MAX     1024u
#define CPUID_ADDRESS_SIZES 0x80000008u     /* EAX[7:0]: physical-address bits */
/* The console on the virtual UART; noapic: there is no I/O APIC, and
 * Linux 6.1 with I/O APIC set-up skipped keeps the x2APIC the "firmware"
 * enabled (without it, having no interrupt remapping and not knowing the
 * hypervisor, it falls back to the xAPIC's MMIO page, which a domain does
 * not have). */
#define CONSOLE_ARG     "console=ttyS0,115200 noapic "

static struct domain_vhw vhw[DOMAIN_MAX];
static char cmdlines[DOMAIN_MAX][CMDLINE_MAX];

__attribute__((noreturn)) static void fail(const struct domain *d, const char *what,
                                           const char *why)
{
    printk("vertigo: dom.%u (%s): %s: %s\n", d->id, d->name, what, why);
    run_end(RUN_FAIL, "bad Linux domain");
}

/* Low RAM (the real-mode trampoline must fit below 1 MiB), the ACPI
 * tables' page, then RAM from 1 MiB to the end. */
static void build_e820(struct e820_table *t, uint64_t mem)
{
    t->entries[0] = (struct mem_range){ 0, ACPI_PAGE_GPA, MEM_USABLE };
    t->entries[1] = (struct mem_range){ ACPI_PAGE_GPA, ACPI_PAGE_BYTES, MEM_ACPI_RECLAIM };
    t->entries[2] = (struct mem_range){ HIGH_RAM_GPA, mem - HIGH_RAM_GPA, MEM_USABLE };
    t->count = 3;
}

uint64_t domain_vhw_acpi(const struct domain *d, const struct guest_mem *ram, uint64_t gpa,
                         const void **rsdp)
{
    struct acpi_build_config cfg = { .gpa = gpa, .vcpus = d->vcpu_count,
                                     .power_port = DOMAIN_VHW_POWER_PORT, .com1 = true,
                                     .pm_timer_port = d->vhw ? d->vhw->pm_timer.port : 0 };
    struct acpi_build_result res;
    uint8_t *page = ram->gpa_to_host(ram->ctx, gpa, ACPI_PAGE_BYTES);
    if (!page)
        fail(d, "no room for the ACPI tables", "RAM too small");
    memset(page, 0, ACPI_PAGE_BYTES);
    enum acpi_build_status st = acpi_build_tables(&cfg, page, ACPI_PAGE_BYTES, &res);
    if (st != ACPI_BUILD_OK)
        fail(d, "cannot build the ACPI tables", acpi_build_error(st));
    if (rsdp)
        *rsdp = page + (res.rsdp_gpa - gpa);
    return res.rsdp_gpa;
}

/* Linux picks how it resets at boot: with hardware-reduced ACPI and no
 * reboot= option it tries EFI's reset service, then jumps to the BIOS
 * reset vector in real mode (a domain has neither), never reaching the
 * FADT's reset register or the keyboard controller. reboot=acpi makes the
 * reset register its first way (the keyboard controller its second),
 * unless the domain's own line chooses with reboot= of its own. */
#define REBOOT_ARG      " reboot=acpi"

/* Vertigo's part in front, the module line's, then REBOOT_ARG and after a
 * restart (boot B > 1) " vertigo.boot=B", so the kernel's init can tell
 * its boots apart. */
static const char *command_line(const struct domain *d, const char *args)
{
    char *out = cmdlines[d->id];
    char tail[40];
    fmt_snprintf(tail, sizeof(tail), "%s", cmdline_has(args, "reboot") ? "" : REBOOT_ARG);
    if (d->restarts)
        fmt_snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), " vertigo.boot=%u",
                     d->restarts + 1);
    size_t head = sizeof(CONSOLE_ARG) - 1, len = strlen(args), tail_len = strlen(tail);
    if (head + len + tail_len + 1 > CMDLINE_MAX)
        fail(d, "kernel command line too long", "more than 1023 bytes with Vertigo's parts");
    memcpy(out, CONSOLE_ARG, head);
    memcpy(out + head, args, len);
    memcpy(out + head + len, tail, tail_len + 1);
    return out;
}

static void load_linux(const struct boot_info *bi, struct domain *d,
                       const struct domain_spec *spec, const struct guest_mem *ram,
                       uint64_t rsdp_gpa, struct linux_boot_state *start)
{
    static struct bzimage_info kernel;
    static struct e820_table map;
    const char *args = "";
    const struct boot_module *k = guest_module_find(bi, spec->module, &args);
    const struct boot_module *initrd = guest_module_find(bi, spec->initrd, NULL);
    if (spec->has_cmdline)      /* dom.N.cmdline: domains may share one kernel module */
        args = spec->cmdline;

    enum bzimage_status bs = bzimage_parse((const void *)k->start, k->end - k->start, &kernel);
    if (bs != BZIMAGE_OK)
        fail(d, "bad kernel image", bzimage_strerror(bs));
    build_e820(&map, spec->mem_bytes);
    struct linux_boot_config cfg = {
        .kernel = &kernel,
        .initrd = (const void *)initrd->start,
        .initrd_size = initrd->end - initrd->start,
        .cmdline = command_line(d, args),
        .e820 = &map,
        .rsdp_gpa = rsdp_gpa,
        .use_1g_pages = (cpuid(0x80000001, 0).edx & CPUID_80000001_EDX_1G) != 0,
    };
    struct linux_boot_layout layout;
    enum linux_boot_status ls = linux_boot_load(&cfg, ram, &layout, start);
    if (ls != LINUX_BOOT_OK)
        fail(d, "cannot load the kernel", linux_boot_strerror(ls));
    printk("domain %u (%s): Linux kernel at %#lx, initrd at %#lx (%lu KiB), ACPI tables at "
           "%#lx, command line \"%s\"\n", d->id, d->name, layout.kernel_gpa, layout.initrd_gpa,
           layout.initrd_size >> 10, ACPI_PAGE_GPA, cfg.cmdline);
}

/* The domain's CMOS clock shows the machine's wall clock as Vertigo read
 * it (from 1970-01-01 when it could not). */
static void domain_clock(struct domain *d, struct vrtc *rtc)
{
    uint64_t unix_seconds, at_tsc;
    platform_wall_clock(&unix_seconds, &at_tsc);
    if (!vrtc_init(rtc, unix_seconds, at_tsc, platform_tsc_hz()))
        fail(d, "no CMOS clock", "the TSC rate is unknown");
}

struct domain_vhw *domain_vhw_devices(struct domain *d, const struct domain_vhw_options *o)
{
    struct domain_vhw *hw = &vhw[d->id];
    if (d->vcpu_count > DOMAIN_VHW_VCPUS)
        fail(d, "too many VCPUs", "a domain with virtual hardware has at most 8");
    if (!platform_tsc_hz())
        fail(d, "the TSC rate is unknown", "the virtual APIC timer needs it");
    memset(hw, 0, sizeof(*hw));
    hw->cpuid = (struct cpuid_domain){ .vcpus = d->vcpu_count, .tsc_hz = platform_tsc_hz(),
                                       .host_max_leaf = cpuid(0, 0).eax };
    vuart16550_init(&hw->uart, VUART_COM1_BASE, domain_console_output, d);
    hw->power_port = DOMAIN_VHW_POWER_PORT;
    hw->test_exit_port = o->test_exit_port;
    hw->has_fw_cfg = o->fw_cfg;
    fw_cfg_init(&hw->fw_cfg, (uint16_t)d->vcpu_count, o->ram_bytes);
    hw->has_testdev = o->testdev;
    hw->testdev_memory = o->testdev_memory;
    if (o->pm_timer &&
        !acpi_pmtimer_init(&hw->pm_timer, DOMAIN_VHW_PM_TIMER, platform_tsc_hz(), rdtsc()))
        fail(d, "no ACPI PM timer", "the TSC rate is outside what its arithmetic holds");
    if (o->rtc)
        domain_clock(d, &hw->rtc);
    uint64_t tick = cpuid_domain_tsc_per_crystal(&hw->cpuid);
    for (unsigned int i = 0; i < d->vcpu_count; i++) {
        if (o->xapic) {
            vlapic_init_xapic(&hw->lapic[i], i, i == 0, tick);
            hw->lapic[i].no_x2apic = o->no_x2apic;
        } else
            vlapic_init(&hw->lapic[i], i, i == 0, tick);
        vlapic_timer_set_min_period(&hw->lapic[i], platform_tsc_hz());
        hw->lapic[i].phys_bits = (uint8_t)(cpuid(CPUID_ADDRESS_SIZES, 0).eax & 0xff);
        hw->misc_enable[i] = DOMAIN_VHW_MISC_ENABLE;
    }
    d->vhw = hw;
    return hw;
}

void domain_vhw_build(const struct boot_info *bi, struct domain *d,
                      const struct domain_spec *spec, const struct guest_mem *ram,
                      struct linux_boot_state *start)
{
    struct domain_vhw_options o = { .ram_bytes = spec->mem_bytes, .rtc = true };
    domain_vhw_devices(d, &o);
    load_linux(bi, d, spec, ram, domain_vhw_acpi(d, ram, ACPI_PAGE_GPA, NULL), start);
}
