/* A queue of whole text lines between one producer and one consumer that
 * never wait for each other: a domain's console lines, queued at its exit
 * and written out later as Vertigo's UART takes them (vmm/console/console_drain.h).
 * A line goes in whole or not at all; each is stored as a 2-byte length
 * and its bytes, in a ring of LINE_QUEUE_BYTES. The producers of one
 * queue must be serialized by the caller, and so must its consumers; a
 * producer and a consumer may run at once on different CPUs. Portable and
 * host-tested. */
#ifndef VMM_LINE_QUEUE_H
#define VMM_LINE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINE_QUEUE_BYTES    65536u  /* a power of two */
#define LINE_QUEUE_LINE_MAX 256u    /* longest line, prefix and newline included */

struct line_queue {
    uint64_t head;      /* bytes ever put (the producer's) */
    uint64_t tail;      /* bytes ever taken (the consumer's) */
    uint8_t bytes[LINE_QUEUE_BYTES];
};

/* Queues the line PREFIX TEXT '\n' (text: len bytes) whole. False, and
 * nothing queued, if the ring lacks the room or the line would be longer
 * than LINE_QUEUE_LINE_MAX. */
bool line_queue_put(struct line_queue *q, const char *prefix, const char *text, size_t len);

/* Bytes a line of that many bytes (prefix, text and newline) takes in the
 * ring, and whether that many are free now. */
size_t line_queue_cost(size_t line_len);
bool line_queue_has_room(const struct line_queue *q, size_t bytes);

/* Copies the oldest line (newline included) into out without taking it
 * and returns its length; 0 if the queue is empty. out holds
 * LINE_QUEUE_LINE_MAX bytes. */
size_t line_queue_peek(const struct line_queue *q, char *out);

/* Takes the oldest line off the queue (the one line_queue_peek returned). */
void line_queue_drop(struct line_queue *q);

#endif
