/* Start-up sequence of the boot CPU: boot information, console, platform
 * report, memory, then the guest. */
#include "lib/cpu.h"
#include "boot/platform.h"
#include "boot/run_end.h"
#include "boot/traps.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "vmm/console/console_drain.h"
#include "vmm/console/console_option.h"
#include "lib/format.h"
#include "vmm/loader/guest_modules.h"
#include "vmm/hv_cmdline.h"
#include "vmm/log/log_hv.h"
#include "vmm/loader/mb2.h"
#include "lib/mem.h"
#include "vmm/page_alloc.h"
#include "vmm/panic.h"
#include "vmm/pmu_hooks.h"
#include "vmm/console/screen_console.h"
#include "boot/start.h"
#include "vmm/start_stages.h"
#include "vmm/version.h"
#include "vmm/vmx_hooks.h"

extern char __image_start[], __image_end[];

#define LOW_MEMORY_END 0x100000ull   /* real-mode IVT, BDA, EBDA, BIOS */
#define TSC_CALIBRATION_MS 50

static struct boot_info boot_info;
static struct page_allocator page_allocator;

/* dom.N=, dom.N.mem=, dom.N.cpu=, dom.N.name=, dom.N.cmdline=, dom.N.x2apic=,
 * dom.N.vcpus=, dom.N.cpus=, dom.N.on_reboot= (vmm/domain/domain_config.h). */
#define DOMAIN_OPTIONS(n) "dom." #n, "dom." #n ".mem", "dom." #n ".cpu", "dom." #n ".name", \
                          "dom." #n ".cmdline", "dom." #n ".x2apic", "dom." #n ".vcpus", \
                          "dom." #n ".cpus", "dom." #n ".on_reboot"

static const char *const known_options[] = {
    "console", "debugcon", "guest", "selftest", "pmu", "log",
    "pmu.events", "pmu.step", "pmu.step_ahead", "pmu.period", "pmu.traps", "pmu.guest",
    "pmu.guest.gp", "pmu.guest.fixed",
    "pmu.soft.counters", "pmu.interval", "pmu.subinterval", "pmu.interval.exact",
    "sample.events", "sample.period", "sample.freq", "sample.depth", "sample.hz",
    "sample.user_stack", "sample.cost_every", "sample.control",
    DOMAIN_OPTIONS(1), DOMAIN_OPTIONS(2), DOMAIN_OPTIONS(3), DOMAIN_OPTIONS(4),
    DOMAIN_OPTIONS(5), DOMAIN_OPTIONS(6), DOMAIN_OPTIONS(7), "sched.slice", NULL,
};

static const char *mem_type_name(uint32_t type)
{
    switch (type) {
    case MEM_USABLE: return "usable";
    case MEM_RESERVED: return "reserved";
    case MEM_ACPI_RECLAIM: return "ACPI data";
    case MEM_ACPI_NVS: return "ACPI NVS";
    case MEM_BAD: return "bad";
    default: return "unknown";
    }
}

static void parse_boot_info(uint32_t magic, uint64_t info_phys)
{
    struct mb2_error err;
    const uint32_t *info = (const uint32_t *)info_phys;

    if (magic != MB2_BOOTLOADER_MAGIC)
        run_end(RUN_FAIL, "not started by a multiboot2 loader");
    enum mb2_status st = mb2_parse(info, info ? info[0] : 0, info_phys, &boot_info, &err);
    if (st != MB2_OK) {
        printk("vertigo: bad multiboot2 information at %#lx: %s (tag type %u at "
               "offset %u)\n", info_phys, mb2_strerror(st), err.tag_type, err.offset);
        run_end(RUN_FAIL, "bad multiboot2 information");
    }
    platform_set_rsdp(boot_info.rsdp);
}

/* The console channels of console= and debugcon=; the screens open after
 * the serial console, so that what they say about themselves is seen. */
static void console_from_cmdline(const char *cmdline, const struct boot_info *bi)
{
    struct console_choice choice = CONSOLE_DEFAULT;
    char value[64], why[96] = "";
    bool bad = cmdline_get(cmdline, "console", value, sizeof(value)) &&
               !console_option_parse(value, &choice, why, sizeof(why));
    struct console_config cfg = { .debug_port = true };
    memcpy(cfg.uart_ports, choice.uart_ports, sizeof(cfg.uart_ports));
    if (cmdline_get(cmdline, "debugcon", value, sizeof(value)))
        cfg.debug_port = strcmp(value, "off") != 0;
    con_init(&cfg);
    if (bad)
        printk("vertigo: warning: %s: the console is COM1\n", why);
    if (choice.vga)
        screen_console_open_vga(bi);
    if (choice.fb)
        screen_console_open_fb(bi);
}

