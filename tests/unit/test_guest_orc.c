/* Unit tests for the guest kernel's ORC tables (vmm/guest/guest_orc_table.c:
 * declaration, copy, hostile tables) and the ORC walk (vmm/guest/guest_orc.c,
 * vmm/guest/guest_stack.c: kernel frames, the crossing into the user stack) on a
 * simulated guest: the kernel's .orc_unwind_ip / .orc_unwind in Linux's
 * own layouts, a kernel stack and a user stack at chosen addresses,
 * everything else unreadable. */
#include <stdlib.h>

#include "tests/unit/unit.h"
#include "vmm/guest/guest_orc.h"
#include "vmm/guest/guest_stack.h"

#define KTEXT        0xffffffff81000000ull
#define KTEXT_SIZE   0x10000ull
#define ORC_IP_AT    0xffffffff82000000ull      /* .orc_unwind_ip */
#define ORC_AT       0xffffffff82100000ull      /* .orc_unwind */
#define KSTACK       0xffffc90000010000ull
#define USTACK       0x00007ffffffde000ull
#define UTEXT        0x401000ull
#define REGION_BYTES 0x4000u
#define ENTRIES_MAX  512u

/* Linux ORC register numbers and pt_regs offsets the synthetic frames use. */
enum { R_UNDEF = 0, R_PREV_SP = 1, R_DX = 2, R_BP = 4, R_SP = 5, R_SP_IND = 9 };
enum { V1_CALL = 0, V1_REGS = 1, V1_PARTIAL = 2 };
#define V1_END_BIT 4u
#define PT_BP   32u
#define PT_IP   128u
#define PT_CS   136u
#define PT_SP   152u
#define USER_CS 0x33u
#define KERN_CS 0x10u

struct region {
    uint64_t base;
    uint8_t bytes[REGION_BYTES];
};

static struct sim {
    struct region r[4];         /* ip table, orc table, kernel stack, user stack */
    unsigned int reads;
    uint32_t count;             /* table entries written */
} sim;

static uint8_t *at(uint64_t gva, size_t len)
{
    for (unsigned int i = 0; i < 4; i++)
        if (gva >= sim.r[i].base && gva - sim.r[i].base <= REGION_BYTES - len)
            return sim.r[i].bytes + (gva - sim.r[i].base);
    return NULL;
}

static bool sim_read(void *ctx, uint64_t gva, void *buf, size_t len)
{
    (void)ctx;
    sim.reads++;
    uint8_t *p = at(gva, len);
    if (p)
        memcpy(buf, p, len);
    return p != NULL;
}

static enum guest_access sim_copy(void *ctx, uint64_t gva, void *buf, size_t len)
{
    return sim_read(ctx, gva, buf, len) ? GUEST_ACCESS_OK : GUEST_ACCESS_UNMAPPED;
}

/* The readable page at `page` (a guest_page_fn), counted. */
static const uint8_t *sim_page(void *ctx, uint64_t page)
{
    (void)ctx;
    sim.reads++;
    return at(page, 4096);
}

/* A fresh reader of the simulated guest, as each sample gets. */
static struct guest_reader *reader(void)
{
    static struct guest_reader rd;
    guest_reader_init(&rd, sim_page, NULL);
    return &rd;
}

static void put64(uint64_t gva, uint64_t v)
{
    memcpy(at(gva, 8), &v, 8);
}

static void sim_reset(void)
{
    memset(&sim, 0, sizeof(sim));
    sim.r[0].base = ORC_IP_AT;
    sim.r[1].base = ORC_AT;
    sim.r[2].base = KSTACK;
    sim.r[3].base = USTACK;
}

/* Appends a table entry in Linux's layout (v2: type already v2's number). */
static void entry_at(uint64_t ip, int16_t sp_off, uint8_t sp_reg, int16_t bp_off, uint8_t bp_reg,
                     uint8_t type_bits)
{
    uint64_t slot = ORC_IP_AT + 4ull * sim.count;
    int32_t rel = (int32_t)(int64_t)(ip - slot);
    memcpy(at(slot, 4), &rel, 4);
    uint8_t *e = at(ORC_AT + 6ull * sim.count, 6);
    memcpy(e, &sp_off, 2);
    memcpy(e + 2, &bp_off, 2);
    e[4] = (uint8_t)(sp_reg | bp_reg << 4);
    e[5] = type_bits;
    sim.count++;
}

static struct vertigo_kernel_orc declaration(void)
{
    return (struct vertigo_kernel_orc){
        .abi_version = VERTIGO_KERNEL_ORC_ABI, .format = VERTIGO_ORC_LINUX_V1,
        .text_start = KTEXT, .text_end = KTEXT + KTEXT_SIZE,
        .ip_table = ORC_IP_AT, .orc_table = ORC_AT, .count = sim.count,
    };
}

