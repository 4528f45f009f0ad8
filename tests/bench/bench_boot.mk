# Boot-overhead benchmark: the same Linux guest booted bare and
# under Vertigo in Bochs (clock sync=none); prints the uptime-at-init ratio
# and Vertigo's exits per second of guest time by reason. `make bench`.
BENCH_TARGETS += bench-boot
.PHONY: bench-boot
bench-boot: hv guest
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_boot.sh
