# pmu/sample/: sampling: sessions (started on the command line or by the
# guest), their events applied to each VCPU, Vertigo's NMIs and the
# samples they write, frequency mode's period controller, the fit of the
# stack walks' cost, and the guest symbol chunks shipped into the log.
PMU_SAMPLE_SRCS := pmu/sample/sample_apply.c pmu/sample/sample_nmi.c pmu/sample/sample_session.c \
                   pmu/sample/sample_freq_vcpu.c pmu/sample/sample_freq.c pmu/sample/stack_cost.c \
                   pmu/sample/sampler_symbols.c pmu/sample/sample_hypercalls.c \
                   pmu/sample/sample_guest.c
HV_SRCS      += $(PMU_SAMPLE_SRCS)
HEADERS_HV   += pmu/sample/sample_part.h pmu/sample/sample_apply.h pmu/sample/sample_nmi.h pmu/sample/sample_session.h \
                pmu/sample/sample_freq_vcpu.h pmu/sample/sample_freq.h pmu/sample/stack_cost.h \
                pmu/sample/sampler.h pmu/sample/sample_hypercalls.h pmu/sample/sample_guest.h \
                pmu/sample/sample_vcpu.h
HEADERS_HOST += pmu/sample/sample_freq.h pmu/sample/stack_cost.h pmu/sample/sampler.h
PMU_POLICY_SRCS += $(PMU_SAMPLE_SRCS)

# Frequency mode's period controller (sample.freq=).
UNIT_TESTS += sample_freq
unit_sample_freq_SRCS := tests/unit/test_sample_freq.c pmu/sample/sample_freq.c

# The fit of the NMI path's call-stack walk cost to depth (fixed part and
# cost per frame).
UNIT_TESTS += stack_cost
unit_stack_cost_SRCS := tests/unit/test_stack_cost.c pmu/sample/stack_cost.c

# What the sampling hypercalls do (sessions, symbols, unwind tables), on
# the fake arch.
UNIT_TESTS += sample_guest
unit_sample_guest_SRCS = tests/unit/test_sample_guest.c \
                         $(unit_pmu_policy_SRCS:tests/unit/test_pmu_policy.c=)
