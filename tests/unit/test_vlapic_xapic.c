/* The virtual APIC's modes and xAPIC page (vmm/vhw/vlapic_xapic.c): the reset
 * state in xAPIC mode, the IA32_APIC_BASE transitions SDM Vol. 3A 11.12.5
 * allows and forbids, the page's registers with xAPIC mode's rules
 * (writable ID, LDR and DFR, the two-dword ICR, reserved bits ignored),
 * and a disabled APIC delivering nothing. */
#include "tests/unit/unit.h"
#include "vmm/vhw/vlapic.h"

#define BASE      0xfee00000ull
#define EN        (1ull << 11)
#define EXTD      (1ull << 10)
#define BSP       (1ull << 8)

static struct vlapic xapic(void)
{
    struct vlapic a;
    vlapic_init_xapic(&a, 2, true, 1);
    a.phys_bits = 39;
    return a;
}

TEST(reset_state_is_xapic_with_the_page)
{
    struct vlapic a = xapic();
    uint64_t v;
    CHECK_EQ(vlapic_mode(&a), VLAPIC_MODE_XAPIC);
    CHECK_EQ(vlapic_rdmsr(&a, VLAPIC_MSR_APIC_BASE, 0, &v), VLAPIC_OK);
    CHECK_EQ(v, BASE | BSP | EN);
    CHECK_EQ(vlapic_mmio_base(&a), BASE);
    CHECK_EQ(vlapic_mmio_read(&a, 0x20, 0), 2u << 24);             /* ID */
    CHECK_EQ(vlapic_mmio_read(&a, 0x30, 0), 0x50014);               /* version */
    CHECK_EQ(vlapic_mmio_read(&a, 0xe0, 0), 0xffffffffu);           /* DFR: flat */
    CHECK_EQ(vlapic_mmio_read(&a, 0xf0, 0), 0xff);                  /* SVR */
    CHECK_EQ(vlapic_mmio_read(&a, 0x340, 0), VLAPIC_LVT_MASKED);    /* LVT perf */
    CHECK_EQ(vlapic_mmio_read(&a, 0x34, 0), 0);                     /* inside a register */
    CHECK_EQ(vlapic_mmio_read(&a, 0x400, 0), 0);                    /* past the last */
    /* The x2APIC MSRs do not exist in xAPIC mode. */
    CHECK_EQ(vlapic_rdmsr(&a, VLAPIC_MSR_VERSION, 0, &v), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_TPR, 0, 0), VLAPIC_GP);
}

TEST(apic_base_transitions)
{
    struct vlapic a = xapic();
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | EXTD), VLAPIC_OK);   /* to x2APIC */
    CHECK_EQ(vlapic_mode(&a), VLAPIC_MODE_X2APIC);
    uint64_t v;
    CHECK_EQ(vlapic_rdmsr(&a, VLAPIC_MSR_VERSION, 0, &v), VLAPIC_OK);
    CHECK_EQ(v, 0x50014);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN), VLAPIC_GP);         /* x2APIC -> xAPIC */
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EXTD), VLAPIC_GP);       /* invalid */
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP), VLAPIC_OK);              /* to disabled */
    CHECK_EQ(vlapic_mode(&a), VLAPIC_MODE_DISABLED);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | EXTD), VLAPIC_GP);  /* disabled -> x2APIC */
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EXTD), VLAPIC_GP);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN), VLAPIC_OK);         /* to xAPIC */
    CHECK_EQ(vlapic_mode(&a), VLAPIC_MODE_XAPIC);
    /* Reserved bits: low ones, bit 9, at or above MAXPHYADDR; the BSP flag. */
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | 1), VLAPIC_GP);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | (1ull << 9)), VLAPIC_GP);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | (1ull << 39)), VLAPIC_GP);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | EN), VLAPIC_GP);
    /* Relocation: the page moves. */
    CHECK_EQ(vlapic_write_apic_base(&a, 0xfed40000ull | BSP | EN), VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_base(&a), 0xfed40000ull);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_APIC_BASE, 0x7f0000000ull | BSP | EN, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_base(&a), 0x7f0000000ull);
}

