/* Interrupt vectors waiting for domain 0's VCPU on a CPU while another
 * domain runs there. Vertigo acknowledged them for domain 0 (the local
 * APIC holds each in service until domain 0's EOI), so each vector is
 * pending at most once, as in the APIC's request register, and they are
 * handed out highest vector first, the order of the APIC's priorities.
 * Portable and host-tested. */
#ifndef VMM_IRQ_PENDING_H
#define VMM_IRQ_PENDING_H

#include <stdbool.h>
#include <stdint.h>

struct irq_pending {
    uint64_t bits[4];           /* bit v: vector v waits */
    uint64_t queued;            /* statistics: vectors added */
    uint64_t merged;            /* ... of which were pending already */
};

void irq_pending_add(struct irq_pending *p, uint8_t vector);
bool irq_pending_any(const struct irq_pending *p);

/* Removes and returns the highest pending vector, or -1 if none. */
int irq_pending_take(struct irq_pending *p);

#endif
