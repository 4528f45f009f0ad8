/* The report fuzzer (tests/fuzz/fuzz_report.c): one input through the
 * decoder, the profile, the symbolizer and every writer of `vertigo
 * report` and `vertigo export`, shared by the libFuzzer target
 * (fuzz_report_main.c) and the replay of its regression corpus
 * (tests/unit/test_report_corpus.c).
 *
 * An input is a byte of options, then records; the harness frames them
 * into blocks with correct checksums and sequence numbers, so mutations
 * reach the record fields and the symbol text instead of failing a CRC:
 *
 *   options  bits 0-1 --sort (samples, sym, dso, comm,pid,dso,sym), bit 2 --children,
 *            bit 3 --by-mode, bit 4 --event of the first event-desc name
 *            (else none), bit 5 --guest-root (the fuzz root below),
 *            bit 6 --vertigo-elf, bit 7 --kallsyms (the fixture file)
 *   record   u8 control: bits 0-1 CPU, bit 2 close the block before it,
 *                        bit 3 skip a block number first (a gap),
 *                        bit 4 a stream header first (a new stream)
 *            u8 type, u16 length (little-endian; cut at the input's end),
 *            length bytes of body: varint zigzag TSC delta, then fields
 *
 * The fuzz root holds the fixture workload, a FIFO, a link loop, links
 * out of the root, a truncated ELF and a text file (see
 * fuzz_report_setup), so maps paths meet every kind of guest file. */
#ifndef TESTS_FUZZ_FUZZ_REPORT_H
#define TESTS_FUZZ_FUZZ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FUZZ_OPT_SORT_MASK   0x03u
#define FUZZ_OPT_CHILDREN    0x04u
#define FUZZ_OPT_BY_MODE     0x08u
#define FUZZ_OPT_EVENT       0x10u
#define FUZZ_OPT_GUEST_ROOT  0x20u
#define FUZZ_OPT_VERTIGO_ELF 0x40u
#define FUZZ_OPT_KALLSYMS    0x80u

#define FUZZ_CTL_CPU_MASK    0x03u
#define FUZZ_CTL_NEW_BLOCK   0x04u
#define FUZZ_CTL_GAP         0x08u
#define FUZZ_CTL_NEW_STREAM  0x10u

#define FUZZ_RECORD_HEAD     4u       /* control, type, length */

/* Makes the fuzz root build_dir/fuzz/report-root once (build_dir is the
 * $(BUILD) holding the fixture ELFs profile/root/bin/workload and
 * profile/hvmini), or finds it made. False if a fixture is missing. */
bool fuzz_report_setup(const char *build_dir);

/* Runs one input; aborts when an invariant breaks: every writer's text
 * (report, folded, CSV, script, Perfetto JSON) is valid UTF-8 without
 * control characters but LF and TAB, whatever names the log holds; the
 * profile's total is
 * the sum of its samples and of its events' totals, and equals the
 * report's "# Total samples:", the folded lines' counts and the CSV's
 * samples column (each with one event kept); no more samples are kept
 * than were decoded. */
void fuzz_report_run(const uint8_t *data, size_t size);

#endif
