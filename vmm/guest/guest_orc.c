/* The ORC walk of a guest kernel stack (see vmm/guest/guest_orc.h). Runs in NMI
 * context: no locks, no allocation, every guest word through the checked
 * reader (vmm/guest/guest_reader.h), at most max_depth frames.
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
 * registers: nothing takes their address); the lookup is one read of the
 * index slot of the address's 64-byte block (a scan of the block's few
 * rules only where rules start inside it); the rules nearly every frame
 * uses are told apart by one byte (the row's shape) and followed inline;
 * stack words come from the window without a call; the text range check
 * of a return address also finds the offset of its call's byte. Every
 * other rule goes through general_step. */
#include "vmm/guest/guest_orc.h"

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

/* The rule for text offset off (below the text's size) through slot, the
 * index slot of its block: the slot's copy, or for a block where rules
 * start the last row at or before off (rows[-1], an end-of-stack rule,
 * for none). The scan needs no bound: the first rule of the next block
 * (or the sentinel after the last rule) lies above off. The table's
 * arrays are read from t only on that path (the walk keeps fewer
 * registers). */
ORC_INLINE const struct guest_orc_row *rule_at(const struct guest_orc *t,
                                               const union guest_orc_slot *slot, uint64_t off)
{
    if (__builtin_expect(slot->split.shape != GUEST_ORC_SHAPE_SPLIT, 1))
        return &slot->row;
    const uint32_t *ip_of = t->ip;
    uint32_t n = slot->split.first;
    while (ip_of[n] <= (uint32_t)off)
        n++;
    return &t->rows[(int64_t)n - 1];
}

const struct guest_orc_row *guest_orc_find(const struct guest_orc *t, uint64_t ip)
{
    uint64_t off = ip - t->text_start;      /* wraps far above for ip below the text */
    if (off >= t->text_end - t->text_start || (uint32_t)off < t->ip[0])
        return NULL;
    return rule_at(t, &t->slot[off >> GUEST_ORC_BLOCK_SHIFT], off);
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
    if (cfa <= r->sp)
        return STEP_STOP;                   /* callers' frames are higher: a loop */
    if (!guest_reader_word(rd, cfa - sizeof(uint64_t), &ip) || !caller_bp(row, r, cfa, rd, &bp))
        return STEP_STOP;
    *r = (struct guest_unwind_regs){ .ip = ip, .sp = cfa, .bp = bp };
    return STEP_CALL;
}

/* A call frame's return address (just below cfa) and its caller's saved
 * BP (at cfa + bp_offset) into *ip and *bp: both offsets into the
 * window from one subtraction, the words read directly when both lie
 * inside it (nearly always: a frame is small), else each through the
 * reader. False if either is unreadable. */
ORC_INLINE bool frame_words(struct guest_reader *rd, struct guest_window *w, uint64_t cfa,
                            int16_t bp_offset, uint64_t *ip, uint64_t *bp)
{
    const uint64_t last = GUEST_READER_PAGE - sizeof(uint64_t);
    uint64_t at = cfa - w->base;
    uint64_t at_ip = at - sizeof(uint64_t), at_bp = plus(at, bp_offset);
    if (__builtin_expect(at_ip <= last && at_bp <= last, 1)) {
        *ip = load64(w->host + at_ip);
        *bp = load64(w->host + at_bp);
        return true;
    }
    return guest_window_word(rd, w, cfa - sizeof(uint64_t), ip) &&
           guest_window_word(rd, w, plus(cfa, bp_offset), bp);
}

/* What general_frame found: the step and the registers after it. */
struct general {
    enum step step;
    struct guest_unwind_regs r;
};

/* One frame under the rare rules, by value so the walk's registers stay
 * in registers (no rule reads the frame's own IP). */
static __attribute__((noinline)) struct general
general_frame(const struct guest_orc_row *row, uint64_t sp, uint64_t bp, struct guest_reader *rd)
{
    struct general g = { .r = { .sp = sp, .bp = bp } };
    g.step = general_step(row, &g.r, rd);
    return g;
}