static void check_options(const char *cmdline)
{
    size_t len;
    const char *bad = cmdline_first_unknown(cmdline, known_options, &len);
    if (bad)
        printk("vertigo: warning: unknown command-line option '%.*s' ignored\n",
               (int)len, bad);
}

static void print_boot_info(void)
{
    const struct boot_info *bi = &boot_info;
    printk("boot: loader \"%s\", command line \"%s\"\n", bi->loader_name, bi->cmdline);
    printk("boot: memory map (%s, %u ranges):\n",
           bi->mem_source == MEM_MAP_EFI ? "EFI" : "e820", bi->mem_count);
    for (uint32_t i = 0; i < bi->mem_count; i++)
        printk("  [%#014lx-%#014lx) %s\n", bi->mem[i].base,
               bi->mem[i].base + bi->mem[i].length, mem_type_name(bi->mem[i].type));
    for (uint32_t i = 0; i < bi->module_count; i++)
        printk("boot: module %u [%#lx-%#lx) \"%s\"\n", i, bi->modules[i].start,
               bi->modules[i].end, bi->modules[i].cmdline);
    if (bi->rsdp)
        printk("boot: ACPI RSDP revision %u (copy at %p)\n", bi->rsdp_revision, bi->rsdp);
    else
        printk("boot: no ACPI RSDP from the loader\n");
}

static void memory_init(void)
{
    struct phys_range excl[2 + BOOT_MAX_MODULES];
    size_t n = 0;

    excl[n++] = (struct phys_range){ 0, LOW_MEMORY_END };
    excl[n++] = (struct phys_range){ (uint64_t)__image_start, (uint64_t)__image_end };
    excl[n++] = (struct phys_range){ boot_info.info_phys,
                                     boot_info.info_phys + boot_info.info_size };
    for (uint32_t i = 0; i < boot_info.module_count; i++)
        excl[n++] = (struct phys_range){ boot_info.modules[i].start, boot_info.modules[i].end };

    if (palloc_init(&page_allocator, &boot_info, excl, n) != PALLOC_OK)
        run_end(RUN_FAIL, "memory map too fragmented for the page allocator");
    printk("mem: %lu MiB usable for Vertigo and guests (%u free ranges), image "
           "[%p-%p)\n", page_allocator.free_pages >> 8, page_allocator.count,
           __image_start, __image_end);
}

static void refuse_without_vmx(enum vmx_availability why)
{
    printk("vertigo: cannot run: %s.\n", vmx_availability_text(why));
    printk("vertigo: Vertigo needs Intel VT-x: Intel hardware, KVM with nested "
           "VMX on an Intel host, or the Bochs emulator.\n");
    run_end(RUN_NO_VMX, "no VT-x");
}

static void platform_report(void)
{
    cpu_report();
    enum vmx_availability vmx = vmx_detect();
    if (vmx == VMX_USABLE)
        vmx_report();
    pmu_platform_probe();
    log_hv_set_tsc_hz(tsc_calibrate(TSC_CALIBRATION_MS));
    if (vmx != VMX_USABLE)
        refuse_without_vmx(vmx);
    cmos_clock_read();          /* for domains' clocks: only when there will be domains */
}

void vmm_start(uint32_t magic, uint64_t info_phys)
{
    parse_boot_info(magic, info_phys);
    hv_cmdline_set(boot_info.cmdline);
    console_from_cmdline(boot_info.cmdline, &boot_info);
    run_end_before_verdict(console_drain_flush);    /* the domains' queued lines */
    log_hv_init(boot_info.cmdline);
    printk("\nVertigo %s (build %s): vertical-profiling hypervisor\n",
           VERTIGO_VERSION, vertigo_build_id);
    check_options(boot_info.cmdline);
    print_boot_info();
    platform_report();
    memory_init();
    if (!pmu_hypercalls_register())
        panic("hypercall: a PMU call's number is registered twice");
    selftest_run(boot_info.cmdline);
    guest_start(&boot_info, &page_allocator);
}
