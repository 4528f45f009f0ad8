/* The virtual local APIC of a domain's VCPU (SDM Vol. 3A ch. 11): the
 * x2APIC MSR interface, the xAPIC page's registers (vmm/vhw/vlapic_xapic.c),
 * the mode changes IA32_APIC_BASE allows (11.12.5: disabled, xAPIC,
 * x2APIC), the APIC timer in one-shot, periodic and TSC-deadline modes
 * computed from the guest's TSC, and the IRR/ISR/PPR logic that picks the
 * vector to inject. Portable: the caller (the VM-exit handlers) reads the
 * guest TSC, decodes the guest's accesses to the xAPIC page, injects what
 * this file says, and turns VLAPIC_GP into a #GP(0). A Linux domain's
 * starts in x2APIC mode (vlapic_init), a multiboot domain's in xAPIC mode
 * as after a reset (vlapic_init_xapic). */
#ifndef VMM_VLAPIC_H
#define VMM_VLAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* x2APIC register MSRs (SDM Vol. 3A table 11-6). */
#define VLAPIC_MSR_ID            0x802
#define VLAPIC_MSR_VERSION       0x803
#define VLAPIC_MSR_TPR           0x808
#define VLAPIC_MSR_PPR           0x80a
#define VLAPIC_MSR_EOI           0x80b
#define VLAPIC_MSR_LDR           0x80d
#define VLAPIC_MSR_SVR           0x80f
#define VLAPIC_MSR_ISR0          0x810
#define VLAPIC_MSR_TMR0          0x818
#define VLAPIC_MSR_IRR0          0x820
#define VLAPIC_MSR_ESR           0x828
#define VLAPIC_MSR_LVT_CMCI      0x82f
#define VLAPIC_MSR_ICR           0x830
#define VLAPIC_MSR_LVT_TIMER     0x832
#define VLAPIC_MSR_LVT_THERMAL   0x833
#define VLAPIC_MSR_LVT_PERF      0x834
#define VLAPIC_MSR_LVT_LINT0     0x835
#define VLAPIC_MSR_LVT_LINT1     0x836
#define VLAPIC_MSR_LVT_ERROR     0x837
#define VLAPIC_MSR_TIMER_ICR     0x838
#define VLAPIC_MSR_TIMER_CCR     0x839
#define VLAPIC_MSR_TIMER_DCR     0x83e
#define VLAPIC_MSR_SELF_IPI      0x83f
#define VLAPIC_MSR_APIC_BASE     0x01b
#define VLAPIC_MSR_TSC_DEADLINE  0x6e0

/* Version register: version 0x14, max LVT entry 5 (timer, thermal, perf,
 * LINT0, LINT1, error; no CMCI), no EOI-broadcast suppression. */
#define VLAPIC_VERSION           0x00050014u
#define VLAPIC_BASE_DEFAULT      0xfee00000ull
#define VLAPIC_BASE_BSP          (1ull << 8)
#define VLAPIC_BASE_EXTD         (1ull << 10)
#define VLAPIC_BASE_EN           (1ull << 11)

#define VLAPIC_LVT_MASKED        (1u << 16)
#define VLAPIC_TIMER_ONESHOT     (0u << 17)
#define VLAPIC_TIMER_PERIODIC    (1u << 17)
#define VLAPIC_TIMER_TSC_DEADLINE (2u << 17)
#define VLAPIC_TIMER_MODE_MASK   (3u << 17)
#define VLAPIC_DM_MASK           (7u << 8)
#define VLAPIC_DM_FIXED          (0u << 8)
#define VLAPIC_DM_SMI            (2u << 8)
#define VLAPIC_DM_NMI            (4u << 8)
#define VLAPIC_DM_INIT           (5u << 8)
#define VLAPIC_DM_SIPI           (6u << 8)
#define VLAPIC_DM_EXTINT         (7u << 8)
#define VLAPIC_SVR_ENABLE        (1u << 8)

/* ESR bits (SDM Vol. 3A 11.5.3) this APIC can report. */
#define VLAPIC_ESR_SEND_ILLEGAL  (1u << 5)
#define VLAPIC_ESR_RECV_ILLEGAL  (1u << 6)
#define VLAPIC_ESR_ILLEGAL_REG   (1u << 7)

#define VLAPIC_NO_DEADLINE       UINT64_MAX

enum vlapic_lvt {
    VLAPIC_LVT_TIMER,
    VLAPIC_LVT_THERMAL,
    VLAPIC_LVT_PERF,
    VLAPIC_LVT_LINT0,
    VLAPIC_LVT_LINT1,
    VLAPIC_LVT_ERROR,
    VLAPIC_LVT_COUNT,
};

