/* Vectors waiting for domain 0 (see vmm/domain/irq_pending.h). */
#include "vmm/domain/irq_pending.h"

void irq_pending_add(struct irq_pending *p, uint8_t vector)
{
    uint64_t bit = 1ull << (vector & 63);
    uint64_t *word = &p->bits[vector >> 6];
    p->queued++;
    p->merged += (*word & bit) != 0;
    *word |= bit;
}

bool irq_pending_any(const struct irq_pending *p)
{
    return (p->bits[0] | p->bits[1] | p->bits[2] | p->bits[3]) != 0;
}

int irq_pending_take(struct irq_pending *p)
{
    for (int w = 3; w >= 0; w--) {
        if (!p->bits[w])
            continue;
        int b = 63 - __builtin_clzll(p->bits[w]);
        p->bits[w] &= ~(1ull << b);
        return w * 64 + b;
    }
    return -1;
}
