# The portable core library: string/memory functions (hypervisor only),
# formatted printing, the multiboot2 parser and the physical page
# allocator, with their host unit tests.
CORE_HEADERS := vmm/mem.h vmm/format.h vmm/boot_info.h vmm/mb2.h vmm/page_alloc.h vmm/spinlock.h

HV_SRCS      += vmm/mem.c vmm/format.c vmm/mb2.c vmm/page_alloc.c
HEADERS_HV   += $(CORE_HEADERS)
HEADERS_HOST += $(CORE_HEADERS)

UNIT_TESTS += format mb2 page_alloc
unit_format_SRCS     := tests/unit/test_format.c vmm/format.c
unit_mb2_SRCS        := tests/unit/test_mb2.c vmm/mb2.c
unit_page_alloc_SRCS := tests/unit/test_page_alloc.c vmm/page_alloc.c
