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
                              guest_read_fn read, void *ctx, uint64_t *out)
{
    unsigned int depth = 0;
    uint64_t fp = rbp, previous = 0;

    while (depth < max_depth && frame_ok(fp, previous, kernel)) {
        uint64_t frame[2];      /* saved frame pointer, return address */
        if (!read(ctx, fp, frame, sizeof(frame)))
            break;
        if (!frame[1] || !guest_stack_addr_in_mode(frame[1], kernel))
            break;
        out[depth++] = frame[1];
        previous = fp;
        fp = frame[0];
    }
    return depth;
}
