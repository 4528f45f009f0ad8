/* The virtual PMU's registers (see pmu/vpmu/vpmu.h): CPUID leaf 0xA, the MSRs
 * with their reserved bits and #GP rules, RDPMC and LVTPC. Architectural
 * performance monitoring version 2: SDM Vol. 3B 20.2.1 (event selects,
 * counters), 20.2.2 (fixed counters, GLOBAL_CTRL/STATUS/OVF_CTRL), 20.2.6
 * (legacy writes); RDPMC in Vol. 2B. */
#include "pmu/vpmu/vpmu.h"

#include "lib/msr.h"

#define EVTSEL_RESERVED   0xffffffff00000000ull     /* bits 63:32 */
#define FIXED_FIELD_BITS  (VPMU_FIXED_OS | VPMU_FIXED_USR | VPMU_FIXED_PMI)
#define STATUS_OVF_BUF    (1ull << 62)
#define STATUS_COND_CHGD  (1ull << 63)
#define RDPMC_FIXED       (1u << 30)
#define RDPMC_FAST        (1u << 31)
#define LVT_WRITABLE      (0xffu | VPMU_LVT_MODE_MASK | VPMU_LVT_MASKED)   /* vector, mode, mask */
#define CPUID_EBX_LENGTH  VPMU_EV_COUNT

