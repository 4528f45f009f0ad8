/* Walking a guest call stack by its frame pointers (the RBP chain of code
 * built with -fno-omit-frame-pointer, as Linux's ORC-less frame-pointer
 * unwinder and perf's fp call graphs do). Portable: every read of guest
 * memory goes through a reader whose page source checks it
 * (vmm/guest/guest_reader.h; vmx/guest_mem.c in the hypervisor, a simulated
 * memory in tests), so a corrupt or hostile chain can never fault Vertigo
 * or make it loop.
 *
 * A frame at address fp holds the caller's frame pointer at fp and the
 * return address at fp + 8 (SysV x86-64 ABI, "The Stack Frame"). The walk
 * stops at the first frame pointer that is 0, non-canonical, not 8-byte
 * aligned, outside the half of the address space of the walk's mode (user
 * walks stay below the canonical hole, kernel walks above it), not above
 * the previous one (stacks grow down, so callers' frames are higher), or
 * more than GUEST_STACK_FRAME_MAX bytes above it; at an unreadable frame;
 * at a return address of 0, outside the mode's half, or (in a guest's
 * walk) within GUEST_STACK_FRAME_MAX of its frame (an address in the
 * stack: the RBP of code without frame pointers held data); or at
 * max_depth. */
#ifndef VMM_GUEST_STACK_H
#define VMM_GUEST_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/guest/guest_orc.h"
#include "vmm/guest/guest_reader.h"

#define GUEST_STACK_FRAME_MAX  (1ull << 20)   /* largest credible frame, bytes */

/* True if the frame-pointer chain of the context at r (RSP, RBP) is
 * followed at all: from an RBP at or above RSP and at most
 * GUEST_STACK_FRAME_MAX above it (frames lie above the stack pointer;
 * code built without frame pointers keeps data or a heap pointer there,
 * and each such page was a walk of the guest's page tables for one
 * garbage frame). One unsigned compare. */
static inline bool guest_stack_chain_followed(const struct guest_unwind_regs *r)
{
    return r->bp - r->sp < GUEST_STACK_FRAME_MAX;
}

/* The guest-virtual page a sample's walk from *start reads first, for its
 * caller to open in the reader before the walk (guest_reader_start, by a
 * direct look-up rather than through the reader's page source): a kernel
 * walk's first read is at RSP (the ORC walk's first frame; a frame-pointer
 * kernel's chain starts at RBP, nearly always in RSP's page), a user
 * walk's at RBP if its chain is followed at all (else false: it reads
 * nothing). A kernel sample taken before the domain declared its unwinder
 * has its page looked up for a walk that reads nothing: not worth a test
 * on every sample. */
static inline bool guest_stack_first_page(const struct guest_unwind_regs *start, bool kernel,
                                          uint64_t *page)
{
    if (!kernel && !guest_stack_chain_followed(start))
        return false;
    *page = (kernel ? start->sp : start->bp) & ~(uint64_t)(GUEST_READER_PAGE - 1);
    return true;
}

/* Walks the chain starting at frame pointer `rbp` of a guest running in
 * kernel mode (`kernel`) or user mode, reading guest-virtual memory
 * through rd. Stores at most max_depth return addresses, innermost
 * caller first, in out[] and returns how many. */
unsigned int guest_stack_walk(uint64_t rbp, bool kernel, unsigned int max_depth,
                              struct guest_reader *rd, uint64_t *out);

/* Vertigo's own chain from `rbp`, as guest_stack_walk walks a user one
 * (its image lies in the low half), except that no return address is
 * judged by its distance to its frame: Vertigo's stacks are in its own
 * image, within a few hundred KiB of its code. */
unsigned int guest_stack_walk_own(uint64_t rbp, unsigned int max_depth, struct guest_reader *rd,
                                  uint64_t *out);

/* The call stack of a sample taken at *start (exact RIP, RSP, RBP) in
 * guest kernel mode (`kernel`) or user mode, as the domain's declared
 * kernel unwinder `ku` allows: user mode walks the frame-pointer chain;
 * kernel mode walks the ORC tables and, when that reaches the entry frame
 * of a system call or interrupt from user mode, goes on with the user
 * context's RIP and then its frame-pointer chain (user frames after
 * kernel frames in out[]); on a frame-pointer kernel the RBP chain; with
 * nothing declared, no kernel stack at all. A frame-pointer chain is
 * followed only where guest_stack_chain_followed says so. At most
 * max_depth entries. */
unsigned int guest_stack_sample(const struct guest_kernel_unwind *ku,
                                const struct guest_unwind_regs *start, bool kernel,
                                unsigned int max_depth, struct guest_reader *rd,
                                uint64_t *out);

/* True if addr is canonical with 48-bit linear addresses (bits 63:47 all
 * equal; SDM Vol. 1, 3.3.7.1) and lies in the kernel half (`kernel`) or
 * the user half of the address space. */
bool guest_stack_addr_in_mode(uint64_t addr, bool kernel);

#endif
