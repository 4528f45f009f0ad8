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

