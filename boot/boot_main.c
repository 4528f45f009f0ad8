/* First C code on the boot CPU: per-CPU area and descriptor tables, then
 * the portable start-up sequence. */
#include <stdint.h>

#include "boot/percpu.h"
#include "boot/traps.h"
#include "boot/start.h"

void boot_main(uint32_t magic, uint64_t info_phys);

void boot_main(uint32_t magic, uint64_t info_phys)
{
    percpu_init(0);
    traps_init_cpu(0);
    vmm_start(magic, info_phys);
}
