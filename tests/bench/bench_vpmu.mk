# Virtual PMU benchmark, `make bench`: VM exits per guest PMU operation
# (counter read, PMI, context switch of a counted thread) on the software
# backend in Bochs (one boot, scenario vpmu_cost).
BENCH_TARGETS += bench-vpmu
.PHONY: bench-vpmu
bench-vpmu: hv guest
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_vpmu.sh
