/* A single-producer, single-consumer queue of whole lines (see
 * vmm/console/line_queue.h). head and tail only grow; the producer publishes
 * head after the bytes (release), the consumer reads it before them
 * (acquire), and the same the other way for tail, so the bytes between
 * them are never written and read at once. */
#include "vmm/console/line_queue.h"

#include "lib/mem.h"

#define LENGTH_BYTES 2u

_Static_assert((LINE_QUEUE_BYTES & (LINE_QUEUE_BYTES - 1)) == 0, "the ring wraps by masking");
_Static_assert(LINE_QUEUE_LINE_MAX < 0x10000u, "a length fits its two bytes");

static void ring_write(struct line_queue *q, uint64_t at, const void *src, size_t n)
{
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i++)
        q->bytes[(at + i) & (LINE_QUEUE_BYTES - 1)] = s[i];
}

static void ring_read(const struct line_queue *q, uint64_t at, void *dst, size_t n)
{
    uint8_t *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = q->bytes[(at + i) & (LINE_QUEUE_BYTES - 1)];
}

size_t line_queue_cost(size_t line_len)
{
    return LENGTH_BYTES + line_len;
}

bool line_queue_has_room(const struct line_queue *q, size_t bytes)
{
    uint64_t used = q->head - __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
    return bytes <= LINE_QUEUE_BYTES - used;
}

bool line_queue_put(struct line_queue *q, const char *prefix, const char *text, size_t len)
{
    size_t plen = strlen(prefix);
    if (len >= LINE_QUEUE_LINE_MAX || plen >= LINE_QUEUE_LINE_MAX - len)
        return false;
    size_t line = plen + len + 1;
    if (!line_queue_has_room(q, line_queue_cost(line)))
        return false;
    uint8_t length[LENGTH_BYTES] = { (uint8_t)line, (uint8_t)(line >> 8) };
    uint64_t at = q->head;
    ring_write(q, at, length, LENGTH_BYTES);
    ring_write(q, at + LENGTH_BYTES, prefix, plen);
    ring_write(q, at + LENGTH_BYTES + plen, text, len);
    ring_write(q, at + LENGTH_BYTES + plen + len, "\n", 1);
    __atomic_store_n(&q->head, at + line_queue_cost(line), __ATOMIC_RELEASE);
    return true;
}

size_t line_queue_peek(const struct line_queue *q, char *out)
{
    uint64_t tail = q->tail;
    if (__atomic_load_n(&q->head, __ATOMIC_ACQUIRE) == tail)
        return 0;
    uint8_t length[LENGTH_BYTES];
    ring_read(q, tail, length, LENGTH_BYTES);
    size_t line = length[0] | (size_t)length[1] << 8;
    ring_read(q, tail + LENGTH_BYTES, out, line);
    return line;
}

void line_queue_drop(struct line_queue *q)
{
    uint64_t tail = q->tail;
    if (__atomic_load_n(&q->head, __ATOMIC_ACQUIRE) == tail)
        return;
    uint8_t length[LENGTH_BYTES];
    ring_read(q, tail, length, LENGTH_BYTES);
    size_t line = length[0] | (size_t)length[1] << 8;
    __atomic_store_n(&q->tail, tail + line_queue_cost(line), __ATOMIC_RELEASE);
}
