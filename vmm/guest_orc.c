/* The ORC walk of a guest kernel stack (see vmm/guest_orc.h). Runs in NMI
 * context: no locks, no allocation, every guest word through `read`. */
#include "vmm/guest_orc.h"

/* struct pt_regs on x86-64 (Linux arch/x86/include/asm/ptrace.h): r15,
 * r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax,
 * then the hardware frame ip, cs, flags, sp, ss (SDM Vol. 3A 6.14.2). */
#define PT_REGS_BP      (4 * 8)
#define PT_REGS_IRET    (16 * 8)
#define IRET_IP         0
#define IRET_CS         1
#define IRET_SP         3
#define IRET_WORDS      5
#define CS_RPL_MASK     3u           /* CS bits 1:0: the privilege level left */

const struct guest_orc_row *guest_orc_find(const struct guest_orc *t, uint64_t ip)
{
    uint64_t off = ip - t->text_start;      /* wraps far above for ip below the text */
    if (off >= t->text_end - t->text_start)
        return NULL;
    uint32_t b = (uint32_t)(off >> GUEST_ORC_BLOCK_SHIFT);
    uint32_t lo = t->block[b], hi = t->block[b + 1];
    while (lo < hi) {                       /* the first entry above off */
        uint32_t mid = (lo + hi) / 2;
        if (t->ip[mid] <= (uint32_t)off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &t->rows[lo - 1] : NULL;
}

static bool read_word(guest_read_fn read, void *ctx, uint64_t gva, uint64_t *out)
{
    return read(ctx, gva, out, sizeof(*out));
}

/* The CFA of the frame of r under row, or 0 (no rule, unreadable). */
static uint64_t frame_cfa(const struct guest_orc_row *row, const struct guest_unwind_regs *r,
                          guest_read_fn read, void *ctx)
{
    uint64_t cfa;
    switch (row->sp_reg) {
    case GUEST_ORC_REG_SP:
        return r->sp + (uint64_t)(int64_t)row->sp_offset;
    case GUEST_ORC_REG_BP:
        return r->bp + (uint64_t)(int64_t)row->sp_offset;
    case GUEST_ORC_REG_SP_INDIRECT:         /* a stack switch: the old SP saved at SP */
        return read_word(read, ctx, r->sp, &cfa) ? cfa + (uint64_t)(int64_t)row->sp_offset : 0;
    case GUEST_ORC_REG_BP_INDIRECT:
        return read_word(read, ctx, r->bp + (uint64_t)(int64_t)row->sp_offset, &cfa) ? cfa : 0;
    default:                                /* DX, DI, R10, R13: entry code only */
        return 0;
    }
}

/* The caller's BP under row (old r, the frame's cfa); false if unreadable
 * or an unknown rule. */
static bool caller_bp(const struct guest_orc_row *row, const struct guest_unwind_regs *r,
                      uint64_t cfa, guest_read_fn read, void *ctx, uint64_t *bp)
{
    switch (row->bp_reg) {
    case GUEST_ORC_REG_UNDEFINED:           /* BP kept: the callee did not touch it */
        *bp = r->bp;
        return true;
    case GUEST_ORC_REG_PREV_SP:
        return read_word(read, ctx, cfa + (uint64_t)(int64_t)row->bp_offset, bp);
    case GUEST_ORC_REG_BP:
        return read_word(read, ctx, r->bp + (uint64_t)(int64_t)row->bp_offset, bp);
    default:
        return false;
    }
}

/* An entry frame at cfa: the interrupted context into r; *user if it was
 * user mode. A full pt_regs also gives BP; an IRET frame leaves BP as the
 * entry code found it (untouched before the registers are saved). */
static bool entry_frame(const struct guest_orc_row *row, uint64_t cfa, struct guest_unwind_regs *r,
                        guest_read_fn read, void *ctx, bool *user)
{
    bool full = row->type == GUEST_ORC_REGS;
    uint64_t iret[IRET_WORDS];
    if (!read(ctx, cfa + (full ? PT_REGS_IRET : 0), iret, sizeof(iret)))
        return false;
    if (full && !read_word(read, ctx, cfa + PT_REGS_BP, &r->bp))
        return false;
    r->ip = iret[IRET_IP];
    r->sp = iret[IRET_SP];
    *user = (iret[IRET_CS] & CS_RPL_MASK) != 0;
    return true;
}

static bool in_text(const struct guest_orc *t, uint64_t ip)
{
    return ip - t->text_start < t->text_end - t->text_start;
}

/* One call frame: the return address and the caller's SP and BP. The
 * usual frame that saved BP (push %rbp first) has it just below the
 * return address: one read for both. */
static bool call_frame(const struct guest_orc_row *row, uint64_t cfa, struct guest_unwind_regs *r,
                       guest_read_fn read, void *ctx)
{
    uint64_t words[2];          /* saved BP, return address */
    if (row->sp_reg == GUEST_ORC_REG_SP && cfa <= r->sp)
        return false;                       /* callers' frames are higher: a loop */
    if (row->bp_reg == GUEST_ORC_REG_PREV_SP && row->bp_offset == -2 * (int)sizeof(uint64_t)) {
        if (!read(ctx, cfa - sizeof(words), words, sizeof(words)))
            return false;
    } else if (!read_word(read, ctx, cfa - sizeof(uint64_t), &words[1]) ||
               !caller_bp(row, r, cfa, read, ctx, &words[0])) {
        return false;
    }
    *r = (struct guest_unwind_regs){ .ip = words[1], .sp = cfa, .bp = words[0] };
    return true;
}

unsigned int guest_orc_walk(const struct guest_orc *t, struct guest_unwind_regs *r,
                            unsigned int max_depth, guest_read_fn read, void *ctx,
                            uint64_t *out, bool *to_user)
{
    unsigned int depth = 0;
    bool exact = true;          /* r->ip is where the code stood, not a return address */
    *to_user = false;
    while (depth < max_depth) {
        /* A return address's call is the byte before (the callee may be
         * noreturn, so the next instruction belongs to another rule). */
        const struct guest_orc_row *row = guest_orc_find(t, exact ? r->ip : r->ip - 1);
        if (!row || row->type == GUEST_ORC_END)
            break;
        uint64_t cfa = frame_cfa(row, r, read, ctx);
        if (!cfa)
            break;
        if (row->type == GUEST_ORC_CALL) {
            if (!call_frame(row, cfa, r, read, ctx))
                break;
            exact = false;
        } else {
            if (!entry_frame(row, cfa, r, read, ctx, to_user))
                break;
            if (*to_user)
                return depth;
            exact = true;
        }
        if (!in_text(t, r->ip))
            break;
        out[depth++] = r->ip;
    }
    return depth;
}
