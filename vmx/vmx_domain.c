/* EPT identity map and bitmaps for a pass-through domain. */
#include "vmx/vmx_domain.h"

#include "boot/apic.h"
#include "lib/cpu.h"
#include "lib/console.h"
#include "lib/format.h"
#include "vmm/heap.h"
#include "lib/mem.h"
#include "vmx/ept_guard.h"
#include "vmx/io_policy.h"
#include "vmx/io_ports.h"
#include "vmx/msr_guard.h"
#include "vmx/msr_policy.h"
#include "vmx/vmx_cpu.h"

#define GIB 0x40000000ull
#define FOUR_GIB (4 * GIB)
#define CPUID_ADDRESS_SIZES 0x80000008u    /* EAX[7:0]: physical-address bits */

static uint64_t ept_alloc(void *ctx)
{
    (void)ctx;
    return heap_alloc_pages(1);
}

static void *ept_virt(void *ctx, uint64_t pa)
{
    (void)ctx;
    return (void *)pa;
}

static bool is_ram(uint32_t type)
{
    return type == MEM_USABLE || type == MEM_ACPI_RECLAIM || type == MEM_ACPI_NVS;
}

static uint64_t map_top(const struct e820_table *map)
{
    uint64_t top = FOUR_GIB;
    for (uint32_t i = 0; i < map->count; i++) {
        uint64_t end = map->entries[i].base + map->entries[i].length;
        if (end > top)
            top = end;
    }
    return (top + GIB - 1) & ~(GIB - 1);
}

static bool ept_check(int status, const char *what)
{
    if (status == EPT_OK)
        return true;
    printk("vmx: building the EPT (%s) failed: %s\n", what, ept_status_text(status));
    return false;
}

static bool build_ept(struct domain_vmx *dv, const struct e820_table *map,
                      const struct phys_range *hidden, size_t hidden_count)
{
    struct ept_page_source src = { ept_alloc, ept_virt, NULL };
    struct ept *ept = &dv->ept;

    if (!ept_check(ept_init(ept, &src, &vmx_config.ept), "init"))
        return false;
    uint64_t top = map_top(map);
    if (!ept_check(ept_map(ept, 0, 0, top, EPT_RWX, EPT_MT_UC), "MMIO"))
        return false;
    for (uint32_t i = 0; i < map->count; i++) {
        const struct mem_range *r = &map->entries[i];
        if (is_ram(r->type) &&
            !ept_check(ept_map(ept, r->base, r->base, r->length, EPT_RWX, EPT_MT_WB), "RAM"))
            return false;
    }
    /* Writes to the xAPIC page trap so INIT/SIPI can be emulated. */
    uint64_t apic = apic_mmio_base();
    if (!ept_check(ept_map(ept, apic, apic, PAGE_SIZE, EPT_READ, EPT_MT_UC), "APIC"))
        return false;
    for (size_t i = 0; i < hidden_count; i++) {
        uint64_t base = hidden[i].base & ~(PAGE_SIZE - 1);
        uint64_t end = (hidden[i].end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
        if (end > base && !ept_check(ept_unmap(ept, base, end - base), "hiding Vertigo"))
            return false;
    }
    dv->eptp = ept_eptp(ept);
    printk("vmx: EPT identity map of [0, %#lx), %u table pages, %zu ranges hidden\n",
           top, ept->tables, hidden_count);
    return true;
}

static bool alloc_bitmaps(struct domain_vmx *dv)
{
    dv->msr_bitmap_pa = heap_alloc_pages(1);
    dv->io_bitmap_pa = heap_alloc_pages(2);
    if (!dv->msr_bitmap_pa || !dv->io_bitmap_pa) {
        printk("vmx: no memory for the MSR/I/O bitmaps\n");
        return false;
    }
    msr_guard_init(cpuid(CPUID_ADDRESS_SIZES, 0).eax & 0xff);
    msr_policy_fill_bitmap((uint8_t *)dv->msr_bitmap_pa);
    io_ports_discover();
    io_policy_fill_bitmaps((uint8_t *)dv->io_bitmap_pa,
                           (uint8_t *)(dv->io_bitmap_pa + PAGE_SIZE));
    return true;
}

bool vmx_domain_init(struct domain *d, const struct e820_table *guest_map,
                     const struct phys_range *hidden, size_t hidden_count)
{
    if (!build_ept(&d->vmx, guest_map, hidden, hidden_count) || !alloc_bitmaps(&d->vmx))
        return false;
    ept_guard_init(d, hidden, hidden_count);
    return true;
}

bool vmx_domain_init_private(struct domain *d, uint64_t ram_hpa, uint64_t ram_bytes,
                             const struct private_extra_map *extra)
{
    struct domain_vmx *dv = &d->vmx;
    struct ept_page_source src = { ept_alloc, ept_virt, NULL };

    if (!ept_check(ept_init(&dv->ept, &src, &vmx_config.ept), "init") ||
        !ept_check(ept_map(&dv->ept, 0, ram_hpa, ram_bytes, EPT_RWX, EPT_MT_WB), "domain RAM"))
        return false;
    if (extra && !ept_check(ept_map(&dv->ept, extra->gpa, extra->hpa, extra->bytes, EPT_RWX,
                                    EPT_MT_WB), extra->what))
        return false;
    dv->eptp = ept_eptp(&dv->ept);
    dv->ram_hpa = ram_hpa;
    dv->ram_bytes = ram_bytes;
    dv->msr_bitmap_pa = heap_alloc_pages(1);
    dv->io_bitmap_pa = heap_alloc_pages(2);
    if (!dv->msr_bitmap_pa || !dv->io_bitmap_pa) {
        printk("vmx: no memory for domain %u's MSR/I/O bitmaps\n", d->id);
        return false;
    }
    memset((void *)dv->msr_bitmap_pa, 0xff, PAGE_SIZE);
    memset((void *)dv->io_bitmap_pa, 0xff, 2 * PAGE_SIZE);
    char more[96] = "";
    if (extra)
        fmt_snprintf(more, sizeof(more), " but %s [%#lx-%#lx) to [%#lx-%#lx)", extra->what,
                     extra->gpa, extra->gpa + extra->bytes, extra->hpa, extra->hpa + extra->bytes);
    printk("vmx: domain %u: EPT maps guest-physical [0, %#lx) to [%#lx-%#lx), nothing else%s "
           "(%u table pages)\n", d->id, ram_bytes, ram_hpa, ram_hpa + ram_bytes, more,
           dv->ept.tables);
    return true;
}

