/* Hostile hypercalls for the fuzzers (tests/guest/hc_fuzz.c from user mode,
 * tests/guest/probe/vertigo_probe.c from kernel mode): random call numbers
 * and arguments drawn from classes of pointers (unmapped, non-canonical,
 * supervisor-only, device memory, Vertigo's own memory, readable, running
 * off the end of readable memory) and random lengths, and the result each
 * call must get under the ABI (include/vertigo/hypercall.h,
 * docs/hypercalls.md) in a run without a PMU or sampling session.
 * Header-only; compiles in the guest kernel (__KERNEL__) and user space. */
#ifndef TESTS_GUEST_HOSTILE_H
#define TESTS_GUEST_HOSTILE_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/types.h>
#else
#include <stdint.h>
#include <string.h>
#endif

#include "vertigo/hypercall.h"

/* The classes of guest pointers. */
enum hostile_ptr {
    HOSTILE_NULL,           /* page 0: not mapped */
    HOSTILE_NONCANONICAL,   /* bits 63:47 not all equal */
    HOSTILE_UNMAPPED,       /* canonical, not present in the page tables */
    HOSTILE_SUPERVISOR,     /* a kernel page (readable only from kernel mode) */
    HOSTILE_MMIO,           /* mapped, but device memory (legacy VGA window) */
    HOSTILE_VERTIGO,        /* mapped, but Vertigo's own memory (not in the EPT) */
    HOSTILE_READABLE,       /* a readable buffer, 0xa5 bytes then a NUL at the end */
    HOSTILE_RUNS_OFF,       /* readable for a few bytes, then an unmapped page */
    HOSTILE_PTR_CLASSES
};

/* Addresses of each class, as the caller's address space has them. */
struct hostile_target {
    uint64_t ptr[HOSTILE_PTR_CLASSES];
    int user;               /* the caller runs in user mode (CPL 3) */
};

#define HOSTILE_RUNS_OFF_BYTES 10u     /* readable bytes before the unmapped page */
#define HOSTILE_READABLE_BYTES 512u    /* the readable buffer (NUL in the last byte) */

/* One call: what was asked and what must come back. */
struct hostile_call {
    uint64_t nr, arg[4];
    int64_t want;
    int64_t got;
};

/* xorshift64 (Marsaglia), seeded non-zero. */
static inline uint64_t hostile_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* VMCALL with all four argument registers (RBX, RCX, RDX, RSI). */
static inline int64_t hostile_vmcall(const struct hostile_call *c)
{
    int64_t ret;
    __asm__ volatile("vmcall"
                     : "=a"(ret)
                     : "a"(c->nr), "b"(c->arg[0]), "c"(c->arg[1]), "d"(c->arg[2]),
                       "S"(c->arg[3])
                     : "memory");
    return ret;
}

/* The error for reading a pointer of class p (0: readable). A supervisor
 * page is readable from kernel mode. */
static inline int64_t hostile_ptr_error(const struct hostile_target *t, enum hostile_ptr p)
{
    switch (p) {
    case HOSTILE_SUPERVISOR:
        return t->user ? -VERTIGO_EACCES : 0;
    case HOSTILE_MMIO:
        return -VERTIGO_EMMIO;
    case HOSTILE_READABLE:
        return 0;
    default:
        return -VERTIGO_EFAULT;
    }
}

/* VERTIGO_HC_SET_VERDICT: verdict 0, 1 or junk, a reason of any class. A
 * readable reason is cut at 63 bytes, whatever its contents. */
static inline void hostile_verdict(const struct hostile_target *t, uint64_t *rng,
                                   struct hostile_call *c)
{
    uint64_t r = hostile_rand(rng);
    enum hostile_ptr p = (enum hostile_ptr)(r % HOSTILE_PTR_CLASSES);
    c->arg[0] = (r >> 8) % 4 == 3 ? hostile_rand(rng) | 2 : (r >> 8) % 2;
    c->arg[1] = (r >> 16) % 8 == 0 ? 0 : t->ptr[p];
    if (c->arg[0] > 1)
        c->want = -VERTIGO_EINVAL;
    else
        c->want = c->arg[1] ? hostile_ptr_error(t, p) : 0;
}

/* VERTIGO_HC_SESSION_START and VERTIGO_HC_KERNEL_ORC: an argument of any
 * class. Readable bytes are never a valid session or table declaration
 * (ABI version 0xa5a5a5a5). */
static inline void hostile_session(const struct hostile_target *t, uint64_t *rng,
                                   struct hostile_call *c)
{
    enum hostile_ptr p = (enum hostile_ptr)(hostile_rand(rng) % HOSTILE_PTR_CLASSES);
    c->arg[0] = t->ptr[p];
    if (t->user)
        c->want = -VERTIGO_EPERM;
    else
        c->want = hostile_ptr_error(t, p) ? hostile_ptr_error(t, p) : -VERTIGO_EINVAL;
}

/* VERTIGO_HC_SYMBOLS: a chunk header of any class; when `chunk` (a
 * writable buffer of the caller's) is given, also a well-formed header
 * whose data is never readable, with a length up to twice the largest. */
