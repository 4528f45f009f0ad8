/* What the NMI path's call-stack walks cost, split into the part every
 * walk pays whatever its depth (the guest registers, the translation
 * cache, the first stack page) and what each recorded frame adds: a
 * least-squares fit of each measured walk's cycles to its depth,
 * cycles = fixed + per_frame * depth. Dividing a walk's cycles by its
 * frames mixes the two (a shallow walk looks dear per frame); the fit
 * keeps them apart. Portable: integer arithmetic only (Vertigo is built
 * without floating point). */
#ifndef PMU_STACK_COST_H
#define PMU_STACK_COST_H

#include <stdbool.h>
#include <stdint.h>

/* Walks are also kept by depth, 0 to STACK_COST_DEPTHS - 1 (deeper ones
 * in the last): a walk of a known depth measured, not fitted. */
#define STACK_COST_DEPTHS 33u

struct stack_cost {
    uint64_t walks, frames, cycles;
    uint64_t frames_sq;         /* sum of depth * depth */
    uint64_t frames_cycles;     /* sum of depth * cycles */
    uint64_t walks_at[STACK_COST_DEPTHS];   /* walks of each depth */
    uint64_t cycles_at[STACK_COST_DEPTHS];  /* ... and their cycles */
};

/* One measured walk of `depth` frames that took `cycles`. */
static inline void stack_cost_add(struct stack_cost *c, unsigned int depth, uint64_t cycles)
{
    c->walks++;
    c->frames += depth;
    c->cycles += cycles;
    c->frames_sq += (uint64_t)depth * depth;
    c->frames_cycles += depth * cycles;
    unsigned int at = depth < STACK_COST_DEPTHS ? depth : STACK_COST_DEPTHS - 1;
    c->walks_at[at]++;
    c->cycles_at[at] += cycles;
}

/* The fit: *fixed in cycles per walk, *per_frame_tenths in tenths of a
 * cycle per frame (both rounded toward zero, either may be negative on
 * odd data). False if the walks had fewer than two different depths (no
 * line to fit) or the sums are too large to combine in 64 bits. */
bool stack_cost_fit(const struct stack_cost *c, int64_t *fixed, int64_t *per_frame_tenths);

#endif
