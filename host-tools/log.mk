# Profiling log, host side: the decoder library, the `vertigo` command
# (one file per subcommand), the fixture generator and the log benchmark.
LOG_PORTABLE_SRCS := lib/log_crc.c vmm/log/log_varint.c vmm/log/log_encode.c vmm/log/log_ring.c vmm/log/log_emit.c
# What every tool does with the values of a log: its text into each
# output format (text_quote.c), its numbers summed with checks (log_arith.c),
# and the message when memory runs out (out_of_memory.c).
LOG_VALUE_SRCS := host-tools/text_quote.c host-tools/log_arith.c host-tools/out_of_memory.c
# The checksum is the hypervisor's own code (lib/log_crc.c: the SSE4.2
# CRC32 instruction where the CPU has it); block payloads are checked with
# three chains of that instruction side by side (host-tools/logdec_crc.c).
LOGDEC_SRCS := host-tools/logdec.c host-tools/logdec_crc.c host-tools/logdec_fast_shapes.c host-tools/logdec_fields.c host-tools/log_text.c \
               host-tools/guest_pmu_text.c lib/log_crc.c $(LOG_VALUE_SRCS)

TOOLS += vertigo
tool_vertigo_SRCS := host-tools/vertigo.c host-tools/cmd_run.c host-tools/cmd_decode.c host-tools/cmd_stats.c \
                     host-tools/stats_json.c host-tools/stats_guest_pmu.c host-tools/stats_domains.c host-tools/log_input.c \
                     pmu/backend/swevents.c lib/format.c $(LOGDEC_SRCS)

# `vertigo run` looks for host-tools/vertigo-run in this tree last.
$(BUILD)/tool/host-tools/cmd_run.c.o: TOOL_CFLAGS += -DVERTIGO_SOURCE_DIR='"$(CURDIR)"'

# Writes the golden streams of tests/fixtures/log (see gen_fixtures.c).
TOOLS += log-fixture-gen
tool_log-fixture-gen_SRCS := tests/fixtures/log/gen_fixtures.c tests/unit/test_log_util.c \
                             $(sort $(LOG_PORTABLE_SRCS) $(LOGDEC_SRCS))

HEADERS_HOST += host-tools/logdec.h host-tools/logdec_crc.h host-tools/logdec_fast.h host-tools/log_text.h host-tools/log_input.h \
                host-tools/vertigo.h host-tools/guest_pmu_text.h host-tools/stats_guest_pmu.h \
                host-tools/stats_domains.h host-tools/stats_log.h host-tools/log_arith.h host-tools/out_of_memory.h

# Decoder throughput and encoded sizes (optimized, no sanitizers), and the
# decoder's instructions per record under callgrind (tests/bench/bench_log.sh).
BENCH_TARGETS += bench-log
$(BUILD)/bench/bench-log: $(patsubst %,$(BUILD)/tool/%.o,tests/bench/bench_log.c \
                          $(sort $(LOG_PORTABLE_SRCS) $(LOGDEC_SRCS)))
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $^ -o $@
.PHONY: bench-log
bench-log: $(BUILD)/bench/bench-log
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_log.sh

# Unit tests of the log (tests/unit/test_log_*.c).
LOG_TEST_SRCS := tests/unit/test_log_util.c $(sort $(LOG_PORTABLE_SRCS) $(LOGDEC_SRCS))
UNIT_TESTS += log_format log_property log_ring log_corrupt log_golden log_ranges log_guest_pmu log_fast
unit_log_format_SRCS := tests/unit/test_log_format.c $(LOG_TEST_SRCS)
unit_log_property_SRCS := tests/unit/test_log_property.c $(LOG_TEST_SRCS)
unit_log_ring_SRCS := tests/unit/test_log_ring.c $(LOG_TEST_SRCS)
unit_log_corrupt_SRCS := tests/unit/test_log_corrupt.c $(LOG_TEST_SRCS)
unit_log_golden_SRCS := tests/unit/test_log_golden.c $(LOG_TEST_SRCS)
unit_log_ranges_SRCS := tests/unit/test_log_ranges.c $(LOG_TEST_SRCS)
unit_log_fast_SRCS := tests/unit/test_log_fast.c $(LOG_TEST_SRCS)
unit_log_guest_pmu_SRCS := tests/unit/test_log_guest_pmu.c host-tools/stats_guest_pmu.c \
                           $(LOG_TEST_SRCS)

# `vertigo stats`' per-domain section.
UNIT_TESTS += stats_domains
unit_stats_domains_SRCS := tests/unit/test_stats_domains.c host-tools/stats_domains.c \
                           host-tools/domain_names.c pmu/backend/swevents.c lib/format.c $(LOG_VALUE_SRCS)

# The text of a log into each output format, and checked sums.
UNIT_TESTS += text_quote
unit_text_quote_SRCS := tests/unit/test_text_quote.c $(LOG_VALUE_SRCS)
