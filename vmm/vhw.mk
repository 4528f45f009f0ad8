# The virtual hardware of a Linux domain other than domain 0: x2APIC,
# 16550 UART, ACPI tables and CPUID policy (portable; vmx/ wires them).
HV_SRCS += vmm/vlapic.c vmm/vlapic_timer.c
HEADERS_HV += vmm/vlapic.h vmm/vlapic_timer.h
HEADERS_HOST += vmm/vlapic.h vmm/vlapic_timer.h

UNIT_TESTS += vlapic
unit_vlapic_SRCS := tests/unit/test_vlapic.c vmm/vlapic.c vmm/vlapic_timer.c

HV_SRCS += vmm/vuart16550.c
HEADERS_HV += vmm/vuart16550.h
HEADERS_HOST += vmm/vuart16550.h
UNIT_TESTS += vuart16550
unit_vuart16550_SRCS := tests/unit/test_vuart16550.c vmm/vuart16550.c

HV_SRCS += vmm/acpi_build.c
HEADERS_HV += vmm/acpi_build.h
HEADERS_HOST += vmm/acpi_build.h
UNIT_TESTS += acpi_build
unit_acpi_build_SRCS := tests/unit/test_acpi_build.c vmm/acpi_build.c

HV_SRCS += vmm/cpuid_domain.c
HEADERS_HV += vmm/cpuid_domain.h
HEADERS_HOST += vmm/cpuid_domain.h
UNIT_TESTS += cpuid_domain
unit_cpuid_domain_SRCS := tests/unit/test_cpuid_domain.c vmm/cpuid_domain.c vmm/vlapic.c \
                          vmm/vlapic_timer.c

# WRMSR's reserved-bit, canonical-address and memory-type checks for the
# MSRs a domain's writes reach Vertigo's emulation with.
HV_SRCS += vmm/msr_check.c
HEADERS_HV += vmm/msr_check.h
HEADERS_HOST += vmm/msr_check.h
UNIT_TESTS += msr_check
unit_msr_check_SRCS := tests/unit/test_msr_check.c vmm/msr_check.c vmm/guest_pt.c

# Speculation barriers and SPEC_CTRL between domains (portable policy;
# vmx/vcpu_spec.c runs it on the CPU).
HV_SRCS += vmm/spec_barrier.c
HEADERS_HV += vmm/spec_barrier.h
HEADERS_HOST += vmm/spec_barrier.h
UNIT_TESTS += spec_barrier
unit_spec_barrier_SRCS := tests/unit/test_spec_barrier.c vmm/spec_barrier.c
