# pmu/: the PMU policy in the VM-exit loop, above the backends: the run's
# configuration, per-CPU state, the counting session's wiring, the PMI,
# single-stepping Vertigo, sampling sessions and their NMIs, the PMU
# hypercalls. Portable: the hardware comes through pmu/pmu_arch.h, which
# the hypervisor fills from vmx/vmx_pmu_arch.c and the unit tests from a
# fake (tests/unit/fake_pmu_arch.c) over the register-level PMU model.
PMU_RUN_HEADERS := pmu/pmu_arch.h pmu/pmu_vcpu.h pmu/pmu_cpu.h pmu/pmu_config.h \
                   pmu/pmu_pmi.h pmu/pmu_run.h pmu/pmu_step.h pmu/pmu_mux.h pmu/sample_apply.h \
                   pmu/sample_nmi.h pmu/sample_session.h pmu/sample_freq_vcpu.h \
                   pmu/pmu_loop.h pmu/pmu_guest.h \
                   pmu/pmu_mux_guest.h pmu/pmu_switch.h pmu/pmu_pv_hw.h pmu/pmu_mux_hw.h
PMU_RUN_SRCS := pmu/pmu_config.c pmu/pmu_cpu.c pmu/pmu_pmi.c pmu/pmu_run.c pmu/pmu_step.c \
                pmu/sample_apply.c pmu/sample_nmi.c pmu/sample_session.c \
                pmu/sample_freq_vcpu.c pmu/sample_freq.c pmu/stack_cost.c \
                pmu/pmu_hypercalls.c pmu/pmu_loop.c pmu/pmu_guest.c pmu/pmu_mux.c \
                pmu/pmu_mux_guest.c pmu/pmu_switch.c pmu/pmu_pv_hw.c pmu/pmu_mux_hw.c

HV_SRCS    += $(PMU_RUN_SRCS)
HEADERS_HV += $(PMU_RUN_HEADERS) boot/percpu_step.h vmm/pmu_hooks.h

# The guest's virtual PMU: its options and its records in the log.
PMU_GUEST_SRCS := pmu/pmu_guest_log.c pmu/vpmu_options.c
HV_SRCS    += $(PMU_GUEST_SRCS)
HEADERS_HV += pmu/pmu_guest_log.h pmu/vpmu_options.h

UNIT_TESTS += pmu_policy
unit_pmu_policy_SRCS := tests/unit/test_pmu_policy.c tests/unit/fake_pmu_arch.c \
                        tests/unit/pmu_model.c $(PMU_RUN_SRCS) $(PMU_GUEST_SRCS) pmu/pmu_report.c \
                        pmu/pmu_session.c pmu/pmu_hw.c pmu/pmu_soft.c pmu/pmu_events.c \
                        pmu/pmu_ctx.c pmu/swevents.c pmu/pmu_log_desc.c vmm/exit_stats.c \
                        pmu/vpmu_regs.c pmu/vpmu_count.c pmu/mux.c pmu/mux_row.c pmu/mux_events.c \
                        pmu/mux_session.c pmu/mux_hw.c vmx/exit_names.c vmm/cmdline.c vmm/hv_cmdline.c vmm/hypercall.c \
                        vmm/sampler_symbols.c vmm/format.c vmm/guest_orc_table.c \
                        vmm/heap.c vmm/page_alloc.c tests/unit/mux_hypercalls.c $(LOG_TEST_SRCS)
HEADERS_HOST += tests/unit/fake_pmu_arch.h tests/unit/mux_hypercalls.h tests/unit/mux_guest_model.h

# VCPU switches on one CPU (pmu/pmu_switch.c), both backends, on the fake
# arch and the register-level model.
UNIT_TESTS += pmu_switch
unit_pmu_switch_SRCS = tests/unit/test_pmu_switch.c $(unit_pmu_policy_SRCS:tests/unit/test_pmu_policy.c=)

# Interval multiplexing on the hardware backend through the exit loop
# (pmu/pmu_mux_hw.c): rows, the clock's PMI, sampling beside it, VCPU
# switches, refusals, the guest's session; fake arch and register model.
UNIT_TESTS += pmu_mux_hw
unit_pmu_mux_hw_SRCS = tests/unit/test_pmu_mux_hw.c tests/unit/mux_guest_model.c \
                       $(unit_pmu_policy_SRCS:tests/unit/test_pmu_policy.c=)
