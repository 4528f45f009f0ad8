/* bzImage parsing: validates a Linux x86 kernel image against the boot
 * protocol (Linux Documentation/arch/x86/boot.rst, "THE REAL-MODE KERNEL
 * HEADER") and reports where its parts are and what it needs. Portable:
 * reads only the bytes it is given, never writes, never trusts a field
 * before checking it against the image size. */
#ifndef VMM_BZIMAGE_H
#define VMM_BZIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Offsets and values from boot.rst. */
#define BZ_SECTOR_SIZE          512u
#define BZ_SETUP_HEADER_OFFSET  0x1f1u  /* the setup header inside the image and boot_params */
#define BZ_SETUP_HEADER_LEN_OFF 0x201u  /* byte: header end - 0x202 (jump offset) */
#define BZ_SETUP_HEADER_BASE    0x202u  /* header end = BASE + byte at LEN_OFF */
#define BZ_SETUP_HEADER_MAX_END 0x290u  /* boot_params.edd_mbr_sig_buffer starts here */
#define BZ_DEFAULT_SETUP_SECTS  4u      /* setup_sects == 0 means 4 */
#define BZ_BOOT_FLAG            0xaa55u
#define BZ_HDRS_MAGIC           0x53726448u /* "HdrS" little-endian */
#define BZ_MIN_VERSION          0x020cu /* 2.12: xloadflags, 64-bit entry */
#define BZ_LOADED_HIGH          0x01u   /* loadflags bit 0 */
#define BZ_XLF_KERNEL_64        0x0001u /* xloadflags bit 0: 64-bit entry at +0x200 */
#define BZ_XLF_CAN_BE_LOADED_ABOVE_4G 0x0002u
#define BZ_ENTRY64_OFFSET       0x200u  /* 64-bit entry, from the load address */
#define BZ_TYPE_OF_LOADER_UNDEF 0xffu   /* "undefined" boot loader id */
#define BZ_MIN_KERNEL_ALIGNMENT 0x1000u

/* The setup header, byte for byte as in the image and in boot_params at
 * offset 0x1f1 (boot.rst field table; fields up to protocol 2.15). */
struct bz_setup_header {
    uint8_t  setup_sects;           /* 0x1f1 */
    uint16_t root_flags;            /* 0x1f2 */
    uint32_t syssize;               /* 0x1f4: protected-mode size in 16-byte units */
    uint16_t ram_size;              /* 0x1f8 */
    uint16_t vid_mode;              /* 0x1fa */
    uint16_t root_dev;              /* 0x1fc */
    uint16_t boot_flag;             /* 0x1fe: 0xaa55 */
    uint16_t jump;                  /* 0x200 */
    uint32_t header;                /* 0x202: "HdrS" */
    uint16_t version;               /* 0x206 */
    uint32_t realmode_swtch;        /* 0x208 */
    uint16_t start_sys_seg;         /* 0x20c */
    uint16_t kernel_version;        /* 0x20e */
    uint8_t  type_of_loader;        /* 0x210 */
    uint8_t  loadflags;             /* 0x211 */
    uint16_t setup_move_size;       /* 0x212 */
    uint32_t code32_start;          /* 0x214 */
    uint32_t ramdisk_image;         /* 0x218 */
    uint32_t ramdisk_size;          /* 0x21c */
    uint32_t bootsect_kludge;       /* 0x220 */
    uint16_t heap_end_ptr;          /* 0x224 */
    uint8_t  ext_loader_ver;        /* 0x226 */
    uint8_t  ext_loader_type;       /* 0x227 */
    uint32_t cmd_line_ptr;          /* 0x228 */
    uint32_t initrd_addr_max;       /* 0x22c: highest address the initrd may occupy */
    uint32_t kernel_alignment;      /* 0x230 */
    uint8_t  relocatable_kernel;    /* 0x234 */
    uint8_t  min_alignment;         /* 0x235: log2 */
    uint16_t xloadflags;            /* 0x236 */
    uint32_t cmdline_size;          /* 0x238: max length, without the NUL */
    uint32_t hardware_subarch;      /* 0x23c */
    uint64_t hardware_subarch_data; /* 0x240 */
    uint32_t payload_offset;        /* 0x248: from the protected-mode code */
    uint32_t payload_length;        /* 0x24c */
    uint64_t setup_data;            /* 0x250 */
    uint64_t pref_address;          /* 0x258 */
    uint32_t init_size;             /* 0x260: linear memory needed from the load address */
    uint32_t handover_offset;       /* 0x264 */
    uint32_t kernel_info_offset;    /* 0x268 (2.15) */
} __attribute__((packed));