/* The loop runs once per frame: the rule's lookup (one index slot), then
 * by the rule's shape one or two checked reads (the return address, the
 * caller's BP) from the window, the CFA check, and the next lookup's
 * offset with the text check. Only SP, BP, the lookup offset and the
 * output pointer are carried from frame to frame (the registers are
 * written back only for a walk that crossed into user mode).
 *
 * A return address's rule is its call's: the byte before it (the callee
 * may be noreturn, so the next instruction belongs to another rule). One
 * subtraction and one compare against the text from its second byte
 * (`call_base`, `call_size`) give that offset and check it; a return to
 * the text's first byte is recorded and ends the walk (no rule before
 * it). An interrupted context's exact RIP is looked up at its own
 * offset. */
unsigned int guest_orc_walk(const struct guest_orc *table, struct guest_unwind_regs *regs,
                            unsigned int max_depth, struct guest_reader *rd, uint64_t *out,
                            bool *to_user)
{
    const uint64_t call_base = table->text_start + 1;
    const uint64_t call_size = table->text_end - call_base;
    const union guest_orc_slot *const slot = table->slot;
    struct guest_window w;
    uint64_t sp = regs->sp, bp = regs->bp;
    uint64_t lookup = regs->ip - table->text_start;     /* the code's rule: exact at first */
    uint64_t *o = out, *end = out + max_depth;
    *to_user = false;
    if (lookup > call_size || !guest_window_open(rd, &w, sp))
        return 0;                           /* no rule (the end of the stack), or no stack */
    while (o != end) {
        const struct guest_orc_row *row =
            rule_at(table, &slot[lookup >> GUEST_ORC_BLOCK_SHIFT], lookup);
        uint64_t ip, cfa;
        uint8_t shape = row->shape;
        if (__builtin_expect(shape & GUEST_ORC_SHAPE_CALL, 1)) {
            /* the return address just below the CFA (a CFA not above
             * SP would loop), the caller's BP kept or where the rule
             * says */
            cfa = plus(shape & GUEST_ORC_SHAPE_CFA_BP ? bp : sp, row->sp_offset);
            if (cfa <= sp)
                break;
            if (!(shape & GUEST_ORC_SHAPE_BP_SAVED)) {
                if (!guest_window_word(rd, &w, cfa - 8, &ip))
                    break;
            } else if (!frame_words(rd, &w, cfa, row->bp_offset, &ip, &bp)) {
                break;
            }
        } else {
            /* an entry frame or a rare rule: the context it leads to is
             * exact (an interrupted RIP) or a caller's */
            bool exact, user;
            if (shape == GUEST_ORC_SHAPE_SP_ENTRY) {
                /* the interrupted context: its IRET frame's ip, cs and sp
                 * in one read, and a full pt_regs' saved BP */
                bool full = row->type == GUEST_ORC_REGS;
                const uint64_t regs_at = plus(sp, row->sp_offset);
                const uint8_t *p;
                if (!(p = guest_window_at(rd, &w, regs_at + (full ? PT_REGS_IRET : 0), IRET_BYTES)))
                    break;
                uint64_t cs = load64(p + IRET_CS * 8);
                ip = load64(p + IRET_IP * 8);
                cfa = load64(p + IRET_SP * 8);
                if (full && !guest_window_word(rd, &w, regs_at + PT_REGS_BP, &bp))
                    break;
                exact = true;
                user = (cs & CS_RPL_MASK) != 0;
            } else {
                struct general g = general_frame(row, sp, bp, rd);
                w = guest_window_of(rd);
                if (g.step == STEP_STOP)
                    break;
                ip = g.r.ip;
                cfa = g.r.sp;
                bp = g.r.bp;
                exact = g.step != STEP_CALL;
                user = g.step == STEP_USER;
            }
            if (user) {
                *regs = (struct guest_unwind_regs){ .ip = ip, .sp = cfa, .bp = bp };
                *to_user = true;
                break;
            }
            if (exact) {
                /* an interrupted kernel context: its exact RIP's rule */
                sp = cfa;
                lookup = ip - (call_base - 1);
                if (lookup > call_size)
                    break;                  /* outside kernel text: the walk ends */
                goto record;
            }
        }
        /* a caller's return address: the rule of its call's byte */
        sp = cfa;
        lookup = ip - call_base;
        if (__builtin_expect(lookup >= call_size, 0)) {
            if (ip != call_base - 1)
                break;                      /* outside kernel text: the walk ends */
            end = o + 1;                    /* in text, but no rule before it: the end */
        }
record:
        *o++ = ip;
    }
    return (unsigned int)(o - out);
}
