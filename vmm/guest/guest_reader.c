/* The slow path of a guest stack reader (see vmm/guest/guest_reader.h). */
#include "vmm/guest/guest_reader.h"

#define PAGE_OFFSET_MASK ((uint64_t)GUEST_READER_PAGE - 1)

/* Makes the page at `page` the window; false if it is unreadable. */
static bool window(struct guest_reader *rd, uint64_t page)
{
    if (rd->host && rd->base == page)
        return true;
    const uint8_t *host = rd->page(rd->ctx, page);
    if (!host)
        return false;
    rd->base = page;
    rd->host = host;
    return true;
}

/* len bytes at gva across two pages, copied from both to the bounce
 * buffer (each page checked by the page source). */
static __attribute__((noinline)) const uint8_t *across(struct guest_reader *rd, uint64_t gva,
                                                       size_t len)
{
    uint64_t page = gva & ~PAGE_OFFSET_MASK;
    size_t off = (size_t)(gva & PAGE_OFFSET_MASK);
    size_t first = GUEST_READER_PAGE - off;
    if (len > GUEST_READER_MAX || gva + len < gva)
        return NULL;                        /* too long, or wraps around the address space */
    if (!window(rd, page))
        return NULL;
    for (size_t i = 0; i < first; i++)
        rd->bounce[i] = rd->host[off + i];
    if (!window(rd, page + GUEST_READER_PAGE))
        return NULL;
    for (size_t i = first; i < len; i++)
        rd->bounce[i] = rd->host[i - first];
    return rd->bounce;
}

/* The common case first: bytes inside one page (`len` at most what is
 * left of it: no sum to overflow), which the callers ask for only when it
 * is not the window's, so the page source is asked at once. */
const uint8_t *guest_reader_fetch(struct guest_reader *rd, uint64_t gva, size_t len)
{
    size_t off = (size_t)(gva & PAGE_OFFSET_MASK);
    if (__builtin_expect(len > GUEST_READER_PAGE - off || len > GUEST_READER_MAX, 0))
        return across(rd, gva, len);        /* (which refuses more than GUEST_READER_MAX) */
    const uint8_t *host = rd->page(rd->ctx, gva - off);
    if (!host)
        return NULL;
    rd->base = gva - off;
    rd->host = host;
    return host + off;
}
