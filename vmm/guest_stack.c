/* Frame-pointer walk of a guest call stack (see vmm/guest_stack.h). */
#include "vmm/guest_stack.h"

#define FRAME_ALIGN       8u
#define CANONICAL_SHIFT   47        /* bits 63:47 are copies of bit 47 */

bool guest_stack_addr_in_mode(uint64_t addr, bool kernel)
{
    return addr >> CANONICAL_SHIFT == (kernel ? UINT64_MAX >> CANONICAL_SHIFT : 0);
}

static inline bool in_half(uint64_t addr, uint64_t top)
{
    return addr >> CANONICAL_SHIFT == top;
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

/* Each frame pointer after the first is checked before the walk moves
 * to it: above the current one by at most GUEST_STACK_FRAME_MAX (one
 * unsigned compare: next - fp - 1 wraps far above for next <= fp),
 * aligned, in the mode's half. The reader's window stays in registers. */
unsigned int guest_stack_walk(uint64_t rbp, bool kernel, unsigned int max_depth,
                              struct guest_reader *rd, uint64_t *out)
{
    const uint64_t top = kernel ? UINT64_MAX >> CANONICAL_SHIFT : 0;
    struct guest_window w;
    uint64_t *o = out, *const end = out + max_depth;
    uint64_t fp = rbp;
    if (!fp || (fp & (FRAME_ALIGN - 1)) || !in_half(fp, top) || !guest_window_open(rd, &w, fp))
        return 0;
    while (o != end) {
        const uint8_t *frame = guest_window_at(rd, &w, fp, 2 * sizeof(uint64_t));
        if (!frame)
            break;
        uint64_t next = load64(frame), ret = load64(frame + sizeof(uint64_t));
        if (!ret || !in_half(ret, top))
            break;
        *o++ = ret;
        if (next - fp - 1 >= GUEST_STACK_FRAME_MAX || (next & (FRAME_ALIGN - 1)) ||
            !in_half(next, top))
            break;
        fp = next;
    }
    return (unsigned int)(o - out);
}

/* The ORC walk, then the user context it crossed into. */
static unsigned int orc_sample(const struct guest_orc *orc, const struct guest_unwind_regs *start,
                               unsigned int max_depth, struct guest_reader *rd, uint64_t *out)
{
    struct guest_unwind_regs r = *start;
    bool to_user;
    unsigned int depth = guest_orc_walk(orc, &r, max_depth, rd, out, &to_user);
    if (!to_user || depth == max_depth || !r.ip || !guest_stack_addr_in_mode(r.ip, false))
        return depth;
    out[depth++] = r.ip;
    return depth + guest_stack_walk(r.bp, false, max_depth - depth, rd, out + depth);
}

unsigned int guest_stack_sample(const struct guest_kernel_unwind *ku,
                                const struct guest_unwind_regs *start, bool kernel,
                                unsigned int max_depth, struct guest_reader *rd,
                                uint64_t *out)
{
    if (!kernel)
        return guest_stack_walk(start->bp, false, max_depth, rd, out);
    switch (__atomic_load_n(&ku->kind, __ATOMIC_ACQUIRE)) {
    case GUEST_KERNEL_UNWIND_ORC:
        return orc_sample(ku->orc, start, max_depth, rd, out);
    case GUEST_KERNEL_UNWIND_FRAME_POINTER:
        return guest_stack_walk(start->bp, true, max_depth, rd, out);
    default:
        return 0;
    }
}
