/* Multiboot2 information parser (Multiboot2 specification, section 3.6).
 * Portable: compiled into the hypervisor and into host unit tests. */
#ifndef VMM_MB2_H
#define VMM_MB2_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/loader/boot_info.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289u /* in EAX at entry */

enum mb2_status {
    MB2_OK = 0,
    MB2_ERR_NULL,           /* no info pointer */
    MB2_ERR_MISALIGNED,     /* info or a tag not 8-byte aligned */
    MB2_ERR_TRUNCATED,      /* total_size larger than the bytes available */
    MB2_ERR_BAD_SIZE,       /* total_size too small or not a multiple of 8 */
    MB2_ERR_TAG_OVERFLOW,   /* a tag runs past total_size */
    MB2_ERR_TAG_TOO_SMALL,  /* a tag shorter than its type requires */
    MB2_ERR_NO_END_TAG,     /* tags end without the type-0 end tag */
    MB2_ERR_BAD_MMAP,       /* memory-map tag with bad entry size/version */
    MB2_ERR_TOO_MANY_RANGES,
    MB2_ERR_TOO_MANY_MODULES,
    MB2_ERR_BAD_MODULE,     /* module end < start */
    MB2_ERR_BAD_STRING,     /* string not NUL-terminated inside its tag */
    MB2_ERR_NO_MEMORY_MAP,  /* neither e820 nor EFI map present */
};

/* Where parsing stopped, for a precise error message. */
struct mb2_error {
    enum mb2_status status;
    uint32_t offset;        /* byte offset of the offending tag in the blob */
    uint32_t tag_type;
};

/* Parses the info blob at `blob`, of which `avail` bytes may be read
 * (the hypervisor passes the loader's total_size; tests pass the fixture
 * size). Fills *out (which keeps pointers into the blob) and returns
 * MB2_OK, or returns an error with *err describing it. `blob_phys` is
 * recorded as out->info_phys. Overlapping memory ranges are resolved with
 * the most restrictive type winning, and the result is sorted. */
enum mb2_status mb2_parse(const void *blob, size_t avail, uint64_t blob_phys,
                          struct boot_info *out, struct mb2_error *err);

/* A short English description of a status, never NULL. */
const char *mb2_strerror(enum mb2_status status);

#endif
