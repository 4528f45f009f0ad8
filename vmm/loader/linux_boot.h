/* Loading a parsed bzImage into guest memory for the Linux 64-bit boot
 * protocol (boot.rst, "64-bit BOOT PROTOCOL"; zero-page.rst): places the
 * kernel, initrd, command line, boot_params, an identity page table and a
 * GDT in guest RAM, and returns the register state the VCPU starts with.
 * Portable: guest memory is reached only through struct guest_mem, so the
 * hypervisor (identity map) and unit tests (a buffer) share this code. */
#ifndef VMM_LINUX_BOOT_H
#define VMM_LINUX_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/loader/bzimage.h"
#include "vmm/loader/e820.h"

/* boot_params, the "zero page" (zero-page.rst). Only the fields Vertigo
 * writes are named; the rest stays zero. */
struct linux_e820_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;
} __attribute__((packed));

struct linux_boot_params {
    uint8_t  screen_info[0x40];          /* 0x000 */
    uint8_t  apm_bios_info[0x14];        /* 0x040 */
    uint8_t  pad_054[4];
    uint64_t tboot_addr;                 /* 0x058 */
    uint8_t  ist_info[0x10];             /* 0x060 */
    uint64_t acpi_rsdp_addr;             /* 0x070 */
    uint8_t  pad_078[0x48];
    uint32_t ext_ramdisk_image;          /* 0x0c0 */
    uint32_t ext_ramdisk_size;           /* 0x0c4 */
    uint32_t ext_cmd_line_ptr;           /* 0x0c8 */
    uint8_t  pad_0cc[0x1e8 - 0x0cc];
    uint8_t  e820_entries;               /* 0x1e8 */
    uint8_t  eddbuf_entries;             /* 0x1e9 */
    uint8_t  edd_mbr_sig_buf_entries;    /* 0x1ea */
    uint8_t  kbd_status;                 /* 0x1eb */
    uint8_t  secure_boot;                /* 0x1ec */
    uint8_t  pad_1ed[2];
    uint8_t  sentinel;                   /* 0x1ef */
    uint8_t  pad_1f0;
    struct bz_setup_header hdr;          /* 0x1f1 */
    uint8_t  pad_26c[0x2d0 - 0x26c];
    struct linux_e820_entry e820_table[E820_MAX_ENTRIES]; /* 0x2d0 */
    uint8_t  pad_cd0[0x1000 - 0xcd0];
} __attribute__((packed));

_Static_assert(sizeof(struct linux_boot_params) == 0x1000, "boot_params is one page");
_Static_assert(offsetof(struct linux_boot_params, acpi_rsdp_addr) == 0x070, "zero-page.rst");
_Static_assert(offsetof(struct linux_boot_params, ext_ramdisk_image) == 0x0c0, "zero-page.rst");
_Static_assert(offsetof(struct linux_boot_params, e820_entries) == 0x1e8, "zero-page.rst");
_Static_assert(offsetof(struct linux_boot_params, hdr) == BZ_SETUP_HEADER_OFFSET, "zero-page.rst");
_Static_assert(offsetof(struct linux_boot_params, e820_table) == 0x2d0, "zero-page.rst");

/* The boot GDT's selectors (boot.rst: __BOOT_CS = 0x10, __BOOT_DS = 0x18). */
#define LINUX_BOOT_CS 0x10u
#define LINUX_BOOT_DS 0x18u
#define LINUX_BOOT_TR 0x20u   /* a 64-bit TSS, so VM entry sees a usable TR */

/* Guest-physical memory access. gpa_to_host returns a host pointer to
 * [gpa, gpa+len) if that whole range is guest RAM the loader may write,
 * else NULL. */
struct guest_mem {
    void *(*gpa_to_host)(void *ctx, uint64_t gpa, uint64_t len);
    void *ctx;
};

