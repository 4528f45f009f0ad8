# Long runs behind `make soak` (not part of `make test`, which runs short
# versions of them).
#   soak-hcfuzz   SOAK_HCFUZZ_CALLS (default 100000) hostile hypercalls from
#                 user mode and as many from kernel mode, two CPUs at once
#                 (tests/soak/hcfuzz.sh; linux.sh runs 2000 of each)
SOAK_HCFUZZ_CALLS ?= 100000
SOAK_TARGETS += soak-hcfuzz
.PHONY: soak-hcfuzz
soak-hcfuzz: all
	$(Q)BUILD=$(BUILD) HCFUZZ_CALLS=$(SOAK_HCFUZZ_CALLS) bash tests/soak/hcfuzz.sh