/* Without x2APIC support (dom.N.x2apic=off) EXTD is reserved: every
 * switch to x2APIC #GPs and the APIC stays in xAPIC mode. */
TEST(apic_base_without_x2apic)
{
    struct vlapic a = xapic();
    a.no_x2apic = true;
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | EXTD), VLAPIC_GP);
    CHECK_EQ(vlapic_wrmsr(&a, VLAPIC_MSR_APIC_BASE, BASE | BSP | EN | EXTD, 0), VLAPIC_GP);
    CHECK_EQ(vlapic_mode(&a), VLAPIC_MODE_XAPIC);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP), VLAPIC_OK);              /* to disabled */
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | EXTD), VLAPIC_GP);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN), VLAPIC_OK);         /* to xAPIC */
    CHECK_EQ(vlapic_mode(&a), VLAPIC_MODE_XAPIC);
}

TEST(xapic_registers_are_written_with_xapic_rules)
{
    struct vlapic a = xapic();
    CHECK_EQ(vlapic_mmio_write(&a, 0xf0, 0x11ff, 0), VLAPIC_OK);    /* SVR: bit 12 ignored */
    CHECK_EQ(vlapic_mmio_read(&a, 0xf0, 0), 0x1ff);
    CHECK_EQ(vlapic_mmio_write(&a, 0x80, 0x1234, 0), VLAPIC_OK);    /* TPR: bits 7:0 */
    CHECK_EQ(vlapic_mmio_read(&a, 0x80, 0), 0x34);
    CHECK_EQ(vlapic_cr8_read(&a), 3);
    CHECK_EQ(vlapic_mmio_write(&a, 0x80, 0, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_write(&a, 0x30, 0, 0), VLAPIC_OK);         /* version: read-only */
    CHECK_EQ(vlapic_mmio_read(&a, 0x30, 0), 0x50014);
    CHECK_EQ(vlapic_mmio_write(&a, 0x20, 7u << 24 | 0xffff, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_read(&a, 0x20, 0), 7u << 24);              /* ID: writable byte */
    CHECK_EQ(vlapic_mmio_write(&a, 0xd0, 0x80000001u, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_read(&a, 0xd0, 0), 0x80000000u);           /* LDR */
    CHECK_EQ(vlapic_mmio_write(&a, 0xe0, 0x0fffffffu, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_read(&a, 0xe0, 0), 0x0fffffffu);           /* DFR: cluster model */
    /* LVT timer: reserved bits dropped, the mode kept. */
    CHECK_EQ(vlapic_mmio_write(&a, 0x320, 0x20000u | 0xf0 | (1u << 12) | (1u << 25), 0),
             VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_read(&a, 0x320, 0), 0x200f0);
    /* A reset ID comes back with a disable/enable. */
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP), VLAPIC_OK);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN), VLAPIC_OK);
    CHECK_EQ(vlapic_mmio_read(&a, 0x20, 0), 2u << 24);
}

