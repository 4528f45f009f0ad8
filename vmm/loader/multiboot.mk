# The multiboot (v1 and v2) kernel loader: header, load plan, boot
# information, the load (portable; vmm/domain/domain_mboot.c builds the domain).
MULTIBOOT_SRCS := vmm/loader/multiboot_header.c vmm/loader/multiboot_image.c vmm/loader/multiboot_info.c \
                  vmm/loader/multiboot_load.c
HV_SRCS += $(MULTIBOOT_SRCS)
HEADERS_HV += vmm/loader/multiboot.h
HEADERS_HOST += vmm/loader/multiboot.h
UNIT_TESTS += multiboot
unit_multiboot_SRCS := tests/unit/test_multiboot.c $(MULTIBOOT_SRCS) lib/format.c
