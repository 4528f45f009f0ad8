/* The ORC walk of a guest kernel stack (see vmm/guest_orc.h). Runs in NMI
 * context: no locks, no allocation, every guest word through the checked
 * reader (vmm/guest_reader.h), at most max_depth frames.
 *
 * The format, briefly: objtool records, for every address in kernel text
 * where the stack layout changes, one rule. The rules are sorted by
 * address (.orc_unwind_ip, relative to each slot) with a parallel array
 * of rules (.orc_unwind, 6 bytes each); a rule holds for code from its
 * address up to the next rule's. A rule says how to find the CFA (the
 * stack pointer just before the call that created the frame: SP or BP
 * plus an offset, or read through them), where the caller's BP was saved
 * (relative to the CFA or BP, or not saved at all) and what sits at the
 * CFA: a return address just below it (a call frame), or the saved
 * registers of an interrupt, exception or system call (an entry frame).
 *
 * Cost: this loop runs once per frame on the NMI path, so the table's
 * fields and the reader's window are copied into locals once (kept in
 * registers: nothing takes their address), the lookup is an index read
 * and a scan of the few rules in one 64-byte block, the rules nearly
 * every frame uses are told apart by one byte (the row's shape) and
 * followed inline, and stack words come from the window without a call;
 * every other rule goes through general_step. */
#include "vmm/guest_orc.h"

#define ORC_INLINE static inline __attribute__((always_inline))

/* struct pt_regs on x86-64 (Linux arch/x86/include/asm/ptrace.h): r15,
 * r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax,
 * then the hardware frame ip, cs, flags, sp, ss (SDM Vol. 3A 6.14.2). */
#define PT_REGS_BP      (4 * 8)
#define PT_REGS_IRET    (16 * 8)
#define IRET_IP         0
#define IRET_CS         1
#define IRET_SP         3       /* (2: flags, 4: ss) */
#define IRET_BYTES      (4 * 8) /* ip to sp */
#define CS_RPL_MASK     3u           /* CS bits 1:0: the privilege level left */

/* The table as the walk reads it, in locals. */
struct orc_view {
    uint64_t text_start, text_size;
    const uint32_t *ip, *block;
    const struct guest_orc_row *rows;
};

ORC_INLINE struct orc_view view_of(const struct guest_orc *t)
{
    return (struct orc_view){ .text_start = t->text_start,
                              .text_size = t->text_end - t->text_start,
                              .ip = t->ip, .block = t->block, .rows = t->rows };
}

/* How many rows start at or before text offset off (0: none, or off
 * outside the text); the row covering off is the last of them, rows[n - 1]
 * (rows[-1], an end-of-stack rule, for 0). The block index gives the rows
 * at or before the block's start; the rules starting inside the block
 * (one or two in a Linux kernel, never more than the block's 64 bytes)
 * are scanned. The scan needs no bound: the first rule of the next block
 * (or the sentinel after the last rule) lies above off. */
ORC_INLINE uint32_t rows_upto(const struct orc_view *t, uint64_t off)
{
    if (off >= t->text_size)
        return 0;
    uint32_t n = t->block[off >> GUEST_ORC_BLOCK_SHIFT];
    while (t->ip[n] <= (uint32_t)off)
        n++;
    return n;
}

const struct guest_orc_row *guest_orc_find(const struct guest_orc *t, uint64_t ip)
{
    struct orc_view v = view_of(t);
    uint32_t n = rows_upto(&v, ip - v.text_start);  /* wraps far above for ip below the text */
    return n ? &v.rows[n - 1] : NULL;
}

