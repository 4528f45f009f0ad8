/* The domains declared with dom.N= beside domain 0 (vmm/domain/domain_config.h):
 * private domains, each with its VCPUs (dom.N.vcpus=, one for a unikernel
 * or a multiboot kernel) on distinct physical CPUs, its own RAM
 * (one 2 MiB-aligned block from Vertigo's page allocator, hidden from
 * domain 0 like Vertigo's own memory) and an EPT that maps only that RAM.
 * Kinds: the unikernel (include/vertigo/unikernel.h) and Linux with
 * virtual hardware only (vmm/domain/domain_vhw.h). */
#ifndef VMM_DOMAIN_PRIVATE_H
#define VMM_DOMAIN_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/loader/boot_info.h"
#include "vmm/domain/domain_config.h"
#include "vmm/page_alloc.h"

struct domain;

/* Reads and checks the dom.N= options (`cpus`: the CPUs online) and
 * their modules, and takes each domain's RAM from `pa`, adding the blocks
 * to `hidden` (*count grows; room for DOMAIN_MAX - 1). Any error ends the
 * run with a message naming the option, before any guest starts. Returns
 * the number of domains declared. */
unsigned int domains_reserve(const struct boot_info *bi, unsigned int cpus,
                             struct page_allocator *pa, struct phys_range *hidden,
                             size_t *count);

/* After VT-x is on and domain 0's VCPUs are in the scheduler: loads each
 * declared domain, builds its EPT and bitmaps, and adds each VCPU to the
 * scheduler of its CPU (the APs halted until their SIPI). Errors end the
 * run with a message. */
void domains_build(const struct boot_info *bi);

/* Loads Linux domain d's kernel, initrd and ACPI tables into its RAM
 * again and resets its virtual hardware, as domains_build did (its
 * kernel's command line then ends with " vertigo.boot=B", B =
 * d->restarts + 1); its VCPU's start state is built anew. */
void domains_reload(struct domain *d);

/* A VCPU of a domain domains_build set up that `cpu` may start now: a
 * domain's first VCPU placed there, or an AP there whose SIPI has come
 * (vcpu_sipi_take: taken by this call); NULL if none. */
struct vcpu *domains_first_vcpu(unsigned int cpu);

/* True if the command line declares any dom.N=. */
bool domains_declared(const char *cmdline);

/* No domain 0 (no Linux guest, guest=none): the declared domains run
 * alone, every one on CPU 0, the run ending with the last. Errors end the
 * run with a message. */
__attribute__((noreturn)) void domains_only_run(const struct boot_info *bi,
                                                struct page_allocator *pa);

#endif