/* The synthetic kernel: leaf (a frame with the caller's BP pushed), mid
 * (a 0x30-byte frame), the system call entry (pt_regs at the CFA), an
 * interrupt entry (pt_regs, kernel mode), a kernel thread's end, a
 * function whose CFA comes from DX, and code after an IRET-frame entry. */
#define F_LEAF     (KTEXT + 0x1000)
#define F_MID      (KTEXT + 0x2000)
#define F_ENTRY    (KTEXT + 0x3000)
#define F_END      (KTEXT + 0x4000)
#define F_DX       (KTEXT + 0x5000)
#define F_PARTIAL  (KTEXT + 0x6000)
#define F_SWITCH   (KTEXT + 0x7000)
#define F_TAIL     (KTEXT + 0x8000)
#define F_SAVED    (KTEXT + 0x9000)     /* BP pushed after another register */
#define F_BPF      (KTEXT + 0xa000)     /* CFA from BP */

static void synthetic_kernel(void)
{
    entry_at(F_LEAF, 8, R_SP, 0, R_UNDEF, V1_CALL);
    entry_at(F_LEAF + 1, 16, R_SP, -16, R_PREV_SP, V1_CALL);
    entry_at(F_MID, 0x30, R_SP, 0, R_UNDEF, V1_CALL);
    entry_at(F_ENTRY, 0, R_SP, 0, R_UNDEF, V1_REGS);
    entry_at(F_END, 0, R_UNDEF, 0, R_UNDEF, V1_CALL | V1_END_BIT);
    entry_at(F_DX, 8, R_DX, 0, R_UNDEF, V1_CALL);
    entry_at(F_PARTIAL, 0, R_SP, 0, R_UNDEF, V1_PARTIAL);
    entry_at(F_SWITCH, 8, R_SP_IND, 0, R_UNDEF, V1_CALL);
    entry_at(F_TAIL, 8, R_SP, 0, R_UNDEF, V1_CALL);
    entry_at(F_TAIL + 0x100, 0, R_SP, 0, R_UNDEF, V1_CALL);       /* hostile: CFA = SP */
    entry_at(F_TAIL + 0x200, -64, R_SP, 0, R_UNDEF, V1_CALL);     /* hostile: below SP */
    entry_at(F_SAVED, 0x20, R_SP, -24, R_PREV_SP, V1_CALL);
    entry_at(F_BPF, 16, R_BP, -16, R_PREV_SP, V1_CALL);
}

static void *test_alloc(size_t bytes)
{
    return malloc(bytes);
}

static struct guest_kernel_unwind ku;

static int64_t declare(const struct vertigo_kernel_orc *a)
{
    return guest_kernel_unwind_declare(&ku, a, sim_copy, NULL, test_alloc);
}

static void unwind_reset(void)
{
    free(ku.mem);
    memset(&ku, 0, sizeof(ku));
}

/* A kernel stack: leaf at S0 called from mid, called from the entry,
 * whose pt_regs hold the user context (cs) interrupted. */
#define S0   (KSTACK + 0x100)
#define UBP  (USTACK + 0x200)
#define UIP  (UTEXT + 0x234)

static void syscall_stack(uint64_t cs)
{
    put64(S0, 0xdeadbeef);                  /* leaf's pushed BP (the caller's) */
    put64(S0 + 8, F_MID + 0x10);            /* leaf's return into mid */
    put64(S0 + 0x38, F_ENTRY + 0x10);       /* mid's return into the entry code */
    uint64_t regs = S0 + 0x40;
    put64(regs + PT_BP, UBP);
    put64(regs + PT_IP, UIP);
    put64(regs + PT_CS, cs);
    put64(regs + PT_SP, USTACK + 0x100);
    put64(UBP, UBP + 0x40);                 /* user frames: write <- run <- main */
    put64(UBP + 8, UTEXT + 0x100);
    put64(UBP + 0x40, 0);
    put64(UBP + 0x48, UTEXT + 0x200);
}

static unsigned int sample(uint64_t ip, uint64_t sp, unsigned int max, uint64_t *out)
{
    struct guest_unwind_regs start = { .ip = ip, .sp = sp, .bp = 0x1234 };
    return guest_stack_sample(&ku, &start, true, max, reader(), out);
}

static void setup(void)
{
    sim_reset();
    unwind_reset();
    synthetic_kernel();
    struct vertigo_kernel_orc a = declaration();
    CHECK_EQ(declare(&a), 0);
}

TEST(kernel_frames_then_the_interrupted_user_stack)
{
    uint64_t out[16];
    setup();
    syscall_stack(USER_CS);
    unsigned int n = sample(F_LEAF + 0x20, S0, 16, out);
    CHECK_EQ(n, 5);
    CHECK_EQ(out[0], F_MID + 0x10);
    CHECK_EQ(out[1], F_ENTRY + 0x10);
    CHECK_EQ(out[2], UIP);                  /* where the system call was made */
    CHECK_EQ(out[3], UTEXT + 0x100);
    CHECK_EQ(out[4], UTEXT + 0x200);
    /* the depth bounds the whole chain, kernel and user */
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 3, out), 3);
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 2, out), 2);
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 0, out), 0);
}

