# Reports and exports, host side: the symbolizer, the profile
# aggregation, the command line shared by `vertigo report` and `vertigo
# export`, the two commands with one writer per format, their unit tests
# and the report benchmark. Fixture programs and the capture generator:
# tests/fixtures/profile/.
REPORT_SRCS := host-tools/symbolize.c host-tools/sym_demangle.c host-tools/sym_sets.c \
               host-tools/sym_user.c host-tools/sym_elf.c host-tools/sym_dwarf.c \
               host-tools/sym_unwind.c host-tools/sym_domains.c host-tools/sym_intervals.c \
               host-tools/sym_table.c \
               host-tools/domain_names.c host-tools/keymap.c host-tools/interval_ids.c \
               host-tools/range_index.c \
               host-tools/guest_root.c host-tools/profile.c host-tools/profile_cli.c \
               host-tools/vertigo_version.c host-tools/time_filter.c \
               host-tools/cmd_report.c host-tools/report_rows.c host-tools/report_callgraph.c \
               host-tools/report_json.c host-tools/cmd_diff.c host-tools/cmd_top.c \
               host-tools/cmd_export.c host-tools/export_pprof.c host-tools/pb_write.c \
               host-tools/export_pftrace.c host-tools/trace_ids.c \
               host-tools/export_folded.c host-tools/export_csv.c \
               host-tools/profile_timeline.c host-tools/export_perfetto.c host-tools/cmd_script.c \
               host-tools/perf_names.c pmu/mux/mux.c \
               host-tools/sym_code.c host-tools/insn_call.c host-tools/insn_starts.c host-tools/objdump_run.c \
               host-tools/frame_check.c host-tools/cmd_check_frames.c host-tools/cmd_annotate.c
# libstdc++: the C++ ABI's demangler (host-tools/sym_demangle.c).
REPORT_LIBS := -ldw -lelf -lz -lstdc++

# Where the fixture ELFs below are built.
PROFILE_DIR := $(BUILD)/profile
PROFILE_ROOT := $(PROFILE_DIR)/root
PROFILE_FIXTURE_ELFS := $(PROFILE_ROOT)/bin/workload $(PROFILE_DIR)/hvmini \
                        $(PROFILE_DIR)/workload-clang $(PROFILE_DIR)/inlined $(PROFILE_DIR)/minikernel

# Fixtures of the report tests: the guest workload (a guest root holding
# /bin/workload, built with -g), the hypervisor stand-in ELF, and the
# synthetic capture generator (gen-profile) built on the real encoder.
PROFILE_ELF_CFLAGS := -g -O0 -static -fno-pie -no-pie -fno-omit-frame-pointer

$(PROFILE_ROOT)/bin/workload: tests/fixtures/profile/workload.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(PROFILE_ELF_CFLAGS) $< -o $@

$(PROFILE_DIR)/hvmini: tests/fixtures/profile/hvmini.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(PROFILE_ELF_CFLAGS) $< -o $@

# A guest kernel's vmlinux with DWARF, at the fixture kallsyms' addresses
# (tests/fixtures/profile/minikernel.c).
$(PROFILE_DIR)/minikernel: tests/fixtures/profile/minikernel.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) -g -O0 -nostdlib -static -fno-pie -no-pie -mcmodel=kernel -fno-toplevel-reorder \
	    -fno-asynchronous-unwind-tables -Wl,-Ttext=0xffffffff81002000 -Wl,-e,do_syscall_64 \
	    -Wl,--build-id $< -o $@

# The workload as clang builds it: DWARF 5 without .debug_aranges, which
# libdw's address lookup needs (the symbolizer falls back to the units).
$(PROFILE_DIR)/workload-clang: tests/fixtures/profile/workload.c
	@mkdir -p $(dir $@)
	$(Q)clang -g -O0 -fno-omit-frame-pointer $< -o $@

# Inlined code: scale() inside outer(), -O2.
$(PROFILE_DIR)/inlined: tests/fixtures/profile/inlined.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) -g -O2 -fno-omit-frame-pointer $< -o $@

TOOLS += gen-profile
tool_gen-profile_SRCS := tests/fixtures/profile/gen_profile_main.c tests/fixtures/profile/gen_profile.c \
                         $(LOG_PORTABLE_SRCS)
tool_gen-profile_LIBS := -lelf

HEADERS_HOST += tests/fixtures/profile/gen_profile.h

tool_vertigo_SRCS += $(REPORT_SRCS)
tool_vertigo_LIBS += $(REPORT_LIBS)

HEADERS_HOST += host-tools/symbolize.h host-tools/profile.h host-tools/profile_cli.h \
                host-tools/range_index.h host-tools/guest_root.h host-tools/keymap.h host-tools/interval_ids.h \
                host-tools/sym_internal.h host-tools/report_rows.h host-tools/report_callgraph.h \
                host-tools/report_json.h \
                host-tools/sym_demangle.h host-tools/profile_timeline.h host-tools/perf_names.h \
                host-tools/domain_names.h host-tools/time_filter.h host-tools/insn_call.h \
                host-tools/insn_starts.h host-tools/frame_check.h host-tools/pb_write.h host-tools/trace_ids.h host-tools/objdump_run.h

