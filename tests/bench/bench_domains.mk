# The cost of sharing a CPU between domains, `make bench`: two Bochs boots
# of unikernel compute loops beside domain 0 and one of a Linux domain with
# two VCPUs beside domain 0's two on two CPUs (tests/bench/bench_domains.sh).
BENCH_TARGETS += bench-domains
.PHONY: bench-domains
bench-domains: hv guest unikernel
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_domains.sh
