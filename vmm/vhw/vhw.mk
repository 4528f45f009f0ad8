# vmm/vhw/: the virtual hardware of a Linux domain other than domain 0:
# x2APIC, 16550 UART, ACPI tables, CPUID policy and the decoder of MMIO
# stores (portable; vmx/ wires them).
HV_SRCS += vmm/vhw/vlapic.c vmm/vhw/vlapic_timer.c vmm/vhw/vlapic_xapic.c
HEADERS_HV += vmm/vhw/vlapic.h vmm/vhw/vlapic_timer.h vmm/vhw/vlapic_regs.h
HEADERS_HOST += vmm/vhw/vlapic.h vmm/vhw/vlapic_timer.h vmm/vhw/vlapic_regs.h

UNIT_TESTS += vlapic
unit_vlapic_SRCS := tests/unit/test_vlapic.c tests/unit/test_vlapic_xapic.c vmm/vhw/vlapic.c \
                    vmm/vhw/vlapic_timer.c vmm/vhw/vlapic_xapic.c

HV_SRCS += vmm/vhw/vuart16550.c
HEADERS_HV += vmm/vhw/vuart16550.h
HEADERS_HOST += vmm/vhw/vuart16550.h
UNIT_TESTS += vuart16550
unit_vuart16550_SRCS := tests/unit/test_vuart16550.c vmm/vhw/vuart16550.c

HV_SRCS += vmm/vhw/acpi_build.c
HEADERS_HV += vmm/vhw/acpi_build.h
HEADERS_HOST += vmm/vhw/acpi_build.h
UNIT_TESTS += acpi_build
unit_acpi_build_SRCS := tests/unit/test_acpi_build.c vmm/vhw/acpi_build.c

HV_SRCS += vmm/vhw/cpuid_domain.c
HEADERS_HV += vmm/vhw/cpuid_domain.h
HEADERS_HOST += vmm/vhw/cpuid_domain.h
UNIT_TESTS += cpuid_domain
unit_cpuid_domain_SRCS := tests/unit/test_cpuid_domain.c vmm/vhw/cpuid_domain.c vmm/vhw/vlapic.c \
                          vmm/vhw/vlapic_timer.c vmm/vhw/vlapic_xapic.c

HV_SRCS += vmm/vhw/mmio_decode.c
HEADERS_HV += vmm/vhw/mmio_decode.h
HEADERS_HOST += vmm/vhw/mmio_decode.h
UNIT_TESTS += mmio_decode
unit_mmio_decode_SRCS := tests/unit/test_mmio_decode.c vmm/vhw/mmio_decode.c

# WRMSR's reserved-bit, canonical-address and memory-type checks for the
# MSRs a domain's writes reach Vertigo's emulation with.
HV_SRCS += vmm/vhw/msr_check.c
HEADERS_HV += vmm/vhw/msr_check.h
HEADERS_HOST += vmm/vhw/msr_check.h
UNIT_TESTS += msr_check
unit_msr_check_SRCS := tests/unit/test_msr_check.c vmm/vhw/msr_check.c vmm/guest/guest_pt.c

# QEMU's fw_cfg items (CPU count, RAM size) for multiboot domains.
HV_SRCS += vmm/vhw/fw_cfg.c
HEADERS_HV += vmm/vhw/fw_cfg.h
HEADERS_HOST += vmm/vhw/fw_cfg.h
UNIT_TESTS += fw_cfg
unit_fw_cfg_SRCS := tests/unit/test_fw_cfg.c vmm/vhw/fw_cfg.c

# A domain's TSC offset and TSC_ADJUST.
HV_SRCS += vmm/vhw/vtsc.c
HEADERS_HV += vmm/vhw/vtsc.h
HEADERS_HOST += vmm/vhw/vtsc.h
UNIT_TESTS += vtsc
unit_vtsc_SRCS := tests/unit/test_vtsc.c vmm/vhw/vtsc.c

# A multiboot domain's ACPI PM timer (the FADT's PM_TMR_BLK).
HV_SRCS += vmm/vhw/acpi_pmtimer.c
HEADERS_HV += vmm/vhw/acpi_pmtimer.h
HEADERS_HOST += vmm/vhw/acpi_pmtimer.h
UNIT_TESTS += acpi_pmtimer
unit_acpi_pmtimer_SRCS := tests/unit/test_acpi_pmtimer.c vmm/vhw/acpi_pmtimer.c

# The PC's reset requests besides the ACPI reset register (keyboard
# controller, port 0xCF9).
HV_SRCS += vmm/vhw/pc_reset.c
HEADERS_HV += vmm/vhw/pc_reset.h
HEADERS_HOST += vmm/vhw/pc_reset.h
UNIT_TESTS += pc_reset
unit_pc_reset_SRCS := tests/unit/test_pc_reset.c vmm/vhw/pc_reset.c

# QEMU's pc-testdev data port (multiboot domains; its memory is the
# domain's RAM: vmm/domain/domain_mboot_map.h).
HV_SRCS += vmm/vhw/testdev.c
HEADERS_HV += vmm/vhw/testdev.h
HEADERS_HOST += vmm/vhw/testdev.h
UNIT_TESTS += testdev
unit_testdev_SRCS := tests/unit/test_testdev.c vmm/vhw/testdev.c

# One element of a string IN/OUT (INS, OUTS, REP) on an emulated port.
HV_SRCS += vmm/vhw/string_io.c
HEADERS_HV += vmm/vhw/string_io.h
HEADERS_HOST += vmm/vhw/string_io.h
UNIT_TESTS += string_io
unit_string_io_SRCS := tests/unit/test_string_io.c vmm/vhw/string_io.c

# A Linux domain's read-only CMOS clock (ports 0x70/0x71).
HV_SRCS += vmm/vhw/vrtc.c
HEADERS_HV += vmm/vhw/vrtc.h
HEADERS_HOST += vmm/vhw/vrtc.h
UNIT_TESTS += vrtc
unit_vrtc_SRCS := tests/unit/test_vrtc.c vmm/vhw/vrtc.c lib/rtc_calendar.c
