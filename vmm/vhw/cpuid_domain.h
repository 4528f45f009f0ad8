/* What CPUID tells a Linux domain other than domain 0 about its virtual
 * machine: an x2APIC with a TSC-deadline timer, no MONITOR/MWAIT, the
 * hypervisor bit, the TSC and crystal (APIC timer) rates in leaves
 * 0x15/0x16 so Linux calibrates nothing, a leaf 0xB topology of one
 * thread per core and one core per VCPU, and no machine-check, thermal or
 * power-management features it has no model of. Portable: the CPUID exit
 * handler takes the host's values (already filtered for every guest, the
 * virtual PMU's leaf 0xA already applied) and passes them through
 * cpuid_domain_apply. Vertigo's own leaves (0x40000000 on) are not this
 * file's. */
#ifndef VMM_CPUID_DOMAIN_H
#define VMM_CPUID_DOMAIN_H

#include <stdint.h>

#define CPUID_DOMAIN_MAX_BASIC_LEAF 0x16

struct cpuid_domain_regs {
    uint32_t eax, ebx, ecx, edx;
};

struct cpuid_domain {
    unsigned int vcpus;     /* VCPUs of the domain (APIC IDs 0..vcpus-1), 1..255 */
    uint64_t tsc_hz;        /* the guest TSC's rate */
    uint32_t host_max_leaf; /* the host's leaf 0 EAX: the host's answers past it are
                               not leaves (the SDM returns the highest leaf's data) */
};

/* Guest TSC ticks per tick of the crystal clock leaf 0x15 reports, which
 * is the APIC timer's input (vlapic_init's tsc_per_tick): 1 unless the
 * TSC rate does not fit leaf 0x15's 32-bit crystal field. */
uint64_t cpuid_domain_tsc_per_crystal(const struct cpuid_domain *d);

/* Rewrites *r, the host's (filtered) answer to CPUID leaf/subleaf, into
 * the domain's answer for the VCPU with x2APIC ID `apic_id`. Basic leaves
 * above CPUID_DOMAIN_MAX_BASIC_LEAF, and above the host's maximum unless
 * made here (0xB, 0x15, 0x16), read as zero; leaf 0xA and the extended
 * range (but 0x80000007's invariant TSC) pass as given. */
void cpuid_domain_apply(const struct cpuid_domain *d, uint32_t apic_id, uint32_t leaf,
                        uint32_t subleaf, struct cpuid_domain_regs *r);

#endif
