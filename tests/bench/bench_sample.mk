# Sampling-overhead benchmark, `make bench`: a guest loop timed
# with and without sampling sessions at ~1,000 samples per emulated second
# (one Bochs boot, scenario bench_sample), and hypervisor instructions per
# sample on the NMI path (Vertigo's own counter in pmu/sample/sample_nmi.c).
BENCH_TARGETS += bench-sample
.PHONY: bench-sample
bench-sample: hv guest
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_sample.sh
