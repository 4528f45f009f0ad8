/* The slow path of a guest stack reader (see vmm/guest_reader.h). */
#include "vmm/guest_reader.h"

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

const uint8_t *guest_reader_fetch(struct guest_reader *rd, uint64_t gva, size_t len)
{
    uint64_t page = gva & ~PAGE_OFFSET_MASK;
    size_t off = (size_t)(gva & PAGE_OFFSET_MASK);
    if (len > GUEST_READER_MAX || gva + len < gva)
        return NULL;                        /* too long, or wraps around the address space */
    if (off + len <= GUEST_READER_PAGE)
        return window(rd, page) ? rd->host + off : NULL;
    size_t first = GUEST_READER_PAGE - off;     /* across two pages */
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
