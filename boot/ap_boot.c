/* AP start-up with INIT-SIPI-SIPI (SDM Vol. 3A, 9.4.4.1 "Typical BSP
 * Initialization Sequence"). */
#include "boot/ap_boot.h"

#include "boot/apic.h"
#include "lib/cpu.h"
#include "boot/layout.h"
#include "boot/percpu.h"
#include "boot/platform.h"
#include "boot/traps.h"
#include "lib/console.h"
#include "lib/mem.h"
#include "boot/start.h"

extern const char ap_trampoline_start[], ap_trampoline_end[];
extern const char ap_tramp_params_offset[];

struct tramp_params {
    uint64_t cr3;
    uint64_t stack;
    uint64_t entry;
    uint32_t cpu;
} __attribute__((packed));

#define AP_STACK_SIZE 16384
#define INIT_DELAY_US 10000
#define SIPI_DELAY_US 200
#define ONLINE_WAIT_US 200000

static uint8_t ap_stacks[MAX_CPUS][AP_STACK_SIZE] __attribute__((aligned(16)));
static volatile uint32_t ap_online[MAX_CPUS];
static unsigned int cpus_online = 1;

unsigned int smp_cpus_online(void)
{
    return cpus_online;
}

void ap_entry(unsigned int cpu);

__attribute__((noreturn)) void ap_entry(unsigned int cpu)
{
    percpu_init(cpu);
    traps_init_cpu(cpu);
    this_cpu()->apic_id = apic_id();
    __atomic_store_n(&ap_online[cpu], 1, __ATOMIC_RELEASE);
    vcpu_ap_idle(cpu);
}

static void delay_us(uint64_t us)
{
    uint64_t hz = platform_tsc_hz() ? platform_tsc_hz() : 1000000000ull;
    uint64_t end = rdtsc() + hz / 1000000 * us;
    while (rdtsc() < end)
        cpu_relax();
}

static bool wait_online(unsigned int cpu, uint64_t us)
{
    uint64_t step = 100;
    for (uint64_t t = 0; t < us; t += step) {
        if (__atomic_load_n(&ap_online[cpu], __ATOMIC_ACQUIRE))
            return true;
        delay_us(step);
    }
    return false;
}

static bool start_one(unsigned int cpu, uint32_t apic)
{
    struct tramp_params *p = (struct tramp_params *)(AP_TRAMPOLINE_BASE +
                                                     (uintptr_t)ap_tramp_params_offset);
    p->cr3 = read_cr3();
    p->stack = (uint64_t)&ap_stacks[cpu][AP_STACK_SIZE];
    p->entry = (uint64_t)ap_entry;
    p->cpu = cpu;
    percpu_of(cpu)->apic_id = apic;

    apic_send_ipi(apic, APIC_ICR_INIT | APIC_ICR_LEVEL_ASSERT);
    delay_us(INIT_DELAY_US);
    for (int i = 0; i < 2 && !ap_online[cpu]; i++) {
        apic_send_ipi(apic, APIC_ICR_STARTUP | AP_TRAMPOLINE_VECTOR);
        delay_us(SIPI_DELAY_US);
    }
    return wait_online(cpu, ONLINE_WAIT_US);
}

unsigned int smp_start_aps(const uint32_t *apic_ids, unsigned int count)
{
    unsigned int online = 1;
    uint32_t self = apic_id();
    memcpy((void *)AP_TRAMPOLINE_BASE, ap_trampoline_start,
           (size_t)(ap_trampoline_end - ap_trampoline_start));
    this_cpu()->apic_id = self;
    /* The firmware may list the boot CPU anywhere: skip it, never INIT it. */
    for (unsigned int i = 0; i < count && online < MAX_CPUS; i++) {
        if (apic_ids[i] == self)
            continue;
        if (!start_one(online, apic_ids[i])) {
            printk("smp: CPU with APIC ID %u did not come online; continuing without it\n",
                   apic_ids[i]);
            break;
        }
        online++;
    }
    printk("smp: %u CPU(s) online\n", online);
    cpus_online = online;
    return online;
}
