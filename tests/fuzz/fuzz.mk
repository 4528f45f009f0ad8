# libFuzzer (clang) targets. `make fuzz` runs each for FUZZ_SECONDS
# (default 30 minutes); tests/e2e/log-fuzz.sh runs the decoder's for 20 s,
# the report's for 15 s and the others for 10 s.
FUZZ_SECONDS ?= 1800
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARNINGS) -I. -Iinclude -DVERTIGO_HOSTED=1 \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# Fixture files (kallsyms text, the hostile root's) are opened by their path
# in this tree, so the fuzzers and hostile-log run from any directory.
SOURCE_DIR_FLAG := -DVERTIGO_SOURCE_DIR='"$(CURDIR)"'
FUZZ_CFLAGS += $(SOURCE_DIR_FLAG)
$(BUILD)/tool/tests/fuzz/hostile_logs.c.o $(BUILD)/host/tests/fuzz/hostile_logs.c.o \
$(BUILD)/host/tests/fuzz/fuzz_report.c.o: TOOL_CFLAGS += $(SOURCE_DIR_FLAG)
$(BUILD)/host/tests/fuzz/hostile_logs.c.o $(BUILD)/host/tests/fuzz/fuzz_report.c.o: HOST_CFLAGS += $(SOURCE_DIR_FLAG)

FUZZ_DECODER_SRCS := tests/fuzz/fuzz_decode.c host-tools/logdec.c host-tools/logdec_crc.c host-tools/logdec_fast_shapes.c \
                     host-tools/logdec_fields.c host-tools/log_text.c host-tools/guest_pmu_text.c lib/log_crc.c

