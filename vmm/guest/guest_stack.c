/* Frame-pointer walk of a guest call stack (see vmm/guest/guest_stack.h). */
#include "vmm/guest/guest_stack.h"

#define FRAME_ALIGN       8u
#define CANONICAL_SHIFT   47        /* bits 63:47 are copies of bit 47 */

bool guest_stack_addr_in_mode(uint64_t addr, bool kernel)
{
    return addr >> CANONICAL_SHIFT == (kernel ? UINT64_MAX >> CANONICAL_SHIFT : 0);
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

/* A mode's half of the address space as [low, low + size): one
 * subtraction and one unsigned compare test an address. */
struct half {
    uint64_t low, size;
};

static inline bool in(const struct half *h, uint64_t addr)
{
    return addr - h->low < h->size;
}

/* The walk in one mode's halves: `fps` for frame pointers, `rets` for
 * return addresses (the user half's starts at 1: no return to 0). In a
 * guest's walk (`apart`: its stacks lie far from its code), a return
 * address within GUEST_STACK_FRAME_MAX of its frame points into the
 * stack, where no code runs (stacks are not executable): the chain has
 * left frame-pointer code, whose RBP held data, and ends. Each
 * frame pointer after the first is checked before the walk moves to it:
 * above the current one by at most GUEST_STACK_FRAME_MAX (one unsigned
 * compare: next - fp - 1 wraps far above for next <= fp), aligned, in
 * its half. The frame's two words come from the reader's window kept in
 * registers: a read inside it is a subtraction, a compare and two loads.
 * Inline in each mode's caller, so the halves are constants there. */
static inline __attribute__((always_inline)) unsigned int
fp_walk(uint64_t fp, const struct half fps, const struct half rets, bool apart,
        unsigned int max_depth, struct guest_reader *rd, uint64_t *out)
{
    const uint64_t last = GUEST_READER_PAGE - 2 * sizeof(uint64_t);
    struct guest_window w;
    uint64_t *o = out, *const end = out + max_depth;
    if (!max_depth || !fp || (fp & (FRAME_ALIGN - 1)) || !in(&fps, fp) ||
        !guest_window_open(rd, &w, fp))
        return 0;                           /* (no page asked for when nothing is wanted) */
    while (o != end) {
        const uint8_t *frame;
        uint64_t at = fp - w.base;
        if (__builtin_expect(at <= last, 1))
            frame = w.host + at;
        else if (!(frame = guest_window_fetch(rd, &w, fp, 2 * sizeof(uint64_t))))
            break;
        uint64_t next = load64(frame), ret = load64(frame + sizeof(uint64_t));
        if (!in(&rets, ret) || (apart && ret - fp + GUEST_STACK_FRAME_MAX < 2 * GUEST_STACK_FRAME_MAX))
            break;                          /* (a "return address" into the stack itself) */
        *o++ = ret;
        if (next - fp - 1 >= GUEST_STACK_FRAME_MAX || (next & (FRAME_ALIGN - 1)) ||
            !in(&fps, next))
            break;
        fp = next;
    }
    return (unsigned int)(o - out);
}

#define HALF_SIZE (1ull << CANONICAL_SHIFT)

/* The user half's walk: inline in its two callers, so that a kernel
 * sample's crossing into the user stack makes no call. */
static inline __attribute__((always_inline)) unsigned int
user_walk(uint64_t rbp, unsigned int max_depth, struct guest_reader *rd, uint64_t *out)
{
    return fp_walk(rbp, (struct half){ 0, HALF_SIZE }, (struct half){ 1, HALF_SIZE - 1 }, true,
                   max_depth, rd, out);
}

unsigned int guest_stack_walk(uint64_t rbp, bool kernel, unsigned int max_depth,
                              struct guest_reader *rd, uint64_t *out)
{
    if (kernel)
        return fp_walk(rbp, (struct half){ 0 - HALF_SIZE, HALF_SIZE },
                       (struct half){ 0 - HALF_SIZE, HALF_SIZE }, true, max_depth, rd, out);
    return user_walk(rbp, max_depth, rd, out);
}

unsigned int guest_stack_walk_own(uint64_t rbp, unsigned int max_depth, struct guest_reader *rd,
                                  uint64_t *out)
{
    return fp_walk(rbp, (struct half){ 0, HALF_SIZE }, (struct half){ 1, HALF_SIZE - 1 }, false,
                   max_depth, rd, out);
}

/* The frame-pointer chain of the context at r (RSP, RBP), if it is
 * followed at all (guest_stack_chain_followed: an RBP anywhere else gives
 * no frame and asks for no page). */
static unsigned int context_chain(const struct guest_unwind_regs *r, bool kernel,
                                  unsigned int max_depth, struct guest_reader *rd, uint64_t *out)
{
    if (!guest_stack_chain_followed(r))
        return 0;
    return guest_stack_walk(r->bp, kernel, max_depth, rd, out);
}

/* The ORC walk, then the user context it crossed into (its RIP, then its
 * frame-pointer chain, walked inline). */
static unsigned int orc_sample(const struct guest_orc *orc, const struct guest_unwind_regs *start,
                               unsigned int max_depth, struct guest_reader *rd, uint64_t *out)
{
    struct guest_unwind_regs r = *start;
    bool to_user;
    unsigned int depth = guest_orc_walk(orc, &r, max_depth, rd, out, &to_user);
    if (!to_user || depth == max_depth || !r.ip || !guest_stack_addr_in_mode(r.ip, false))
        return depth;
    out[depth++] = r.ip;
    if (!guest_stack_chain_followed(&r))
        return depth;
    return depth + user_walk(r.bp, max_depth - depth, rd, out + depth);
}

unsigned int guest_stack_sample(const struct guest_kernel_unwind *ku,
                                const struct guest_unwind_regs *start, bool kernel,
                                unsigned int max_depth, struct guest_reader *rd,
                                uint64_t *out)
{
    if (!kernel)
        return context_chain(start, false, max_depth, rd, out);
    switch (__atomic_load_n(&ku->kind, __ATOMIC_ACQUIRE)) {
    case GUEST_KERNEL_UNWIND_ORC:
        return orc_sample(ku->orc, start, max_depth, rd, out);
    case GUEST_KERNEL_UNWIND_FRAME_POINTER:
        return context_chain(start, true, max_depth, rd, out);
    default:
        return 0;
    }
}
