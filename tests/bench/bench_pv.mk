# A-mode read and context-switch cost of the guest counter library, `make
# bench`: one Bochs boot of the pv_cost scenario (tests/guest/pv_cost.c) on
# one VCPU.
BENCH_TARGETS += bench-pv
.PHONY: bench-pv
bench-pv: hv guest
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_pv.sh