/* A reader started on the walk's first page (as the hypervisor starts
 * it, the page looked up by a direct call) gives the same chain and asks
 * its page source only for the other pages: here the user stack's. */
TEST(a_reader_started_on_the_first_page_walks_the_same)
{
    uint64_t want[16], got[16];
    setup();
    syscall_stack(USER_CS);
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 16, want), 5);
    struct guest_reader *rd = reader();
    const uint64_t page = S0 & ~(uint64_t)(GUEST_READER_PAGE - 1);
    guest_reader_start(rd, page, at(page, GUEST_READER_PAGE));
    sim.reads = 0;
    struct guest_unwind_regs start = { .ip = F_LEAF + 0x20, .sp = S0, .bp = 0x1234 };
    CHECK_EQ(guest_stack_sample(&ku, &start, true, 16, rd, got), 5);
    CHECK_EQ(sim.reads, 1);
    CHECK(memcmp(got, want, sizeof(*got) * 5) == 0);
}

/* A frame whose BP was saved under another register (push %r15; push
 * %rbp: CFA - 24) gives the caller's BP, which the caller's rule (CFA from
 * BP) needs to find its own return address. */
TEST(bp_saved_anywhere_feeds_a_cfa_from_bp)
{
    uint64_t out[16];
    setup();
    uint64_t x = S0 + 0x80;                 /* the caller's BP */
    put64(S0 + 0x8, x);                     /* saved at CFA - 24 (CFA = S0 + 0x20) */
    put64(S0 + 0x18, F_BPF + 0x10);         /* F_SAVED returns into F_BPF */
    put64(x, 0x5555);                       /* F_BPF's caller's BP */
    put64(x + 8, F_END + 0x10);             /* F_BPF returns into a thread's end */
    CHECK_EQ(sample(F_SAVED + 0x10, S0, 16, out), 2);
    CHECK_EQ(out[0], F_BPF + 0x10);
    CHECK_EQ(out[1], F_END + 0x10);
    put64(S0 + 0x8, x + 8);                 /* a wrong BP: F_BPF's CFA, return are wrong */
    CHECK(sample(F_SAVED + 0x10, S0, 16, out) < 2 || out[1] != F_END + 0x10);
    /* a BP that puts the CFA at or below SP (a loop) ends the walk there */
    put64(S0 + 0x8, S0 + 0x8);              /* CFA = S0 + 0x18, below F_BPF's SP S0 + 0x20 */
    put64(S0 + 0x10, F_END + 0x10);         /* a return address there, never taken */
    CHECK_EQ(sample(F_SAVED + 0x10, S0, 16, out), 1);
    CHECK_EQ(out[0], F_BPF + 0x10);
    CHECK_EQ(guest_orc_find(ku.orc, F_BPF + 0x10)->shape,
             GUEST_ORC_SHAPE_CALL | GUEST_ORC_SHAPE_CFA_BP | GUEST_ORC_SHAPE_BP_SAVED);
}

TEST(the_first_instruction_uses_its_own_rule)
{
    uint64_t out[16];
    setup();
    syscall_stack(USER_CS);
    /* at leaf's first byte nothing is pushed yet: the return is at SP */
    put64(S0 + 8 - 8, F_MID + 0x10);
    CHECK(sample(F_LEAF, S0, 16, out) >= 1);
    CHECK_EQ(out[0], F_MID + 0x10);
}

TEST(an_interrupted_kernel_context_is_walked_on)
{
    uint64_t out[16];
    setup();
    syscall_stack(KERN_CS);
    /* the interrupted kernel code: mid again, with its frame above pt_regs */
    uint64_t regs = S0 + 0x40, sp = regs + 0x100;
    put64(regs + PT_IP, F_MID + 0x20);
    put64(regs + PT_SP, sp);
    put64(sp + 0x28, F_END + 0x10);         /* mid returns into a kernel thread's end */
    unsigned int n = sample(F_LEAF + 0x20, S0, 16, out);
    CHECK_EQ(n, 4);
    CHECK_EQ(out[2], F_MID + 0x20);         /* the interrupted RIP */
    CHECK_EQ(out[3], F_END + 0x10);         /* then the end-of-stack rule stops */
}