static uint64_t low_bits(unsigned int n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* GLOBAL_CTRL's and GLOBAL_STATUS's bits of the counters that exist: GP
 * counter k is bit k, fixed counter j bit 32 + j (20.2.2). */
static uint64_t counter_bits(const struct vpmu_config *config)
{
    return low_bits(config->gp_counters) | low_bits(config->fixed_counters) << 32;
}

void vpmu_init(struct vpmu *p, const struct vpmu_config *config)
{
    *p = (struct vpmu){ .config = *config, .lvtpc = VPMU_LVT_MASKED };
    if (p->config.gp_counters > VPMU_MAX_GP)
        p->config.gp_counters = VPMU_MAX_GP;
    if (p->config.fixed_counters > VPMU_MAX_FIXED)
        p->config.fixed_counters = VPMU_MAX_FIXED;
    p->counter_bits = counter_bits(&p->config);
    vpmu_derive(p);
}

/* EAX: version, counters, width, EBX length; EBX: a set bit is an
 * unavailable event; EDX: fixed counters and their width (20.2.1, 20.2.2). */
void vpmu_cpuid_leaf(const struct vpmu_config *config, uint32_t regs[4])
{
    regs[0] = VPMU_VERSION | config->gp_counters << 8 | VPMU_WIDTH << 16 |
              (uint32_t)CPUID_EBX_LENGTH << 24;
    regs[1] = ~config->available & low_bits(CPUID_EBX_LENGTH);
    regs[2] = 0;
    regs[3] = config->fixed_counters ? config->fixed_counters | VPMU_WIDTH << 5 : 0;
}

/* Index of msr within [base, base + count), or -1. */
static int index_in(uint32_t msr, uint32_t base, unsigned int count)
{
    return msr >= base && msr < base + count ? (int)(msr - base) : -1;
}

bool vpmu_owns_msr(const struct vpmu *p, uint32_t msr)
{
    (void)p;
    return index_in(msr, MSR_IA32_PERFEVTSEL0, 8) >= 0 || index_in(msr, MSR_IA32_PMC0, 8) >= 0 ||
           index_in(msr, MSR_IA32_A_PMC0, 8) >= 0 || index_in(msr, MSR_IA32_FIXED_CTR0, 4) >= 0 ||
           (msr >= MSR_IA32_FIXED_CTR_CTRL && msr <= MSR_IA32_PERF_GLOBAL_INUSE) ||
           msr == MSR_IA32_PERF_CAPABILITIES;
}

/* The MSR decoded as a write decodes it (vpmu_reg_of: the global
 * registers, GLOBAL_STATUS among them, first). */
enum vpmu_access vpmu_rdmsr(struct vpmu *p, uint32_t msr, uint64_t *value)
{
    struct vpmu_reg reg = vpmu_reg_of(p, msr);
    switch (reg.kind) {
    case VPMU_REG_GLOBAL_STATUS:
        *value = p->global_status;
        return VPMU_DONE;
    case VPMU_REG_GLOBAL_CTRL:
        *value = p->global_ctrl;
        return VPMU_DONE;
    case VPMU_REG_GLOBAL_OVF_CTRL:
        *value = 0;                     /* write-only in effect: reads 0 */
        return VPMU_DONE;
    case VPMU_REG_FIXED_CTRL:
        *value = p->fixed_ctrl;
        return VPMU_DONE;
    case VPMU_REG_EVTSEL:
        *value = p->evtsel[reg.index];
        return VPMU_DONE;
    case VPMU_REG_PMC:
        *value = p->pmc[reg.index];
        return VPMU_DONE;
    case VPMU_REG_FIXED:
        *value = p->fixed[reg.index];
        return VPMU_DONE;
    default:
        return VPMU_GP;
    }
}

static enum vpmu_access write_evtsel(struct vpmu *p, unsigned int k, uint64_t value)
{
    if (value & (EVTSEL_RESERVED | VPMU_EVTSEL_ANY))
        return VPMU_GP;
    p->evtsel[k] = value;
    vpmu_derive(p);
    return VPMU_DONE;
}

/* Legacy counter write (20.2.6): EAX sign-extended to the width, EDX
 * ignored. */
static enum vpmu_access write_pmc(struct vpmu *p, unsigned int k, uint64_t value)
{
    uint64_t extended = (uint64_t)(int64_t)(int32_t)(uint32_t)value;
    p->pmc[k] = extended & low_bits(VPMU_WIDTH);
    return VPMU_DONE;
}

/* Fixed counters take the width's bits; more is reserved. */
static enum vpmu_access write_fixed(struct vpmu *p, unsigned int j, uint64_t value)
{
    if (value & ~low_bits(VPMU_WIDTH))
        return VPMU_GP;
    p->fixed[j] = value;
    return VPMU_DONE;
}

static uint64_t fixed_ctrl_valid(const struct vpmu *p)
{
    uint64_t valid = 0;
    for (unsigned int j = 0; j < p->config.fixed_counters; j++)
        valid |= FIXED_FIELD_BITS << (4 * j);
    return valid;
}

static enum vpmu_access write_fixed_ctrl(struct vpmu *p, uint64_t value)
{
    if (value & ~fixed_ctrl_valid(p))
        return VPMU_GP;
    p->fixed_ctrl = value;
    vpmu_derive(p);
    return VPMU_DONE;
}

/* GLOBAL_CTRL only filters what the selects programmed. */
static enum vpmu_access write_global_ctrl(struct vpmu *p, uint64_t value)
{
    if (value & ~p->counter_bits)
        return VPMU_GP;
    p->global_ctrl = value;
    vpmu_derive_enabled(p);
    return VPMU_DONE;
}

/* GLOBAL_OVF_CTRL clears the status bits written as 1 (20.2.2). */
static enum vpmu_access write_ovf_ctrl(struct vpmu *p, uint64_t value)
{
    if (value & ~(p->counter_bits | STATUS_OVF_BUF | STATUS_COND_CHGD))
        return VPMU_GP;
    p->global_status &= ~value;
    return VPMU_DONE;
}

/* The global registers first: a guest's PMI handler writes them at every
 * PMI, its counters' values once each. */
struct vpmu_reg vpmu_reg_of(const struct vpmu *p, uint32_t msr)
{
    int k;
    switch (msr) {
    case MSR_IA32_PERF_GLOBAL_CTRL:
        return (struct vpmu_reg){ VPMU_REG_GLOBAL_CTRL, 0 };
    case MSR_IA32_PERF_GLOBAL_OVF_CTRL:
        return (struct vpmu_reg){ VPMU_REG_GLOBAL_OVF_CTRL, 0 };
    case MSR_IA32_PERF_GLOBAL_STATUS:
        return (struct vpmu_reg){ VPMU_REG_GLOBAL_STATUS, 0 };
    case MSR_IA32_FIXED_CTR_CTRL:
        return (struct vpmu_reg){ VPMU_REG_FIXED_CTRL, 0 };
    }
    if ((k = index_in(msr, MSR_IA32_PMC0, p->config.gp_counters)) >= 0)
        return (struct vpmu_reg){ VPMU_REG_PMC, (unsigned int)k };
    if ((k = index_in(msr, MSR_IA32_PERFEVTSEL0, p->config.gp_counters)) >= 0)
        return (struct vpmu_reg){ VPMU_REG_EVTSEL, (unsigned int)k };
    if ((k = index_in(msr, MSR_IA32_FIXED_CTR0, p->config.fixed_counters)) >= 0)
        return (struct vpmu_reg){ VPMU_REG_FIXED, (unsigned int)k };
    return (struct vpmu_reg){ VPMU_REG_NONE, 0 };
}

/* GLOBAL_STATUS is read-only (20.2.2); a register that does not exist
 * faults. */
enum vpmu_access vpmu_reg_write(struct vpmu *p, struct vpmu_reg reg, uint64_t value)
{
    switch (reg.kind) {
    case VPMU_REG_GLOBAL_CTRL:
        return write_global_ctrl(p, value);
    case VPMU_REG_GLOBAL_OVF_CTRL:
        return write_ovf_ctrl(p, value);
    case VPMU_REG_FIXED_CTRL:
        return write_fixed_ctrl(p, value);
    case VPMU_REG_PMC:
        return write_pmc(p, reg.index, value);
    case VPMU_REG_EVTSEL:
        return write_evtsel(p, reg.index, value);
    case VPMU_REG_FIXED:
        return write_fixed(p, reg.index, value);
    default:
        return VPMU_GP;
    }
}

enum vpmu_access vpmu_wrmsr(struct vpmu *p, uint32_t msr, uint64_t value)
{
    return vpmu_reg_write(p, vpmu_reg_of(p, msr), value);
}

bool vpmu_reg_write_changes_nothing(const struct vpmu *p, struct vpmu_reg reg, uint64_t value)
{
    switch (reg.kind) {
    case VPMU_REG_EVTSEL:
        return p->evtsel[reg.index] == value;
    case VPMU_REG_FIXED_CTRL:
        return p->fixed_ctrl == value;
    case VPMU_REG_GLOBAL_CTRL:
        return p->global_ctrl == value;
    case VPMU_REG_GLOBAL_OVF_CTRL:
        return value == 0;
    default:
        return false;
    }
}

enum vpmu_msr_role vpmu_reg_role(struct vpmu_reg reg)
{
    switch (reg.kind) {
    case VPMU_REG_PMC:
    case VPMU_REG_FIXED:
    case VPMU_REG_GLOBAL_OVF_CTRL:
        return VPMU_MSR_COUNT;
    case VPMU_REG_GLOBAL_CTRL:
        return VPMU_MSR_ENABLE;
    default:
        return VPMU_MSR_PROGRAM;
    }
}

/* RDPMC (SDM Vol. 2B): CPL 0 always, other levels only with CR4.PCE; the
 * index must name an existing counter; a fast read returns bits 31:0. */
enum vpmu_access vpmu_rdpmc(const struct vpmu *p, uint32_t ecx, unsigned int cpl, bool cr4_pce,
                            uint64_t *value)
{
    if (cpl != 0 && !cr4_pce)
        return VPMU_GP;
    uint32_t index = ecx & ~(RDPMC_FIXED | RDPMC_FAST);
    uint64_t counter;
    if (ecx & RDPMC_FIXED) {
        if (index >= p->config.fixed_counters)
            return VPMU_GP;
        counter = p->fixed[index];
    } else {
        if (index >= p->config.gp_counters)
            return VPMU_GP;
        counter = p->pmc[index];
    }
    *value = (ecx & RDPMC_FAST) ? (uint32_t)counter : counter;
    return VPMU_DONE;
}

uint32_t vpmu_lvtpc_read(const struct vpmu *p)
{
    return p->lvtpc;
}

void vpmu_lvtpc_write(struct vpmu *p, uint32_t value)
{
    p->lvtpc = value & LVT_WRITABLE;
}
