/* The domains' console lines on their way to Vertigo's text console. A
 * domain's line is queued (vmm/console/line_queue.h, one queue per domain) when
 * its VCPU writes it; the queues are drained one line at a time, in turn,
 * through the console's line in flight (lib/console.h), a UART transmit
 * FIFO's worth per poll. Polls run after each VM exit and where a CPU
 * waits; while lines wait, the VCPUs ask for an exit about once per FIFO's
 * transmit time (console_drain_wait_ticks), so a guest that never exits
 * still lets the UART run at its speed. Root mode never waits for a UART
 * because of a guest: a full queue drops the line (the caller counts it),
 * and only the run's end writes the rest synchronously. */
#ifndef VMM_CONSOLE_DRAIN_H
#define VMM_CONSOLE_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/console/line_queue.h"

#define CONSOLE_DRAIN_QUEUES 8u     /* one per domain (DOMAIN_MAX) */
#define CONSOLE_DRAIN_BAUD   115200u    /* the console UARTs' rate (lib/uart.c) */

/* Queues PREFIX TEXT '\n' on queue q, drained as queue number `slot`
 * (< CONSOLE_DRAIN_QUEUES; the same q for a slot every time). True if
 * queued, or if no console channel would show it (then it is not kept);
 * false if q is full: the line is dropped. Serialize the calls per q. */
bool console_drain_put(unsigned int slot, struct line_queue *q, const char *prefix,
                       const char *text, size_t len);

/* Lines queued or in flight (written by this file only). */
extern uint32_t console_drain_lines;

/* True while lines wait: the VM-exit path's only look while none do. */
static inline bool console_drain_pending(void)
{
    return __atomic_load_n(&console_drain_lines, __ATOMIC_RELAXED) != 0;
}

/* The drain step: more of the line in flight if the console takes it now,
 * else the next queued line (round robin over the queues) into flight.
 * Bounded (one FIFO's worth of port writes, one line copied), never waits;
 * returns at once when nothing is queued or another CPU is draining. */
void console_drain_poll(void);

/* TSC ticks after which a poll can write more (a UART FIFO's transmit
 * time at CONSOLE_DRAIN_BAUD), or 0 when nothing waits (or the TSC rate is
 * unknown). */
uint64_t console_drain_wait_ticks(void);

/* Writes every queued line, waiting for the UARTs: the run's end, before
 * its verdict line (boot/run_end.h). */
void console_drain_flush(void);

#endif