static inline void hostile_symbols(const struct hostile_target *t, uint64_t *rng,
                                   struct hostile_call *c, struct vertigo_symbols_chunk *chunk,
                                   uint64_t chunk_addr)
{
    uint64_t r = hostile_rand(rng);
    if (t->user) {
        c->arg[0] = t->ptr[r % HOSTILE_PTR_CLASSES];
        c->want = -VERTIGO_EPERM;
        return;
    }
    if (!chunk || r % 2) {
        enum hostile_ptr p = (enum hostile_ptr)((r >> 1) % HOSTILE_PTR_CLASSES);
        c->arg[0] = t->ptr[p];
        c->want = hostile_ptr_error(t, p) ? hostile_ptr_error(t, p) : -VERTIGO_EINVAL;
        return;
    }
    /* the data pointer: any class but readable ones */
    enum hostile_ptr p = (enum hostile_ptr)((r >> 1) % HOSTILE_SUPERVISOR);
    if ((r >> 8) % 3 == 0)
        p = (enum hostile_ptr)(HOSTILE_MMIO + (r >> 10) % 2);      /* MMIO, Vertigo's */
    memset(chunk, 0, sizeof(*chunk));
    chunk->kind = 1 + (uint32_t)((r >> 12) % 4);
    chunk->len = 1 + (uint32_t)((r >> 16) % (2 * VERTIGO_SYMBOLS_CHUNK_MAX));
    chunk->last = (uint32_t)(r >> 30) & 1;
    chunk->data = t->ptr[p];
    if ((r >> 32) % 4 == 0) {               /* the data runs off readable memory */
        chunk->data = t->ptr[HOSTILE_RUNS_OFF];
        chunk->len += HOSTILE_RUNS_OFF_BYTES;
        p = HOSTILE_RUNS_OFF;
    }
    c->arg[0] = chunk_addr;
    c->want = chunk->len > VERTIGO_SYMBOLS_CHUNK_MAX ? -VERTIGO_EINVAL : hostile_ptr_error(t, p);
}

/* Draws one call and the result it must get (no PMU session runs, no
 * sampling session). */
static inline void hostile_draw(const struct hostile_target *t, uint64_t *rng,
                                struct hostile_call *c, struct vertigo_symbols_chunk *chunk,
                                uint64_t chunk_addr)
{
    uint64_t r = hostile_rand(rng);
    for (unsigned int i = 0; i < 4; i++)
        c->arg[i] = hostile_rand(rng);
    c->nr = r % 10 < 8 ? r % VERTIGO_HC_COUNT : hostile_rand(rng) | VERTIGO_HC_COUNT;
    switch (c->nr) {
    case VERTIGO_HC_VERSION:
        c->want = ((int64_t)VERTIGO_HYPERCALL_VERSION << 32) | VERTIGO_FEATURES;
        break;
    case VERTIGO_HC_SET_VERDICT:
        hostile_verdict(t, rng, c);
        break;
    case VERTIGO_HC_PMU_READ:
        if ((r >> 8) % 2)
            c->arg[0] = VERTIGO_PMU_EVENT_COUNT;
        c->want = c->arg[0] == VERTIGO_PMU_EVENT_COUNT ? 0 : -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_PMU_STEP:
        c->want = -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_SESSION_START:
    case VERTIGO_HC_KERNEL_ORC:
        hostile_session(t, rng, c);
        break;
    case VERTIGO_HC_SESSION_STOP:
        c->want = t->user ? -VERTIGO_EPERM : -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_SYMBOLS:
        hostile_symbols(t, rng, c, chunk, chunk_addr);
        break;
    case VERTIGO_HC_PV_PAGE:            /* never a page: Vertigo would write it */
        c->arg[0] |= 1 + (r >> 8) % (VERTIGO_PV_PAGE_BYTES - 1);
        c->want = t->user ? -VERTIGO_EPERM : -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_PV_PROGRAM:         /* readable bytes are no valid header */
    case VERTIGO_HC_MUX_START:
        hostile_session(t, rng, c);
        break;
    case VERTIGO_HC_MUX_STOP:           /* no multiplexing session runs */
        c->want = t->user ? -VERTIGO_EPERM : -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_PV_READ:            /* no paravirtual counter programmed */
        c->want = -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_PV_VECTOR:          /* never 0 or NMI: above 255 */
        c->arg[0] |= 0x100;
        c->want = t->user ? -VERTIGO_EPERM : -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_CONSOLE_WRITE:      /* never a length Vertigo would print */
        c->arg[1] |= 1ull << 32;
        c->want = t->user ? -VERTIGO_EPERM : -VERTIGO_EINVAL;
        break;
    case VERTIGO_HC_POWER_OFF:          /* from the kernel it would end the domain */
        if (!t->user) {
            c->nr = VERTIGO_HC_VERSION;
            c->want = ((int64_t)VERTIGO_HYPERCALL_VERSION << 32) | VERTIGO_FEATURES;
            break;
        }
        c->want = -VERTIGO_EPERM;
        break;
    default:
        c->want = -VERTIGO_ENOSYS;
        break;
    }
}

#endif
