# Call-stack benchmark, `make bench`: the NMI path's cost of walking guest
# call stacks per frame -- guest kernel stacks through the kernel's ORC
# tables (crossing into the interrupted process's user stack) and user
# stacks by frame pointers -- at depth 16, and log bytes per sample (one
# Bochs boot of the demonstration workload with the guest agent).
BENCH_TARGETS += bench-kstack
# No sanitizers: callgrind counts it. Compiled with vertigo.elf's
# code-generation flags (tests/bench/bench_codegen.mk), so the walk's files
# inline into each other as they do in vertigo.elf.
BENCH_KSTACK_HARNESS := $(BUILD)/bench/bench_kstack_harness
bench_kstack_harness_SRCS := tests/bench/bench_kstack_harness.c vmm/guest/guest_orc.c \
                             vmm/guest/guest_orc_table.c vmm/guest/guest_stack.c vmm/hypercall.c \
                             vmm/guest/guest_reader.c vmm/guest/guest_tlb.c \
                             vmm/guest/guest_pt.c lib/format.c vmx/guest_mem.c vmx/ept.c vmx/vmx_caps.c \
                             tests/unit/host_ept.c

$(BENCH_KSTACK_HARNESS): $(call bench_obj,hv-obj,$(bench_kstack_harness_SRCS))
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(BENCH_LDFLAGS) $^ -o $@

.PHONY: bench-kstack
bench-kstack: $(BENCH_KSTACK_HARNESS) hv guest $(BUILD)/vertigo
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_kstack.sh
