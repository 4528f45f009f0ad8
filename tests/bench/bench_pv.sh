#!/bin/bash
# A-mode read cost of the guest counter library (guestlib/vertigo_counters.h).
# One Bochs boot, one VCPU, scenario pv_cost (tests/guest/pv_cost.c), which
# prints per counter kind the guest instructions and VM exits of one
# vertigo_counters_read (the least of 16 tries):
#   every mode   instructions     from the VCPU's page and the TSC
#   other mode   instructions:k   from the VCPU's page (stands still in user mode)
#   own mode     instructions:u   one VERTIGO_HC_PV_READ exit
# and for comparison the module's system call and perf's read() of an
# instructions:u event on the guest's virtual PMU (instructions in every
# mode); and the TSC ticks and exits of a context switch between two
# threads on one CPU with no counters, the same events and different
# events. Target: an a-mode read of at most 40 instructions and no exit
# where the backend allows (pv_cost checks it: a PASS or FAIL line). A
# boot that fails or a missing figure fails the benchmark.
#
# usage: BUILD=build tests/bench/bench_pv.sh
#   env: BENCH_IPS (Bochs emulated instructions per second, default
#        500000000), BENCH_TIMEOUT (wall seconds, default 600)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/pv"
IPS=${BENCH_IPS:-500000000}
TIMEOUT=${BENCH_TIMEOUT:-600}
CMDLINE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=pv_cost"

die() { echo "bench-pv: FAILED: $*" >&2; exit 1; }

for f in "$BUILD/vertigo.elf" "$BUILD/guest/vmlinuz" "$BUILD/guest/initrd.cpio.lz4"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD hv guest)"
done
mkdir -p "$OUT"
host-tools/vertigo-run --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet \
    --elf "$BUILD/vertigo.elf" --kernel "$BUILD/guest/vmlinuz" \
    --initrd "$BUILD/guest/initrd.cpio.lz4" --guest-cmdline "$CMDLINE" \
    --cmdline "console=com2 log=e9 pmu=auto" --out "$OUT/run" 2>"$OUT/run.runner.txt" ||
    die "the boot (captures in $OUT/run)"
lines=$(tr -d '\r' <"$OUT/run/serial.txt" | grep -E '^pv_cost: ')
# (grep reads its whole input, never -q: under pipefail the writer's SIGPIPE
# after an early match would fail the pipe and the check with it)
echo "$lines" | grep '^pv_cost: a-mode read, every mode' >/dev/null ||
    die "no figures in $OUT/run/serial.txt"
echo "== a-mode read cost (Bochs, software backend, one VCPU; least of 16 reads)"
echo "$lines" | grep -E '^pv_cost: (a-mode read|system call|perf read|a TSC|context switch)' |
    sed 's/^pv_cost: /  /'
echo "$lines" | grep -E '^pv_cost: (PASS|FAIL)' | sed 's/^pv_cost: /  /'
echo "  target: an a-mode read of at most 40 guest instructions and 0 VM exits where the backend allows"
