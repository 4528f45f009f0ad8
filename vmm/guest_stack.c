/* Frame-pointer walk of a guest call stack (see vmm/guest_stack.h). */
#include "vmm/guest_stack.h"

#define FRAME_ALIGN       8u
#define CANONICAL_SHIFT   47        /* bits 63:47 are copies of bit 47 */

bool guest_stack_addr_in_mode(uint64_t addr, bool kernel)
{
    uint64_t top = addr >> CANONICAL_SHIFT;
    return kernel ? top == (UINT64_MAX >> CANONICAL_SHIFT) : top == 0;
}

static bool frame_ok(uint64_t fp, uint64_t previous, bool kernel)
{
    if (!fp || (fp & (FRAME_ALIGN - 1)) || !guest_stack_addr_in_mode(fp, kernel))
        return false;
    if (!previous)
        return true;
    return fp > previous && fp - previous <= GUEST_STACK_FRAME_MAX;
}

unsigned int guest_stack_walk(uint64_t rbp, bool kernel, unsigned int max_depth,
                              struct guest_reader *rd, uint64_t *out)
{
    unsigned int depth = 0;
    uint64_t fp = rbp, previous = 0;

    while (depth < max_depth && frame_ok(fp, previous, kernel)) {
        const uint8_t *frame = guest_reader_at(rd, fp, 2 * sizeof(uint64_t));
        uint64_t next, ret;     /* saved frame pointer, return address */
        if (!frame)
            break;
        __builtin_memcpy(&next, frame, sizeof(next));
        __builtin_memcpy(&ret, frame + sizeof(next), sizeof(ret));
        if (!ret || !guest_stack_addr_in_mode(ret, kernel))
            break;
        out[depth++] = ret;
        previous = fp;
        fp = next;
    }
    return depth;
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
