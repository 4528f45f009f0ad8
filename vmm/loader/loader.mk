# vmm/loader/: what the boot loader hands over (the multiboot2 information,
# the modules by role) and loading guests from it: bzImage parsing, the
# guest e820, boot_params and the initial VCPU state of a Linux guest, and
# unikernel domains (include/vertigo/unikernel.h). Portable: built into the
# hypervisor and into host unit tests.
LOADER_HEADERS := vmm/loader/boot_info.h vmm/loader/mb2.h vmm/loader/guest_modules.h
HV_SRCS      += vmm/loader/mb2.c vmm/loader/guest_modules.c
HEADERS_HV   += $(LOADER_HEADERS)
HEADERS_HOST += $(LOADER_HEADERS)
UNIT_TESTS += mb2 guest_modules
unit_mb2_SRCS           := tests/unit/test_mb2.c vmm/loader/mb2.c
unit_guest_modules_SRCS := tests/unit/test_guest_modules.c vmm/loader/guest_modules.c lib/format.c

HV_SRCS     += vmm/loader/bzimage.c vmm/loader/e820.c vmm/loader/linux_boot.c
HEADERS_HV  += vmm/loader/bzimage.h vmm/loader/e820.h vmm/loader/linux_boot.h

UNIT_TESTS  += bzimage e820
unit_bzimage_SRCS := tests/unit/test_bzimage.c vmm/loader/bzimage.c vmm/loader/e820.c vmm/loader/linux_boot.c
unit_e820_SRCS    := tests/unit/test_e820.c vmm/loader/e820.c

# Unikernel domains' loader (include/vertigo/unikernel.h).
HV_SRCS += vmm/loader/unikernel_boot.c
HEADERS_HV += vmm/loader/unikernel_boot.h
HEADERS_HOST += vmm/loader/unikernel_boot.h
UNIT_TESTS += unikernel_boot
unit_unikernel_boot_SRCS := tests/unit/test_unikernel_boot.c vmm/loader/unikernel_boot.c
