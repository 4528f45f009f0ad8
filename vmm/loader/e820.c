/* Guest e820 construction: a sweep over every boundary of the firmware
 * ranges and exclusions. Between two consecutive boundaries the type is
 * constant, so each such piece is classified once and appended, merging
 * with the previous entry when adjacent and of the same type. O(n^2) in
 * the number of input ranges (a few hundred at most), no scratch memory. */
#include "vmm/loader/e820.h"

#include <stdbool.h>

#include "lib/mem.h"

#define E820_NO_TYPE 0u   /* a hole: no firmware range covers the piece */

static const char *const e820_errors[] = {
    [E820_OK]                   = "ok",
    [E820_ERR_TOO_MANY_ENTRIES] = "guest memory map needs more than 128 e820 entries",
    [E820_ERR_NO_USABLE_RAM]    = "no usable RAM left for the guest",
};

const char *e820_strerror(enum e820_status status)
{
    if ((size_t)status >= sizeof(e820_errors) / sizeof(e820_errors[0]))
        return "unknown e820 error";
    return e820_errors[status];
}

/* End of a firmware range, saturating instead of wrapping past 2^64. */
static uint64_t fw_end(const struct mem_range *r)
{
    uint64_t end = r->base + r->length;
    return end < r->base ? UINT64_MAX : end;
}

static uint64_t excl_base(const struct phys_range *r)
{
    return r->base & ~(PAGE_SIZE - 1);
}

static uint64_t excl_end(const struct phys_range *r)
{
    uint64_t end = r->end + (PAGE_SIZE - 1);
    return end < r->end ? UINT64_MAX : end & ~(PAGE_SIZE - 1);
}

/* How restrictive a type is: the higher rank wins an overlap. */
static uint32_t type_rank(uint32_t type)
{
    switch (type) {
    case MEM_USABLE:       return 1;
    case MEM_ACPI_RECLAIM: return 2;
    case MEM_RESERVED:     return 3;
    case MEM_ACPI_NVS:     return 4;
    case MEM_BAD:          return 5;
    default:               return 6 + type;
    }
}

struct e820_input {
    const struct mem_range *fw;
    size_t fw_count;
    const struct phys_range *excl;
    size_t excl_count;
};

static void consider(uint64_t point, uint64_t after, uint64_t *best)
{
    if (point > after && point < *best)
        *best = point;
}

/* The smallest range boundary strictly above `after`; UINT64_MAX if none. */
static uint64_t next_boundary(const struct e820_input *in, uint64_t after)
{
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; i < in->fw_count; i++) {
        if (in->fw[i].length == 0)
            continue;
        consider(in->fw[i].base, after, &best);
        consider(fw_end(&in->fw[i]), after, &best);
    }
    for (size_t i = 0; i < in->excl_count; i++) {
        if (in->excl[i].end <= in->excl[i].base)
            continue;
        consider(excl_base(&in->excl[i]), after, &best);
        consider(excl_end(&in->excl[i]), after, &best);
    }
    return best;
}

static bool is_excluded(const struct e820_input *in, uint64_t addr)
{
    for (size_t i = 0; i < in->excl_count; i++) {
        const struct phys_range *r = &in->excl[i];
        if (r->end > r->base && addr >= excl_base(r) && addr < excl_end(r))
            return true;
    }
    return false;
}

/* The guest-visible type of the piece starting at `addr`. */
static uint32_t classify(const struct e820_input *in, uint64_t addr)
{
    uint32_t type = E820_NO_TYPE;
    for (size_t i = 0; i < in->fw_count; i++) {
        const struct mem_range *r = &in->fw[i];
        if (r->length == 0 || addr < r->base || addr >= fw_end(r))
            continue;
        if (type == E820_NO_TYPE || type_rank(r->type) > type_rank(type))
            type = r->type;
    }
    if (type == MEM_USABLE || type == MEM_ACPI_RECLAIM) {
        if (is_excluded(in, addr))
            type = MEM_RESERVED;
    }
    return type;
}

/* Appends [base, end) of `type`, merging with an adjacent equal entry. */
static bool append(struct e820_table *t, uint64_t base, uint64_t end, uint32_t type)
{
    if (t->count > 0) {
        struct mem_range *last = &t->entries[t->count - 1];
        if (last->type == type && last->base + last->length == base) {
            last->length += end - base;
            return true;
        }
    }
    if (t->count == E820_MAX_ENTRIES)
        return false;
    t->entries[t->count++] = (struct mem_range){ base, end - base, type };
    return true;
}

enum e820_status e820_build(struct e820_table *out,
                            const struct mem_range *fw, size_t fw_count,
                            const struct phys_range *excl, size_t excl_count)
{
    const struct e820_input in = { fw, fw ? fw_count : 0, excl, excl ? excl_count : 0 };
    uint64_t start = 0;

    memset(out, 0, sizeof(*out));
    /* Walk from 0 to each next boundary; pieces no range covers are holes. */
    for (;;) {
        uint64_t end = next_boundary(&in, start);
        uint32_t type = classify(&in, start);
        if (type != E820_NO_TYPE && !append(out, start, end, type))
            return E820_ERR_TOO_MANY_ENTRIES;
        if (end == UINT64_MAX)
            break;
        start = end;
    }
    return e820_usable_bytes(out) ? E820_OK : E820_ERR_NO_USABLE_RAM;
}

uint64_t e820_usable_bytes(const struct e820_table *t)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < t->count; i++) {
        if (t->entries[i].type == MEM_USABLE)
            total += t->entries[i].length;
    }
    return total;
}
