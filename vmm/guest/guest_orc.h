/* Walking a guest Linux kernel's call stack with the kernel's own ORC
 * unwind tables, as the kernel's ORC unwinder does (Linux
 * arch/x86/kernel/unwind_orc.c; the tables come from objtool). A kernel
 * built with ORC keeps no frame pointers, so its RBP chain is garbage.
 *
 * The guest declares its tables once (VERTIGO_HC_KERNEL_ORC); Vertigo
 * copies them into its own memory as a `struct guest_orc`: the entries
 * inside kernel text, sorted, adjacent duplicates merged, each entry's
 * rule normalized (`struct guest_orc_row`), plus a lookup index with one
 * 8-byte slot per 64 bytes of text, built at that declaration: the slot
 * of a block no rule starts inside holds the rule covering the whole
 * block (one read finds it: O(1)), the slot of a block where rules start
 * says where the scan of those few rules begins. Finding an address's rule
 * from NMI context is so never a guest read and never a binary search.
 *
 * An entry covers the text from its address to the next entry's and
 * gives, for code there, the CFA (the stack pointer before the call that
 * made the frame) from SP or BP, where the caller's BP was saved, and
 * whether the frame is a call frame or an entry frame (a struct pt_regs
 * or hardware IRET frame at the CFA: an interrupt, exception or system
 * call). Walking reads the stack through a checked reader only
 * (vmm/guest/guest_reader.h), stops at the first return address outside kernel
 * text (module text has no entries here: a walk reaching a module ends
 * there), at an entry frame that interrupted user mode (the caller
 * continues with the user stack from the registers found there), at an
 * end-of-stack entry, at a rule it does not know, at a call frame whose
 * CFA is not above the previous one, at an unreadable word, or at
 * max_depth. Portable. */
#ifndef VMM_GUEST_ORC_H
#define VMM_GUEST_ORC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vertigo/hypercall.h"
#include "vmm/guest/guest_reader.h"
#include "vmm/hypercall.h"

#define GUEST_ORC_BLOCK_SHIFT 6u        /* lookup index granule: 64 bytes of text (about
                                           1.5 entries of a Linux kernel: a block
                                           holds one rule or a scan of a few) */

/* Registers of a rule: Linux's ORC_REG_* numbers. */
enum guest_orc_reg {
    GUEST_ORC_REG_UNDEFINED = 0,
    GUEST_ORC_REG_PREV_SP = 1,
    GUEST_ORC_REG_BP = 4,
    GUEST_ORC_REG_SP = 5,
    GUEST_ORC_REG_BP_INDIRECT = 8,
    GUEST_ORC_REG_SP_INDIRECT = 9,
};

/* What the CFA holds. */
enum guest_orc_type {
    GUEST_ORC_CALL,             /* the return address is just below it */
    GUEST_ORC_REGS,             /* a full struct pt_regs starts at it */
    GUEST_ORC_REGS_PARTIAL,     /* a hardware IRET frame starts at it */
    GUEST_ORC_END,              /* end of the stack (or a rule to stop at) */
};

/* The rules nearly every frame of a Linux kernel uses, classified once
 * when the table is built so the walk tests one byte: a call frame with
 * the CFA at SP + offset (or BP + offset: a function keeping a frame
 * pointer) and the caller's BP either untouched or saved on the stack at
 * CFA + bp_offset; an entry frame (pt_regs or IRET frame) at CFA = SP +
 * offset. Anything else takes the general path. In a Debian 6.1 kernel's
 * samples, about 55 % of the frames save BP off SP, 13 % keep a frame
 * pointer, 11 % leave BP alone, 6 % push it first, 14 % are entry
 * frames. */
enum guest_orc_shape {
    GUEST_ORC_SHAPE_GENERAL = 0,
    GUEST_ORC_SHAPE_CALL = 1u << 0,         /* a call frame, followed inline ... */
    GUEST_ORC_SHAPE_CFA_BP = 1u << 1,       /* ... its CFA from BP (else SP) ... */
    GUEST_ORC_SHAPE_BP_SAVED = 1u << 2,     /* ... the caller's BP at CFA + bp_offset */
    GUEST_ORC_SHAPE_SP_ENTRY = 1u << 3,     /* an entry frame at SP + offset */
    GUEST_ORC_SHAPE_SPLIT = 1u << 4,        /* index slots only: rules start inside the block */
};

struct guest_orc_row {
    int16_t sp_offset;          /* CFA = sp_reg + sp_offset */
    int16_t bp_offset;          /* caller's BP saved at bp_reg + bp_offset */
    uint8_t sp_reg, bp_reg;     /* enum guest_orc_reg */
    uint8_t type;               /* enum guest_orc_type */
    uint8_t shape;              /* enum guest_orc_shape, from the fields above */
};

/* The lookup index's slot for one block of text. A block no rule starts
 * inside (past its first byte) has the rule covering it, copied; a block
 * where rules start has shape GUEST_ORC_SHAPE_SPLIT and the count of rows
 * at or before its first byte: the rule of an address in it is the last
 * row at or before the address, found by scanning from there (the rows
 * starting inside the block, never more than its 64 bytes). `shape` lies
 * at the same place in both. */
