/* Loading a multiboot kernel (Multiboot Specification 0.6.96, "v1", and
 * Multiboot2 2.0, "v2") into a domain's RAM: the header found and checked
 * (multiboot_header.c), the image's load plan from its ELF program headers
 * or the header's address fields (multiboot_image.c), the boot information
 * (multiboot_info.c) and the whole load with its checks and the VCPU's
 * entry state (multiboot_load.c). Everything in the image is untrusted:
 * every field is checked and every sum overflow-checked before a byte is
 * copied. Portable: guest memory only through struct guest_mem, so the
 * hypervisor and the unit tests share this code.
 *
 * The domain's guest-physical layout (a multiboot domain, vmm/domain/domain_mboot.c):
 *   [0, 0x9f000)           RAM; the boot information at MB_INFO_GPA
 *   [0x9f000, 0x100000)    reserved; the ACPI tables in the BIOS area
 *   [1 MiB, RAM)           RAM: the kernel's segments, then the modules
 *                          (page-aligned, in the order given). */
#ifndef VMM_MULTIBOOT_H
#define VMM_MULTIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/loader/e820.h"
#include "vmm/loader/linux_boot.h"

#define MB1_HEADER_MAGIC     0x1badb002u
#define MB1_BOOT_MAGIC       0x2badb002u    /* EAX at the entry */
#define MB2_HEADER_MAGIC     0xe85250d6u
#define MB2_BOOT_MAGIC       0x36d76289u
#define MB1_SEARCH_BYTES     8192u          /* the header lies in the first 8 KiB */
#define MB2_SEARCH_BYTES     32768u         /* ... 32 KiB for multiboot2 */

#define MB_LOAD_MIN          0x100000ull    /* segments and modules: [1 MiB, RAM) */
#define MB_INFO_GPA          0x9000ull      /* GDT, then the boot information */
#define MB_INFO_END          0x9f000ull
#define MB_STACK_GPA         0x9000ull      /* ESP (the specifications leave it undefined) */
#define MB_BOOT_CS           0x08u          /* the GDT at MB_INFO_GPA: flat 32-bit code */
#define MB_BOOT_DS           0x10u          /* ... and data */
#define MB_MAX_SEGMENTS      16u
#define MB_MAX_PHDRS         64u
#define MB_MAX_MODULES       8u
#define MB_CMDLINE_MAX       4096u          /* the kernel's and each module's string */

/* Multiboot2 information tags Vertigo can give (an information request
 * for any other, not marked optional, is refused). */
#define MB2_TAG_END          0u
#define MB2_TAG_CMDLINE      1u
#define MB2_TAG_LOADER_NAME  2u
#define MB2_TAG_MODULE       3u
#define MB2_TAG_BASIC_MEM    4u
#define MB2_TAG_MMAP         6u
#define MB2_TAG_ACPI_NEW     15u

enum mb_status {
    MB_OK = 0,
    MB_ERR_NO_HEADER,           /* no multiboot or multiboot2 header */
    MB_ERR_CHECKSUM,            /* a header's magic with a bad checksum */
    MB_ERR_ARCH,                /* multiboot2 architecture not i386 */
    MB_ERR_HEADER_LENGTH,       /* multiboot2 header length or a tag's size */
    MB_ERR_REQUIREMENT,         /* a required feature Vertigo cannot give */
    MB_ERR_VIDEO,               /* a video mode or framebuffer required */
    MB_ERR_INFO_REQUEST,        /* a required information tag Vertigo cannot give */
    MB_ERR_UNKNOWN_TAG,         /* a required multiboot2 header tag unknown here */
    MB_ERR_NOT_ELF,             /* no address fields and not an ELF file */
    MB_ERR_ELF_CLASS,           /* not a little-endian ELF32/ELF64 version 1 */
    MB_ERR_ELF_MACHINE,         /* ELF32 not i386, or ELF64 not x86-64 */
    MB_ERR_ELF_TYPE,            /* not ET_EXEC */
    MB_ERR_ELF_PHDRS,           /* program header table size, count or place */
    MB_ERR_NO_SEGMENTS,         /* nothing to load */
    MB_ERR_TOO_MANY_SEGMENTS,
    MB_ERR_SEGMENT_FILE,        /* a segment's bytes run past the file */
    MB_ERR_FILESZ,              /* p_filesz > p_memsz */
    MB_ERR_SEGMENT_LOW,         /* a segment below 1 MiB (boot information, firmware) */
    MB_ERR_SEGMENT_RAM,         /* a segment past the domain's RAM (or 4 GiB) */
    MB_ERR_OVERLAP,             /* two segments share bytes */
    MB_ERR_ADDRESS,             /* the header's address fields are inconsistent */
    MB_ERR_ENTRY,               /* the entry point is not in what is loaded */
    MB_ERR_TOO_MANY_MODULES,
    MB_ERR_MODULE_TOO_BIG,      /* a module does not fit after the kernel */
    MB_ERR_CMDLINE,             /* a command line longer than MB_CMDLINE_MAX - 1 */
    MB_ERR_INFO_TOO_BIG,        /* the boot information does not fit its area */
    MB_ERR_BAD_MEM,             /* domain RAM not 4 MiB .. 3 GiB, 2 MiB multiple */
    MB_ERR_GUEST_MEMORY,        /* gpa_to_host refused a range of the RAM */
    MB_STATUS_COUNT
};

