/* The zero-fill sink (see vmx/ept_guard.c): a page of Vertigo's hidden
 * memory that a guest kernel keeps writing to is mapped, for a short
 * window, to one scratch page, so Linux's fix-up-less memset after a
 * failed copy to /dev/mem does not oops; Vertigo's own memory is never
 * mapped. The domain's EPT is shared by every VCPU, so:
 *  - every change is made under the sink's lock;
 *  - every change bumps a generation; each VCPU invalidates its EPT
 *    translations (INVEPT) before it next enters the guest when it has not
 *    seen the newest one (ept_sink_stale), so no CPU keeps a translation to
 *    the scratch page once a window closed;
 *  - only pages inside Vertigo's hidden ranges can be diverted, and the
 *    table pages the sink's mappings may add are budgeted: a guest that
 *    touches many distinct addresses gets #GP, never the heap (ept_unmap
 *    keeps tables, and ept_map reuses them, so the budget is an upper
 *    bound on what the sink ever takes).
 * Portable: the EPT is vmx/ept.c's; tests run it on a page pool. */
#ifndef VMX_EPT_SINK_H
#define VMX_EPT_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/smp.h"
#include "vmm/page_alloc.h"
#include "lib/spinlock.h"
#include "vmx/ept.h"

#define EPT_SINK_RANGES_MAX  8
#define EPT_SINK_TABLES_MAX  64     /* table pages the sink may add, in all */
#define EPT_SINK_MAP_TABLES  3      /* most one 4 KiB mapping can add (PDPT, PD, PT) */

struct ept_sink {
    struct spinlock lock;
    struct ept *ept;
    uint64_t scratch_hpa;                       /* the page every window maps */
    struct phys_range ranges[EPT_SINK_RANGES_MAX];  /* Vertigo's hidden memory */
    unsigned int range_count;
    unsigned int tables_added;                  /* by the sink's mappings so far */
    uint64_t window[MAX_CPUS];                  /* page diverted for VCPU i, 0: none */
    uint64_t generation;                        /* changes to the EPT so far */
    uint64_t seen[MAX_CPUS];                    /* generation VCPU i invalidated at */
};

enum ept_sink_status {
    EPT_SINK_OPENED,        /* the page now maps the scratch page */
    EPT_SINK_SHARED,        /* another VCPU's window already maps it */
    EPT_SINK_REFUSED,       /* not Vertigo's hidden memory, or a window is open */
    EPT_SINK_EXHAUSTED,     /* the table budget is spent */
    EPT_SINK_FAILED,        /* the EPT could not map it (out of pages) */
};

/* Sets s up for `ept`, diverting pages of the `count` hidden ranges (at
 * most EPT_SINK_RANGES_MAX are kept) to the page at scratch_hpa. */
void ept_sink_init(struct ept_sink *s, struct ept *ept, uint64_t scratch_hpa,
                   const struct phys_range *hidden, unsigned int count);

/* Opens VCPU `vcpu`'s window on the 4 KiB page `gpa`: maps it readable and
 * writable, write-back, to the scratch page. Only a page in a hidden range,
 * one window per VCPU, within the table budget. */
enum ept_sink_status ept_sink_open(struct ept_sink *s, unsigned int vcpu, uint64_t gpa);

/* Closes VCPU `vcpu`'s window: the page is unmapped again once no window
 * maps it. Returns false if the EPT could not unmap it (out of pages). */
bool ept_sink_close(struct ept_sink *s, unsigned int vcpu);

/* The page VCPU `vcpu`'s window diverts, 0 if none is open. */
uint64_t ept_sink_window(struct ept_sink *s, unsigned int vcpu);

/* True once per EPT change that VCPU `vcpu` has not invalidated its
 * translations for: the caller then runs INVEPT before entering the guest. */
bool ept_sink_stale(struct ept_sink *s, unsigned int vcpu);

#endif
