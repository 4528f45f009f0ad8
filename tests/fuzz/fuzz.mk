# libFuzzer (clang) targets. `make fuzz` runs each for FUZZ_SECONDS
# (default 30 minutes); tests/e2e/log-fuzz.sh runs the decoder's for 60 s.
FUZZ_SECONDS ?= 1800
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARNINGS) -I. -Iinclude -DVERTIGO_HOSTED=1 \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

FUZZ_DECODER_SRCS := tests/fuzz/fuzz_decode.c host-tools/logdec.c host-tools/logdec_fields.c \
                     host-tools/logdec_crc.c \
                     host-tools/log_text.c vmm/log_crc.c

$(BUILD)/fuzz/fuzz-decoder: $(FUZZ_DECODER_SRCS) $(wildcard host-tools/*.h vmm/log_*.h include/vertigo/*.h)
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
