/* libFuzzer target for the NMI path's walk of a hostile guest's call
 * stack (vmm/guest/guest_stack.c, vmm/guest/guest_orc.c, vmm/guest/guest_orc_table.c,
 * vmm/guest/guest_reader.c): the input declares kernel ORC tables (either
 * layout, any rules, sorted or not), fills two pages of kernel stack and
 * one of user stack, and picks the registers, the mode and the depth; the
 * sample is then walked as the sampler walks it. Each guest page is a
 * separate 4 KiB allocation, so AddressSanitizer catches any read past a
 * page the page source handed out; pages it does not map are refused.
 *
 * Checked: the walk stays within its depth; a kernel sample's chain is
 * kernel text (ORC) or the kernel half (frame pointers) up to where it
 * crosses into user mode, and only user addresses after that; a user
 * sample's chain only user addresses; the page source is asked only for
 * page-aligned addresses; a second walk gives the same chain; every rule
 * the lookup returns lies in the table's rows or index.
 *
 * Values are drawn from the input through tagged words (a raw word, an
 * address in kernel text, on the kernel stack, in user text or on the
 * user stack), so the fuzzer reaches chains that look like real ones. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_input.h"
#include "vmm/guest/guest_orc.h"
#include "vmm/guest/guest_reader.h"
#include "vmm/guest/guest_stack.h"

#define PAGE          4096u
#define KTEXT         0xffffffff81000000ull
#define KSTACK        0xffffc90000010000ull     /* two pages */
#define KSTACK_PAGES  2u
#define USTACK        0x00007ffffffde000ull     /* one page */
#define UTEXT         0x0000000000401000ull
#define IP_TABLE      0xffffffff82000000ull
#define ORC_TABLE     0xffffffff82100000ull
#define ENTRIES_MAX   256u
#define DEPTH_MAX     64u
#define USER_TOP      (1ull << 47)

/* The fuzzed guest: tables, stacks and what the page source handed out. */
struct guest {
    uint64_t text_size;
    uint32_t count;
    int32_t ip_table[ENTRIES_MAX];
    uint8_t orc_table[ENTRIES_MAX][6];
    uint8_t *kstack[KSTACK_PAGES], *ustack;
};

static uint64_t tagged_word(struct fuzz_input *in, const struct guest *g)
{
    uint8_t tag = (uint8_t)fuzz_take(in, 1);
    uint64_t v = fuzz_take(in, tag % 5 ? 2 : 8);
    switch (tag % 5) {
    case 1: return KTEXT + v % (g->text_size + 2);          /* just past the text too */
    case 2: return KSTACK + v % (KSTACK_PAGES * PAGE + 64);
    case 3: return UTEXT + v;
    case 4: return USTACK + v % (PAGE + 64);
    default: return v;
    }
}

static enum guest_access table_copy(void *ctx, uint64_t va, void *buf, size_t len)
{
    const struct guest *g = ctx;
    size_t ip_bytes = g->count * sizeof(int32_t), orc_bytes = g->count * 6u;
    if (va >= IP_TABLE && va - IP_TABLE <= ip_bytes && len <= ip_bytes - (va - IP_TABLE))
        memcpy(buf, (const uint8_t *)g->ip_table + (va - IP_TABLE), len);
    else if (va >= ORC_TABLE && va - ORC_TABLE <= orc_bytes && len <= orc_bytes - (va - ORC_TABLE))
        memcpy(buf, (const uint8_t *)g->orc_table + (va - ORC_TABLE), len);
    else
        return GUEST_ACCESS_UNMAPPED;
    return GUEST_ACCESS_OK;
}

static const uint8_t *page_of(void *ctx, uint64_t page)
{
    const struct guest *g = ctx;
    if (page & (PAGE - 1))
        abort();                        /* the reader asks for whole pages only */
    if (page - KSTACK < KSTACK_PAGES * PAGE)
        return g->kstack[(page - KSTACK) / PAGE];
    return page == USTACK ? g->ustack : NULL;
}