TEST(an_iret_frame_entry_crosses_to_user_with_bp_as_it_was)
{
    uint64_t out[16];
    setup();
    put64(S0, UIP);                         /* the hardware frame: ip, cs, flags, sp, ss */
    put64(S0 + 8, USER_CS);
    put64(S0 + 24, USTACK + 0x100);
    struct guest_unwind_regs start = { .ip = F_PARTIAL + 4, .sp = S0, .bp = UBP };
    put64(UBP, 0);
    put64(UBP + 8, UTEXT + 0x100);
    unsigned int n = guest_stack_sample(&ku, &start, true, 16, reader(), out);
    CHECK_EQ(n, 2);
    CHECK_EQ(out[0], UIP);
    CHECK_EQ(out[1], UTEXT + 0x100);
}

/* The walk reads an IRET frame's ip, cs and sp in one read: a frame
 * across two pages is read from both (each checked), one running off
 * readable memory stops the walk with nothing taken from it. */
TEST(an_iret_frame_across_pages_is_read_and_an_unreadable_one_stops)
{
    uint64_t out[16];
    setup();
    uint64_t at_edge = KSTACK + 0x1000 - 16;    /* ip, cs in one page; flags, sp in the next */
    put64(at_edge, UIP);
    put64(at_edge + 8, USER_CS);
    put64(at_edge + 24, USTACK + 0x100);
    put64(UBP, 0);
    put64(UBP + 8, UTEXT + 0x100);
    struct guest_unwind_regs start = { .ip = F_PARTIAL + 4, .sp = at_edge, .bp = UBP };
    CHECK_EQ(guest_stack_sample(&ku, &start, true, 16, reader(), out), 2);
    CHECK_EQ(out[0], UIP);
    CHECK_EQ(out[1], UTEXT + 0x100);
    uint64_t off_end = KSTACK + REGION_BYTES - 24;  /* sp would be past readable memory */
    put64(off_end, UIP);
    put64(off_end + 8, USER_CS);
    struct guest_unwind_regs r = { .ip = F_PARTIAL + 4, .sp = off_end, .bp = UBP };
    bool to_user = true;
    CHECK_EQ(guest_orc_walk(ku.orc, &r, 16, reader(), out, &to_user), 0);
    CHECK(!to_user);
    CHECK_EQ(r.ip, F_PARTIAL + 4);          /* the registers as the walk found them */
    CHECK_EQ(r.sp, off_end);
    CHECK_EQ(r.bp, UBP);
}

/* A return address at the text's first byte is recorded; the byte
 * before it has no rule, so the walk ends there. */
TEST(a_return_to_the_first_byte_of_text_ends_the_walk)
{
    uint64_t out[16];
    setup();
    put64(S0 + 0x28, KTEXT);                /* mid's frame (0x30) returns to KTEXT */
    put64(S0 + 0x58, F_MID + 0x10);         /* (what a walk going on would take next) */
    CHECK_EQ(sample(F_MID + 0x10, S0, 16, out), 1);
    CHECK_EQ(out[0], KTEXT);
}

TEST(return_addresses_outside_kernel_text_end_the_walk)
{
    uint64_t out[16];
    setup();
    syscall_stack(USER_CS);
    put64(S0 + 8, 0xffff888003a41f00ull);   /* a direct-map address, not code */
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 16, out), 0);
    put64(S0 + 8, 0xffffffffc0201000ull);   /* module text: no rules here */
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 16, out), 0);
    put64(S0 + 8, F_TAIL + 0x10);
    put64(S0 + 0x18, UTEXT);                /* a "kernel" return into user space */
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 16, out), 1);
    /* a sample outside the text has no rule: no stack, no guessing */
    CHECK_EQ(sample(KTEXT + KTEXT_SIZE + 0x10, S0, 16, out), 0);
    CHECK_EQ(sample(KTEXT - 1, S0, 16, out), 0);
}

TEST(unknown_rules_unreadable_stacks_and_loops_stop_the_walk)
{
    uint64_t out[16];
    setup();
    syscall_stack(USER_CS);
    CHECK_EQ(sample(F_DX + 4, S0, 16, out), 0);             /* CFA from DX */
    CHECK_EQ(sample(F_LEAF + 0x20, KSTACK + REGION_BYTES - 8, 16, out), 0);
    CHECK_EQ(sample(F_LEAF + 0x20, 0xffffc90000900000ull, 16, out), 0);
    /* a call frame whose CFA does not rise above SP (a hostile rule) */
    put64(S0 - 8, F_TAIL + 0x10);
    CHECK_EQ(sample(F_TAIL + 0x110, S0, 16, out), 0);
    CHECK_EQ(sample(F_TAIL + 0x210, S0, 16, out), 0);
    /* a stack switch whose saved SP points back at itself loops: bounded */
    put64(S0, S0);
    put64(S0 + 8, F_SWITCH + 0x11);
    put64(S0 - 8, F_SWITCH + 0x11);
    sim.reads = 0;
    CHECK(sample(F_SWITCH + 0x10, S0, 16, out) <= 16);
    CHECK(sim.reads <= 16 * 4);
}

