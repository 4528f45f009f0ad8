/* Hostile logs for the host tools' tests: streams with correct checksums
 * that a guest (through the symbols hypercall and its processes) or
 * anyone writing a file could feed `vertigo report` and `export`, each
 * scaled by a count n. They exercise the limits and the algorithms whose
 * cost must grow with the log's size, not faster (docs/user-guide.md,
 * "Limits"), and seed the report fuzzer (tests/fuzz/fuzz_report.c).
 *
 *   events      n samples of n distinct event ids, each described
 *   vcpus       n samples of n distinct VCPUs
 *   jit         n one-line JIT map sets of one process, a sample in each
 *   unfinished  n symbol sets whose last chunk never comes
 *   identities  n processes with an identity each, a sample per CR3
 *   processes   n processes mapping distinct code, samples without CR3
 *   paths       maps naming paths that try to leave the guest root or
 *               name non-files (n samples in each)
 *   names       n samples 32 frames deep in JIT code with 1000-byte names
 *   loss        n loss records of 2^64 - 1 (their sum needs more than 64 bits)
 *   ranges      n records with fields out of range, one of each kind
 *   totals      PMU totals of n VCPUs (vertigo stats shows the first 64)
 *   periods     frequency-mode periods: a session's period, VCPUs' own
 *               periods, a new session ending them (HOSTILE_PERIODS_EVENTS
 *               events in 7 samples), then n VCPUs of domain 3 with a
 *               period of their own each, i + 1 for VCPU i, and a sample
 *   escapes     every name a writer shows (events, interval events, a
 *               domain, a process, a maps path, a JIT function, kallsyms)
 *               holding ESC, CR, LF, TAB, quotes, ',', ';', DEL, C1,
 *               invalid and valid UTF-8; samples in each, n interval rows
 *   exit-sums   two vcpu-stats of 2^63 exits: their sum passes 64 bits
 *   period-sums samples whose periods add up past 64 bits (n = 0), or
 *               past pprof's signed 2^63 - 1 only (n > 0)
 *   row-sums    interval rows whose missing rows (n = 0) or instructions
 *               (n = 1) add up past 64 bits, or whose span passes its TSC
 *   domain-ids  two domains named alike, domains 300 and 2^32 - 1
 *   every-type  one record of each type (and an unknown one), fields at
 *               their largest
 *   domains     n kernel samples at one RIP, each from a domain of its own
 *   addresses   n hypervisor samples whose addresses differ above bit 31
 *   rows        n interval rows of one VCPU, one event each (about 10
 *               field bytes a row)
 *   row-vcpus   two interval rows of each of n VCPUs
 */
#ifndef TESTS_FUZZ_HOSTILE_LOGS_H
#define TESTS_FUZZ_HOSTILE_LOGS_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/unit/test_log_util.h"

#define HOSTILE_PID 7u                   /* the process the logs' samples run in */
#define HOSTILE_PERIODS_EVENTS 7700u     /* the periods kind with n = 0 */
#define HOSTILE_JIT_BASE 0x7f0000000000ull

/* Appends the log `kind` scaled by n to out; false if kind is unknown. */
bool hostile_log_write(const char *kind, uint32_t n, struct log_test_stream *out);

/* Fills root (an existing, empty directory) with a guest tree of hostile
 * files for the symbolizer: bin/workload (a copy of the ELF workload),
 * lib/good.so (an absolute link to /bin/workload: inside the root),
 * lib/trunc.so (the workload's first 3000 bytes), lib/text.so (a text
 * file), lib/fifo.so (a FIFO), lib/loop.so (a link to itself),
 * lib/escape.so (a link climbing out of the root to /etc/passwd),
 * lib/abs.so (an absolute link to /dev/zero), lib/dir.so (a directory).
 * False if one could not be made. */
bool hostile_root_make(const char *root, const char *workload);

/* The kinds, NULL-terminated. */
extern const char *const hostile_log_kinds[24];

#endif