/* Linux's ORC numbers: registers, and each layout's types. */
enum { REG_UNDEFINED = 0, REG_PREV_SP = 1, REG_BP = 4, REG_SP = 5 };
enum kind { CALL, REGS, REGS_PARTIAL, END };

/* A rule's six bytes in the declared layout: Linux < 6.4 packs type:2
 * end:1, Linux >= 6.4 type:3 (undefined, end of stack, call, regs,
 * partial regs) signal:1. */
static void put_rule(uint8_t *e, bool v2, int16_t sp_off, int16_t bp_off, unsigned int sp_reg,
                     unsigned int bp_reg, enum kind k)
{
    static const uint8_t v1_type[] = { [CALL] = 0, [REGS] = 1, [REGS_PARTIAL] = 2, [END] = 4 };
    static const uint8_t v2_type[] = { [CALL] = 2, [REGS] = 3, [REGS_PARTIAL] = 4, [END] = 1 };
    memcpy(e, &sp_off, 2);
    memcpy(e + 2, &bp_off, 2);
    e[4] = (uint8_t)(sp_reg | bp_reg << 4);
    e[5] = v2 ? v2_type[k] : v1_type[k];
}

/* One rule: most from the shapes a kernel has (a function's entry, BP
 * pushed or saved after other registers, a frame pointer, a frame that
 * leaves BP alone, pt_regs, an IRET frame, the end of the stack), the
 * rest six raw bytes. */
static void fuzz_rule(struct fuzz_input *in, uint8_t *e, bool v2)
{
    uint8_t pick = (uint8_t)fuzz_take(in, 1);
    int16_t size = (int16_t)(8 * (fuzz_take(in, 1) % 64 + 1));
    switch (pick % 12) {
    case 0: put_rule(e, v2, 8, 0, REG_SP, REG_UNDEFINED, CALL); break;
    case 1: put_rule(e, v2, 16, -16, REG_SP, REG_PREV_SP, CALL); break;
    case 2: put_rule(e, v2, size, -24, REG_SP, REG_PREV_SP, CALL); break;
    case 3: put_rule(e, v2, 16, -16, REG_BP, REG_PREV_SP, CALL); break;
    case 4: put_rule(e, v2, size, 0, REG_SP, REG_UNDEFINED, CALL); break;
    case 5: put_rule(e, v2, 0, 0, REG_SP, REG_UNDEFINED, REGS); break;
    case 6: put_rule(e, v2, 0, 0, REG_SP, REG_UNDEFINED, REGS_PARTIAL); break;
    case 7: put_rule(e, v2, 0, 0, REG_UNDEFINED, REG_UNDEFINED, END); break;
    default:
        for (unsigned int b = 0; b < 6; b++)
            e[b] = (uint8_t)fuzz_take(in, 1);
    }
}

/* Entries at text offsets from the input (some past the text), ascending
 * unless the input says otherwise. */
static void fill_tables(struct fuzz_input *in, struct guest *g, bool sorted, bool v2)
{
    uint64_t off = 0;
    for (uint32_t i = 0; i < g->count; i++) {
        uint64_t step = fuzz_take(in, 2);
        off = sorted ? off + step % 96 : step % (g->text_size + 64);
        uint64_t at = IP_TABLE + 4ull * i;
        g->ip_table[i] = (int32_t)(int64_t)(KTEXT + off - at);
        fuzz_rule(in, g->orc_table[i], v2);
    }
}

static void fill_stack(struct fuzz_input *in, const struct guest *g)
{
    for (unsigned int w = 0; w < (KSTACK_PAGES + 1) * PAGE / 8 && in->left; w++) {
        uint64_t v = tagged_word(in, g);
        uint8_t *page = w < KSTACK_PAGES * PAGE / 8 ? g->kstack[w / (PAGE / 8)] : g->ustack;
        memcpy(page + (w * 8) % PAGE, &v, sizeof(v));
    }
}

static void *table_alloc(size_t bytes)
{
    return malloc(bytes);
}

/* Every rule the lookup hands out lies in the rows (rows[-1] included) or
 * the index. */
