/* libFuzzer target: the unikernel loader (vmm/loader/unikernel_boot.c) on
 * arbitrary modules. A module either loads (its segments inside the
 * domain's RAM below the top area) or is refused with a known status;
 * the sanitizers catch any read outside the module or write outside the
 * RAM buffer. */
#include <stdlib.h>
#include <string.h>

#include "vertigo/unikernel.h"
#include "vmm/loader/unikernel_boot.h"

#define MEM (8ull << 20)

static uint8_t ram[MEM];

static void *ram_at(void *ctx, uint64_t gpa, uint64_t len)
{
    (void)ctx;
    return gpa <= MEM && len <= MEM - gpa ? ram + gpa : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly `size` bytes, so ASan sees a read past the end. */
    uint8_t *image = malloc(size ? size : 1);
    memcpy(image, data, size);
    struct uk_boot_config cfg = { image, size, MEM, 1, 1000000, "fuzz" };
    struct guest_mem gm = { ram_at, NULL };
    struct uk_boot_layout l;
    struct linux_boot_state s;
    int bad;

    enum uk_boot_status st = uk_boot_load(&cfg, &gm, &l, &s, &bad);
    if (st >= UK_BOOT_STATUS_COUNT)
        abort();
    if (st == UK_BOOT_OK && (l.load_start < VERTIGO_UK_LOAD_MIN ||
                             l.load_end > MEM - VERTIGO_UK_TOP_BYTES || bad != -1))
        abort();
    free(image);
    return 0;
}