TEST(nothing_declared_means_no_kernel_stack_and_frame_pointers_when_declared)
{
    uint64_t out[16];
    sim_reset();
    unwind_reset();
    put64(KSTACK + 0x40, KSTACK + 0x80);
    put64(KSTACK + 0x48, KTEXT + 0x100);
    put64(KSTACK + 0x80, 0);
    put64(KSTACK + 0x88, KTEXT + 0x200);
    struct guest_unwind_regs start = { .ip = KTEXT, .sp = KSTACK, .bp = KSTACK + 0x40 };
    CHECK_EQ(guest_stack_sample(&ku, &start, true, 16, reader(), out), 0);
    struct vertigo_kernel_orc fp = { .abi_version = VERTIGO_KERNEL_ORC_ABI,
                                     .format = VERTIGO_ORC_FRAME_POINTER };
    CHECK_EQ(declare(&fp), 0);
    CHECK_EQ(guest_stack_sample(&ku, &start, true, 16, reader(), out), 2);
    CHECK_EQ(out[1], KTEXT + 0x200);
    CHECK_EQ(declare(&fp), -VERTIGO_EBUSY);
    /* user samples walk frame pointers whatever the kernel declared */
    put64(UBP, 0);
    put64(UBP + 8, UTEXT + 0x100);
    start.sp = UBP - 0x10;
    start.bp = UBP;
    CHECK_EQ(guest_stack_sample(&ku, &start, false, 16, reader(), out), 1);
}

/* A frame-pointer chain starts only from an RBP at or above its
 * context's RSP and at most GUEST_STACK_FRAME_MAX above it: code built
 * without frame pointers leaves data in RBP, which gives no frame and
 * asks for no page, in a user sample and after a system call's entry
 * frame alike. */
TEST(an_rbp_that_is_no_frame_pointer_gives_no_frame_and_reads_nothing)
{
    uint64_t out[16];
    setup();
    put64(UBP, 0);
    put64(UBP + 8, UTEXT + 0x100);
    const uint64_t rsp[] = { UBP + 8, UBP - GUEST_STACK_FRAME_MAX, 0 };
    for (unsigned int i = 0; i < 3; i++) {
        struct guest_unwind_regs start = { .sp = rsp[i], .bp = UBP };
        sim.reads = 0;
        CHECK_EQ(guest_stack_sample(&ku, &start, false, 16, reader(), out), 0);
        CHECK_EQ(sim.reads, 0);
    }
    struct guest_unwind_regs start = { .sp = UBP - GUEST_STACK_FRAME_MAX + 1, .bp = UBP };
    CHECK_EQ(guest_stack_sample(&ku, &start, false, 16, reader(), out), 1);
    /* the system call's user RBP below its user RSP (USTACK + 0x100) */
    syscall_stack(USER_CS);
    put64(S0 + 0x40 + PT_BP, USTACK + 0xf8);
    sim.reads = 0;
    CHECK_EQ(sample(F_LEAF + 0x20, S0, 16, out), 3);    /* mid, the entry, the user RIP */
    CHECK_EQ(out[2], UIP);
    CHECK_EQ(sim.reads, 1);                             /* the kernel stack's page alone */
}

static bool same_rule(const struct guest_orc_row *a, const struct guest_orc_row *b)
{
    return a && b && a->sp_offset == b->sp_offset && a->bp_offset == b->bp_offset &&
           a->sp_reg == b->sp_reg && a->bp_reg == b->bp_reg && a->type == b->type &&
           a->shape == b->shape;
}

/* Every address of the text finds, through the index, the rule of the
 * last entry at or below it (NULL before the first); offsets stepped by
 * `step`. Returns the first offset that differs, or UINT64_MAX. */
static uint64_t first_lookup_mismatch(const struct guest_orc *t, uint64_t step)
{
    for (uint64_t off = 0; off < t->text_end - t->text_start; off += step) {
        const struct guest_orc_row *want = NULL, *got = guest_orc_find(t, t->text_start + off);
        for (uint32_t i = 0; i < t->count && t->ip[i] <= off; i++)
            want = &t->rows[i];
        if (want ? !same_rule(got, want) : got != NULL)
            return off;
    }
    return UINT64_MAX;
}

TEST(lookup_matches_a_linear_search)
{
    setup();
    const struct guest_orc *t = ku.orc;
    CHECK(t != NULL);
    if (!t)
        return;
    /* adjacent rows differ after the copy, and every address finds the last entry at or below it */
    for (uint32_t i = 1; i < t->count; i++)
        CHECK(t->ip[i] > t->ip[i - 1]);
    CHECK_EQ(first_lookup_mismatch(t, 1), UINT64_MAX);
    CHECK(guest_orc_find(t, KTEXT + 0xfff) == NULL);   /* before the first entry */
    CHECK(guest_orc_find(t, KTEXT - 1) == NULL);       /* below the text */
    CHECK(guest_orc_find(t, KTEXT + KTEXT_SIZE) == NULL);  /* past it */
    CHECK(guest_orc_find(t, 0) == NULL);
}

