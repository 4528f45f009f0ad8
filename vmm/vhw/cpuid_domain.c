/* A Linux domain's CPUID policy (see vmm/vhw/cpuid_domain.h). Bit names
 * follow the SDM Vol. 2A CPUID tables. */
#include "vmm/vhw/cpuid_domain.h"

#include <stdbool.h>

#define LEAF1_ECX_DTES64        (1u << 2)
#define LEAF1_ECX_MONITOR       (1u << 3)
#define LEAF1_ECX_DS_CPL        (1u << 4)
#define LEAF1_ECX_VMX           (1u << 5)
#define LEAF1_ECX_SMX           (1u << 6)
#define LEAF1_ECX_EST           (1u << 7)
#define LEAF1_ECX_TM2           (1u << 8)
#define LEAF1_ECX_XTPR          (1u << 14)
#define LEAF1_ECX_PDCM          (1u << 15)
#define LEAF1_ECX_X2APIC        (1u << 21)
#define LEAF1_ECX_TSC_DEADLINE  (1u << 24)
#define LEAF1_ECX_HYPERVISOR    (1u << 31)
#define LEAF1_EDX_MCE           (1u << 7)
#define LEAF1_EDX_APIC          (1u << 9)
#define LEAF1_EDX_MCA           (1u << 14)
#define LEAF1_EDX_DS            (1u << 21)
#define LEAF1_EDX_ACPI          (1u << 22)
#define LEAF1_EDX_HTT           (1u << 28)
#define LEAF1_EDX_TM            (1u << 29)
#define LEAF1_EDX_PBE           (1u << 31)
#define LEAF6_EAX_ARAT          (1u << 2)
#define LEAF7_ECX_KEYLOCKER     (1u << 23)
#define LEAF7_EDX_HYBRID        (1u << 15)
#define LEAF7_EDX_PCONFIG       (1u << 18)
#define LEAFB_TYPE_SMT          1u
#define LEAFB_TYPE_CORE         2u
#define EXT_POWER_LEAF          0x80000007u
#define EXT_EDX_INVARIANT_TSC   (1u << 8)
#define EXTENDED_RANGE          0x80000000u
#define HYPERVISOR_RANGE        0x40000000u
#define CRYSTAL_MAX_HZ          0xffffffffull

uint64_t cpuid_domain_tsc_per_crystal(const struct cpuid_domain *d)
{
    /* the smallest ratio whose crystal fits */
    return d->tsc_hz <= CRYSTAL_MAX_HZ ? 1 : (d->tsc_hz + CRYSTAL_MAX_HZ - 1) / CRYSTAL_MAX_HZ;
}

/* Bits of an x2APIC ID that number the cores: enough for every VCPU. */
static uint32_t core_id_bits(unsigned int vcpus)
{
    uint32_t bits = 0;

    while ((1u << bits) < vcpus)
        bits++;
    return bits;
}

static void leaf_1(const struct cpuid_domain *d, uint32_t apic_id, struct cpuid_domain_regs *r)
{
    r->ebx = (r->ebx & 0xffffu) | (uint32_t)(d->vcpus & 0xffu) << 16 | (apic_id & 0xffu) << 24;
    r->ecx &= ~(LEAF1_ECX_DTES64 | LEAF1_ECX_MONITOR | LEAF1_ECX_DS_CPL | LEAF1_ECX_VMX |
                LEAF1_ECX_SMX | LEAF1_ECX_EST | LEAF1_ECX_TM2 | LEAF1_ECX_XTPR | LEAF1_ECX_PDCM);
    r->ecx |= LEAF1_ECX_X2APIC | LEAF1_ECX_TSC_DEADLINE | LEAF1_ECX_HYPERVISOR;
    r->edx &= ~(LEAF1_EDX_MCE | LEAF1_EDX_MCA | LEAF1_EDX_DS | LEAF1_EDX_ACPI |
                LEAF1_EDX_HTT | LEAF1_EDX_TM | LEAF1_EDX_PBE);
    r->edx |= LEAF1_EDX_APIC;
    if (d->vcpus > 1)
        r->edx |= LEAF1_EDX_HTT;    /* "more than one logical processor in the package" */
}

/* Deterministic cache parameters: one core per VCPU in the package, the
 * last level (3) shared by all of them, the others private. */
