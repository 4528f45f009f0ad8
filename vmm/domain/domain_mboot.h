/* A multiboot domain (dom.N=multiboot:KERNEL[:MODULE...]): a multiboot or
 * multiboot2 kernel, such as a kvm-unit-tests test, loaded by
 * vmm/loader/multiboot.h into the domain's RAM, with the virtual hardware such
 * kernels expect (vmm/domain/domain_vhw.h): the 16550 at 0x3f8, a local APIC that
 * starts in xAPIC mode (MMIO at 0xfee00000) and can switch to x2APIC, ACPI
 * tables in the BIOS area where a kernel scans for the RSDP, QEMU's
 * isa-debug-exit port at 0xf4 (the written code is the domain's verdict:
 * 0 PASS, anything else FAIL), fw_cfg's CPU count and RAM size, and QEMU's
 * pc-testdev (vmm/vhw/testdev.h): its data port at 0xe0 and, when the
 * caller gave the domain its 64 KiB of memory, the test memory at
 * 0xff000000. Its map: vmm/domain/domain_mboot_map.h. */
#ifndef VMM_DOMAIN_MBOOT_H
#define VMM_DOMAIN_MBOOT_H

#include <stdbool.h>
#include <stddef.h>

struct boot_info;
struct domain;
struct domain_spec;
struct guest_mem;
struct linux_boot_state;

/* Builds multiboot domain d as `spec` declares it in its RAM (`ram`:
 * guest-physical [0, spec->mem_bytes)). False when the image is refused
 * (no header, not ELF, a segment outside the RAM, a module too big, a bad
 * header address, ...): `why` then says which rule it broke, and the
 * domain must not run. The command line is dom.N.cmdline= if given, else
 * the rest of the kernel module's line; each module's string is the rest
 * of its line. `testdev`: the domain has the test memory (mapped by the
 * caller): its devices say so. */
bool domain_mboot_build(const struct boot_info *bi, struct domain *d,
                        const struct domain_spec *spec, const struct guest_mem *ram,
                        bool testdev, struct linux_boot_state *start, char *why,
                        size_t why_size);

#endif
