/* Building Vertigo's copy of a guest kernel's ORC tables (see
 * vmm/guest/guest_orc.h). The guest's tables are untrusted: read through the
 * caller's checked copy function in batches, refused unless ascending,
 * bounded by the declaration's checked count and text range. */
#include "vmm/guest/guest_orc.h"

#define KERNEL_HALF_MIN   0xffff800000000000ull  /* lowest canonical kernel address */
#define ORC_ENTRY_BYTES   6u                     /* Linux struct orc_entry, packed */
#define BATCH             256u                   /* entries read per guest copy */

/* Linux's orc_entry types, by table layout. */
#define V1_TYPE_MASK      3u        /* < 6.4: type:2 (CALL 0, REGS 1, REGS_PARTIAL 2), end:1 */
#define V2_TYPE_MASK      7u        /* >= 6.4: type:3 (UNDEFINED 0, END_OF_STACK 1, CALL 2,
                                       REGS 3, REGS_PARTIAL 4), signal:1 */
#define V2_TYPE_CALL      2u

static bool frame_pointer_only(const struct vertigo_kernel_orc *a)
{
    return !a->text_start && !a->text_end && !a->ip_table && !a->orc_table && !a->count;
}

int64_t guest_orc_check(const struct vertigo_kernel_orc *a)
{
    if (a->abi_version != VERTIGO_KERNEL_ORC_ABI || a->reserved)
        return -VERTIGO_EINVAL;
    if (a->format == VERTIGO_ORC_FRAME_POINTER)
        return frame_pointer_only(a) ? 0 : -VERTIGO_EINVAL;
    if (a->format != VERTIGO_ORC_LINUX_V1 && a->format != VERTIGO_ORC_LINUX_V2)
        return -VERTIGO_EINVAL;
    if (!a->count || a->count > VERTIGO_KERNEL_ORC_MAX)
        return -VERTIGO_EINVAL;
    if (a->text_start < KERNEL_HALF_MIN || a->text_end <= a->text_start ||
        a->text_end - a->text_start > VERTIGO_KERNEL_TEXT_MAX)
        return -VERTIGO_EINVAL;
    return 0;
}

static uint32_t blocks_of(const struct vertigo_kernel_orc *a)
{
    uint64_t size = a->text_end - a->text_start;
    return (uint32_t)((size + (1u << GUEST_ORC_BLOCK_SHIFT) - 1) >> GUEST_ORC_BLOCK_SHIFT);
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* ip[] with its sentinel, rows[] after their sentinel, slot[]. */
size_t guest_orc_bytes(const struct vertigo_kernel_orc *a)
{
    return align8(((size_t)a->count + 1) * sizeof(uint32_t)) +
           ((size_t)a->count + 1) * sizeof(struct guest_orc_row) +
           (size_t)blocks_of(a) * sizeof(union guest_orc_slot);
}

static uint8_t shape_of(const struct guest_orc_row *row)
{
    if (row->type == GUEST_ORC_END)
        return GUEST_ORC_SHAPE_GENERAL;
    if (row->type != GUEST_ORC_CALL)
        return row->sp_reg == GUEST_ORC_REG_SP ? GUEST_ORC_SHAPE_SP_ENTRY : GUEST_ORC_SHAPE_GENERAL;
    if (row->sp_reg == GUEST_ORC_REG_SP && row->bp_reg == GUEST_ORC_REG_UNDEFINED)
        return GUEST_ORC_SHAPE_CALL;
    if (row->sp_reg == GUEST_ORC_REG_SP && row->bp_reg == GUEST_ORC_REG_PREV_SP)
        return GUEST_ORC_SHAPE_CALL | GUEST_ORC_SHAPE_BP_SAVED;
    if (row->sp_reg == GUEST_ORC_REG_BP && row->bp_reg == GUEST_ORC_REG_PREV_SP)
        return GUEST_ORC_SHAPE_CALL | GUEST_ORC_SHAPE_CFA_BP | GUEST_ORC_SHAPE_BP_SAVED;
    return GUEST_ORC_SHAPE_GENERAL;
}

/* Linux's packed orc_entry (little-endian: sp_offset, bp_offset, then
 * sp_reg:4 bp_reg:4, then the type bits) as a normalized row. */
static struct guest_orc_row decode_entry(const uint8_t *e, uint32_t format)
{
    struct guest_orc_row row = {
        .sp_offset = (int16_t)(e[0] | e[1] << 8), .bp_offset = (int16_t)(e[2] | e[3] << 8),
        .sp_reg = e[4] & 0xf, .bp_reg = e[4] >> 4, .type = GUEST_ORC_END,
    };
    unsigned int type = format == VERTIGO_ORC_LINUX_V1 ? e[5] & V1_TYPE_MASK
                                                       : (e[5] & V2_TYPE_MASK) - V2_TYPE_CALL;
    if (type <= GUEST_ORC_REGS_PARTIAL && row.sp_reg != GUEST_ORC_REG_UNDEFINED)
        row.type = (uint8_t)type;
    row.shape = shape_of(&row);
    return row;
}

static bool same_row(const struct guest_orc_row *a, const struct guest_orc_row *b)
{
    return a->sp_offset == b->sp_offset && a->bp_offset == b->bp_offset &&
           a->sp_reg == b->sp_reg && a->bp_reg == b->bp_reg && a->type == b->type;
}

/* Appends entry (ip, row) to t: an entry at the previous one's address
 * replaces it (Linux's lookup takes the last of equal addresses), one
 * with the previous rule adds nothing. */
static void append(struct guest_orc *t, uint32_t ip, const struct guest_orc_row *row)
{
    if (t->count && t->ip[t->count - 1] == ip) {
        t->rows[t->count - 1] = *row;
        if (t->count > 1 && same_row(&t->rows[t->count - 2], row))
            t->count--;
        return;
    }
    if (t->count && same_row(&t->rows[t->count - 1], row))
        return;
    t->ip[t->count] = ip;
    t->rows[t->count++] = *row;
}

/* Entries [first, first + n) into t; *last_ip keeps the order check
 * across batches. */
static int64_t add_batch(struct guest_orc *t, const struct vertigo_kernel_orc *a, uint32_t first,
                         uint32_t n, uint64_t *last_ip, guest_copy_fn read, void *ctx)
{
    int32_t rel[BATCH];
    uint8_t entries[BATCH * ORC_ENTRY_BYTES];
    int64_t r = hypercall_access_error(read(ctx, a->ip_table + (uint64_t)first * sizeof(rel[0]),
                                            rel, n * sizeof(rel[0])));
    if (!r)
        r = hypercall_access_error(read(ctx, a->orc_table + (uint64_t)first * ORC_ENTRY_BYTES,
                                        entries, n * ORC_ENTRY_BYTES));
    for (uint32_t i = 0; !r && i < n; i++) {
        uint64_t ip = a->ip_table + (uint64_t)(first + i) * sizeof(rel[0]) + (uint64_t)(int64_t)rel[i];
        if (ip < *last_ip)
            return -VERTIGO_EINVAL;         /* unsorted: lookups would be wrong */
        *last_ip = ip;
        if (ip < a->text_start || ip >= a->text_end)
            continue;                       /* init text, other sections */
        struct guest_orc_row row = decode_entry(&entries[i * ORC_ENTRY_BYTES], a->format);
        append(t, (uint32_t)(ip - a->text_start), &row);
    }
    return r;
}

/* slot[b]: the rule covering all of block b, or where its scan starts.
 * With n the rows at or before the block's first byte, rules start inside
 * the block iff row n (the sentinel past the last) starts before the next
 * block; else the block's rule is row n - 1 (rows[-1], the end-of-stack
 * rule, before the first entry). */
static void index_blocks(struct guest_orc *t)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < t->blocks; b++) {
        uint64_t start = (uint64_t)b << GUEST_ORC_BLOCK_SHIFT;
        while (n < t->count && t->ip[n] <= start)
            n++;
        if (n < t->count && t->ip[n] < start + (1u << GUEST_ORC_BLOCK_SHIFT))
            t->slot[b] = (union guest_orc_slot){ .split = { .first = n,
                                                            .shape = GUEST_ORC_SHAPE_SPLIT } };
        else
            t->slot[b].row = t->rows[(int64_t)n - 1];
    }
}