union guest_orc_slot {
    struct guest_orc_row row;
    struct {
        uint32_t first;             /* rows at or before the block's first byte */
        uint8_t unused[3];
        uint8_t shape;              /* GUEST_ORC_SHAPE_SPLIT */
    } split;
};
_Static_assert(sizeof(union guest_orc_slot) == 8, "one 8-byte read per lookup");
_Static_assert(__builtin_offsetof(union guest_orc_slot, row.shape) ==
               __builtin_offsetof(union guest_orc_slot, split.shape), "shape shared");

struct guest_orc {
    uint64_t text_start, text_end;      /* the kernel text covered */
    uint32_t count;                     /* rows */
    uint32_t blocks;                    /* lookup blocks over the text */
    uint32_t *ip;                       /* [count] text offsets, ascending, then UINT32_MAX
                                           (above any offset: ends every scan) */
    struct guest_orc_row *rows;         /* [count], and rows[-1] an end-of-stack rule
                                           (the rule "before the first entry") */
    union guest_orc_slot *slot;         /* [blocks]: the lookup index */
};

/* How the domain's kernel stacks are walked: nothing declared yet (no
 * kernel stacks: guessing from frame pointers on an ORC kernel records
 * garbage), frame pointers, or ORC tables. `kind` is published last
 * (release) and read first (acquire), so `orc` is complete when seen. */
enum guest_kernel_unwind_kind {
    GUEST_KERNEL_UNWIND_NONE,
    GUEST_KERNEL_UNWIND_FRAME_POINTER,
    GUEST_KERNEL_UNWIND_ORC,
};

struct guest_kernel_unwind {
    uint32_t kind;                      /* enum guest_kernel_unwind_kind */
    const struct guest_orc *orc;        /* GUEST_KERNEL_UNWIND_ORC: &table */
    struct guest_orc table;
    void *mem;                          /* the table's memory, kept for a retry */
    size_t mem_bytes;
};

/* Memory for a table (zeroed or not), or NULL. */
typedef void *(*guest_orc_alloc_fn)(size_t bytes);

/* Registers a walk starts from or ends with. */
struct guest_unwind_regs {
    uint64_t ip, sp, bp;
};

/* ---- Building the table (guestlib's declaration, hypercall context) ---- */

/* Checks a declaration's header: ABI version, format, reserved, count up
 * to VERTIGO_KERNEL_ORC_MAX, a text range in the kernel half of at most
 * VERTIGO_KERNEL_TEXT_MAX bytes (FRAME_POINTER: every other field 0).
 * 0 or -VERTIGO_EINVAL. */
int64_t guest_orc_check(const struct vertigo_kernel_orc *a);

/* Bytes guest_orc_build needs for a checked declaration. */
size_t guest_orc_bytes(const struct vertigo_kernel_orc *a);

/* Reads the declared tables with read(ctx, ...) and builds t in mem
 * (guest_orc_bytes(a) bytes, 8-byte aligned). 0, the access error of an
 * unreadable table (hypercall_access_error), or -VERTIGO_EINVAL for
 * entries that are not in ascending order or a table without one entry
 * in text. */
int64_t guest_orc_build(struct guest_orc *t, void *mem, const struct vertigo_kernel_orc *a,
                        guest_copy_fn read, void *ctx);

/* The domain's declaration (VERTIGO_HC_KERNEL_ORC, argument copied in):
 * checks it, then for ORC tables builds them into memory from alloc and
 * publishes them; for FRAME_POINTER just says so. The memory is taken
 * once per domain: a declaration that fails after it was taken (an
 * unsorted or unreadable table) leaves it for the next attempt, which
 * may need no more (else -VERTIGO_ENOMEM), so a guest retrying cannot
 * drain Vertigo's memory. -VERTIGO_EBUSY once a declaration succeeded.
 * Callers serialize calls for one domain. */
int64_t guest_kernel_unwind_declare(struct guest_kernel_unwind *ku,
                                    const struct vertigo_kernel_orc *a, guest_copy_fn read,
                                    void *ctx, guest_orc_alloc_fn alloc);

/* ---- Using it (NMI context) --------------------------------------------- */

/* The rule covering kernel address ip, as the walk finds it through the
 * index (a row of the table or a slot's copy), or NULL if ip is outside
 * the text or before its first entry. */
const struct guest_orc_row *guest_orc_find(const struct guest_orc *t, uint64_t ip);

/* Unwinds from *r (the interrupted kernel context: exact RIP, RSP, RBP)
 * and stores at most max_depth return addresses (and the RIPs of kernel
 * contexts interrupted by an interrupt or exception), innermost first, in
 * out[]; returns how many. If the walk reached the entry frame of a
 * system call, interrupt or exception taken from user mode, sets *to_user
 * and leaves the user context's RIP, RSP and RBP in *r; else *r is left
 * as it was. */
unsigned int guest_orc_walk(const struct guest_orc *t, struct guest_unwind_regs *r,
                            unsigned int max_depth, struct guest_reader *rd,
                            uint64_t *out, bool *to_user);

#endif
