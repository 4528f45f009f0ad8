/* Walking a guest's x86-64 page tables (SDM Vol. 3A, 4.5 "4-Level Paging
 * and 5-Level Paging") to turn a guest-virtual address into a
 * guest-physical one. Portable: physical reads go through a callback that
 * refuses anything the guest does not own, so a hostile or stale table
 * can never make Vertigo touch its own memory or fault. */
#ifndef VMM_GUEST_PT_H
#define VMM_GUEST_PT_H

#include <stdbool.h>
#include <stdint.h>

/* Reads 8 bytes of guest-physical memory; false if gpa is not guest RAM. */
typedef bool (*guest_phys_read64_fn)(void *ctx, uint64_t gpa, uint64_t *value);

struct guest_paging {
    uint64_t cr3;
    bool la57;                  /* CR4.LA57: 5-level paging */
    guest_phys_read64_fn read64;
    void *ctx;
};

/* Translates `gva`. Returns true and sets *gpa when every level is present
 * (user/supervisor and write permissions are not checked: the caller only
 * reads, on the guest's behalf, what the guest itself could read). */
bool guest_pt_translate(const struct guest_paging *pg, uint64_t gva, uint64_t *gpa);

#endif
