# Linux guest loader: bzImage parsing, guest e820 construction, boot_params
# and initial VCPU state. Portable: built into the hypervisor and into
# host unit tests.
HV_SRCS     += vmm/bzimage.c vmm/e820.c vmm/linux_boot.c
HEADERS_HV  += vmm/bzimage.h vmm/e820.h vmm/linux_boot.h

UNIT_TESTS  += bzimage e820
unit_bzimage_SRCS := tests/unit/test_bzimage.c vmm/bzimage.c vmm/e820.c vmm/linux_boot.c
unit_e820_SRCS    := tests/unit/test_e820.c vmm/e820.c
