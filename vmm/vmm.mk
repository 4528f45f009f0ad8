# vmm/: the portable core: start-up, Vertigo's own memory (page allocator,
# heap), panic, the hypervisor's command line, VCPU and domain objects,
# the hypercall dispatcher, exit statistics. Its rooms: console/, domain/,
# guest/, loader/, log/, vhw/ (each with its own fragment).
HV_SRCS += vmm/main.c vmm/panic.c vmm/selftest.c vmm/nmi.c vmm/version.c vmm/heap.c \
           vmm/page_alloc.c vmm/acpi.c vmm/hypercall.c vmm/exit_stats.c vmm/hv_cmdline.c
HEADERS_HV += vmm/panic.h vmm/start_stages.h vmm/version.h vmm/heap.h vmm/page_alloc.h \
              vmm/acpi.h vmm/hypercall.h vmm/exit_stats.h vmm/vcpu.h vmm/hv_cmdline.h \
              vmm/pmu_hooks.h
HEADERS_HOST += vmm/page_alloc.h

UNIT_TESTS += page_alloc hypercall
unit_page_alloc_SRCS := tests/unit/test_page_alloc.c vmm/page_alloc.c
unit_hypercall_SRCS := tests/unit/test_hypercall.c vmm/hypercall.c

VERTIGO_BUILD_ID := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
$(BUILD)/hv/vmm/version.c.o: HV_CFLAGS += -DVERTIGO_BUILD_ID='"$(VERTIGO_BUILD_ID)"'
$(BUILD)/hv/vmm/version.c.o: FORCE
.PHONY: FORCE
FORCE:
