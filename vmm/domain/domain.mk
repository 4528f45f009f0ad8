# vmm/domain/: domains and their VCPUs: building domain 0 and the domains
# declared beside it (dom.N=), starting the guest, a guest's APs (INIT and
# SIPI), scheduling VCPUs on a CPU, a domain's console lines and its end.
HV_SRCS += vmm/domain/guest.c vmm/domain/domain.c vmm/domain/domain_linux.c \
           vmm/domain/smp_guest.c vmm/domain/domain_private.c vmm/domain/domain_vhw.c \
           vmm/domain/domain_mboot.c vmm/domain/domain_only.c
HEADERS_HV += vmm/domain/domain.h vmm/domain/smp_guest.h vmm/domain/domain_private.h \
              vmm/domain/domain_vhw.h vmm/domain/domain_mboot.h

# Domains beside domain 0 (dom.N=, sched.slice=).
HV_SRCS += vmm/domain/domain_config.c
HEADERS_HV += vmm/domain/domain_config.h
HEADERS_HOST += vmm/domain/domain_config.h
UNIT_TESTS += domain_config
unit_domain_config_SRCS := tests/unit/test_domain_config.c vmm/domain/domain_config.c lib/cmdline.c \
                           lib/format.c

# A domain's console output cut into prefixed lines, rate-limited and
# queued for Vertigo's console (vmm/console/ drains it).
HV_SRCS += vmm/domain/domain_console.c
HEADERS_HV += vmm/domain/domain_console.h
HEADERS_HOST += vmm/domain/domain_console.h
UNIT_TESTS += domain_console
unit_domain_console_SRCS := tests/unit/test_domain_console.c vmm/domain/domain_console.c \
                            vmm/console/token_bucket.c vmm/console/line_queue.c

# Scheduling VCPUs on a CPU and the vectors waiting for domain 0.
HV_SRCS += vmm/domain/sched.c vmm/domain/irq_pending.c
HEADERS_HV += vmm/domain/sched.h vmm/domain/irq_pending.h
HEADERS_HOST += vmm/domain/sched.h vmm/domain/irq_pending.h
UNIT_TESTS += sched
unit_sched_SRCS := tests/unit/test_sched.c vmm/domain/sched.c vmm/domain/irq_pending.c
unit_sched_LIBS := -lpthread      # a test races two threads

# Speculation barriers and SPEC_CTRL between domains (portable policy;
# vmx/vcpu_spec.c runs it on the CPU).
HV_SRCS += vmm/domain/spec_barrier.c
HEADERS_HV += vmm/domain/spec_barrier.h
HEADERS_HOST += vmm/domain/spec_barrier.h
UNIT_TESTS += spec_barrier
unit_spec_barrier_SRCS := tests/unit/test_spec_barrier.c vmm/domain/spec_barrier.c

# A multiboot domain's guest-physical map: its memory map and where
# pc-testdev's memory goes.
HV_SRCS += vmm/domain/domain_mboot_map.c
HEADERS_HV += vmm/domain/domain_mboot_map.h
HEADERS_HOST += vmm/domain/domain_mboot_map.h
UNIT_TESTS += domain_mboot_map
unit_domain_mboot_map_SRCS := tests/unit/test_domain_mboot_map.c vmm/domain/domain_mboot_map.c \
                              lib/format.c
