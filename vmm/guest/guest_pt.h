/* Walking a guest's x86-64 page tables (SDM Vol. 3A, 4.5 "4-Level Paging
 * and 5-Level Paging") to turn a guest-virtual address into a
 * guest-physical one, with the checks the processor itself makes before
 * an access: the address must be canonical (SDM Vol. 1, 3.3.7.1), and a
 * user-mode access needs the U/S bit at every level (SDM Vol. 3A, 4.6.1
 * "Determination of Access Rights"). Portable: physical reads go through a
 * callback that refuses anything the guest does not own, so a hostile or
 * stale table can never make Vertigo touch its own memory or fault. */
#ifndef VMM_GUEST_PT_H
#define VMM_GUEST_PT_H

#include <stdbool.h>
#include <stdint.h>

/* Why a read of guest memory on a guest's behalf succeeded or not. The
 * walk gives the first three; vmx/guest_mem.c adds the last two from the
 * EPT. Hypercalls turn them into their errors (vmm/hypercall.c). */
enum guest_access {
    GUEST_ACCESS_OK = 0,
    GUEST_ACCESS_UNMAPPED,      /* not present at some level, or a table unreadable */
    GUEST_ACCESS_NONCANONICAL,  /* the linear address is not canonical */
    GUEST_ACCESS_SUPERVISOR,    /* a user-mode access to a supervisor-only page */
    GUEST_ACCESS_NOT_RAM,       /* the guest-physical page is device memory (MMIO) */
};

/* Reads 8 bytes of guest-physical memory; false if gpa is not guest RAM. */
typedef bool (*guest_phys_read64_fn)(void *ctx, uint64_t gpa, uint64_t *value);

struct guest_paging {
    uint64_t cr3;
    bool la57;                  /* CR4.LA57: 5-level paging */
    guest_phys_read64_fn read64;
    void *ctx;
};

/* True if gva is canonical: bits 63:47 (63:56 with 5-level paging) all
 * equal. A non-canonical access raises #GP before any walk. */
bool guest_pt_canonical(uint64_t gva, bool la57);

/* Translates `gva` for a supervisor access (`user` false) or a user-mode
 * one (`user` true: every level must have U/S set). Returns
 * GUEST_ACCESS_OK and sets *gpa when the walk succeeds; otherwise
 * GUEST_ACCESS_NONCANONICAL, _UNMAPPED (not present, a table the callback
 * refuses, or a large-page bit where the SDM reserves it) or _SUPERVISOR,
 * and *gpa is untouched. Write permission is not checked: Vertigo only
 * reads guest memory on the guest's behalf. */
enum guest_access guest_pt_walk(const struct guest_paging *pg, uint64_t gva, bool user,
                                uint64_t *gpa);

/* guest_pt_walk for a supervisor access: true when it succeeds. */
bool guest_pt_translate(const struct guest_paging *pg, uint64_t gva, uint64_t *gpa);

#endif