enum vlapic_status {
    VLAPIC_OK,          /* done; nothing more for the caller */
    VLAPIC_GP,          /* the guest gets #GP(0), the register is unchanged */
    VLAPIC_IPI,         /* an ICR write the caller must route: see .ipi */
    VLAPIC_NMI,         /* the caller injects an NMI into this VCPU */
};

/* An IPI this APIC cannot deliver to itself alone: another destination,
 * a broadcast, or a delivery mode other than fixed to self. */
struct vlapic_ipi {
    uint8_t vector;
    uint32_t delivery_mode;     /* VLAPIC_DM_* */
    uint32_t shorthand;         /* 0 none, 1 self, 2 all incl. self, 3 all excl. self */
    bool logical;               /* destination mode */
    bool assert;                /* level: assert (ICR bit 14); INIT de-assert is not */
    uint32_t dest;              /* x2APIC destination, ICR bits 63:32 */
};

enum vlapic_mode {
    VLAPIC_MODE_DISABLED,       /* IA32_APIC_BASE.EN clear: no MMIO page, no x2APIC MSRs */
    VLAPIC_MODE_XAPIC,          /* EN: the registers in the page at the base address */
    VLAPIC_MODE_X2APIC,         /* EN and EXTD: the registers are MSRs 0x800-0x8ff */
};

struct vlapic {
    uint32_t id;                /* the initial (x2)APIC ID */
    uint64_t apic_base;
    uint8_t phys_bits;          /* MAXPHYADDR: base address bits above it are reserved */
    uint8_t xapic_id;           /* xAPIC mode's ID register (bits 31:24), writable */
    uint32_t xapic_ldr;         /* xAPIC mode's logical destination (bits 31:24) */
    uint32_t xapic_dfr;         /* xAPIC mode's destination format (bits 31:28) */
    uint32_t xapic_icr_high;    /* xAPIC mode's ICR bits 63:32 (destination in 31:24) */
    uint32_t tpr;
    uint32_t svr;
    uint32_t esr;               /* what the last ESR write latched */
    uint32_t esr_pending;       /* errors since that write */
    uint64_t icr;
    uint32_t lvt[VLAPIC_LVT_COUNT];
    uint32_t irr[8], isr[8], tmr[8];
    /* timer */
    uint64_t tsc_per_tick;      /* guest TSC ticks per APIC timer tick, before the divider */
    uint64_t timer_min_period;  /* shortest periodic period, guest TSC ticks (0: none) */
    uint32_t timer_icr;
    uint32_t timer_dcr;
    uint64_t timer_start_tsc;   /* when the count was (re)loaded */
    uint64_t timer_due_tsc;     /* next expiry, VLAPIC_NO_DEADLINE when disarmed */
    uint64_t tsc_deadline;      /* IA32_TSC_DEADLINE as the guest sees it */
    struct vlapic_ipi ipi;      /* valid after VLAPIC_IPI */
    bool no_x2apic;             /* x2APIC mode not supported: CPUID does not enumerate
                                   it and setting IA32_APIC_BASE.EXTD #GPs */
};

/* Power-on state (SDM Vol. 3A 11.4.7.1) but already in x2APIC mode:
 * IA32_APIC_BASE = 0xfee00000 | EN | EXTD (| BSP for `bsp`), every LVT
 * masked, SVR 0xff (software-disabled). The timer counts one tick per
 * `tsc_per_tick` guest TSC ticks (>= 1) before the divide configuration:
 * the rate CPUID leaf 0x15 reports as the crystal clock. */
void vlapic_init(struct vlapic *a, uint32_t apic_id, bool bsp, uint64_t tsc_per_tick);

/* The same power-on state in xAPIC mode, as after a reset:
 * IA32_APIC_BASE = 0xfee00000 | EN (| BSP), the MMIO page decoded. */
void vlapic_init_xapic(struct vlapic *a, uint32_t apic_id, bool bsp, uint64_t tsc_per_tick);

enum vlapic_mode vlapic_mode(const struct vlapic *a);

/* The guest-physical address of the xAPIC page (in every mode). */
uint64_t vlapic_mmio_base(const struct vlapic *a);

/* A 32-bit read of the xAPIC page at `offset` (16-byte aligned registers;
 * the caller checks the mode is xAPIC): reserved and write-only registers
 * read as 0, as do the bytes past a register's first dword. */
uint32_t vlapic_mmio_read(struct vlapic *a, uint32_t offset, uint64_t now_tsc);

/* A 32-bit write of the xAPIC page at `offset`: xAPIC mode ignores
 * writes to read-only and reserved registers and reserved bits (no #GP);
 * the ICR's low dword sends the IPI (VLAPIC_IPI / VLAPIC_NMI as for the
 * MSR, the destination from the high dword's bits 31:24). */
enum vlapic_status vlapic_mmio_write(struct vlapic *a, uint32_t offset, uint32_t value,
                                     uint64_t now_tsc);