int64_t guest_orc_build(struct guest_orc *t, void *mem, const struct vertigo_kernel_orc *a,
                        guest_copy_fn read, void *ctx)
{
    uint8_t *p = mem;
    *t = (struct guest_orc){ .text_start = a->text_start, .text_end = a->text_end,
                             .blocks = blocks_of(a) };
    t->ip = (uint32_t *)p;
    t->rows = (struct guest_orc_row *)(p + align8(((size_t)a->count + 1) * sizeof(uint32_t)));
    t->rows[0] = (struct guest_orc_row){ .type = GUEST_ORC_END };
    t->rows++;                              /* rows[-1]: the rule before the first entry */
    t->slot = (union guest_orc_slot *)(t->rows + a->count);
    uint64_t last_ip = 0;
    for (uint32_t first = 0; first < a->count; first += BATCH) {
        uint32_t n = a->count - first < BATCH ? a->count - first : BATCH;
        int64_t r = add_batch(t, a, first, n, &last_ip, read, ctx);
        if (r)
            return r;
    }
    if (!t->count)
        return -VERTIGO_EINVAL;
    t->ip[t->count] = UINT32_MAX;           /* text offsets are below 2^26 */
    index_blocks(t);
    return 0;
}

static void publish(struct guest_kernel_unwind *ku, uint32_t kind)
{
    __atomic_store_n(&ku->kind, kind, __ATOMIC_RELEASE);
}

int64_t guest_kernel_unwind_declare(struct guest_kernel_unwind *ku,
                                    const struct vertigo_kernel_orc *a, guest_copy_fn read,
                                    void *ctx, guest_orc_alloc_fn alloc)
{
    int64_t r = guest_orc_check(a);
    if (r)
        return r;
    if (ku->kind != GUEST_KERNEL_UNWIND_NONE)
        return -VERTIGO_EBUSY;
    if (a->format == VERTIGO_ORC_FRAME_POINTER) {
        publish(ku, GUEST_KERNEL_UNWIND_FRAME_POINTER);
        return 0;
    }
    size_t bytes = guest_orc_bytes(a);
    if (!ku->mem) {
        ku->mem = alloc(bytes);
        ku->mem_bytes = ku->mem ? bytes : 0;
    }
    if (!ku->mem || bytes > ku->mem_bytes)
        return -VERTIGO_ENOMEM;
    r = guest_orc_build(&ku->table, ku->mem, a, read, ctx);
    if (r)
        return r;
    ku->orc = &ku->table;
    publish(ku, GUEST_KERNEL_UNWIND_ORC);
    return 0;
}