struct linux_boot_config {
    const struct bzimage_info *kernel;  /* from bzimage_parse() */
    const void *initrd;                 /* required */
    uint64_t initrd_size;
    const char *cmdline;                /* NULL means "" */
    const struct e820_table *e820;      /* the guest's map (e820_build()) */
    uint64_t rsdp_gpa;                  /* ACPI RSDP physical address, 0 if none */
    bool use_1g_pages;                  /* identity map with 1 GiB pages (needs PDPE1GB) */
};

/* A guest segment register as the VMCS guest-state area wants it
 * (SDM Vol. 3C, 24.4.1 "Guest Register State": access-rights format). */
struct linux_boot_segment {
    uint16_t selector;
    uint64_t base;
    uint32_t limit;
    uint32_t access_rights;   /* VMCS format; bit 16 = unusable */
};

/* Where everything went, guest-physical. Ranges are [gpa, gpa + size). */
struct linux_boot_layout {
    uint64_t kernel_gpa;      /* load address (kernel_alignment aligned) */
    uint64_t kernel_size;     /* init_size: memory reserved for the kernel */
    uint64_t initrd_gpa;
    uint64_t initrd_size;
    uint64_t boot_area_gpa;   /* zero page, cmdline, GDT+TSS, stack, page tables */
    uint64_t boot_area_size;
    uint64_t boot_params_gpa;
    uint64_t cmdline_gpa;
    uint64_t gdt_gpa;
    uint64_t pml4_gpa;
    uint64_t mapped_bytes;    /* identity map covers [0, mapped_bytes) */
};

/* The VCPU's state at the kernel's 64-bit entry (boot.rst, 64-bit boot
 * protocol): long mode, paging on, interrupts off, RSI = boot_params.
 * cr0/cr4 are the values the guest must see; the VMX layer adds its fixed
 * bits (e.g. CR4.VMXE) and shadows them. */
struct linux_boot_state {
    uint64_t rip, rsi, rdi, rsp, rflags;   /* rdi: unikernels (vmm/loader/unikernel_boot.h) */
    uint64_t rax, rbx;                     /* multiboot's magic and information (vmm/loader/multiboot.h) */
    uint64_t cr0, cr3, cr4, efer;
    uint64_t gdt_base;
    uint16_t gdt_limit;
    uint64_t idt_base;
    uint16_t idt_limit;
    struct linux_boot_segment cs, ds, es, ss, fs, gs, tr, ldtr;
};

enum linux_boot_status {
    LINUX_BOOT_OK = 0,
    LINUX_BOOT_ERR_NO_KERNEL,         /* config->kernel or e820 missing */
    LINUX_BOOT_ERR_NO_INITRD,
    LINUX_BOOT_ERR_CMDLINE_TOO_LONG,  /* longer than the kernel's cmdline_size */
    LINUX_BOOT_ERR_NO_ROOM_KERNEL,    /* no usable RAM for init_size at the alignment */
    LINUX_BOOT_ERR_NO_ROOM_BOOT_AREA, /* no low RAM for boot_params/page tables */
    LINUX_BOOT_ERR_INITRD_TOO_BIG,    /* no usable place below initrd_addr_max / 4 GiB */
    LINUX_BOOT_ERR_TOO_MUCH_MEMORY,   /* map larger than the page tables Vertigo builds */
    LINUX_BOOT_ERR_GUEST_MEMORY,      /* gpa_to_host refused a range it should own */
};

/* Loads the kernel described by `cfg` into guest memory and fills `layout`
 * and `state`. Writes guest memory only through `mem`, only inside usable
 * e820 ranges. Returns LINUX_BOOT_OK or a specific error; on error guest
 * memory may be partly written and `state` is not meaningful. */
enum linux_boot_status linux_boot_load(const struct linux_boot_config *cfg,
                                       const struct guest_mem *mem,
                                       struct linux_boot_layout *layout,
                                       struct linux_boot_state *state);

/* A one-line English description of `status` (never NULL). */
const char *linux_boot_strerror(enum linux_boot_status status);

#endif