/* A refusal: what rule, and where (index: program header, tag or module
 * number, -1 if none; addr/size: the range at fault, 0 if none). */
struct mb_error {
    enum mb_status status;
    int index;
    uint64_t addr, size;
};

/* The header, as found. */
struct mb_header {
    unsigned int version;       /* 1 or 2 */
    uint32_t offset;            /* of the header in the file */
    bool has_address;           /* v1 flags bit 16, or v2 address tag */
    uint32_t header_addr, load_addr, load_end_addr, bss_end_addr;
    bool has_entry;             /* v1 flags bit 16, or v2 entry address tag */
    uint32_t entry_addr;
};

/* What to copy where: segments (file range -> guest-physical address,
 * the rest of mem_size zeroed) and the physical entry point. */
struct mb_segment {
    uint64_t offset, file_size, addr, mem_size;
};

struct mb_plan {
    struct mb_segment seg[MB_MAX_SEGMENTS];
    unsigned int count;
    uint64_t entry;
    uint64_t start, end;        /* lowest address and highest + 1 */
};

struct mb_module {
    const void *bytes;
    uint64_t size;
    const char *string;         /* the module's string in the boot information */
};

struct mb_load_config {
    const void *image;
    size_t image_size;
    uint64_t mem_bytes;                 /* the domain's RAM: guest-physical [0, mem) */
    const struct e820_table *map;       /* its memory map, as the kernel is told */
    const char *cmdline;                /* NULL means "" */
    const struct mb_module *modules;
    unsigned int module_count;
    const void *rsdp;                   /* ACPI RSDP (revision 2, 36 bytes) for the */
    size_t rsdp_size;                   /* multiboot2 ACPI tag; NULL: none */
};

/* Where everything went (guest-physical). */
struct mb_layout {
    unsigned int version;
    unsigned int segments;
    uint64_t kernel_start, kernel_end;
    uint64_t modules_start, modules_end;    /* equal when there are none */
    uint64_t info_gpa, info_bytes;
    uint64_t entry;
};

/* ---- the steps (each file's) ---- */

/* Finds and checks the header: multiboot2 first (its tags), else
 * multiboot. */
enum mb_status mb_header_find(const uint8_t *image, size_t size, struct mb_header *h,
                              struct mb_error *err);

/* The load plan: from the header's address fields if it has them (the
 * a.out kludge), else from the ELF program headers (ELF32 i386 or ELF64
 * x86-64, PT_LOAD at p_paddr; the entry translated from e_entry's segment
 * as GRUB does). Checks every segment against [MB_LOAD_MIN, min(mem,
 * 4 GiB)), overlaps and the entry point. */
enum mb_status mb_image_plan(const uint8_t *image, size_t size, const struct mb_header *h,
                             uint64_t mem_bytes, struct mb_plan *plan, struct mb_error *err);

/* Writes the boot information of `version` for cfg at guest-physical
 * `gpa` into buf[0, size): the memory map, command line, boot loader name,
 * the modules at `module_addr[i]`, (v2) the ACPI RSDP. *used gets its
 * size; MB_ERR_INFO_TOO_BIG if it does not fit. */
enum mb_status mb_info_write(unsigned int version, const struct mb_load_config *cfg,
                             const uint64_t *module_addr, uint64_t gpa, uint8_t *buf,
                             size_t size, size_t *used);

/* ---- the whole load ---- */

/* Loads the kernel and its modules and writes the boot information; on
 * MB_OK `state` is the entry state of either specification (32-bit
 * protected mode, paging off, flat CS/DS/ES/FS/GS/SS, interrupts off,
 * EAX = the boot magic, EBX = the information's address). On an error
 * guest memory may be partly written and `err` says why. */
enum mb_status mb_load(const struct mb_load_config *cfg, const struct guest_mem *mem,
                       struct mb_layout *layout, struct linux_boot_state *state,
                       struct mb_error *err);

/* A one-line English description of `status` (never NULL). */
const char *mb_strerror(enum mb_status status);

/* The refusal with its detail ("a segment lies past the domain's RAM
 * (program header 2, [0x1000000, 0x1200000))") into buf. */
void mb_error_text(const struct mb_error *err, char *buf, size_t size);

#endif