/* The index's slots: a block no rule starts inside holds its rule (a
 * rule starting at the block's first byte included), a block where one
 * starts (at its last byte too) is split; entries at the text's first and
 * last bytes; every address finds what a linear search finds. */
TEST(the_index_holds_whole_blocks_and_splits_the_others)
{
    sim_reset();
    unwind_reset();
    entry_at(KTEXT, 8, R_SP, 0, R_UNDEF, V1_CALL);                  /* the text's first byte */
    entry_at(KTEXT + 0x40, 0x10, R_SP, 0, R_UNDEF, V1_CALL);        /* a block's first byte */
    entry_at(KTEXT + 0xbf, 0x18, R_SP, -16, R_PREV_SP, V1_CALL);    /* a block's last byte */
    entry_at(KTEXT + 0x100, 0x20, R_SP, 0, R_UNDEF, V1_CALL);
    for (unsigned int i = 1; i < 40; i++)                           /* 40 rules in one block */
        entry_at(KTEXT + 0x100 + i, (int16_t)(0x20 + 8 * (i & 1)), R_SP, 0, R_UNDEF, V1_CALL);
    entry_at(KTEXT + KTEXT_SIZE - 1, 0x30, R_BP, -16, R_PREV_SP, V1_CALL);  /* the last byte */
    struct vertigo_kernel_orc a = declaration();
    if (!CHECK_EQ(declare(&a), 0))
        return;
    const struct guest_orc *t = ku.orc;
    CHECK_EQ(t->blocks, KTEXT_SIZE >> GUEST_ORC_BLOCK_SHIFT);
    CHECK_EQ(t->slot[0].row.shape, GUEST_ORC_SHAPE_CALL);          /* one rule, at its start */
    CHECK_EQ(t->slot[0].row.sp_offset, 8);
    CHECK_EQ(t->slot[1].row.sp_offset, 0x10);
    CHECK_EQ(t->slot[2].split.shape, GUEST_ORC_SHAPE_SPLIT);        /* a rule at 0xbf */
    CHECK_EQ(t->slot[2].split.first, 2);
    CHECK_EQ(t->slot[3].row.sp_offset, 0x18);
    CHECK_EQ(t->slot[4].split.shape, GUEST_ORC_SHAPE_SPLIT);
    CHECK_EQ(t->slot[5].row.sp_offset, 0x28);                       /* the last of the 40 */
    CHECK_EQ(t->slot[t->blocks - 1].split.shape, GUEST_ORC_SHAPE_SPLIT);
    CHECK_EQ(t->slot[t->blocks - 2].row.sp_offset, 0x28);
    CHECK_EQ(first_lookup_mismatch(t, 1), UINT64_MAX);
    CHECK_EQ(guest_orc_find(t, KTEXT + 0xbe)->sp_offset, 0x10);
    CHECK_EQ(guest_orc_find(t, KTEXT + 0xbf)->sp_offset, 0x18);
    CHECK_EQ(guest_orc_find(t, KTEXT + KTEXT_SIZE - 1)->shape,
             GUEST_ORC_SHAPE_CALL | GUEST_ORC_SHAPE_CFA_BP | GUEST_ORC_SHAPE_BP_SAVED);
    CHECK(guest_orc_find(t, KTEXT + KTEXT_SIZE) == NULL);
    /* the first entry past the text's start: the blocks before it end the stack */
    sim_reset();
    unwind_reset();
    entry_at(KTEXT + 0x90, 8, R_SP, 0, R_UNDEF, V1_CALL);
    a = declaration();
    if (!CHECK_EQ(declare(&a), 0))
        return;
    t = ku.orc;
    CHECK_EQ(t->slot[0].row.type, GUEST_ORC_END);
    CHECK_EQ(t->slot[2].split.first, 0);
    CHECK(guest_orc_find(t, KTEXT + 0x8f) == NULL);
    CHECK_EQ(guest_orc_find(t, KTEXT + 0x90)->sp_offset, 8);
    CHECK_EQ(first_lookup_mismatch(t, 1), UINT64_MAX);
    uint64_t out[4];
    CHECK_EQ(sample(KTEXT + 0x20, S0, 4, out), 0);  /* before the first rule: the end */
}

/* A corrupt table (rules with registers and types no kernel emits,
 * offsets at their extremes) in direct and split slots: the index still
 * answers as a linear search, the walk ends at each such rule with no
 * frame and reads at most the window's first page. */
