# vmm/: the portable core (start-up, console, command line, guests).
HV_SRCS += vmm/main.c vmm/console.c vmm/uart.c vmm/panic.c \
           vmm/cmdline.c vmm/guest_modules.c vmm/selftest.c vmm/guest.c \
           vmm/nmi.c vmm/version.c vmm/heap.c vmm/acpi.c vmm/guest_pt.c vmm/hypercall.c \
           vmm/exit_stats.c vmm/domain.c vmm/domain_linux.c vmm/mmio_decode.c vmm/smp_guest.c \
           vmm/hv_cmdline.c \
           vmm/guest_stack.c vmm/guest_orc.c vmm/guest_orc_table.c vmm/sampler_symbols.c \
           vmm/guest_reader.c vmm/guest_tlb.c
HEADERS_HV += vmm/console.h vmm/uart.h vmm/panic.h vmm/cmdline.h \
              vmm/guest_modules.h vmm/start.h vmm/start_stages.h vmm/version.h \
              vmm/msr.h vmm/heap.h vmm/acpi.h vmm/guest_pt.h vmm/hypercall.h vmm/exit_stats.h \
              vmm/domain.h vmm/vcpu.h vmm/mmio_decode.h vmm/smp_guest.h vmm/guest_stack.h \
              vmm/guest_orc.h vmm/sampler.h vmm/hv_cmdline.h vmm/guest_reader.h vmm/guest_tlb.h
HEADERS_HOST += vmm/cmdline.h vmm/guest_modules.h vmm/msr.h vmm/mmio_decode.h vmm/guest_pt.h \
                vmm/guest_stack.h vmm/guest_orc.h vmm/sampler.h vmm/guest_reader.h vmm/guest_tlb.h

UNIT_TESTS += cmdline guest_modules mmio_decode guest_pt hypercall guest_stack guest_orc
unit_mmio_decode_SRCS := tests/unit/test_mmio_decode.c vmm/mmio_decode.c
unit_cmdline_SRCS := tests/unit/test_cmdline.c vmm/cmdline.c
unit_guest_modules_SRCS := tests/unit/test_guest_modules.c vmm/guest_modules.c vmm/format.c

VERTIGO_BUILD_ID := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
$(BUILD)/hv/vmm/version.c.o: HV_CFLAGS += -DVERTIGO_BUILD_ID='"$(VERTIGO_BUILD_ID)"'
$(BUILD)/hv/vmm/version.c.o: FORCE
.PHONY: FORCE
FORCE:
unit_guest_pt_SRCS := tests/unit/test_guest_pt.c vmm/guest_pt.c
unit_hypercall_SRCS := tests/unit/test_hypercall.c vmm/hypercall.c vmm/sampler_symbols.c \
                       vmm/guest_orc_table.c
unit_guest_stack_SRCS := tests/unit/test_guest_stack.c vmm/guest_stack.c vmm/guest_orc.c \
                         vmm/guest_reader.c
unit_guest_orc_SRCS := tests/unit/test_guest_orc.c vmm/guest_orc.c vmm/guest_orc_table.c \
                       vmm/guest_stack.c vmm/hypercall.c vmm/sampler_symbols.c vmm/guest_reader.c

# Domains beside domain 0 (dom.N=, sched.slice=).
HV_SRCS += vmm/domain_config.c
HEADERS_HV += vmm/domain_config.h
HEADERS_HOST += vmm/domain_config.h
UNIT_TESTS += domain_config
unit_domain_config_SRCS := tests/unit/test_domain_config.c vmm/domain_config.c vmm/cmdline.c \
                           vmm/format.c

# Unikernel domains' loader (include/vertigo/unikernel.h).
HV_SRCS += vmm/unikernel_boot.c
HEADERS_HV += vmm/unikernel_boot.h
HEADERS_HOST += vmm/unikernel_boot.h
UNIT_TESTS += unikernel_boot
unit_unikernel_boot_SRCS := tests/unit/test_unikernel_boot.c vmm/unikernel_boot.c

# A domain's console output cut into prefixed lines.
HV_SRCS += vmm/domain_console.c
HEADERS_HV += vmm/domain_console.h
HEADERS_HOST += vmm/domain_console.h
UNIT_TESTS += domain_console
unit_domain_console_SRCS := tests/unit/test_domain_console.c vmm/domain_console.c

# Scheduling VCPUs on a CPU and the vectors waiting for domain 0.
HV_SRCS += vmm/sched.c vmm/irq_pending.c
HEADERS_HV += vmm/sched.h vmm/irq_pending.h
HEADERS_HOST += vmm/sched.h vmm/irq_pending.h
UNIT_TESTS += sched
unit_sched_SRCS := tests/unit/test_sched.c vmm/sched.c vmm/irq_pending.c

# Building the domains declared beside domain 0.
HV_SRCS += vmm/domain_private.c vmm/domain_vhw.c
HEADERS_HV += vmm/domain_private.h vmm/domain_vhw.h
