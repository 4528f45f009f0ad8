# Host tools in bounded memory and time (tests/bench/bench_host.sh):
# export, interval rows, many domains and addresses, the timeline PNG.
BENCH_TARGETS += bench-host
.PHONY: bench-host
bench-host: $(BUILD)/vertigo $(BUILD)/gen-profile $(BUILD)/hostile-log $(PROFILE_FIXTURE_ELFS)
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_host.sh
