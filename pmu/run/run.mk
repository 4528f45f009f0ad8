# pmu/run/: the PMU in the VM-exit loop, above the backends: the calls the
# exit loop makes (pmu/pmu_loop.h), the run's configuration, per-CPU
# state, the counting session's wiring and end-of-run report, the PMI of
# both backends, VCPU switches, the PMU hypercalls.
# Portable: the hardware comes through pmu/pmu_arch.h, which the
# hypervisor fills from vmx/vmx_pmu_arch.c and pmu/backend/pmu_arch_cpu.c
# and the unit tests from a fake (tests/unit/fake_pmu_arch.c) over the
# register-level PMU model.
PMU_RUN_HEADERS := pmu/pmu_arch.h pmu/pmu_mode.h pmu/pmu_vcpu.h pmu/run/pmu_cpu.h pmu/run/pmu_config.h \
                   pmu/run/pmu_pmi.h pmu/run/pmu_run.h pmu/pmu_loop.h pmu/run/pmu_switch.h \
                   pmu/run/pmu_log_ids.h
PMU_RUN_SRCS := pmu/run/pmu_config.c pmu/run/pmu_cpu.c pmu/run/pmu_pmi.c pmu/run/pmu_run.c \
                pmu/run/pmu_hypercalls.c pmu/run/pmu_loop.c pmu/run/pmu_switch.c \
                pmu/run/pmu_report.c pmu/run/pmu_log_ids.c

HV_SRCS      += $(PMU_RUN_SRCS)
HEADERS_HV   += $(PMU_RUN_HEADERS)
PMU_POLICY_SRCS += $(PMU_RUN_SRCS)

# Every fragment of pmu/ adds its portable sources to PMU_POLICY_SRCS; the
# policy tests link them all (deferred: the fragments are read in any order).
UNIT_TESTS += pmu_policy
unit_pmu_policy_SRCS = tests/unit/test_pmu_policy.c tests/unit/fake_pmu_arch.c \
                       tests/unit/pmu_model.c $(PMU_POLICY_SRCS) vmm/exit_stats.c \
                       lib/exit_names.c lib/cmdline.c vmm/hv_cmdline.c vmm/hypercall.c \
                       lib/format.c vmm/guest/guest_orc_table.c \
                       vmm/heap.c vmm/page_alloc.c tests/unit/mux_hypercalls.c $(LOG_TEST_SRCS)
HEADERS_HOST += tests/unit/fake_pmu_arch.h tests/unit/mux_hypercalls.h tests/unit/mux_guest_model.h

# The PMU's hypercalls through the dispatcher: privilege, arguments
# copied and validated, before what each does (faked in the test).
UNIT_TESTS += pmu_hypercalls
unit_pmu_hypercalls_SRCS := tests/unit/test_pmu_hypercalls.c vmm/hypercall.c \
                            pmu/run/pmu_hypercalls.c pmu/sample/sample_hypercalls.c \
                            pmu/pv/pv_hypercalls.c pmu/mux/mux_hypercalls.c \
                            pmu/sample/sampler_symbols.c vmm/guest/guest_orc_table.c

# The log's run-wide event ids: one per event, the timer's skipped, each
# domain's share.
UNIT_TESTS += pmu_log_ids
unit_pmu_log_ids_SRCS := tests/unit/test_pmu_log_ids.c pmu/run/pmu_log_ids.c \
                         pmu/backend/pmu_events.c pmu/backend/swevents.c lib/format.c

# VCPU switches on one CPU (pmu/run/pmu_switch.c), both backends, on the fake
# arch and the register-level model.
UNIT_TESTS += pmu_switch
unit_pmu_switch_SRCS = tests/unit/test_pmu_switch.c $(unit_pmu_policy_SRCS:tests/unit/test_pmu_policy.c=)

# Interval multiplexing on the hardware backend through the exit loop
# (pmu/hw/pmu_mux_hw.c): rows, the clock's PMI, sampling beside it, VCPU
# switches, refusals, the guest's session; fake arch and register model.
UNIT_TESTS += pmu_mux_hw
unit_pmu_mux_hw_SRCS = tests/unit/test_pmu_mux_hw.c tests/unit/mux_guest_model.c \
                       $(unit_pmu_policy_SRCS:tests/unit/test_pmu_policy.c=)