$(BUILD)/fuzz/fuzz-decoder: $(FUZZ_DECODER_SRCS) $(wildcard host-tools/*.h vmm/log/log_*.h lib/log_crc.h include/vertigo/*.h)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_DECODER_SRCS) -o $@

# Seed corpus: the golden fixture streams (with a leading chunk-size byte).
$(BUILD)/fuzz/corpus-decoder/.seeded: $(wildcard tests/fixtures/log/*.bin)
	@mkdir -p $(dir $@)
	$(Q)for f in $^; do { printf '\001'; cat $$f; } > $(dir $@)/seed-$$(basename $$f); done
	$(Q)touch $@

.PHONY: fuzz-decoder
FUZZ_TARGETS += fuzz-decoder
fuzz-decoder: $(BUILD)/fuzz/fuzz-decoder $(BUILD)/fuzz/corpus-decoder/.seeded
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -max_len=200000 $(BUILD)/fuzz/corpus-decoder

# Hostile logs (tests/fuzz/hostile_logs.h): tests/e2e/report.sh runs the
# tools on them within time and memory bounds; the report fuzzer and the
# unit tests take them as inputs.
HOSTILE_LOG_SRCS := tests/fuzz/hostile_logs.c tests/unit/test_log_util.c \
                    $(sort $(LOG_PORTABLE_SRCS) $(LOGDEC_SRCS))
TOOLS += hostile-log
tool_hostile-log_SRCS := tests/fuzz/hostile_log_main.c $(HOSTILE_LOG_SRCS)
HEADERS_HOST += tests/fuzz/hostile_logs.h

# The report fuzzer (tests/fuzz/fuzz_report.h): records framed into valid
# blocks through the decoder, profile, symbolizer and every writer. Seeds:
# the hostile logs and the report tests' capture (fuzz-report-seed), and
# the regression corpus of every crash it found (tests/fixtures/report-corpus,
# replayed by the report_corpus unit test under the sanitizers).
FUZZ_REPORT_SRCS := tests/fuzz/fuzz_report_main.c tests/fuzz/fuzz_report.c tests/fuzz/hostile_logs.c \
                    tests/unit/test_log_util.c \
                    host-tools/log_input.c $(REPORT_SRCS) $(sort $(LOG_PORTABLE_SRCS) $(LOGDEC_SRCS))
HEADERS_HOST += tests/fuzz/fuzz_report.h

$(BUILD)/fuzz/fuzz-report: $(FUZZ_REPORT_SRCS) $(wildcard host-tools/*.h vmm/log/log_*.h lib/log_crc.h include/vertigo/*.h \
                           tests/fuzz/*.h tests/unit/test_log_util.h)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_REPORT_SRCS) -o $@ $(REPORT_LIBS)

TOOLS += fuzz-report-seed
tool_fuzz-report-seed_SRCS := tests/fuzz/fuzz_report_seed.c $(HOSTILE_LOG_SRCS)

FUZZ_REPORT_CORPUS := $(BUILD)/fuzz/corpus-report
$(FUZZ_REPORT_CORPUS)/.seeded: $(BUILD)/fuzz-report-seed $(BUILD)/gen-profile $(PROFILE_FIXTURE_ELFS) \
                               $(wildcard tests/fixtures/report-corpus/*.bin)
	@mkdir -p $(dir $@)
	$(Q)$(BUILD)/gen-profile $(PROFILE_ROOT)/bin/workload $(PROFILE_DIR)/hvmini \
	    tests/fixtures/profile/kallsyms.txt 2 $(dir $@)/capture.log
	$(Q)$(BUILD)/fuzz-report-seed $(dir $@) $(dir $@)/capture.log
	$(Q)rm -f $(dir $@)/capture.log
	$(Q)cp tests/fixtures/report-corpus/*.bin $(dir $@)/ 2>/dev/null || true
	$(Q)touch $@

.PHONY: fuzz-report
FUZZ_TARGETS += fuzz-report
fuzz-report: $(BUILD)/fuzz/fuzz-report $(FUZZ_REPORT_CORPUS)/.seeded
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -max_len=100000 -timeout=20 \
	    -artifact_prefix=$(BUILD)/fuzz/report- $(FUZZ_REPORT_CORPUS)

# Every input of the regression corpus through the harness, sanitized.
UNIT_TESTS += report_corpus
unit_report_corpus_SRCS := tests/unit/test_report_corpus.c tests/fuzz/fuzz_report.c $(REPORT_TEST_SRCS)
unit_report_corpus_LIBS := $(REPORT_LIBS)
$(BUILD)/unit/report_corpus: | $(PROFILE_FIXTURE_ELFS)

# The unikernel loader on arbitrary modules (tests/fuzz/fuzz_unikernel.c).
FUZZ_UNIKERNEL_SRCS := tests/fuzz/fuzz_unikernel.c vmm/loader/unikernel_boot.c
$(BUILD)/fuzz/fuzz-unikernel: $(FUZZ_UNIKERNEL_SRCS) vmm/loader/unikernel_boot.h vmm/loader/linux_boot.h \
                              include/vertigo/unikernel.h
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_UNIKERNEL_SRCS) -o $@

# Seed: a minimal static executable linked at 1 MiB, stripped.
$(BUILD)/fuzz/corpus-unikernel/seed-min:
	@mkdir -p $(dir $@)
	$(Q)printf 'void _start(void) { for (;;) __asm__("hlt"); }\n' | \
	    $(HOST_CC) -x c - -O1 -nostdlib -static -no-pie -Wl,--build-id=none \
	    -Wl,-Ttext-segment=0x100000 -s -o $@

.PHONY: fuzz-unikernel
FUZZ_TARGETS += fuzz-unikernel
fuzz-unikernel: $(BUILD)/fuzz/fuzz-unikernel $(BUILD)/fuzz/corpus-unikernel/seed-min
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(BUILD)/fuzz/corpus-unikernel

# The NMI path's walk of a hostile guest's call stack (tests/fuzz/fuzz_kstack.c):
# fuzzed ORC tables, stack pages and registers; each guest page its own
# allocation, so AddressSanitizer sees any read past one. No seeds needed:
# the input's tagged words make real-looking chains.
FUZZ_KSTACK_SRCS := tests/fuzz/fuzz_kstack.c vmm/guest/guest_stack.c vmm/guest/guest_orc.c \
                    vmm/guest/guest_orc_table.c vmm/guest/guest_reader.c vmm/hypercall.c
$(BUILD)/fuzz/fuzz-kstack: $(FUZZ_KSTACK_SRCS) $(wildcard vmm/guest/guest_*.h vmm/hypercall.h \
                           include/vertigo/hypercall.h tests/fuzz/fuzz_input.h)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_KSTACK_SRCS) -o $@

.PHONY: fuzz-kstack
FUZZ_TARGETS += fuzz-kstack
fuzz-kstack: $(BUILD)/fuzz/fuzz-kstack
	@mkdir -p $(BUILD)/fuzz/corpus-kstack
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -artifact_prefix=$(BUILD)/fuzz/kstack- \
	    $(BUILD)/fuzz/corpus-kstack

# Guest-virtual reads through hostile page tables, the EPT and the
# translation cache kept across samples (tests/fuzz/fuzz_guest_pages.c):
# every page handed out is guest RAM, and the cache (and a proof taken
# from it, guest_page_proof_check) answers as a fresh walk does after the
# tables, the EPT or CR3 changed.
FUZZ_GUEST_PAGES_SRCS := tests/fuzz/fuzz_guest_pages.c vmx/guest_mem.c vmx/ept.c vmx/vmx_caps.c \
                         vmm/guest/guest_tlb.c vmm/guest/guest_pt.c lib/format.c tests/unit/host_ept.c
HEADERS_HOST += tests/unit/host_ept.h tests/fuzz/fuzz_input.h
$(BUILD)/fuzz/fuzz-guest-pages: $(FUZZ_GUEST_PAGES_SRCS) $(wildcard vmm/guest/guest_*.h vmx/guest_mem.h \
                                vmx/ept.h vmm/vcpu.h tests/unit/host_ept.h tests/fuzz/fuzz_input.h)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_GUEST_PAGES_SRCS) -o $@

.PHONY: fuzz-guest-pages
FUZZ_TARGETS += fuzz-guest-pages
fuzz-guest-pages: $(BUILD)/fuzz/fuzz-guest-pages
	@mkdir -p $(BUILD)/fuzz/corpus-guest-pages
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -artifact_prefix=$(BUILD)/fuzz/guest-pages- \
	    $(BUILD)/fuzz/corpus-guest-pages