/* IA32_APIC_BASE written (SDM 11.12.5): VLAPIC_GP for reserved bits and
 * the transitions the SDM forbids (x2APIC to xAPIC, disabled to x2APIC,
 * EXTD without EN); a change of the base address moves the page. */
enum vlapic_status vlapic_write_apic_base(struct vlapic *a, uint64_t value);

/* True for the MSRs vlapic_rdmsr/vlapic_wrmsr own: IA32_APIC_BASE,
 * IA32_TSC_DEADLINE and the whole x2APIC range 0x800-0x8ff (whose
 * unimplemented registers #GP). */
bool vlapic_owns_msr(uint32_t msr);

/* RDMSR of an owned MSR at guest TSC `now_tsc`: VLAPIC_OK with *value, or
 * VLAPIC_GP (write-only or reserved register, or an x2APIC register
 * outside x2APIC mode). */
enum vlapic_status vlapic_rdmsr(struct vlapic *a, uint32_t msr, uint64_t now_tsc,
                                uint64_t *value);

/* WRMSR of an owned MSR at guest TSC `now_tsc`. VLAPIC_GP for read-only
 * registers, reserved bits, a non-zero EOI/ESR write, an x2APIC register
 * outside x2APIC mode, a forbidden IA32_APIC_BASE change (as
 * vlapic_write_apic_base); VLAPIC_IPI when an ICR write must be routed by the
 * caller (a->ipi says what); VLAPIC_NMI for an NMI to self. */
enum vlapic_status vlapic_wrmsr(struct vlapic *a, uint32_t msr, uint64_t value,
                                uint64_t now_tsc);

/* The periodic timer's shortest period: VLAPIC_TIMER_MIN_PERIOD_US of a
 * TSC running at `tsc_hz`. A periodic count programmed shorter runs at
 * this period instead (its current count slows to match): a guest must
 * not make Vertigo inject interrupts, and so take exits, without bound
 * while costing itself no exit per period. KVM floors the same way
 * (its min_timer_period_us, 200 by default, for the LAPIC's and the
 * PIT's periodic modes); Linux's shortest periodic tick (HZ=1000) is
 * five times longer. One-shot and TSC-deadline modes need no floor:
 * each expiry costs the guest an exit to re-arm. */
#define VLAPIC_TIMER_MIN_PERIOD_US 200u
void vlapic_timer_set_min_period(struct vlapic *a, uint64_t tsc_hz);

/* Whether APIC `a` is a destination of `ipi` (VLAPIC_IPI's), `self` when
 * `a` sent it: shorthands, physical IDs and broadcasts, logical
 * destinations against its LDR (and DFR in xAPIC mode). */
bool vlapic_ipi_hits(const struct vlapic *a, const struct vlapic_ipi *ipi, bool self);

/* Fires the timer if it is due at `now_tsc` (sets its vector in the IRR
 * unless masked; a periodic timer reloads, several missed periods give
 * one interrupt). Call before asking for the pending vector. */
void vlapic_timer_advance(struct vlapic *a, uint64_t now_tsc);

/* The guest TSC at which the timer fires next (the VCPU must run, or be
 * woken from HLT, by then), VLAPIC_NO_DEADLINE when it is disarmed. */
uint64_t vlapic_next_deadline(const struct vlapic *a);

/* The vector to inject now: the highest in the IRR whose priority class
 * is above the PPR's (SDM 11.8.3.1), or -1 (always while disabled). */
int vlapic_pending_vector(const struct vlapic *a);

/* The caller injected `vector` (the one vlapic_pending_vector gave):
 * it moves from the IRR to the ISR. */
void vlapic_ack(struct vlapic *a, uint8_t vector);

/* An interrupt arrives from outside (another VCPU's fixed IPI, a virtual
 * device): sets the IRR bit (and TMR for `level`). Vectors 0-15 are
 * refused into the ESR as the SDM says. */
void vlapic_accept(struct vlapic *a, uint8_t vector, bool level);

/* Delivers local interrupt `which` as its LVT entry says: nothing if
 * masked, IRR for fixed mode (VLAPIC_OK), VLAPIC_NMI for NMI mode. */
enum vlapic_status vlapic_deliver_lvt(struct vlapic *a, enum vlapic_lvt which);

/* MOV from CR8 (SDM Vol. 3A 11.8.6): TPR bits 7:4. For a VMCS with
 * CR8-store exiting (without a TPR shadow CR8 would reach the real APIC). */
uint64_t vlapic_cr8_read(const struct vlapic *a);

/* MOV to CR8: TPR = value << 4; VLAPIC_GP when bits 63:4 are set. */
enum vlapic_status vlapic_cr8_write(struct vlapic *a, uint64_t value);

/* The processor priority (SDM 11.8.3.1). */
uint32_t vlapic_ppr(const struct vlapic *a);

#endif