static inline uint64_t plus(uint64_t base, int16_t offset)
{
    return base + (uint64_t)(int64_t)offset;
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

/* The CFA of the frame of r under row into *cfa; false for a rule this
 * walk does not follow or an unreadable word. */
static bool frame_cfa(const struct guest_orc_row *row, const struct guest_unwind_regs *r,
                      struct guest_reader *rd, uint64_t *cfa)
{
    switch (row->sp_reg) {
    case GUEST_ORC_REG_SP:
        *cfa = plus(r->sp, row->sp_offset);
        return true;
    case GUEST_ORC_REG_BP:
        *cfa = plus(r->bp, row->sp_offset);
        return true;
    case GUEST_ORC_REG_SP_INDIRECT:         /* a stack switch: the old SP saved at SP */
        if (!guest_reader_word(rd, r->sp, cfa))
            return false;
        *cfa = plus(*cfa, row->sp_offset);
        return true;
    case GUEST_ORC_REG_BP_INDIRECT:
        return guest_reader_word(rd, plus(r->bp, row->sp_offset), cfa);
    default:                                /* DX, DI, R10, R13: entry code only */
        return false;
    }
}

/* An entry frame at cfa: the interrupted context into r; *user if it was
 * user mode. A full pt_regs also gives BP; an IRET frame leaves BP as the
 * entry code found it (untouched before the registers are saved). */
static bool entry_frame(const struct guest_orc_row *row, uint64_t cfa, struct guest_unwind_regs *r,
                        struct guest_reader *rd, bool *user)
{
    uint64_t iret = cfa + (row->type == GUEST_ORC_REGS ? PT_REGS_IRET : 0);
    uint64_t ip, cs, sp;
    if (!guest_reader_word(rd, iret + IRET_IP * sizeof(uint64_t), &ip) ||
        !guest_reader_word(rd, iret + IRET_CS * sizeof(uint64_t), &cs) ||
        !guest_reader_word(rd, iret + IRET_SP * sizeof(uint64_t), &sp))
        return false;
    if (row->type == GUEST_ORC_REGS && !guest_reader_word(rd, cfa + PT_REGS_BP, &r->bp))
        return false;
    r->ip = ip;
    r->sp = sp;
    *user = (cs & CS_RPL_MASK) != 0;
    return true;
}

/* The caller's BP under row (old r, the frame's cfa); false if unreadable
 * or an unknown rule. */
static bool caller_bp(const struct guest_orc_row *row, const struct guest_unwind_regs *r,
                      uint64_t cfa, struct guest_reader *rd, uint64_t *bp)
{
    switch (row->bp_reg) {
    case GUEST_ORC_REG_UNDEFINED:           /* BP kept: the callee did not touch it */
        *bp = r->bp;
        return true;
    case GUEST_ORC_REG_PREV_SP:
        return guest_reader_word(rd, plus(cfa, row->bp_offset), bp);
    case GUEST_ORC_REG_BP:
        return guest_reader_word(rd, plus(r->bp, row->bp_offset), bp);
    default:
        return false;
    }
}

/* What one step of the general path found. */
enum step {
    STEP_STOP,      /* the walk ends here */
    STEP_CALL,      /* a call frame: r is the caller's, r->ip a return address */
    STEP_ENTRY,     /* an entry frame from kernel mode: r is where it stood */
    STEP_USER,      /* an entry frame from user mode: r is the user context */
};

/* One frame under any rule: the rare rules (CFA from BP or through a
 * saved SP, BP saved elsewhere, entry frames, the end of the stack). */
static __attribute__((noinline)) enum step general_step(const struct guest_orc_row *row, struct guest_unwind_regs *r,
                              struct guest_reader *rd)
{
    uint64_t cfa, ip, bp;
    bool user;
    if (row->type == GUEST_ORC_END || !frame_cfa(row, r, rd, &cfa))
        return STEP_STOP;
    if (row->type != GUEST_ORC_CALL) {
        if (!entry_frame(row, cfa, r, rd, &user))
            return STEP_STOP;
        return user ? STEP_USER : STEP_ENTRY;
    }
    if (row->sp_reg == GUEST_ORC_REG_SP && cfa <= r->sp)
        return STEP_STOP;                   /* callers' frames are higher: a loop */
    if (!guest_reader_word(rd, cfa - sizeof(uint64_t), &ip) || !caller_bp(row, r, cfa, rd, &bp))
        return STEP_STOP;
    *r = (struct guest_unwind_regs){ .ip = ip, .sp = cfa, .bp = bp };
    return STEP_CALL;
}

/* What general_frame found: the step and the registers after it. */
struct general {
    enum step step;
    struct guest_unwind_regs r;
};

/* One frame under the rare rules, by value so the walk's registers stay
 * in registers. */
static __attribute__((noinline)) struct general
general_frame(const struct guest_orc_row *row, uint64_t ip, uint64_t sp, uint64_t bp,
              struct guest_reader *rd)
{
    struct general g = { .r = { .ip = ip, .sp = sp, .bp = bp } };
    g.step = general_step(row, &g.r, rd);
    return g;
}

/* The loop runs once per frame: the rule's lookup (an index read and a
 * scan of one block's few rules), then by the rule's shape one checked
 * read (the return address, or the pushed RBP with it) from the window,
 * the bounds, and the next lookup's offset. */
unsigned int guest_orc_walk(const struct guest_orc *table, struct guest_unwind_regs *regs,
                            unsigned int max_depth, struct guest_reader *rd, uint64_t *out,
                            bool *to_user)
{
    const uint64_t text_start = table->text_start;
    const uint64_t text_size = table->text_end - text_start;
    const uint32_t *ip_of = table->ip, *block = table->block;
    const struct guest_orc_row *rows = table->rows;
    struct guest_window w = guest_window_of(rd);
    uint64_t ip = regs->ip, sp = regs->sp, bp = regs->bp;
    uint64_t lookup = ip - text_start;      /* text offset of the code's rule: exact at first */
    uint64_t *o = out, *const end = out + max_depth;
    *to_user = false;
    if (lookup >= text_size)
        goto done;                          /* no rule: the end-of-stack rule */
    while (o != end) {
        uint32_t n = block[lookup >> GUEST_ORC_BLOCK_SHIFT];
        while (ip_of[n] <= (uint32_t)lookup)
            n++;                            /* bounded by the next block's first rule */
        const struct guest_orc_row *row = &rows[(int64_t)n - 1];
        uint64_t cfa = plus(sp, row->sp_offset);
        const uint8_t *p;
        bool exact = false;
        uint8_t shape = row->shape;
        if (__builtin_expect(shape == GUEST_ORC_SHAPE_SP_BP_KEPT, 1)) {
            /* the return address just below the CFA; BP untouched */
            if (cfa <= sp || !(p = guest_window_at(rd, &w, cfa - 8, 8)))
                break;                      /* a CFA not above SP loops */
            ip = load64(p);
        } else if (shape == GUEST_ORC_SHAPE_SP_BP_BELOW) {
            /* the caller's BP pushed first, just below the return
             * address: one read for both */
            if (cfa <= sp || !(p = guest_window_at(rd, &w, cfa - 16, 16)))
                break;
            bp = load64(p);
            ip = load64(p + 8);
        } else if (shape == GUEST_ORC_SHAPE_SP_BP_SAVED) {
            /* the return address just below the CFA, the caller's BP
             * where the rule says */
            if (cfa <= sp || !(p = guest_window_at(rd, &w, cfa - 8, 8)))
                break;
            ip = load64(p);
            if (!(p = guest_window_at(rd, &w, plus(cfa, row->bp_offset), 8)))
                break;
            bp = load64(p);
        } else if (shape == GUEST_ORC_SHAPE_SP_ENTRY) {
            /* the interrupted context: its IRET frame's ip, cs and sp in
             * one read, and a full pt_regs' saved BP */
            bool full = row->type == GUEST_ORC_REGS;
            if (!(p = guest_window_at(rd, &w, cfa + (full ? PT_REGS_IRET : 0), IRET_BYTES)))
                break;
            uint64_t to_ip = load64(p + IRET_IP * 8), cs = load64(p + IRET_CS * 8);
            uint64_t to_sp = load64(p + IRET_SP * 8);
            if (full) {
                if (!(p = guest_window_at(rd, &w, cfa + PT_REGS_BP, 8)))
                    break;
                bp = load64(p);
            }
            ip = to_ip;
            cfa = to_sp;
            if (cs & CS_RPL_MASK) {
                sp = cfa;
                *to_user = true;
                break;
            }
            exact = true;
        } else {
            struct general g = general_frame(row, ip, sp, bp, rd);
            w = guest_window_of(rd);
            if (g.step == STEP_STOP)
                break;
            ip = g.r.ip;
            cfa = g.r.sp;
            bp = g.r.bp;
            if (g.step == STEP_USER) {
                sp = cfa;
                *to_user = true;
                break;
            }
            exact = g.step == STEP_ENTRY;
        }
        sp = cfa;
        lookup = ip - text_start;
        if (lookup >= text_size)
            break;                          /* outside kernel text: the walk ends */
        *o++ = ip;
        /* A return address's call is the byte before (the callee may be
         * noreturn, so the next instruction belongs to another rule); at
         * the text's first byte there is no rule before: the end of the
         * stack. */
        if (!exact && lookup-- == 0)
            break;
    }
done:
    *regs = (struct guest_unwind_regs){ .ip = ip, .sp = sp, .bp = bp };
    return (unsigned int)(o - out);
}
