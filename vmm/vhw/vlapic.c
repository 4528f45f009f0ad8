/* The virtual x2APIC's registers and interrupt priority (SDM Vol. 3A
 * ch. 11): MSR reads and writes with the #GP rules of x2APIC mode
 * (11.12.1.2), IRR/ISR/TMR, TPR/PPR, EOI, self-IPIs and the LVT. The
 * timer's arithmetic is in vmm/vhw/vlapic_timer.c. */
#include "vmm/vhw/vlapic.h"
#include "vmm/vhw/vlapic_regs.h"
#include "vmm/vhw/vlapic_timer.h"

#define LVT_VECTOR     0xffu
#define LVT_STATUS     (1u << 12)       /* delivery status: read-only */
#define LVT_POLARITY   (1u << 13)
#define LVT_REMOTE_IRR (1u << 14)       /* read-only */
#define LVT_TRIGGER    (1u << 15)
#define SVR_FOCUS_OFF  (1u << 9)
#define ICR_DEST_LOGICAL (1u << 11)
#define ICR_LEVEL      (1u << 14)
#define ICR_TRIGGER    (1u << 15)
#define ICR_SHORTHAND_SHIFT 18
#define SHORTHAND_NONE 0u
#define SHORTHAND_SELF 1u
#define DCR_BITS       0xbu
#define DEFAULT_PHYS_BITS 48

/* Bits a write may set in each LVT entry; the read-only ones (delivery
 * status, remote IRR) are accepted and ignored, any other set bit #GPs. */
const uint32_t vlapic_lvt_writable[VLAPIC_LVT_COUNT] = {
    [VLAPIC_LVT_TIMER]   = LVT_VECTOR | VLAPIC_LVT_MASKED | VLAPIC_TIMER_MODE_MASK,
    [VLAPIC_LVT_THERMAL] = LVT_VECTOR | VLAPIC_DM_MASK | VLAPIC_LVT_MASKED,
    [VLAPIC_LVT_PERF]    = LVT_VECTOR | VLAPIC_DM_MASK | VLAPIC_LVT_MASKED,
    [VLAPIC_LVT_LINT0]   = LVT_VECTOR | VLAPIC_DM_MASK | LVT_POLARITY | LVT_TRIGGER |
                           VLAPIC_LVT_MASKED,
    [VLAPIC_LVT_LINT1]   = LVT_VECTOR | VLAPIC_DM_MASK | LVT_POLARITY | LVT_TRIGGER |
                           VLAPIC_LVT_MASKED,
    [VLAPIC_LVT_ERROR]   = LVT_VECTOR | VLAPIC_LVT_MASKED,
};

/* ---- vector bitmaps ---- */

static void bit_set(uint32_t *map, unsigned int v, bool on)
{
    if (on)
        map[v / 32] |= 1u << (v % 32);
    else
        map[v / 32] &= ~(1u << (v % 32));
}

/* Highest set vector, or -1. */
static int bit_highest(const uint32_t *map)
{
    for (int word = 7; word >= 0; word--)
        if (map[word])
            return word * 32 + 31 - __builtin_clz(map[word]);
    return -1;
}

/* ---- priority (SDM 11.8.3.1) ---- */

uint32_t vlapic_ppr(const struct vlapic *a)
{
    int isrv = bit_highest(a->isr);
    uint32_t isr_class = isrv < 0 ? 0 : (uint32_t)isrv & 0xf0u;

    return (a->tpr & 0xf0u) >= isr_class ? a->tpr : isr_class;
}

int vlapic_pending_vector(const struct vlapic *a)
{
    if (vlapic_mode(a) == VLAPIC_MODE_DISABLED)
        return -1;
    int irrv = bit_highest(a->irr);

    if (irrv < 0 || ((uint32_t)irrv & 0xf0u) <= (vlapic_ppr(a) & 0xf0u))
        return -1;
    return irrv;
}

void vlapic_ack(struct vlapic *a, uint8_t vector)
{
    bit_set(a->irr, vector, false);
    bit_set(a->isr, vector, true);
}

