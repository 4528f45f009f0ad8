# Virtual PMU benchmark, `make bench`: VM exits per guest PMU operation
# (counter read, PMI, context switch of a counted thread) on the software
# backend in Bochs (one boot, scenario vpmu_cost), and the guest's own perf
# stat and perf record -F 1000 against no perf (two boots of the perf
# initramfs, scenario perf_overhead: with Vertigo's counting session and
# without one).
BENCH_TARGETS += bench-vpmu
.PHONY: bench-vpmu
bench-vpmu: hv guest guest-perf
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_vpmu.sh