_Static_assert(sizeof(struct bz_setup_header) == 0x26c - BZ_SETUP_HEADER_OFFSET,
               "setup header layout (boot.rst)");
_Static_assert(offsetof(struct bz_setup_header, header) == 0x202 - BZ_SETUP_HEADER_OFFSET,
               "HdrS offset");
_Static_assert(offsetof(struct bz_setup_header, init_size) == 0x260 - BZ_SETUP_HEADER_OFFSET,
               "init_size offset");

/* Last field a 2.12 header must contain: init_size (ends at 0x264). */
#define BZ_MIN_HEADER_END 0x264u

enum bzimage_status {
    BZIMAGE_OK = 0,
    BZIMAGE_ERR_TRUNCATED,        /* file ends before the header, setup or payload */
    BZIMAGE_ERR_NO_BOOT_FLAG,     /* 0xaa55 missing at 0x1fe */
    BZIMAGE_ERR_BAD_MAGIC,        /* "HdrS" missing at 0x202 */
    BZIMAGE_ERR_OLD_PROTOCOL,     /* boot protocol < 2.12 */
    BZIMAGE_ERR_BAD_HEADER_LEN,   /* header length byte too small for 2.12 */
    BZIMAGE_ERR_NOT_BZIMAGE,      /* LOADED_HIGH not set: a zImage */
    BZIMAGE_ERR_NOT_64BIT,        /* XLF_KERNEL_64 not set */
    BZIMAGE_ERR_NOT_RELOCATABLE,
    BZIMAGE_ERR_BAD_ALIGNMENT,    /* kernel_alignment not a power of two >= 4 KiB */
    BZIMAGE_ERR_BAD_INIT_SIZE,    /* init_size smaller than the kernel itself */
    BZIMAGE_ERR_BAD_PAYLOAD,      /* payload_offset/length outside the kernel */
};

/* A validated image. Pointers point into the caller's buffer. */
struct bzimage_info {
    const uint8_t *image;         /* whole file */
    size_t image_size;
    size_t setup_size;            /* boot sector + real-mode setup, bytes */
    size_t header_end;            /* 0x202 + byte at 0x201, capped at 0x290 */
    const uint8_t *kernel;        /* protected-mode kernel (what gets loaded) */
    size_t kernel_size;           /* its size in the file (may include padding) */
    uint16_t version;             /* boot protocol, 0x020f = 2.15 */
    uint8_t loadflags;
    uint16_t xloadflags;
    uint32_t kernel_alignment;    /* power of two */
    uint64_t pref_address;
    uint32_t init_size;
    uint32_t cmdline_size;        /* max command line length without NUL */
    uint32_t initrd_addr_max;     /* highest byte address the initrd may use */
    uint32_t payload_offset;
    uint32_t payload_length;
    struct bz_setup_header hdr;   /* copy of the header as in the file */
};

/* Validates `size` bytes at `image` as a 64-bit relocatable bzImage and
 * fills `out`. Returns BZIMAGE_OK or the first problem found; `out` is
 * only meaningful on success. Never reads outside [image, image+size). */
enum bzimage_status bzimage_parse(const void *image, size_t size, struct bzimage_info *out);

/* A one-line English description of `status` (never NULL). */
const char *bzimage_strerror(enum bzimage_status status);

#endif