static void record_error(struct vlapic *a, uint32_t esr_bit)
{
    bool first = (a->esr_pending & esr_bit) == 0;

    a->esr_pending |= esr_bit;
    if (first)
        vlapic_deliver_lvt(a, VLAPIC_LVT_ERROR);
}

/* SDM 11.5.3: vectors 0-15 are illegal; the receiving APIC logs them. */
void vlapic_accept(struct vlapic *a, uint8_t vector, bool level)
{
    if (vector < 16) {
        record_error(a, VLAPIC_ESR_RECV_ILLEGAL);
        return;
    }
    bit_set(a->irr, vector, true);
    bit_set(a->tmr, vector, level);
}

/* The timer and error entries have no delivery mode: always fixed. Of the
 * others' modes, fixed and NMI are modelled; SMI, INIT and ExtINT (there is
 * no 8259 behind LINT0) deliver nothing. */
enum vlapic_status vlapic_deliver_lvt(struct vlapic *a, enum vlapic_lvt which)
{
    uint32_t lvt = a->lvt[which];
    bool has_mode = which != VLAPIC_LVT_TIMER && which != VLAPIC_LVT_ERROR;
    uint32_t dm = has_mode ? lvt & VLAPIC_DM_MASK : VLAPIC_DM_FIXED;
    bool lint = which == VLAPIC_LVT_LINT0 || which == VLAPIC_LVT_LINT1;

    if (lvt & VLAPIC_LVT_MASKED)
        return VLAPIC_OK;
    if (dm == VLAPIC_DM_NMI)
        return VLAPIC_NMI;
    if (dm == VLAPIC_DM_FIXED)
        vlapic_accept(a, (uint8_t)(lvt & LVT_VECTOR), lint && (lvt & LVT_TRIGGER));
    return VLAPIC_OK;
}

/* EOI: the highest in-service vector is done (SDM 11.8.5). With no I/O
 * APIC there is nobody to broadcast a level EOI to: TMR just clears. */
static void eoi(struct vlapic *a)
{
    int v = bit_highest(a->isr);

    if (v < 0)
        return;
    bit_set(a->isr, (unsigned int)v, false);
    bit_set(a->tmr, (unsigned int)v, false);
}

uint64_t vlapic_cr8_read(const struct vlapic *a)
{
    return (a->tpr >> 4) & 0xfu;
}

enum vlapic_status vlapic_cr8_write(struct vlapic *a, uint64_t value)
{
    if (value & ~0xfull)
        return VLAPIC_GP;
    a->tpr = (uint32_t)value << 4;
    return VLAPIC_OK;
}

/* ---- power-on state ---- */

static bool software_enabled(const struct vlapic *a)
{
    return (a->svr & VLAPIC_SVR_ENABLE) != 0;
}

void vlapic_init(struct vlapic *a, uint32_t apic_id, bool bsp, uint64_t tsc_per_tick)
{
    *a = (struct vlapic){ 0 };
    a->id = apic_id;
    a->apic_base = VLAPIC_BASE_DEFAULT | VLAPIC_BASE_EN | VLAPIC_BASE_EXTD |
                   (bsp ? VLAPIC_BASE_BSP : 0);
    a->phys_bits = DEFAULT_PHYS_BITS;
    a->xapic_id = (uint8_t)apic_id;
    a->xapic_dfr = 0xffffffffu;
    a->svr = 0xff;
    for (int i = 0; i < VLAPIC_LVT_COUNT; i++)
        a->lvt[i] = VLAPIC_LVT_MASKED;
    a->tsc_per_tick = tsc_per_tick ? tsc_per_tick : 1;
    a->timer_due_tsc = VLAPIC_NO_DEADLINE;
}

bool vlapic_owns_msr(uint32_t msr)
{
    return msr == VLAPIC_MSR_APIC_BASE || msr == VLAPIC_MSR_TSC_DEADLINE ||
           (msr >= 0x800 && msr <= 0x8ff);
}

/* ---- reads ---- */