TEST(corrupt_rules_in_the_index_end_the_walk)
{
    sim_reset();
    unwind_reset();
    entry_at(KTEXT, 8, 15, 0, R_UNDEF, V1_CALL);                    /* no such SP register */
    entry_at(KTEXT + 0x40, INT16_MIN, R_SP, 0, R_UNDEF, V1_CALL);   /* CFA far below SP */
    entry_at(KTEXT + 0x41, 8, R_SP, 0, 15, V1_CALL);                /* no such BP register */
    entry_at(KTEXT + 0x80, INT16_MAX, R_BP, INT16_MIN, R_PREV_SP, V1_CALL);
    entry_at(KTEXT + 0xc0, 0, R_UNDEF, 0, R_UNDEF, V1_REGS);        /* an entry frame without a CFA */
    entry_at(KTEXT + 0x100, -8, R_SP, 0, R_UNDEF, V1_PARTIAL);      /* an IRET frame below SP */
    struct vertigo_kernel_orc a = declaration();
    if (!CHECK_EQ(declare(&a), 0))
        return;
    CHECK_EQ(first_lookup_mismatch(ku.orc, 1), UINT64_MAX);
    CHECK_EQ(guest_orc_find(ku.orc, KTEXT)->shape, GUEST_ORC_SHAPE_GENERAL);
    CHECK_EQ(guest_orc_find(ku.orc, KTEXT + 0x41)->shape, GUEST_ORC_SHAPE_GENERAL);
    CHECK_EQ(guest_orc_find(ku.orc, KTEXT + 0xc0)->type, GUEST_ORC_END);
    uint64_t out[16];
    const uint64_t at[] = { KTEXT + 4, KTEXT + 0x40, KTEXT + 0x41, KTEXT + 0x80, KTEXT + 0xc4,
                            KTEXT + 0x104 };
    for (unsigned int i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        for (uint64_t j = 0; j < 0x100; j += 8)
            put64(S0 + j, KTEXT + 0x50);    /* every word a return address into text */
        put64(S0 + 8, KERN_CS);
        sim.reads = 0;
        struct guest_unwind_regs start = { .ip = at[i], .sp = S0 + 0x20, .bp = S0 };
        unsigned int n = guest_stack_sample(&ku, &start, true, 16, reader(), out);
        CHECK(n <= 16);
        CHECK(sim.reads <= 2 * 16);
        if (i < 3)
            CHECK_EQ(n, 0);                 /* the rule itself ends the walk */
    }
}

/* Random tables (random gaps, rules, duplicates): the index answers as
 * a linear search everywhere. */
TEST(the_index_matches_a_linear_search_on_random_tables)
{
    uint32_t x = 12345;
    for (unsigned int round = 0; round < 20; round++) {
        sim_reset();
        unwind_reset();
        uint64_t ip = KTEXT + (round & 3);
        for (unsigned int i = 0; i < ENTRIES_MAX && ip < KTEXT + KTEXT_SIZE; i++) {
            x = x * 1103515245u + 12345u;
            entry_at(ip, (int16_t)(8 * (1 + (x >> 16) % 4)), (x >> 20) & 1 ? R_SP : R_BP,
                     -16, (x >> 21) & 1 ? R_PREV_SP : R_UNDEF, V1_CALL);
            ip += (x >> 24) % (round < 10 ? 8 : 200);       /* 0: a duplicate address */
        }
        struct vertigo_kernel_orc a = declaration();
        if (!CHECK_EQ(declare(&a), 0))
            return;
        CHECK_EQ(first_lookup_mismatch(ku.orc, 1), UINT64_MAX);
    }
}

TEST(duplicates_are_merged_and_the_last_of_equal_addresses_wins)
{
    sim_reset();
    unwind_reset();
    entry_at(F_LEAF, 8, R_SP, 0, R_UNDEF, V1_CALL);
    entry_at(F_LEAF + 4, 8, R_SP, 0, R_UNDEF, V1_CALL);     /* same rule: merged */
    entry_at(F_MID, 0x10, R_SP, 0, R_UNDEF, V1_CALL);
    entry_at(F_MID, 0x20, R_SP, 0, R_UNDEF, V1_CALL);       /* same address: replaces */
    entry_at(KTEXT + KTEXT_SIZE + 0x100, 8, R_SP, 0, R_UNDEF, V1_CALL);   /* init text */
    struct vertigo_kernel_orc a = declaration();
    if (!CHECK_EQ(declare(&a), 0))
        return;
    CHECK_EQ(ku.orc->count, 2);
    CHECK_EQ(guest_orc_find(ku.orc, F_MID + 1)->sp_offset, 0x20);
    CHECK_EQ(guest_orc_find(ku.orc, F_LEAF + 8)->sp_offset, 8);
}

