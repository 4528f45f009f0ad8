# vmx/ portable core: VMCS field encodings, VT-x constants, VM-instruction
# error texts, capability-MSR interpretation and the EPT builder. Compiled freestanding
# into the hypervisor and hosted (sanitizers on) for the unit tests.
VMX_PORTABLE_HEADERS := vmx/vmcs_fields.h vmx/vmx_defs.h vmx/vmx_errors.h \
                        vmx/vmx_caps.h vmx/ept.h

HV_SRCS      += vmx/vmx_errors.c vmx/vmx_caps.c vmx/ept.c
HEADERS_HV   += $(VMX_PORTABLE_HEADERS)
HEADERS_HOST += $(VMX_PORTABLE_HEADERS)

UNIT_TESTS += vmx_caps ept
unit_vmx_caps_SRCS := tests/unit/test_vmx_caps.c vmx/vmx_caps.c lib/exit_names.c vmx/vmx_errors.c \
                      lib/format.c
unit_ept_SRCS      := tests/unit/test_ept.c vmx/ept.c vmx/vmx_caps.c lib/format.c
