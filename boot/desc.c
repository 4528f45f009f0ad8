/* Descriptor tables: one GDT and TSS per CPU (the TSS carries the IST
 * stacks for NMI, #DF and #MC), one IDT shared by all CPUs. */
#include <stdint.h>

#include "boot/layout.h"
#include "lib/smp.h"
#include "boot/traps.h"
#include "lib/mem.h"

struct tss64 {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

struct idt_gate {
    uint16_t offset_low;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_high;
    uint32_t reserved;
} __attribute__((packed));

struct desc_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

struct cpu_desc {
    uint64_t gdt[5];                 /* null, code, data, TSS (2 slots) */
    struct tss64 tss;
    uint8_t ist_stacks[3][IST_STACK_SIZE] __attribute__((aligned(16)));
};

#define GATE_INTERRUPT_DPL0 0x8e      /* present, 64-bit interrupt gate */
#define TSS_AVAILABLE_64    0x89      /* present, 64-bit available TSS */

extern const uint64_t isr_table[32];
extern const uint64_t isr_spurious;

static struct cpu_desc cpu_desc[MAX_CPUS];
static struct idt_gate idt[256];
static int idt_ready;

static void set_gate(unsigned int vec, uint64_t handler, uint8_t ist)
{
    struct idt_gate *g = &idt[vec];
    g->offset_low = (uint16_t)handler;
    g->selector = BOOT_CS64;
    g->ist = ist;
    g->type_attr = GATE_INTERRUPT_DPL0;
    g->offset_mid = (uint16_t)(handler >> 16);
    g->offset_high = (uint32_t)(handler >> 32);
    g->reserved = 0;
}

static void idt_build(void)
{
    for (unsigned int v = 0; v < 256; v++)
        set_gate(v, isr_spurious, 0);
    for (unsigned int v = 0; v < 32; v++)
        set_gate(v, isr_table[v], 0);
    set_gate(VEC_NMI, isr_table[VEC_NMI], IST_NMI);
    set_gate(VEC_DOUBLE_FAULT, isr_table[VEC_DOUBLE_FAULT], IST_DOUBLE_FAULT);
    set_gate(VEC_MACHINE_CHECK, isr_table[VEC_MACHINE_CHECK], IST_MACHINE_CHECK);
    idt_ready = 1;
}

/* 64-bit TSS descriptor: 16 bytes (SDM Vol. 3A, 9.2.3). */
static void gdt_set_tss(uint64_t *gdt, const struct tss64 *tss)
{
    uint64_t base = (uint64_t)tss;
    uint64_t limit = sizeof(*tss) - 1;
    gdt[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
             ((uint64_t)TSS_AVAILABLE_64 << 40) | (((limit >> 16) & 0xf) << 48) |
             (((base >> 24) & 0xff) << 56);
    gdt[4] = base >> 32;
}

void traps_init_cpu(unsigned int cpu)
{
    struct cpu_desc *d = &cpu_desc[cpu];
    struct desc_ptr gdtr, idtr;

    if (!idt_ready)
        idt_build();
    memset(&d->tss, 0, sizeof(d->tss));
    for (int i = 0; i < 3; i++)
        d->tss.ist[i] = (uint64_t)&d->ist_stacks[i][IST_STACK_SIZE];
    d->tss.iomap_base = sizeof(d->tss);   /* no I/O bitmap */

    d->gdt[0] = 0;
    d->gdt[1] = 0x00af9a000000ffffull;    /* BOOT_CS64 */
    d->gdt[2] = 0x00cf92000000ffffull;    /* BOOT_DS64 */
    gdt_set_tss(d->gdt, &d->tss);

    gdtr.limit = sizeof(d->gdt) - 1;
    gdtr.base = (uint64_t)d->gdt;
    idtr.limit = sizeof(idt) - 1;
    idtr.base = (uint64_t)idt;
    __asm__ volatile("lgdt %0" : : "m"(gdtr));
    __asm__ volatile("lidt %0" : : "m"(idtr));
    __asm__ volatile("ltr %w0" : : "r"(BOOT_TSS));
}

uint64_t traps_tss_base(unsigned int cpu)
{
    return (uint64_t)&cpu_desc[cpu].tss;
}

uint64_t traps_gdt_base(unsigned int cpu)
{
    return (uint64_t)cpu_desc[cpu].gdt;
}

uint64_t traps_idt_base(void)
{
    return (uint64_t)idt;
}
