/* The boot ABI of a unikernel domain (dom.N=unikernel:MODULE), shared by
 * Vertigo's loader (vmm/loader/unikernel_boot.c) and the unikernel runtime.
 *
 * The module is an ELF64 x86-64 executable (ET_EXEC), statically linked,
 * whose PT_LOAD segments sit at guest-physical = virtual addresses inside
 * [VERTIGO_UK_LOAD_MIN, mem - VERTIGO_UK_TOP_BYTES). Vertigo copies the
 * segments (zero-filling what memsz adds to filesz) and fills the top
 * VERTIGO_UK_TOP_BYTES of the domain's RAM with:
 *   - identity page tables mapping [0, mem) with 2 MiB pages, writable,
 *     supervisor-only;
 *   - a GDT with a flat 64-bit code segment (VERTIGO_UK_BOOT_CS) and a flat
 *     data segment (VERTIGO_UK_BOOT_DS);
 *   - the start-info page, struct vertigo_uk_start.
 *
 * The VCPU starts in 64-bit long mode at CPL 0 with paging on (CR3 = those
 * tables), CR0.PE/PG/WP/NE, CR4.PAE/OSFXSR/OSXMMEXCPT, EFER.LME/LMA/NXE,
 * RFLAGS = 0x2 (interrupts off), RIP = e_entry, RSP = 0 (the runtime sets
 * its own stack), RDI = guest-physical address of the start-info page.
 * There is no IDT, no device and no APIC: the runtime loads its own GDT,
 * TSS and IDT, and talks to Vertigo by hypercall only. */
#ifndef VERTIGO_UNIKERNEL_H
#define VERTIGO_UNIKERNEL_H

#include <stdint.h>

#define VERTIGO_UK_MAGIC        0x6b6e7556u    /* "Vunk" little-endian */
#define VERTIGO_UK_VERSION      1u

#define VERTIGO_UK_LOAD_MIN     0x100000ull    /* lowest segment address: 1 MiB */
#define VERTIGO_UK_TOP_BYTES    0x200000ull    /* Vertigo's area at the top of RAM */
#define VERTIGO_UK_CMDLINE_MAX  256u           /* command line bytes with the NUL */

/* Selectors of the boot GDT (entry 0 is null). */
#define VERTIGO_UK_BOOT_CS      0x08u
#define VERTIGO_UK_BOOT_DS      0x10u

/* The start-info page (one 4 KiB page, in the top area). */
struct vertigo_uk_start {
    uint32_t magic;             /* VERTIGO_UK_MAGIC */
    uint32_t version;           /* VERTIGO_UK_VERSION */
    uint32_t domain_id;         /* N of dom.N */
    uint32_t reserved;
    uint64_t mem_bytes;         /* the domain's RAM: guest-physical [0, mem_bytes) */
    uint64_t tsc_hz;            /* TSC ticks per second (0: unknown) */
    uint64_t free_start;        /* RAM the runtime may use: [free_start, free_end), */
    uint64_t free_end;          /* from the end of the highest segment (4 KiB
                                 * aligned) to the start of the top area */
    char cmdline[VERTIGO_UK_CMDLINE_MAX];  /* the module's arguments, NUL-terminated */
};

#endif