static int lvt_index(uint32_t msr)
{
    if (msr >= VLAPIC_MSR_LVT_TIMER && msr <= VLAPIC_MSR_LVT_ERROR)
        return (int)(msr - VLAPIC_MSR_LVT_TIMER);
    return -1;
}

/* x2APIC logical ID (SDM 11.12.10.2): cluster in 31:16, one bit in 15:0. */
static uint32_t logical_id(uint32_t id)
{
    return ((id >> 4) << 16) | (1u << (id & 0xfu));
}

static bool read_bitmaps(const struct vlapic *a, uint32_t msr, uint64_t *value)
{
    if (msr >= VLAPIC_MSR_ISR0 && msr < VLAPIC_MSR_ISR0 + 8)
        *value = a->isr[msr - VLAPIC_MSR_ISR0];
    else if (msr >= VLAPIC_MSR_TMR0 && msr < VLAPIC_MSR_TMR0 + 8)
        *value = a->tmr[msr - VLAPIC_MSR_TMR0];
    else if (msr >= VLAPIC_MSR_IRR0 && msr < VLAPIC_MSR_IRR0 + 8)
        *value = a->irr[msr - VLAPIC_MSR_IRR0];
    else
        return false;
    return true;
}

bool vlapic_read_register(struct vlapic *a, uint32_t msr, uint64_t now_tsc, uint64_t *value)
{
    switch (msr) {
    case VLAPIC_MSR_APIC_BASE:   *value = a->apic_base; return true;
    case VLAPIC_MSR_TSC_DEADLINE: *value = vlapic_timer_get_deadline(a); return true;
    case VLAPIC_MSR_ID:          *value = a->id; return true;
    case VLAPIC_MSR_VERSION:     *value = VLAPIC_VERSION; return true;
    case VLAPIC_MSR_TPR:         *value = a->tpr; return true;
    case VLAPIC_MSR_PPR:         *value = vlapic_ppr(a); return true;
    case VLAPIC_MSR_LDR:         *value = logical_id(a->id); return true;
    case VLAPIC_MSR_SVR:         *value = a->svr; return true;
    case VLAPIC_MSR_ESR:         *value = a->esr; return true;
    case VLAPIC_MSR_ICR:         *value = a->icr; return true;
    case VLAPIC_MSR_TIMER_ICR:   *value = a->timer_icr; return true;
    case VLAPIC_MSR_TIMER_CCR:   *value = vlapic_timer_current(a, now_tsc); return true;
    case VLAPIC_MSR_TIMER_DCR:   *value = a->timer_dcr; return true;
    default:                     break;
    }
    if (lvt_index(msr) >= 0) {
        *value = a->lvt[lvt_index(msr)];
        return true;
    }
    return read_bitmaps(a, msr, value);
}

/* The x2APIC registers exist as MSRs only in x2APIC mode (SDM 11.12.1.2). */
static bool x2apic_register(const struct vlapic *a, uint32_t msr)
{
    return msr == VLAPIC_MSR_APIC_BASE || msr == VLAPIC_MSR_TSC_DEADLINE ||
           vlapic_mode(a) == VLAPIC_MODE_X2APIC;
}

/* EOI and SELF IPI are write-only; CMCI and every unlisted offset are
 * reserved here: RDMSR of them #GPs (SDM 11.12.1.2). */
enum vlapic_status vlapic_rdmsr(struct vlapic *a, uint32_t msr, uint64_t now_tsc,
                                uint64_t *value)
{
    vlapic_timer_advance(a, now_tsc);
    if (!x2apic_register(a, msr))
        return VLAPIC_GP;
    return vlapic_read_register(a, msr, now_tsc, value) ? VLAPIC_OK : VLAPIC_GP;
}

/* ---- writes ---- */

static enum vlapic_status write_lvt(struct vlapic *a, enum vlapic_lvt which, uint32_t value)
{
    uint32_t ignored = LVT_STATUS | LVT_REMOTE_IRR;

