/* Domains declared on Vertigo's command line, beside domain 0:
 *     dom.N=unikernel:MODULE  or  dom.N=linux:KERNEL_MODULE:INITRD_MODULE  or
 *     dom.N=multiboot:KERNEL_MODULE[:MODULE...]  (N = 1..7; up to 8 modules)
 *     dom.N.mem=SIZE   (K/M/G; a 2 MiB multiple, at least 4M; default 32M
 *                       for a unikernel, 256M for Linux, 128M for multiboot)
 *     dom.N.cmdline=TEXT (multiboot: the kernel's command line, quoted if
 *                       it has spaces; default: the rest of its module's line)
 *     dom.N.cpu=C      (the physical CPU its one VCPU runs on; default 0)
 *     dom.N.vcpus=K    (Linux: its VCPUs, 1..8, each on its own CPU; default 1)
 *     dom.N.cpus=C,... (the CPU of each VCPU in order, distinct; without
 *                       dom.N.vcpus= the list's length is the count;
 *                       default: VCPU i on CPU i, or dom.N.cpu= for one)
 *     dom.N.x2apic=off (multiboot: CPUID enumerates no x2APIC and the APIC
 *                       cannot be switched to it, as QEMU's -cpu ...,-x2apic;
 *                       default on)
 *     dom.N.name=NAME  (default domN; letters, digits, '-', '_')
 *     dom.N.on_reboot=restart|end (Linux: a reset request restarts the
 *                       domain from its kernel and initrd, or ends it as
 *                       "reset"; default end)
 *     sched.slice=TIME (10ms, 500us, 1s; default 10ms)
 * MODULE names are GRUB module roles (vmm/loader/guest_modules.h). Portable and
 * host-tested. */
#ifndef VMM_DOMAIN_CONFIG_H
#define VMM_DOMAIN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DOMAIN_MAX          8u      /* domain 0 and dom.1 .. dom.7 */
#define DOMAIN_ROLE_MAX     32u     /* module role with its NUL */
#define DOMAIN_NAME_MAX     16u     /* name with its NUL */
#define DOMAIN_MODULES_MAX  8u      /* a multiboot kernel's modules */
#define DOMAIN_CMDLINE_MAX  512u    /* dom.N.cmdline= with its NUL */
#define DOMAIN_VCPUS_MAX    8u      /* dom.N.vcpus= */

#define DOMAIN_MEM_ALIGN    (2ull << 20)
#define DOMAIN_MEM_MIN      (4ull << 20)
#define DOMAIN_MEM_MAX      (64ull << 30)
#define SCHED_SLICE_DEFAULT_US 10000u
#define SCHED_SLICE_MIN_US  100u
#define SCHED_SLICE_MAX_US  1000000u

enum domain_kind {
    DOMAIN_KIND_NONE,           /* not declared */
    DOMAIN_KIND_UNIKERNEL,
    DOMAIN_KIND_LINUX,
    DOMAIN_KIND_MULTIBOOT,
};

struct domain_spec {
    enum domain_kind kind;
    char module[DOMAIN_ROLE_MAX];   /* unikernel image, Linux or multiboot kernel role */
    char initrd[DOMAIN_ROLE_MAX];   /* Linux only */
    char modules[DOMAIN_MODULES_MAX][DOMAIN_ROLE_MAX];  /* multiboot only, in order */
    unsigned int module_count;
    bool has_cmdline;               /* dom.N.cmdline= given (multiboot only) */
    char cmdline[DOMAIN_CMDLINE_MAX];
    uint64_t mem_bytes;
    unsigned int vcpus;             /* 1..DOMAIN_VCPUS_MAX */
    unsigned int cpus[DOMAIN_VCPUS_MAX];    /* the physical CPU of each VCPU, distinct */
    bool no_x2apic;                 /* dom.N.x2apic=off (multiboot only) */
    bool restart_on_reboot;         /* dom.N.on_reboot=restart (Linux only) */
    char name[DOMAIN_NAME_MAX];
};

struct domain_config {
    struct domain_spec dom[DOMAIN_MAX];   /* [0] is domain 0: kind NONE, name dom0 */
    unsigned int count;                   /* domains declared beside domain 0 */
    uint32_t slice_us;                    /* sched.slice= */
};

/* Reads every dom.* and sched.slice option of `cmdline`. `cpus` is the
 * number of physical CPUs (every CPU named must be below it). On a bad value
 * returns false with a specific message naming the option in `err`. */
bool domain_config_parse(const char *cmdline, unsigned int cpus,
                         struct domain_config *cfg, char *err, size_t err_size);

/* Parses a time slice: a decimal number with unit us, ms or s, between
 * SCHED_SLICE_MIN_US and SCHED_SLICE_MAX_US. */
bool sched_slice_parse(const char *text, uint32_t *slice_us);

/* The slice in TSC ticks at `tsc_hz` (at least 1). */
uint64_t sched_slice_ticks(uint32_t slice_us, uint64_t tsc_hz);

#endif
