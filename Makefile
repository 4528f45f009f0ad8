# Vertigo: one non-recursive Makefile. Each directory contributes a *.mk
# fragment that appends to the variables below; nothing here recurses.
#
#   make            hypervisor ELF and bootable ISO
#   make run        the main job (README's run command calls this)
#   make test       every test, ending in one "N passed, N failed" line
#   make unit       host-compiled unit tests only
#   make bench      benchmarks that print figures
#   make fuzz       long fuzzing campaigns
#   make peer-kut KUT_DIR=...   kvm-unit-tests' x86 tests (docs/conformance.md)
#
# Out-of-tree: everything lands under $(BUILD) (default build/).

BUILD       ?= build
HOST_CC     ?= gcc
HV_CC       ?= gcc
FUZZ_CC     ?= clang
Q           ?= @

.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:

WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wpointer-arith -Wvla

# The hypervisor: freestanding, identity-mapped, linked at a fixed
# physical address (see linker.ld). No SSE: the hypervisor never saves
# guest FPU state on exits, so it must not touch it.
# Link-time optimisation: a VM exit passes through many small functions
# kept in separate files (one concept per file); LTO inlines across them
# (in Bochs it cut the guest-visible cost of a sample by a sixth, `make
# bench-sample`), and -O3 inlines more of them than -O2 (about 70 emulated
# instructions less per sample, for a fifth more code). Code is generated
# at the link, so it gets the same flags.
HV_CODEGEN := -O3 -g -flto=auto -ffreestanding -fno-builtin \
              -fno-pic -fno-pie -fno-stack-protector -fno-common \
              -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
              -fcf-protection=none -mno-red-zone -mgeneral-regs-only -mcmodel=small
HV_CFLAGS := -std=gnu11 $(HV_CODEGEN) $(WARNINGS) -I. -Iinclude \
             -nostdinc -isystem $(shell $(HV_CC) -print-file-name=include) -MMD -MP
HV_ASFLAGS := -I. -Iinclude -D__ASSEMBLY__ -fno-pic -fno-pie -MMD -MP
HV_LDFLAGS := $(HV_CODEGEN) $(WARNINGS) -nostdlib -static -no-pie -Wl,--build-id=sha1 \
              -Wl,-z,max-page-size=0x1000 -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments \
              -T linker.ld

# Host builds of portable code (unit tests, tools): sanitizers on.
SANITIZE    := -fsanitize=address,undefined
HOST_CFLAGS := -std=gnu11 -O1 -g $(WARNINGS) -I. -Iinclude -DVERTIGO_HOSTED=1 \
               -fno-omit-frame-pointer $(SANITIZE) \
               -fno-sanitize-recover=all -MMD -MP
HOST_LDFLAGS := $(SANITIZE)
# Tools that users run (no sanitizers, optimized).
TOOL_CFLAGS := -std=gnu11 -O2 -g $(WARNINGS) -I. -Iinclude -DVERTIGO_HOSTED=1 -MMD -MP

HV_SRCS     :=
UNIT_TESTS  :=
TOOLS       :=
HEADERS_HV  :=
HEADERS_HOST :=
BENCH_TARGETS :=   # phony targets a fragment defines; each prints its figures
FUZZ_TARGETS  :=   # phony targets for long fuzzing campaigns (make fuzz)
SOAK_TARGETS  :=
TEST_BUILT    :=   # what a fragment adds to the parallel build of `make test`

