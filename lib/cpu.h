/* Thin wrappers around x86 instructions: port I/O, MSRs, CPUID, control
 * registers, TSC. Only hardware-facing files include this header. */
#ifndef LIB_CPU_H
#define LIB_CPU_H

#include <stdbool.h>
#include <stdint.h>

struct cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r;
    __asm__ volatile("cpuid"
                     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(subleaf));
    return r;
}

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint16_t inw(uint16_t port)
{
    uint16_t v;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
                     : "memory");
}

/* MSR and RDPMC accesses that may #GP (probing): return 0 on success,
 * -1 when the instruction faulted. Implemented in lib/safe_access.S with
 * exception-table fix-ups (boot/traps.c). */
int rdmsr_safe(uint32_t msr, uint64_t *value);
int wrmsr_safe(uint32_t msr, uint64_t value);
int rdpmc_safe(uint32_t counter, uint64_t *value);
int xsetbv_safe(uint32_t xcr, uint64_t value);

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* read_REG / write_REG for the control and debug registers: MOV to or
 * from CRn or DRn. */
#define DEFINE_REG_ACCESS(reg)                                          \
    static inline uint64_t read_##reg(void)                             \
    {                                                                   \
        uint64_t v;                                                     \
        __asm__ volatile("mov %%" #reg ", %0" : "=r"(v));               \
        return v;                                                       \
    }                                                                   \
    static inline void write_##reg(uint64_t v)                          \
    {                                                                   \
        __asm__ volatile("mov %0, %%" #reg : : "r"(v) : "memory");      \
    }
DEFINE_REG_ACCESS(cr0)
DEFINE_REG_ACCESS(cr2)
DEFINE_REG_ACCESS(cr3)
DEFINE_REG_ACCESS(cr4)
DEFINE_REG_ACCESS(dr0)
DEFINE_REG_ACCESS(dr1)
DEFINE_REG_ACCESS(dr2)
DEFINE_REG_ACCESS(dr3)
DEFINE_REG_ACCESS(dr6)
#undef DEFINE_REG_ACCESS

static inline uint64_t read_rflags(void)
{
    uint64_t v;
    __asm__ volatile("pushfq; popq %0" : "=r"(v));
    return v;
}

static inline void cpu_relax(void)
{
    __asm__ volatile("pause" ::: "memory");
}

static inline void irq_disable(void)
{
    __asm__ volatile("cli" ::: "memory");
}

static inline void halt(void)
{
    __asm__ volatile("hlt" ::: "memory");
}

/* CR0 / CR4 bits (SDM Vol. 3A, 2.5 "Control Registers") */
#define CR0_PE (1ull << 0)
#define CR0_MP (1ull << 1)
#define CR0_ET (1ull << 4)
#define CR0_NE (1ull << 5)
#define CR0_WP (1ull << 16)
#define CR0_NW (1ull << 29)
#define CR0_CD (1ull << 30)
#define CR0_PG (1ull << 31)

#define CR4_PAE      (1ull << 5)
#define CR4_PGE      (1ull << 7)
#define CR4_PCE      (1ull << 8)   /* RDPMC allowed at any CPL */
#define CR4_OSFXSR   (1ull << 9)
#define CR4_VMXE     (1ull << 13)
#define CR4_OSXSAVE  (1ull << 18)

#define RFLAGS_IF    (1ull << 9)

/* CPUID feature bits Vertigo tests */
#define CPUID_1_ECX_VMX        (1u << 5)
#define CPUID_1_ECX_PDCM       (1u << 15)
#define CPUID_1_ECX_X2APIC     (1u << 21)
#define CPUID_1_ECX_XSAVE      (1u << 26)
#define CPUID_1_ECX_HYPERVISOR (1u << 31)
#define CPUID_80000001_EDX_LM  (1u << 29)
#define CPUID_80000001_EDX_1G  (1u << 26)

#endif
