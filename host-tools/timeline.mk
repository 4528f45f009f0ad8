# Interval multiplexing rows, host side: `vertigo timeline` and `vertigo
# correlate` (the rows loader, the writers, the correlation, gnuplot PNGs)
# and their unit test.
INTERVAL_SRCS := host-tools/interval_rows.c host-tools/cmd_intervals.c host-tools/cmd_timeline.c \
                 host-tools/cmd_correlate.c host-tools/timeline_write.c host-tools/correlate.c \
                 host-tools/plot.c
tool_vertigo_SRCS += $(INTERVAL_SRCS)
tool_vertigo_LIBS += -lm
HEADERS_HOST += host-tools/interval_rows.h host-tools/cmd_intervals.h host-tools/timeline_write.h \
                host-tools/correlate.h host-tools/plot.h host-tools/text_quote.h

UNIT_TESTS += intervals
unit_intervals_SRCS := tests/unit/test_intervals.c host-tools/interval_rows.c host-tools/correlate.c \
                       host-tools/timeline_write.c host-tools/plot.c host-tools/trace_ids.c \
                       host-tools/domain_names.c host-tools/log_input.c host-tools/profile_timeline.c pmu/mux/mux.c \
                       host-tools/interval_ids.c host-tools/keymap.c $(LOG_TEST_SRCS)
unit_intervals_LIBS := -lm