TEST(linux_6_4_layout)
{
    sim_reset();
    unwind_reset();
    entry_at(F_LEAF, 8, R_SP, 0, R_UNDEF, 2);           /* CALL */
    entry_at(F_ENTRY, 0, R_SP, 0, R_UNDEF, 3);          /* REGS */
    entry_at(F_END, 0, R_UNDEF, 0, R_UNDEF, 1);         /* END_OF_STACK */
    entry_at(F_PARTIAL, 0, R_SP, 0, R_UNDEF, 4 | 8);    /* REGS_PARTIAL, signal */
    entry_at(F_TAIL, 8, R_SP, 0, R_UNDEF, 0);           /* UNDEFINED */
    entry_at(F_TAIL + 0x100, 8, R_SP, 0, R_UNDEF, 7);   /* no such type */
    struct vertigo_kernel_orc a = declaration();
    a.format = VERTIGO_ORC_LINUX_V2;
    if (!CHECK_EQ(declare(&a), 0))
        return;
    CHECK_EQ(guest_orc_find(ku.orc, F_LEAF)->type, GUEST_ORC_CALL);
    CHECK_EQ(guest_orc_find(ku.orc, F_ENTRY)->type, GUEST_ORC_REGS);
    CHECK_EQ(guest_orc_find(ku.orc, F_PARTIAL)->type, GUEST_ORC_REGS_PARTIAL);
    CHECK_EQ(guest_orc_find(ku.orc, F_END)->type, GUEST_ORC_END);
    CHECK_EQ(guest_orc_find(ku.orc, F_TAIL)->type, GUEST_ORC_END);
    CHECK_EQ(guest_orc_find(ku.orc, F_TAIL + 0x100)->type, GUEST_ORC_END);
}

TEST(hostile_declarations_are_refused)
{
    sim_reset();
    unwind_reset();
    synthetic_kernel();
    struct vertigo_kernel_orc good = declaration(), a;
    a = good, a.abi_version = 2;
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = good, a.reserved = 1;
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = good, a.format = 3;
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = good, a.count = 0;
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = good, a.count = VERTIGO_KERNEL_ORC_MAX + 1;             /* huge */
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = good, a.text_end = a.text_start + VERTIGO_KERNEL_TEXT_MAX + 1;
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = good, a.text_end = a.text_start;
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = good, a.text_start = UTEXT, a.text_end = UTEXT + 0x1000;  /* user half */
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);
    a = (struct vertigo_kernel_orc){ .abi_version = VERTIGO_KERNEL_ORC_ABI, .count = 1 };
    CHECK_EQ(guest_orc_check(&a), -VERTIGO_EINVAL);             /* FP with a table */
    /* tables running off readable memory */
    a = good, a.count = ENTRIES_MAX * 8;
    CHECK_EQ(declare(&a), -VERTIGO_EFAULT);
    CHECK_EQ(ku.kind, GUEST_KERNEL_UNWIND_NONE);
    /* a retry may not take more memory than the first attempt took */
    a = good, a.count = ENTRIES_MAX * 16;
    CHECK_EQ(declare(&a), -VERTIGO_ENOMEM);
    /* no entry in the declared text */
    a = good, a.text_start = KTEXT + KTEXT_SIZE, a.text_end = a.text_start + 0x1000;
    CHECK_EQ(declare(&a), -VERTIGO_EINVAL);
    CHECK_EQ(declare(&good), 0);
    CHECK_EQ(declare(&good), -VERTIGO_EBUSY);
}

TEST(unsorted_tables_are_refused)
{
    sim_reset();
    unwind_reset();
    entry_at(F_MID, 8, R_SP, 0, R_UNDEF, V1_CALL);
    entry_at(F_LEAF, 8, R_SP, 0, R_UNDEF, V1_CALL);
    struct vertigo_kernel_orc a = declaration();
    CHECK_EQ(declare(&a), -VERTIGO_EINVAL);
    CHECK_EQ(ku.kind, GUEST_KERNEL_UNWIND_NONE);
    /* out of order across a batch boundary too */
    sim_reset();
    unwind_reset();
    for (unsigned int i = 0; i < 300; i++)
        entry_at(KTEXT + 0x10 * (i == 280 ? 1 : i), (int16_t)(8 + 8 * (i & 1)), R_SP, 0, R_UNDEF,
                 V1_CALL);
    a = declaration();
    CHECK_EQ(declare(&a), -VERTIGO_EINVAL);
}

static void *no_memory(size_t bytes)
{
    (void)bytes;
    return NULL;
}

TEST(no_memory_is_refused_cleanly)
{
    sim_reset();
    unwind_reset();
    synthetic_kernel();
    struct vertigo_kernel_orc a = declaration();
    CHECK_EQ(guest_kernel_unwind_declare(&ku, &a, sim_copy, NULL, no_memory), -VERTIGO_ENOMEM);
    CHECK_EQ(ku.kind, GUEST_KERNEL_UNWIND_NONE);
    CHECK_EQ(declare(&a), 0);               /* memory later: declared then */
}
