/* Building a multiboot domain (see vmm/domain/domain_mboot.h). */
#include "vmm/domain/domain_mboot.h"

#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_config.h"
#include "vmm/domain/domain_mboot_map.h"
#include "vmm/domain/domain_vhw.h"
#include "vmm/loader/guest_modules.h"
#include "lib/mem.h"
#include "vmm/loader/multiboot.h"

#define RSDP_BYTES      36u             /* ACPI 2.0 RSDP */

static struct mb_module module_of(const struct boot_info *bi, const char *role)
{
    const char *args = "";
    const struct boot_module *m = guest_module_find(bi, role, &args);
    return (struct mb_module){ (const void *)m->start, m->end - m->start, args };
}

static void report(const struct domain *d, const struct domain_spec *spec,
                   const struct mb_layout *l, const char *cmdline)
{
    printk("domain %u (%s): multiboot%s kernel '%s': %u segments at [%#lx-%#lx), entry %#lx, "
           "%u modules at [%#lx-%#lx), boot information at %#lx, ACPI tables at %#lx, %s, "
           "command line \"%s\"\n", d->id, d->name, l->version == 2 ? "2" : "", spec->module,
           l->segments, l->kernel_start, l->kernel_end, l->entry, spec->module_count,
           l->modules_start, l->modules_end, l->info_gpa, DOMAIN_MBOOT_ACPI_GPA,
           d->vhw->testdev_memory ? "test memory at 0xff000000" : "no test memory", cmdline);
}

bool domain_mboot_build(const struct boot_info *bi, struct domain *d,
                        const struct domain_spec *spec, const struct guest_mem *ram,
                        bool testdev, struct linux_boot_state *start, char *why,
                        size_t why_size)
{
    static struct e820_table map;
    struct mb_module modules[DOMAIN_MODULES_MAX];
    struct domain_vhw_options o = { .xapic = true, .no_x2apic = spec->no_x2apic,
                                    .test_exit_port = DOMAIN_VHW_TEST_EXIT,
                                    .fw_cfg = true, .pm_timer = true, .testdev = true,
                                    .testdev_memory = testdev,
                                    .ram_bytes = spec->mem_bytes };
    domain_vhw_devices(d, &o);
    const void *rsdp;
    domain_vhw_acpi(d, ram, DOMAIN_MBOOT_ACPI_GPA, &rsdp);

    struct mb_module kernel = module_of(bi, spec->module);
    for (unsigned int i = 0; i < spec->module_count; i++)
        modules[i] = module_of(bi, spec->modules[i]);
    domain_mboot_map_build(&map, spec->mem_bytes);
    struct mb_load_config cfg = {
        kernel.bytes, kernel.size, spec->mem_bytes, &map,
        spec->has_cmdline ? spec->cmdline : kernel.string, modules, spec->module_count,
        rsdp, RSDP_BYTES,
    };
    struct mb_layout layout;
    struct mb_error err;
    if (mb_load(&cfg, ram, &layout, start, &err) != MB_OK) {
        mb_error_text(&err, why, why_size);
        d->vhw = NULL;
        return false;
    }
    report(d, spec, &layout, cfg.cmdline);
    return true;
}