    if (value & ~(vlapic_lvt_writable[which] | ignored))
        return VLAPIC_GP;
    value &= vlapic_lvt_writable[which];
    if (which == VLAPIC_LVT_TIMER &&
        (value & VLAPIC_TIMER_MODE_MASK) == VLAPIC_TIMER_MODE_MASK)
        return VLAPIC_GP;           /* mode 11b is reserved */
    if (!software_enabled(a))
        value |= VLAPIC_LVT_MASKED; /* SDM 11.4.7.2 */
    if (which == VLAPIC_LVT_TIMER)
        vlapic_timer_set_lvt(a, value);
    else
        a->lvt[which] = value;
    return VLAPIC_OK;
}

static enum vlapic_status write_svr(struct vlapic *a, uint32_t value)
{
    if (value & ~(LVT_VECTOR | VLAPIC_SVR_ENABLE | SVR_FOCUS_OFF))
        return VLAPIC_GP;   /* bit 12 (EOI broadcast suppression) is not offered */
    a->svr = value;
    if (!software_enabled(a))
        for (int i = 0; i < VLAPIC_LVT_COUNT; i++)
            a->lvt[i] |= VLAPIC_LVT_MASKED;
    return VLAPIC_OK;
}

/* A fixed IPI or NMI to this APIC alone (the self shorthand, or its own
 * physical ID in the current mode's format) is delivered here; any other
 * goes to the caller, who asks vlapic_ipi_hits for each APIC. */
enum vlapic_status vlapic_send_ipi(struct vlapic *a, uint64_t icr)
{
    uint32_t low = (uint32_t)icr, shorthand = (low >> ICR_SHORTHAND_SHIFT) & 3u;
    uint32_t dm = low & VLAPIC_DM_MASK, dest = (uint32_t)(icr >> 32);
    bool logical = (low & ICR_DEST_LOGICAL) != 0;
    uint32_t own = vlapic_mode(a) == VLAPIC_MODE_X2APIC ? a->id : a->xapic_id;
    bool to_self = shorthand == SHORTHAND_SELF ||
                   (shorthand == SHORTHAND_NONE && !logical && dest == own);

    if (to_self && dm == VLAPIC_DM_FIXED) {
        if ((low & LVT_VECTOR) < 16)
            record_error(a, VLAPIC_ESR_SEND_ILLEGAL);
        else
            vlapic_accept(a, (uint8_t)low, false);
        return VLAPIC_OK;
    }
    if (to_self && dm == VLAPIC_DM_NMI)
        return VLAPIC_NMI;
    a->ipi = (struct vlapic_ipi){ .vector = (uint8_t)low, .delivery_mode = dm,
                                  .shorthand = shorthand, .logical = logical, .dest = dest,
                                  .assert = (low & ICR_LEVEL) != 0 };
    return VLAPIC_IPI;
}

/* SDM Vol. 3A 11.6.2: physical destinations (the all-ones broadcast:
 * 0xff in xAPIC mode, 0xffffffff in x2APIC mode), logical ones matched
 * against the LDR (x2APIC: cluster in 31:16 and a bit in 15:0; xAPIC:
 * the flat model's bitmask or the cluster model's cluster and bits, as
 * the DFR says). */
bool vlapic_ipi_hits(const struct vlapic *a, const struct vlapic_ipi *ipi, bool self)
{
    if (ipi->shorthand == SHORTHAND_SELF)
        return self;
    if (ipi->shorthand == 2)
        return true;
    if (ipi->shorthand == 3)
        return !self;
    bool x2 = vlapic_mode(a) == VLAPIC_MODE_X2APIC;
    if (!ipi->logical)
        return x2 ? ipi->dest == 0xffffffffu || ipi->dest == a->id
                  : (ipi->dest & 0xffu) == 0xffu || (ipi->dest & 0xffu) == a->xapic_id;
    if (x2) {
        uint32_t ldr = logical_id(a->id);
        return (ipi->dest >> 16) == (ldr >> 16) && (ipi->dest & ldr & 0xffffu) != 0;
    }
    uint32_t dest = ipi->dest & 0xffu, ldr = a->xapic_ldr >> 24;
    if ((a->xapic_dfr >> 28) == 0xfu)
        return (dest & ldr) != 0;                                   /* flat */
    return ((dest >> 4) == 0xfu || (dest >> 4) == (ldr >> 4)) && (dest & ldr & 0xfu) != 0;
}

