# Long runs behind `make soak` (not part of `make test`, which runs short
# versions of them).
#   soak-hcfuzz   SOAK_HCFUZZ_CALLS (default 100000) hostile hypercalls from
#                 user mode and as many from kernel mode, two CPUs at once
#                 (tests/soak/hcfuzz.sh; linux.sh runs 2000 of each)
#   soak-vpmu     SOAK_VPMU_SECONDS (default 60) seconds of the guest's perf
#                 record -F 1000 while Vertigo samples instructions:ukh
#                 (tests/soak/vpmu_soak.sh; vpmu.sh records one workload)
#   soak-domains-cpu1  SOAK_DOMAINS_CPU1_RUNS (default 20) boots of
#                 tests/e2e/domains-cpu1.sh, a domain ending on CPU 0
#                 while another runs alone on CPU 1
#                 (tests/soak/domains_cpu1_soak.sh; make test runs one)
SOAK_HCFUZZ_CALLS ?= 100000
SOAK_TARGETS += soak-hcfuzz
.PHONY: soak-hcfuzz
soak-hcfuzz: all
	$(Q)BUILD=$(BUILD) HCFUZZ_CALLS=$(SOAK_HCFUZZ_CALLS) bash tests/soak/hcfuzz.sh

SOAK_VPMU_SECONDS ?= 60
SOAK_TARGETS += soak-vpmu
.PHONY: soak-vpmu
soak-vpmu: all guest-perf
	$(Q)BUILD=$(BUILD) SOAK_VPMU_SECONDS=$(SOAK_VPMU_SECONDS) bash tests/soak/vpmu_soak.sh

SOAK_DOMAINS_CPU1_RUNS ?= 20
SOAK_TARGETS += soak-domains-cpu1
.PHONY: soak-domains-cpu1
soak-domains-cpu1: all
	$(Q)BUILD=$(BUILD) SOAK_DOMAINS_CPU1_RUNS=$(SOAK_DOMAINS_CPU1_RUNS) bash tests/soak/domains_cpu1_soak.sh