# Unit tests: captures from the real encoder (gen_profile.c) through the
# decoder, the symbolizer and every writer. They need the fixture ELFs.
REPORT_TEST_SRCS := tests/fixtures/profile/gen_profile.c host-tools/log_input.c \
                    tests/fuzz/hostile_logs.c tests/unit/test_log_util.c \
                    $(REPORT_SRCS) $(sort $(LOG_PORTABLE_SRCS) $(LOGDEC_SRCS))
UNIT_TESTS += report symbolize range_index guest_root
unit_range_index_SRCS := tests/unit/test_range_index.c host-tools/range_index.c
unit_guest_root_SRCS := tests/unit/test_guest_root.c host-tools/guest_root.c
unit_report_SRCS := tests/unit/test_report.c $(REPORT_TEST_SRCS)
unit_report_LIBS := $(REPORT_LIBS)
unit_symbolize_SRCS := tests/unit/test_symbolize.c $(REPORT_TEST_SRCS)
unit_symbolize_LIBS := $(REPORT_LIBS)
# The frame checker's decoder of calls against objdump, on real binaries.
UNIT_TESTS += insn_call
unit_insn_call_SRCS := tests/unit/test_insn_call.c host-tools/insn_call.c host-tools/insn_starts.c \
                       host-tools/objdump_run.c host-tools/keymap.c
$(BUILD)/unit/insn_call: | $(PROFILE_FIXTURE_ELFS) $(BUILD)/vertigo.elf   # HV_ELF is set after the fragments are read
# The frame checker on real frames and on a planted wrong mapping.
UNIT_TESTS += frame_check
unit_frame_check_SRCS := tests/unit/test_frame_check.c $(REPORT_TEST_SRCS)
unit_frame_check_LIBS := $(REPORT_LIBS)
$(BUILD)/unit/frame_check: | $(PROFILE_FIXTURE_ELFS)
UNIT_TESTS += unwind
unit_unwind_SRCS := tests/unit/test_unwind.c $(REPORT_TEST_SRCS)
unit_unwind_LIBS := $(REPORT_LIBS)
$(BUILD)/unit/report $(BUILD)/unit/symbolize: | $(PROFILE_FIXTURE_ELFS)
# The symbol table against libdwfl on the fixtures, the hypervisor, vertigo and libc.
UNIT_TESTS += sym_table
unit_sym_table_SRCS := tests/unit/test_sym_table.c $(REPORT_TEST_SRCS)
unit_sym_table_LIBS := $(REPORT_LIBS)
$(BUILD)/unit/sym_table: | $(PROFILE_FIXTURE_ELFS) $(BUILD)/vertigo.elf $(BUILD)/vertigo
# The command line shared by report and export, on the log fixtures.
UNIT_TESTS += profile_cli
unit_profile_cli_SRCS := tests/unit/test_profile_cli.c $(REPORT_TEST_SRCS)
unit_profile_cli_LIBS := $(REPORT_LIBS)

# `vertigo report` on 1 M and 10 M synthetic samples against `perf report`
# on a perf.data with as many samples (tests/bench/bench_report.sh).
# The real capture's samples, from `perf script`, as a Vertigo log.
TOOLS += perf-to-log
tool_perf-to-log_SRCS := tests/bench/perf_to_log.c tests/fixtures/profile/gen_profile.c \
                         $(LOG_PORTABLE_SRCS)
tool_perf-to-log_LIBS := -lelf
BENCH_TARGETS += bench-report
.PHONY: bench-report
bench-report: $(BUILD)/vertigo $(BUILD)/gen-profile $(BUILD)/perf-to-log $(PROFILE_FIXTURE_ELFS)
	$(Q)BUILD=$(BUILD) ./tests/bench/bench_report.sh
# Several domains: names, shares, passive domains and per-domain files.
UNIT_TESTS += report_domains
unit_report_domains_SRCS := tests/unit/test_report_domains.c $(REPORT_TEST_SRCS)
unit_report_domains_LIBS := $(REPORT_LIBS)
$(BUILD)/unit/report_domains: | $(PROFILE_FIXTURE_ELFS)
# Two CPUs: a sample named by time, not by the order the CPUs' blocks arrive.
UNIT_TESTS += report_cpus
unit_report_cpus_SRCS := tests/unit/test_report_cpus.c $(REPORT_TEST_SRCS)
unit_report_cpus_LIBS := $(REPORT_LIBS)
$(BUILD)/unit/report_cpus: | $(PROFILE_FIXTURE_ELFS)

# pprof itself, built from Debian's golang-github-google-pprof-dev source
# (setup-deps installs it): unlike Go's `go tool pprof`, whose local files
# have no build id, it reads the GNU build id of a binary it finds under
# PPROF_BINARY_PATH and takes it when it is the mapping's, so -disasm and
# -weblist work on exports that carry build ids. GOPATH mode, offline.
PPROF := $(BUILD)/pprof
PPROF_GOPATH := /usr/share/gocode
$(PPROF):
	@mkdir -p $(dir $@)
	$(Q)HOME=$(abspath $(BUILD)) GOCACHE=$(abspath $(BUILD))/go-cache GOPATH=$(PPROF_GOPATH) \
	    GO111MODULE=off GOFLAGS= go build -o $@ github.com/google/pprof