TEST(icr_sends_from_the_low_dword)
{
    struct vlapic a = xapic();
    vlapic_mmio_write(&a, 0xf0, 0x1ff, 0);
    /* Self shorthand, fixed vector 0xf1: straight to the IRR. */
    CHECK_EQ(vlapic_mmio_write(&a, 0x300, (1u << 18) | 0xf1, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), 0xf1);
    CHECK_EQ(vlapic_mmio_read(&a, 0x300, 0), (1u << 18) | 0xf1);
    vlapic_ack(&a, 0xf1);
    vlapic_mmio_write(&a, 0xb0, 0x12345, 0);                          /* EOI: any value */
    CHECK_EQ(vlapic_mmio_read(&a, 0x100 + 0x70, 0), 0);               /* ISR 224-255 clear */
    /* Its own ID in the high dword, physical: to itself. */
    vlapic_mmio_write(&a, 0x310, 2u << 24, 0);
    CHECK_EQ(vlapic_mmio_read(&a, 0x310, 0), 2u << 24);
    CHECK_EQ(vlapic_mmio_write(&a, 0x300, 0x44, 0), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), 0x44);
    /* Another ID: handed to the caller with the xAPIC destination. */
    vlapic_mmio_write(&a, 0x310, 5u << 24, 0);
    CHECK_EQ(vlapic_mmio_write(&a, 0x300, 0x45, 0), VLAPIC_IPI);
    CHECK_EQ(a.ipi.dest, 5);
    CHECK_EQ(a.ipi.vector, 0x45);
    CHECK(!vlapic_ipi_hits(&a, &a.ipi, true));
    /* A physical broadcast reaches every APIC, this one included. */
    vlapic_mmio_write(&a, 0x310, 0xffu << 24, 0);
    CHECK_EQ(vlapic_mmio_write(&a, 0x300, 0x46, 0), VLAPIC_IPI);
    CHECK(vlapic_ipi_hits(&a, &a.ipi, true));
    /* NMI to itself. */
    vlapic_mmio_write(&a, 0x310, 2u << 24, 0);
    CHECK_EQ(vlapic_mmio_write(&a, 0x300, 0x400, 0), VLAPIC_NMI);
}

TEST(disabled_apic_delivers_nothing)
{
    struct vlapic a = xapic();
    vlapic_mmio_write(&a, 0xf0, 0x1ff, 0);
    vlapic_accept(&a, 0x80, false);
    CHECK_EQ(vlapic_pending_vector(&a), 0x80);
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP), VLAPIC_OK);
    CHECK_EQ(vlapic_pending_vector(&a), -1);
    uint64_t v;
    CHECK_EQ(vlapic_rdmsr(&a, VLAPIC_MSR_SVR, 0, &v), VLAPIC_GP);
    CHECK_EQ(vlapic_cr8_write(&a, 5), VLAPIC_OK);                     /* CR8 still works */
    CHECK_EQ(vlapic_cr8_read(&a), 5);
}

TEST(logical_destinations_follow_ldr_and_dfr)
{
    struct vlapic a = xapic();
    struct vlapic_ipi ipi = { .vector = 0xf1, .logical = true };
    vlapic_mmio_write(&a, 0xd0, 0x04u << 24, 0);                      /* flat: bit 2 */
    ipi.dest = 0x84;
    CHECK(vlapic_ipi_hits(&a, &ipi, true));
    ipi.dest = 0x83;
    CHECK(!vlapic_ipi_hits(&a, &ipi, true));
    vlapic_mmio_write(&a, 0xe0, 0x0fffffffu, 0);                      /* cluster model */
    vlapic_mmio_write(&a, 0xd0, 0x32u << 24, 0);                      /* cluster 3, bit 1 */
    ipi.dest = 0x36;
    CHECK(vlapic_ipi_hits(&a, &ipi, true));
    ipi.dest = 0x26;
    CHECK(!vlapic_ipi_hits(&a, &ipi, true));
    ipi.dest = 0xf2;                                                  /* every cluster */
    CHECK(vlapic_ipi_hits(&a, &ipi, true));
    /* x2APIC: cluster 0 (ID 2), bit 2; physical broadcast 0xffffffff. */
    CHECK_EQ(vlapic_write_apic_base(&a, BASE | BSP | EN | EXTD), VLAPIC_OK);
    ipi.dest = 0x00000004;
    CHECK(vlapic_ipi_hits(&a, &ipi, true));
    ipi.dest = 0x00010004;
    CHECK(!vlapic_ipi_hits(&a, &ipi, true));
    ipi.logical = false;
    ipi.dest = 0xffffffffu;
    CHECK(vlapic_ipi_hits(&a, &ipi, false));
    ipi.dest = 2;
    CHECK(vlapic_ipi_hits(&a, &ipi, true));
    ipi.shorthand = 3;                                                /* all but self */
    CHECK(!vlapic_ipi_hits(&a, &ipi, true));
    CHECK(vlapic_ipi_hits(&a, &ipi, false));
}
