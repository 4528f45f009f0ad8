# Interval multiplexing benchmark, `make bench`: the overhead of a session
# of 32 events over 4 software counters (N = 1M, S = 100K) against the same
# events counted exactly and against no session, bytes per row, and the
# extrapolation's accuracy (three Bochs boots, one after the other).
BENCH_TARGETS += bench-mux
.PHONY: bench-mux
bench-mux: hv guest $(BUILD)/vertigo
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_mux.sh