/* ICR in x2APIC mode: bits 12, 13, 16-17 and 20-31 are reserved. */
#define ICR_WRITABLE (0xffffffff00000000ull | LVT_VECTOR | VLAPIC_DM_MASK | \
                      ICR_DEST_LOGICAL | ICR_LEVEL | ICR_TRIGGER | (3u << ICR_SHORTHAND_SHIFT))

static enum vlapic_status write_icr(struct vlapic *a, uint64_t value)
{
    uint32_t dm = (uint32_t)value & VLAPIC_DM_MASK;

    if ((value & ~ICR_WRITABLE) || dm == VLAPIC_DM_EXTINT || dm == (3u << 8))
        return VLAPIC_GP;
    a->icr = value;
    return vlapic_send_ipi(a, value);
}

static enum vlapic_status write_esr(struct vlapic *a, uint64_t value)
{
    if (value != 0)
        return VLAPIC_GP;   /* SDM 11.12.1.2: non-zero ESR writes #GP */
    a->esr = a->esr_pending;
    a->esr_pending = 0;
    return VLAPIC_OK;
}

static enum vlapic_status write_timer(struct vlapic *a, uint32_t msr, uint32_t value,
                                      uint64_t now_tsc)
{
    if (msr == VLAPIC_MSR_TIMER_ICR) {
        vlapic_timer_set_initial(a, value, now_tsc);
        return VLAPIC_OK;
    }
    if (value & ~DCR_BITS)
        return VLAPIC_GP;
    vlapic_timer_set_divide(a, value, now_tsc);
    return VLAPIC_OK;
}

enum vlapic_status vlapic_write_register(struct vlapic *a, uint32_t msr, uint64_t value,
                                         uint64_t now_tsc)
{
    uint32_t low = (uint32_t)value;

    if (msr == VLAPIC_MSR_ICR)
        return write_icr(a, value);
    if (value >> 32)
        return VLAPIC_GP;   /* every other x2APIC register is 32 bits */
    switch (msr) {
    case VLAPIC_MSR_TPR:
        if (low & ~0xffu)
            return VLAPIC_GP;
        a->tpr = low;
        return VLAPIC_OK;
    case VLAPIC_MSR_EOI:
        if (low != 0)
            return VLAPIC_GP;
        eoi(a);
        return VLAPIC_OK;
    case VLAPIC_MSR_SVR:      return write_svr(a, low);
    case VLAPIC_MSR_ESR:      return write_esr(a, value);
    case VLAPIC_MSR_SELF_IPI:
        if (low & ~LVT_VECTOR)
            return VLAPIC_GP;
        return vlapic_send_ipi(a, (uint64_t)SHORTHAND_SELF << ICR_SHORTHAND_SHIFT | low);
    case VLAPIC_MSR_TIMER_ICR:
    case VLAPIC_MSR_TIMER_DCR:
        return write_timer(a, msr, low, now_tsc);
    default:
        break;
    }
    if (lvt_index(msr) >= 0)
        return write_lvt(a, (enum vlapic_lvt)lvt_index(msr), low);
    return VLAPIC_GP;   /* read-only (ID, version, PPR, LDR, ISR/TMR/IRR, CCR) or reserved */
}

enum vlapic_status vlapic_wrmsr(struct vlapic *a, uint32_t msr, uint64_t value,
                                uint64_t now_tsc)
{
    vlapic_timer_advance(a, now_tsc);
    if (msr == VLAPIC_MSR_APIC_BASE)
        return vlapic_write_apic_base(a, value);
    if (msr == VLAPIC_MSR_TSC_DEADLINE) {
        vlapic_timer_set_deadline(a, value);
        vlapic_timer_advance(a, now_tsc);   /* a deadline in the past fires now */
        return VLAPIC_OK;
    }
    if (!x2apic_register(a, msr))
        return VLAPIC_GP;
    return vlapic_write_register(a, msr, value, now_tsc);
}
