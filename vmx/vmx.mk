# vmx/: the hardware-facing VT-x code.
HV_SRCS += vmx/vmx_detect.c vmx/vmx_report.c vmx/vmx_ops.c vmx/vmx_cpu.c vmx/vmcs_setup.c \
           vmx/vmx_entry.S vmx/vmx_run.c vmx/vmx_domain.c vmx/exit.c vmx/exit_cpuid.c \
           vmx/exit_msr.c vmx/msr_policy.c vmx/exit_io.c vmx/io_policy.c vmx/exit_cr.c \
           vmx/exit_nmi.c vmx/exit_misc.c vmx/guest_mem.c vmx/ept_guard.c vmx/apic_guard.c \
           vmx/apic_store_cache.c \
           vmx/vmx_timer.c vmx/vmx_pmu_arch.c \
           vmx/mode_trap.c vmx/mode_trap_emul.c
HEADERS_HV += vmx/vmx_detect.h vmx/vmx_report.h vmx/vmx_ops.h vmx/vmx_cpu.h vmx/vmcs_setup.h \
              vmx/vcpu_vmx.h vmx/exit.h vmx/msr_policy.h vmx/io_policy.h vmx/guest_mem.h \
              vmx/vmx_domain.h vmx/apic_guard.h vmx/apic_store_cache.h vmx/vmx_timer.h vmx/mode_trap.h

# The shared preemption timer against a model of Bochs' timer and TSC (the
# test includes vmx/vmx_timer.c with the VMCS and the per-CPU area modelled).
UNIT_TESTS += vmx_timer
unit_vmx_timer_SRCS := tests/unit/test_vmx_timer.c vmx/vmx_caps.c lib/format.c

# Guest memory reads (hosted: a guest region below 4 GiB behind a real EPT).
UNIT_TESTS += guest_mem
unit_guest_mem_SRCS := tests/unit/test_guest_mem.c vmx/guest_mem.c vmx/ept.c vmx/vmx_caps.c \
                       vmm/guest/guest_pt.c vmm/hypercall.c vmm/guest/guest_orc_table.c lib/format.c \
                       vmm/guest/guest_tlb.c vmm/guest/guest_reader.c vmx/apic_store_cache.c \
                       vmm/vhw/mmio_decode.c

# Several domains on a CPU: the VMCS switch and the other domains' exits.
HV_SRCS += vmx/vmx_sched.c vmx/exit_private.c vmx/exit_vhw.c vmx/exit_vhw_msr.c vmx/exit_vhw_apic.c \
           vmx/exit_vhw_string.c \
           vmx/vcpu_fpu.c vmx/vcpu_debugregs.c vmx/vcpu_spec.c vmx/vcpu_restart.c
HEADERS_HV += vmx/vmx_sched.h vmx/exit_vhw.h vmx/vcpu_fpu.h vmx/vcpu_debugregs.h vmx/vcpu_spec.h \
              vmx/vcpu_restart.h