include $(sort $(wildcard */*.mk */*/*.mk))

HV_OBJS := $(patsubst %,$(BUILD)/hv/%.o,$(HV_SRCS))
HV_ELF  := $(BUILD)/vertigo.elf
ISO     := $(BUILD)/vertigo.iso

.PHONY: all setup hv iso unit test run bench fuzz soak clean check-headers check-layers check-docs
all: hv iso tools

setup:
	$(Q)./host-tools/setup-deps

hv: $(HV_ELF)

$(BUILD)/hv/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) $(HV_CFLAGS) -c $< -o $@

$(BUILD)/hv/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(Q)$(HV_CC) $(HV_ASFLAGS) -c $< -o $@

# The bootable ISO of the main job. Fragments may add modules through
# ISO_DEPS and ISO_ARGS (host-tools/mkiso options).
ISO_DEPS    +=
ISO_ARGS    +=
iso: $(ISO)
$(ISO): $(HV_ELF) $(ISO_DEPS) host-tools/mkiso
	$(Q)./host-tools/mkiso --elf $(HV_ELF) --out $@ --cmdline "$(ISO_CMDLINE)" $(ISO_ARGS)

# The main job: boot the ISO (Vertigo + the Linux guest running the
# workload under a sampling session) in Bochs, then print Vertigo's own
# report and the symbolized profile; exports land next to the capture.
RUN_TIMEOUT ?= 1500
RUN_DIR     := $(BUILD)/run
RUN_SYMS    := --guest-root $(BUILD)/guest/initramfs --vertigo-elf $(HV_ELF)
run: setup all
	$(Q)$(BUILD)/vertigo run --platform bochs --iso $(ISO) --out $(RUN_DIR) \
	    --timeout $(RUN_TIMEOUT)
	$(Q)echo; echo "== Vertigo's console ($(RUN_DIR)/com2.txt), from the guest's start"
	$(Q)tr -d '\r' < $(RUN_DIR)/com2.txt | sed -n '/^vmx: vcpu 0: entering/,$$p'
	$(Q)echo; echo "== profile ($(BUILD)/vertigo report $(RUN_SYMS) $(RUN_DIR)/debugcon.txt)"
	$(Q)$(BUILD)/vertigo report $(RUN_SYMS) $(RUN_DIR)/debugcon.txt | head -n 40
	$(Q)$(BUILD)/vertigo export --format pprof -o $(RUN_DIR)/profile.pb.gz $(RUN_SYMS) $(RUN_DIR)/debugcon.txt
	$(Q)$(BUILD)/vertigo export --format folded -o $(RUN_DIR)/profile.folded $(RUN_SYMS) $(RUN_DIR)/debugcon.txt
	$(Q)$(BUILD)/vertigo export --format csv -o $(RUN_DIR)/profile.csv $(RUN_SYMS) $(RUN_DIR)/debugcon.txt
	$(Q)echo; echo "exports: $(RUN_DIR)/profile.pb.gz (pprof), profile.folded (flame graphs), profile.csv"

$(HV_ELF): $(HV_OBJS) linker.ld
	$(Q)$(HV_CC) $(HV_LDFLAGS) $(HV_OBJS) -o $@ -lgcc
	$(Q)grub-file --is-x86-multiboot2 $@ || { echo "error: $@ has no valid multiboot2 header"; rm -f $@; exit 1; }

# Host objects of portable sources, shared by unit tests and tools.
$(BUILD)/host/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/tool/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(TOOL_CFLAGS) -c $< -o $@

# Unit tests: a fragment says  UNIT_TESTS += name  and  unit_name_SRCS := ...
# Every test links tests/unit/unit.c (the framework's main).
define unit_test_rule
$(BUILD)/unit/$(1): $(patsubst %,$(BUILD)/host/%.o,tests/unit/unit.c $(unit_$(1)_SRCS))
	@mkdir -p $$(dir $$@)
	$$(Q)$$(HOST_CC) $$(HOST_LDFLAGS) $$^ -o $$@ $$(unit_$(1)_LIBS)
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_test_rule,$(t))))
UNIT_BINS := $(patsubst %,$(BUILD)/unit/%,$(UNIT_TESTS))

unit: setup $(UNIT_BINS)
	$(Q)./tests/run-tests --build $(BUILD) --unit-only

# Tools: a fragment says  TOOLS += name  and  tool_name_SRCS := ... tool_name_LIBS := ...
define tool_rule
$(BUILD)/$(1): $(patsubst %,$(BUILD)/tool/%.o,$(tool_$(1)_SRCS))
	@mkdir -p $$(dir $$@)
	$$(Q)$$(HOST_CC) $$^ -o $$@ $$(tool_$(1)_LIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))
TOOL_BINS := $(patsubst %,$(BUILD)/%,$(TOOLS))
tools: $(TOOL_BINS)
.PHONY: tools

# What e2e scripts build for themselves is built here first: the scripts run
# in parallel lanes (tests/run-tests), and two makes must not build one file.
E2E_PREBUILT := $(PROFILE_FIXTURE_ELFS) $(BUILD)/fuzz/fuzz-decoder $(BUILD)/fuzz/corpus-decoder/.seeded \
                $(BUILD)/fuzz/fuzz-report $(FUZZ_REPORT_CORPUS)/.seeded $(BUILD)/fuzz/fuzz-kstack \
                $(BUILD)/fuzz/fuzz-guest-pages $(PPROF)
# The README's `make test` is a plain make: what the tests need is built
# by a make of its own with a job per core (TEST_BUILD_JOBS), about half
# the build's time on two cores.
TEST_BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test: setup
	$(Q)$(MAKE) --no-print-directory -j$(TEST_BUILD_JOBS) all $(UNIT_BINS) $(E2E_PREBUILT) \
	    $(TEST_BUILT) check-headers check-layers check-docs
	$(Q)./tests/run-tests --build $(BUILD)

# The folders point one way (lib/ < boot/ < vmm/ < pmu/ < vmx/): every include
# between them is one tests/check-layers' table declares, and no include or
# call (read from the hypervisor's objects) closes a cycle between them
# except through the table's hook headers.
check-layers: $(HV_OBJS)
	$(Q)./tests/check-layers --cycles $(BUILD)

# The docs name only files, options, hypercalls and `vertigo` commands that
# exist (tests/check-docs; tests/e2e/docs.sh shows it failing on a stale page).
check-docs:
	$(Q)./tests/check-docs

# Each header must compile on its own (hypervisor flags; host flags for host headers).
check-headers: $(patsubst %,$(BUILD)/hdr/%.ok,$(HEADERS_HV)) $(patsubst %,$(BUILD)/hdrhost/%.ok,$(HEADERS_HOST))
$(BUILD)/hdr/%.ok: %
	@mkdir -p $(dir $@)
	$(Q)echo '#include "$<"' | $(HV_CC) $(filter-out -MMD -MP,$(HV_CFLAGS)) -x c -fsyntax-only - && touch $@
$(BUILD)/hdrhost/%.ok: %
	@mkdir -p $(dir $@)
	$(Q)echo '#include "$<"' | $(HOST_CC) $(filter-out -MMD -MP $(SANITIZE) -fno-sanitize-recover=all,$(HOST_CFLAGS)) -x c -fsyntax-only - && touch $@

bench: $(BENCH_TARGETS)
fuzz: $(FUZZ_TARGETS)
soak: $(SOAK_TARGETS)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
