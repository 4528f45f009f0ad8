# lib/: the library floor, below boot/ and everything else; it includes
# nothing above itself. String and memory functions (hypervisor only),
# formatted printing, the console core (printk), the one spinlock type,
# the command-line parser, x86 instruction wrappers (ports, MSRs, CPUID),
# the ModRM operand's length (x86_modrm.h, also the host's call decoder)
# and MSR numbers, VM-exit reasons and their names, the #GP-safe MSR
# accesses, the polled UART and CRC32C.
# lib/smp.h declares the CPU numbering boot/ implements.
LIB_HEADERS := lib/mem.h lib/format.h lib/spinlock.h lib/cmdline.h lib/msr.h lib/log_crc.h \
               lib/exit_names.h lib/x86_modrm.h lib/rtc_calendar.h

HV_SRCS      += lib/mem.c lib/format.c lib/console.c lib/uart.c lib/cmdline.c lib/safe_access.S \
                lib/log_crc.c lib/exit_names.c lib/rtc_calendar.c
HEADERS_HV   += $(LIB_HEADERS) lib/console.h lib/uart.h lib/cpu.h lib/smp.h
HEADERS_HOST += $(LIB_HEADERS)

UNIT_TESTS += format cmdline rtc_calendar
unit_format_SRCS  := tests/unit/test_format.c lib/format.c
unit_cmdline_SRCS := tests/unit/test_cmdline.c lib/cmdline.c
unit_rtc_calendar_SRCS := tests/unit/test_rtc_calendar.c lib/rtc_calendar.c
