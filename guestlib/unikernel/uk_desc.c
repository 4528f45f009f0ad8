/* The runtime's descriptor tables (CPL 0): a GDT with kernel and user
 * 64-bit segments and a TSS (RSP0 for entries from CPL 3, IST1 for double
 * faults), and an IDT with the 32 exception vectors (DPL 0) and the system
 * call gate at vector 0x80 (DPL 3, so INT 0x80 works from CPL 3). Any other
 * vector is absent: an INT to it raises #GP, reported as a fault. */
#include "guestlib/unikernel/uk_kernel.h"

#define GATE_INTERRUPT   0x8eu      /* present, DPL 0, 64-bit interrupt gate */
#define GATE_DPL3        0x60u
#define TSS_AVAILABLE    0x89ull    /* present, 64-bit available TSS */
#define IST_DOUBLE_FAULT 1u
#define VEC_DOUBLE_FAULT 8u

struct uk_tss {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

struct uk_gate {
    uint16_t offset_low;
    uint16_t selector;
    uint8_t ist;
    uint8_t type;
    uint16_t offset_mid;
    uint32_t offset_high;
    uint32_t reserved;
} __attribute__((packed));

struct uk_table_pointer {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

static struct uk_tss tss;
static struct uk_gate idt[256] __attribute__((aligned(16)));
/* Null, kernel code, kernel data, user data, user code, TSS (two slots). */
static uint64_t gdt[7] __attribute__((aligned(16))) = {
    0,
    0x00af9a000000ffffull,  /* 0x08: 64-bit code, DPL 0 */
    0x00cf92000000ffffull,  /* 0x10: data, DPL 0 */
    0x00cff2000000ffffull,  /* 0x18: data, DPL 3 */
    0x00affa000000ffffull,  /* 0x20: 64-bit code, DPL 3 */
    0, 0,                   /* 0x28: the TSS, filled in at run time */
};

static void tss_descriptor(uint64_t *slot, uint64_t base, uint32_t limit)
{
    slot[0] = (limit & 0xffffull) | ((base & 0xffffffull) << 16) | (TSS_AVAILABLE << 40) |
              ((uint64_t)(limit >> 16 & 0xf) << 48) | ((base >> 24 & 0xffull) << 56);
    slot[1] = base >> 32;
}

static void set_gate(unsigned int vector, uint64_t handler, uint8_t type, uint8_t ist)
{
    idt[vector] = (struct uk_gate){
        .offset_low = (uint16_t)handler, .selector = UK_KERNEL_CS, .ist = ist, .type = type,
        .offset_mid = (uint16_t)(handler >> 16), .offset_high = (uint32_t)(handler >> 32),
    };
}

void uk_desc_init(void)
{
    struct uk_table_pointer gdtr = { sizeof(gdt) - 1, (uint64_t)gdt };
    struct uk_table_pointer idtr = { sizeof(idt) - 1, (uint64_t)idt };

    tss.rsp[0] = (uint64_t)uk_kernel_stack_top;
    tss.ist[IST_DOUBLE_FAULT - 1] = (uint64_t)uk_fault_stack_top;
    tss.iomap_base = sizeof(tss);     /* no I/O permission bitmap */
    tss_descriptor(&gdt[UK_TSS_SEL / 8], (uint64_t)&tss, sizeof(tss) - 1);
    uk_load_gdt(&gdtr, UK_TSS_SEL);

    for (unsigned int v = 0; v < 32; v++)
        set_gate(v, uk_trap_entries[v], GATE_INTERRUPT,
                 v == VEC_DOUBLE_FAULT ? IST_DOUBLE_FAULT : 0);
    set_gate(UK_SYSCALL_VECTOR, (uint64_t)uk_syscall_entry, GATE_INTERRUPT | GATE_DPL3, 0);
    __asm__ volatile("lidt %0" : : "m"(idtr));
}
