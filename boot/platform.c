/* Emulator detection for the run-ending protocol: the ACPI RSDP's OEM ID
 * (ACPI spec 5.2.5.3) is "BOCHS " under Bochs' BIOS and under QEMU with
 * SeaBIOS or OVMF. Without an RSDP from the loader, the BIOS area is
 * searched the way ACPI spec 5.2.5.1 describes. */
#include "boot/platform.h"

#include "lib/mem.h"

#define RSDP_OEMID_OFFSET 9
#define RSDP_OEMID_LEN    6
#define BIOS_AREA_START   0xe0000
#define BIOS_AREA_END     0x100000

static const void *rsdp_ptr;
static int emulator_cached = -1;

void platform_set_rsdp(const void *rsdp)
{
    rsdp_ptr = rsdp;
    emulator_cached = -1;
}

static const void *rsdp_scan_bios_area(void)
{
    for (uintptr_t p = BIOS_AREA_START; p < BIOS_AREA_END; p += 16)
        if (memcmp((const void *)p, "RSD PTR ", 8) == 0)
            return (const void *)p;
    return NULL;
}

bool platform_is_emulator(void)
{
    if (emulator_cached < 0) {
        const char *rsdp = rsdp_ptr ? rsdp_ptr : rsdp_scan_bios_area();
        emulator_cached = rsdp && memcmp(rsdp + RSDP_OEMID_OFFSET, "BOCHS ",
                                         RSDP_OEMID_LEN) == 0;
    }
    return emulator_cached;
}
