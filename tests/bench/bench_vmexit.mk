# Exit costs measured by kvm-unit-tests' vmexit test, `make bench`: one
# Bochs boot of x86/vmexit.flat as a multiboot domain alone, from a
# kvm-unit-tests tree the user built (KUT_DIR=...; without it the bench
# says so and prints nothing else). tests/bench/bench_vmexit.sh.
BENCH_TARGETS += bench-vmexit
.PHONY: bench-vmexit
bench-vmexit: hv $(BUILD)/vertigo
	$(Q)BUILD=$(BUILD) KUT_DIR="$(KUT_DIR)" ./tests/bench/bench_vmexit.sh
