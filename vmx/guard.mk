# vmx/: the guards of the paths from a guest to Vertigo's memory and
# control (the MSRs that reach physical memory or Vertigo's state, the
# owned I/O ports, the EPT sink windows), and their unit tests.
HV_SRCS    += vmx/msr_guard.c
HEADERS_HV += vmx/msr_guard.h
HEADERS_HOST += vmx/msr_guard.h vmx/io_policy.h

# The MSR policy (table, bitmap, guards) against a model of the CPU's MSRs.
UNIT_TESTS += msr_policy
unit_msr_policy_SRCS := tests/unit/test_msr_policy.c vmx/msr_policy.c vmx/msr_guard.c

# The I/O policy (portable) and the real ports behind it.
HV_SRCS    += vmx/io_ports.c
HEADERS_HV += vmx/io_ports.h
UNIT_TESTS += io_policy
unit_io_policy_SRCS := tests/unit/test_io_policy.c vmx/io_policy.c
unit_io_policy_LIBS := -lpthread

# The EPT sink windows (portable) and the violation handler's header.
HV_SRCS    += vmx/ept_sink.c
HEADERS_HV += vmx/ept_sink.h vmx/ept_guard.h
HEADERS_HOST += vmx/ept_sink.h
UNIT_TESTS += ept_sink
unit_ept_sink_SRCS := tests/unit/test_ept_sink.c vmx/ept_sink.c vmx/ept.c vmx/vmx_caps.c \
                      lib/format.c
unit_ept_sink_LIBS := -lpthread