static void check_lookups(const struct guest_orc *t, struct fuzz_input *in, const struct guest *g)
{
    for (unsigned int i = 0; i < 8; i++) {
        const struct guest_orc_row *r = guest_orc_find(t, tagged_word(in, g));
        if (!r)
            continue;
        bool in_rows = r >= t->rows - 1 && r < t->rows + t->count;
        bool in_slots = (const void *)r >= (const void *)t->slot &&
                        (const void *)r < (const void *)(t->slot + t->blocks);
        if (!in_rows && !in_slots)
            abort();
    }
}

static void check_chain(const uint64_t *out, unsigned int n, bool kernel, uint32_t kind,
                        uint64_t text_end)
{
    bool user = !kernel;
    for (unsigned int i = 0; i < n; i++) {
        bool user_addr = out[i] < USER_TOP;
        if (user && (!user_addr || !out[i]))
            abort();                    /* after user mode, only user addresses */
        if (!user && !user_addr) {
            bool ok = kind == GUEST_KERNEL_UNWIND_ORC ? out[i] >= KTEXT && out[i] < text_end
                                                      : out[i] >= 0ull - USER_TOP;
            if (!ok)
                abort();                /* a kernel frame outside the text or half */
        }
        user = user || user_addr;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { data, size };
    static struct guest g;
    memset(&g, 0, sizeof(g));
    uint8_t mode = (uint8_t)fuzz_take(&in, 1), flags = (uint8_t)fuzz_take(&in, 1);
    g.text_size = (fuzz_take(&in, 2) % 4096 + 1) * 64;
    g.count = (uint32_t)(fuzz_take(&in, 1) * 2 % (ENTRIES_MAX + 1));
    fill_tables(&in, &g, !(flags & 1), flags & 2);
    struct guest_unwind_regs start = { .ip = tagged_word(&in, &g), .bp = tagged_word(&in, &g) };
    start.sp = KSTACK + fuzz_take(&in, 2) % (KSTACK_PAGES * PAGE);
    unsigned int depth = (unsigned int)fuzz_take(&in, 1) % (DEPTH_MAX + 1);
    for (unsigned int p = 0; p < KSTACK_PAGES; p++)
        g.kstack[p] = calloc(1, PAGE);
    g.ustack = calloc(1, PAGE);
    struct guest_kernel_unwind ku = { 0 };
    struct vertigo_kernel_orc decl = {
        .abi_version = VERTIGO_KERNEL_ORC_ABI,
        .format = mode % 3 == 1 ? VERTIGO_ORC_FRAME_POINTER
                                : flags & 2 ? VERTIGO_ORC_LINUX_V2 : VERTIGO_ORC_LINUX_V1,
        .text_start = KTEXT, .text_end = KTEXT + g.text_size,
        .ip_table = IP_TABLE, .orc_table = ORC_TABLE, .count = g.count,
    };
    if (decl.format == VERTIGO_ORC_FRAME_POINTER)
        decl = (struct vertigo_kernel_orc){ .abi_version = VERTIGO_KERNEL_ORC_ABI,
                                            .format = VERTIGO_ORC_FRAME_POINTER };
    (void)guest_kernel_unwind_declare(&ku, &decl, table_copy, &g, table_alloc);
    if (ku.kind == GUEST_KERNEL_UNWIND_ORC)
        check_lookups(ku.orc, &in, &g);
    fill_stack(&in, &g);

    bool kernel = mode % 3 != 2;
    uint64_t out[2][DEPTH_MAX];
    unsigned int n[2];
    for (unsigned int run = 0; run < 2; run++) {
        struct guest_reader rd;
        guest_reader_init(&rd, page_of, &g);
        n[run] = guest_stack_sample(&ku, &start, kernel, depth, &rd, out[run]);
        if (n[run] > depth)
            abort();
    }
    if (n[0] != n[1] || memcmp(out[0], out[1], n[0] * sizeof(out[0][0])))
        abort();                        /* the same guest gives the same chain */
    check_chain(out[0], n[0], kernel, ku.kind, KTEXT + g.text_size);

    free(ku.mem);
    for (unsigned int p = 0; p < KSTACK_PAGES; p++)
        free(g.kstack[p]);
    free(g.ustack);
    return 0;
}
