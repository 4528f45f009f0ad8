/* EPT paging-structure builder (Intel SDM Vol. 3C 29.3, "The Extended
 * Page Table Mechanism"): maps guest-physical ranges to host-physical
 * ranges with permissions and memory types using the largest pages the
 * alignment and the processor allow, unmaps ranges (splitting large
 * pages), translates a GPA by walking the tables, and builds the EPTP.
 * Portable: tables come from a page source callback, so host tests use a
 * buffer and the hypervisor its identity map. Not thread-safe; after
 * changing a live EPT the caller runs INVEPT. */
#ifndef VMX_EPT_H
#define VMX_EPT_H

#include <stdbool.h>
#include <stdint.h>

#include "vmx/vmx_caps.h"

/* Mapping flags: permission bits 2:0 and ignore-PAT bit 6 sit where the
 * EPT entry has them (SDM Vol. 3C 29.3.2, tables 29-4 .. 29-6). */
#define EPT_READ        (1u << 0)
#define EPT_WRITE       (1u << 1)
#define EPT_EXEC        (1u << 2)
#define EPT_RWX         (EPT_READ | EPT_WRITE | EPT_EXEC)
#define EPT_IGNORE_PAT  (1u << 6)

/* EPT memory types (SDM Vol. 3C 29.3.7; same numbers as MTRR/PAT types). */
enum ept_memtype {
    EPT_MT_UC = 0,
    EPT_MT_WC = 1,
    EPT_MT_WT = 4,
    EPT_MT_WP = 5,
    EPT_MT_WB = 6,
};

#define EPT_PAGE_4K  0x1000ull
#define EPT_PAGE_2M  0x200000ull
#define EPT_PAGE_1G  0x40000000ull
#define EPT_GPA_LIMIT (1ull << 48)   /* 4-level walk: 48-bit guest-physical */
#define EPT_HPA_LIMIT (1ull << 52)   /* architectural maximum physical width */

/* Where paging-structure pages come from. alloc_page returns the
 * physical address of a zeroed, 4 KiB-aligned page, or 0 when out of
 * memory; phys_to_virt gives a pointer through which Vertigo can write a
 * page it got from alloc_page. */
struct ept_page_source {
    uint64_t (*alloc_page)(void *ctx);
    void *(*phys_to_virt)(void *ctx, uint64_t pa);
    void *ctx;
};

/* One EPT hierarchy (one guest-physical address space). */
struct ept {
    struct ept_page_source src;
    uint64_t pml4_pa;
    bool page_2m;         /* may use 2 MiB leaves */
    bool page_1g;         /* may use 1 GiB leaves */
    bool ad_flags;        /* EPTP enables accessed/dirty flags */
    bool exec_only;       /* execute-only mappings allowed */
    uint8_t eptp_memtype; /* memory type for walks: WB, or UC if no WB */
    unsigned tables;      /* paging-structure pages in use, PML4 included */
    uint64_t generation;  /* bumped by every ept_map and ept_unmap: caches of
                             translations through this EPT check it */
};

enum ept_status {
    EPT_OK        = 0,
    EPT_ERR_NOMEM = -1,   /* the page source ran out */
    EPT_ERR_ALIGN = -2,   /* gpa, hpa or size not 4 KiB aligned, or size 0 */
    EPT_ERR_RANGE = -3,   /* beyond EPT_GPA_LIMIT / EPT_HPA_LIMIT */
    EPT_ERR_ARG   = -4,   /* bad permissions, memory type or capabilities */
};

/* Sets ept up with an empty PML4 from src, using the page sizes, A/D
 * flags, execute-only support and walk memory type caps allows. Fails
 * with EPT_ERR_ARG when caps has no EPT, no 4-level walk or neither a WB
 * nor a UC walk type, EPT_ERR_NOMEM when no page is available. */
int ept_init(struct ept *ept, const struct ept_page_source *src,
             const struct vmx_ept_caps *caps);

/* Maps [gpa, gpa + size) to [hpa, hpa + size) with flags (EPT_READ,
 * EPT_WRITE, EPT_EXEC, EPT_IGNORE_PAT) and memory type, replacing any
 * earlier mapping of those pages. Uses a 1 GiB or 2 MiB leaf wherever gpa
 * and hpa are both aligned to it, the range covers it and the slot is not
 * already split into a table (existing tables are reused, never freed).
 * Write-only/write-execute permissions, and execute-only ones without
 * the capability, are EPT misconfigurations (29.3.3.1): EPT_ERR_ARG.
 * On EPT_ERR_NOMEM the hierarchy stays consistent: every 4 KiB page of
 * the range has either its old or its new translation, nothing outside
 * the range changes, and the tables allocated so far stay in use. */
int ept_map(struct ept *ept, uint64_t gpa, uint64_t hpa, uint64_t size,
            unsigned flags, enum ept_memtype type);

/* Makes [gpa, gpa + size) not present, splitting large pages that are
 * only partly inside the range (which needs new tables). Unmapped parts
 * of the range are fine. On EPT_ERR_NOMEM the same consistency guarantee
 * as ept_map holds (each page is either still mapped or unmapped). */
int ept_unmap(struct ept *ept, uint64_t gpa, uint64_t size);

/* Result of a walk: hpa is the translation of the given gpa itself. */
struct ept_translation {
    uint64_t hpa;
    uint64_t page_size;       /* EPT_PAGE_4K, EPT_PAGE_2M or EPT_PAGE_1G */
    unsigned perms;           /* EPT_READ | EPT_WRITE | EPT_EXEC, ANDed over the walk */
    enum ept_memtype type;
    bool ignore_pat;
};

/* Walks the tables for gpa. Returns false (out untouched) when gpa is
 * not mapped or beyond EPT_GPA_LIMIT. */
bool ept_translate(const struct ept *ept, uint64_t gpa, struct ept_translation *out);

/* The VMCS EPT-pointer value: PML4 address, walk memory type, 4-level
 * walk, bit 6 when A/D flags are enabled (SDM Vol. 3C 25.6.11). */
uint64_t ept_eptp(const struct ept *ept);

/* Short text for an ept_status ("out of memory for EPT tables"). */
const char *ept_status_text(int status);

#endif