static void leaf_4(const struct cpuid_domain *d, struct cpuid_domain_regs *r)
{
    uint32_t level = (r->eax >> 5) & 7u, sharing = level >= 3 ? d->vcpus - 1 : 0;

    if ((r->eax & 0x1fu) == 0)
        return;                     /* no more caches */
    r->eax = (r->eax & 0x3fffu) | (sharing & 0xfffu) << 14 | ((d->vcpus - 1) & 0x3fu) << 26;
}

/* Extended topology: level 0 SMT (one thread per core, shift 0), level 1
 * core (every VCPU a core), then the invalid level that ends the list. */
static void leaf_b(const struct cpuid_domain *d, uint32_t apic_id, uint32_t subleaf,
                   struct cpuid_domain_regs *r)
{
    r->edx = apic_id;
    r->ecx = subleaf & 0xffu;
    if (subleaf == 0) {
        r->eax = 0;
        r->ebx = 1;
        r->ecx |= LEAFB_TYPE_SMT << 8;
    } else if (subleaf == 1) {
        r->eax = core_id_bits(d->vcpus);
        r->ebx = d->vcpus;
        r->ecx |= LEAFB_TYPE_CORE << 8;
    } else {
        r->eax = 0;
        r->ebx = 0;
    }
}

/* 0x15: TSC = crystal * EBX / EAX; 0x16: base, maximum and bus MHz. */
static void leaf_tsc(const struct cpuid_domain *d, uint32_t leaf, struct cpuid_domain_regs *r)
{
    uint64_t ratio = cpuid_domain_tsc_per_crystal(d);
    uint32_t crystal_hz = (uint32_t)(d->tsc_hz / ratio);
    uint32_t tsc_mhz = (uint32_t)(d->tsc_hz / 1000000u), crystal_mhz = crystal_hz / 1000000u;

    if (leaf == 0x15)
        *r = (struct cpuid_domain_regs){ 1, (uint32_t)ratio, crystal_hz, 0 };
    else
        *r = (struct cpuid_domain_regs){ tsc_mhz & 0xffffu, tsc_mhz & 0xffffu,
                                         crystal_mhz & 0xffffu, 0 };
}

/* Leaves this file writes whole, whatever the host has. */
static bool synthesized(uint32_t leaf)
{
    return leaf == 0x5 || leaf == 0x6 || leaf == 0xb || leaf == 0x15 || leaf == 0x16;
}

static void basic_leaf(const struct cpuid_domain *d, uint32_t apic_id, uint32_t leaf,
                       uint32_t subleaf, struct cpuid_domain_regs *r)
{
    if (leaf > CPUID_DOMAIN_MAX_BASIC_LEAF || (leaf > d->host_max_leaf && !synthesized(leaf))) {
        *r = (struct cpuid_domain_regs){ 0, 0, 0, 0 };
        return;
    }
    switch (leaf) {
    case 0x0:  r->eax = CPUID_DOMAIN_MAX_BASIC_LEAF; break;
    case 0x1:  leaf_1(d, apic_id, r); break;
    case 0x4:  leaf_4(d, r); break;
    case 0x5:  *r = (struct cpuid_domain_regs){ 0, 0, 0, 0 }; break;   /* MONITOR */
    case 0x6:  *r = (struct cpuid_domain_regs){ LEAF6_EAX_ARAT, 0, 0, 0 }; break;
    case 0x7:
        if (subleaf == 0) {
            r->ecx &= ~LEAF7_ECX_KEYLOCKER;     /* leaves past 0x16 are hidden */
            r->edx &= ~(LEAF7_EDX_HYBRID | LEAF7_EDX_PCONFIG);
        }
        break;
    case 0xb:  leaf_b(d, apic_id, subleaf, r); break;
    case 0x15:
    case 0x16: leaf_tsc(d, leaf, r); break;
    default:
        break;
    }
}

void cpuid_domain_apply(const struct cpuid_domain *d, uint32_t apic_id, uint32_t leaf,
                        uint32_t subleaf, struct cpuid_domain_regs *r)
{
    if (leaf < HYPERVISOR_RANGE)
        basic_leaf(d, apic_id, leaf, subleaf, r);
    else if (leaf == EXT_POWER_LEAF)
        *r = (struct cpuid_domain_regs){ 0, 0, 0, EXT_EDX_INVARIANT_TSC };
}
