/* Reading a guest's stack word by word from NMI context, cheaply and
 * safely. A walk asks a page source for Vertigo's address of one 4 KiB
 * page of guest-virtual memory at a time (the source checks everything:
 * the guest's page tables, the EPT, RAM only; vmx/guest_mem.c in the
 * hypervisor, a simulated memory in tests) and keeps the last page it got
 * as a window: consecutive frames nearly always lie in the same page, so
 * most reads are a subtraction, a compare and a load, with no call.
 *
 * Rule: a reader lives for one walk (one sample), while the guest stands
 * still; the page it holds is never reused once the guest has run again.
 * Portable. */
#ifndef VMM_GUEST_READER_H
#define VMM_GUEST_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUEST_READER_PAGE  4096u
#define GUEST_READER_MAX   32u          /* bytes one guest_reader_at may ask for
                                           (a hardware IRET frame) */

/* Vertigo's address of the readable 4 KiB guest page at page-aligned
 * `page`, or NULL if any byte of it may not be read. */
typedef const uint8_t *(*guest_page_fn)(void *ctx, uint64_t page);

struct guest_reader {
    uint64_t base;              /* the guest page `host` maps ... */
    const uint8_t *host;        /* ... NULL: none yet */
    guest_page_fn page;
    void *ctx;
    uint8_t bounce[GUEST_READER_MAX];   /* a read across two pages, copied */
};

static inline void guest_reader_init(struct guest_reader *rd, guest_page_fn page, void *ctx)
{
    rd->base = 0;
    rd->host = NULL;
    rd->page = page;
    rd->ctx = ctx;
}

/* Makes the page at page-aligned `page` rd's window, its address `host`
 * (not NULL) got from rd's own page source by the caller: a walk's first
 * page, which the caller looks up by a direct call (the reader's fetch
 * calls through the page source, with the checks of any read). */
static inline void guest_reader_start(struct guest_reader *rd, uint64_t page, const uint8_t *host)
{
    rd->base = page;
    rd->host = host;
}

/* The slow path of guest_reader_at: bytes in another page than the
 * window's (which becomes the window), or across two pages (copied to
 * the bounce buffer). */
const uint8_t *guest_reader_fetch(struct guest_reader *rd, uint64_t gva, size_t len);

/* Vertigo's address of len (at most GUEST_READER_MAX) readable guest
 * bytes at gva, valid until the next call; NULL if any is unreadable.
 * `off` wraps far above the page for gva below the window, so one
 * compare checks both ends. The bytes may be unaligned: copy them out
 * with memcpy. */
static inline __attribute__((always_inline)) const uint8_t *
guest_reader_at(struct guest_reader *rd, uint64_t gva, size_t len)
{
    uint64_t off = gva - rd->base;
    if (__builtin_expect(rd->host != NULL && off <= GUEST_READER_PAGE - len, 1))
        return rd->host + off;
    return guest_reader_fetch(rd, gva, len);
}

/* The 8-byte word at gva into *out; false if unreadable. */
static inline __attribute__((always_inline)) bool
guest_reader_word(struct guest_reader *rd, uint64_t gva, uint64_t *out)
{
    const uint8_t *p = guest_reader_at(rd, gva, sizeof(*out));
    if (!p)
        return false;
    __builtin_memcpy(out, p, sizeof(*out));
    return true;
}

/* A walk's copy of the reader's window, for a loop that keeps it in
 * registers (the reader itself is in memory, reloaded after every store
 * the compiler cannot see past): a read inside it is a subtraction, a
 * compare and a load; outside, guest_reader_fetch moves the reader's
 * window and the copy follows. A copy always holds a page (it is opened
 * on one): the loop tests no pointer. */
struct guest_window {
    uint64_t base;
    const uint8_t *host;
};

static inline struct guest_window guest_window_of(const struct guest_reader *rd)
{
    return (struct guest_window){ .base = rd->base, .host = rd->host };
}

/* Opens *w on the page holding gva (a walk's first word: the page most of
 * its reads hit), which becomes rd's window; false if that page is not
 * readable (the walk has nothing to read). */
static inline bool guest_window_open(struct guest_reader *rd, struct guest_window *w, uint64_t gva)
{
    if (!guest_reader_at(rd, gva & ~(uint64_t)(GUEST_READER_PAGE - 1), 1))
        return false;
    *w = guest_window_of(rd);
    return true;
}

/* The slow path of guest_window_at: the bytes through rd, and the copy
 * moved to rd's new window. */
static inline const uint8_t *guest_window_fetch(struct guest_reader *rd, struct guest_window *w,
                                                uint64_t gva, size_t len)
{
    const uint8_t *p = guest_reader_fetch(rd, gva, len);
    if (p)
        *w = guest_window_of(rd);       /* a failed fetch leaves both as they were */
    return p;
}

/* The 8-byte word at gva through the walk's open copy w of rd's window
 * into *v; false if unreadable. Inside the window: a subtraction, a
 * compare and a load (no pointer to test). */
static inline __attribute__((always_inline)) bool
guest_window_word(struct guest_reader *rd, struct guest_window *w, uint64_t gva, uint64_t *v)
{
    uint64_t off = gva - w->base;
    const uint8_t *p;
    if (__builtin_expect(off <= GUEST_READER_PAGE - sizeof(*v), 1))
        p = w->host + off;
    else if (!(p = guest_window_fetch(rd, w, gva, sizeof(*v))))
        return false;
    __builtin_memcpy(v, p, sizeof(*v));
    return true;
}

/* guest_reader_at through the walk's open copy w of rd's window. */
static inline __attribute__((always_inline)) const uint8_t *
guest_window_at(struct guest_reader *rd, struct guest_window *w, uint64_t gva, size_t len)
{
    uint64_t off = gva - w->base;
    if (__builtin_expect(off <= GUEST_READER_PAGE - len, 1))
        return w->host + off;
    return guest_window_fetch(rd, w, gva, len);
}

#endif
