/* Loading a unikernel domain (include/vertigo/unikernel.h): checks every
 * header and segment of the ELF64 module, copies the segments into the
 * domain's RAM, builds the top area (page tables, GDT, start-info page) and
 * returns the VCPU's entry state. Portable: the domain's RAM is reached
 * only through struct guest_mem, so the hypervisor and unit tests (a
 * buffer) share this code. */
#ifndef VMM_UNIKERNEL_BOOT_H
#define VMM_UNIKERNEL_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/loader/linux_boot.h"

#define UK_MAX_SEGMENTS 16u     /* PT_LOAD headers accepted */
#define UK_MAX_PHDRS 64u        /* program headers accepted */

struct uk_boot_config {
    const void *image;          /* the ELF module */
    size_t image_size;
    uint64_t mem_bytes;         /* the domain's RAM, a 2 MiB multiple >= 4 MiB */
    uint32_t domain_id;
    uint64_t tsc_hz;
    const char *cmdline;        /* the module's arguments; NULL means "" */
};

/* Where the loader put things (guest-physical). */
struct uk_boot_layout {
    uint64_t load_start, load_end;  /* lowest and highest byte+1 of the segments */
    uint64_t free_start, free_end;  /* as in struct vertigo_uk_start */
    uint64_t start_info_gpa;
    uint64_t gdt_gpa;
    uint64_t pml4_gpa;
    unsigned int segments;
};

enum uk_boot_status {
    UK_BOOT_OK = 0,
    UK_BOOT_ERR_BAD_MEM,            /* mem_bytes not a 2 MiB multiple >= 4 MiB */
    UK_BOOT_ERR_TRUNCATED,          /* shorter than the ELF header */
    UK_BOOT_ERR_NOT_ELF,            /* no ELF magic */
    UK_BOOT_ERR_CLASS,              /* not ELFCLASS64 little-endian version 1 */
    UK_BOOT_ERR_MACHINE,            /* not EM_X86_64 */
    UK_BOOT_ERR_TYPE,               /* not ET_EXEC */
    UK_BOOT_ERR_PHDRS,              /* program header table size, count or place */
    UK_BOOT_ERR_NO_SEGMENTS,        /* no PT_LOAD with bytes */
    UK_BOOT_ERR_TOO_MANY_SEGMENTS,  /* more than UK_MAX_SEGMENTS PT_LOAD */
    UK_BOOT_ERR_SEGMENT_FILE,       /* a segment's bytes run past the file */
    UK_BOOT_ERR_FILESZ,             /* p_filesz > p_memsz */
    UK_BOOT_ERR_SEGMENT_PHYS,       /* p_paddr != p_vaddr */
    UK_BOOT_ERR_SEGMENT_RAM,        /* outside [1 MiB, mem - 2 MiB) */
    UK_BOOT_ERR_OVERLAP,            /* two segments share bytes */
    UK_BOOT_ERR_ENTRY,              /* e_entry not in an executable segment */
    UK_BOOT_ERR_CMDLINE,            /* command line of 256 bytes or more */
    UK_BOOT_ERR_GUEST_MEMORY,       /* gpa_to_host refused a range of the RAM */
    UK_BOOT_STATUS_COUNT
};

/* Loads the module. On an error nothing outside [1 MiB, mem) is written,
 * `layout` and `state` are not meaningful, and the status says which rule
 * the module broke; `bad_index` (if not NULL) gets the program header at
 * fault (or -1). */
enum uk_boot_status uk_boot_load(const struct uk_boot_config *cfg, const struct guest_mem *mem,
                                 struct uk_boot_layout *layout, struct linux_boot_state *state,
                                 int *bad_index);

/* A one-line English description of `status` (never NULL). */
const char *uk_boot_strerror(enum uk_boot_status status);

#endif
