#!/bin/bash
# Interval multiplexing benchmark (`make bench`, docs/pmu.md "Interval
# multiplexing"). Four Bochs boots, one after the other, of the same guest
# running the three-phase workload (tests/guest/phases.c: compute, system
# calls, page faults), with the software backend (pmu=soft):
#   none   no counting session;
#   exact  the 32 events below counted exactly (pmu.soft.counters=32);
#   mux    the same 32 events multiplexed over 4 counters, N = 1M, S = 100K;
#   ref    the same 32 multiplexed over 2 counters (N = 1M, S = 50K: 11
#          sets need 11 turns) with pmu.interval.exact=on: each row is
#          followed by the exact counts of the same interval, so every
#          event's extrapolation is measured per interval against the
#          same run (not in the overhead: those records cost).
# Prints:
#  1. the overhead: the workload's TSC span in mux against exact (what
#     multiplexing adds: an exit per turn and the reads at its end) and
#     against none (the whole session: the mode traps that make per-mode
#     counts exact cost most of it). In Bochs with clock sync=none the
#     guest's RDTSC counts emulated instructions, Vertigo's included, so the
#     ratios are exact, not timings;
#  2. the rows: how many, their field bytes (vertigo stats' average) and
#     their instructions (N exactly but the last);
#  3. accuracy, mux boot: each event's extrapolated total (the rows' sum)
#     against the exact total the software backend counted in the same
#     run; ref boot: the same for totals, and per interval each event's
#     extrapolated value against its exact value in that interval (the
#     absolute errors summed over the rows, relative to the exact sum,
#     and the median and 95th percentile of the per-row relative error).
# A measurement that cannot be taken fails the benchmark; the figures are
# never judged.
#
# usage: BUILD=build tests/bench/bench_mux.sh
#   env: BENCH_IPS (Bochs emulated instructions per second, default
#        500000000), BENCH_TIMEOUT (seconds per boot, default 600),
#        BENCH_MUX_SCALE (the workload's SCALE, default 1)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/mux"
VERTIGO="$BUILD/vertigo"
IPS=${BENCH_IPS:-500000000}
TIMEOUT=${BENCH_TIMEOUT:-600}
SCALE=${BENCH_MUX_SCALE:-1}
N=1000000
S=100000
COUNTERS=4
REF_COUNTERS=2
REF_S=50000
. tests/bench/mux_events.sh
EVENTS=$MUX_EVENTS
GUEST="console=ttyS0 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=phases vertigo.phases=$SCALE"

die() { echo "bench-mux: FAILED: $*" >&2; exit 1; }

for f in "$BUILD/vertigo.elf" "$BUILD/guest/vmlinuz" "$BUILD/guest/initrd.cpio.lz4" "$VERTIGO"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD bench-mux)"
done
[ "$(echo "$EVENTS" | tr ',' '\n' | wc -l)" = 32 ] || die "the event list is not 32 events"
rm -rf "$OUT"
mkdir -p "$OUT"

# boot NAME VERTIGO_OPTIONS: one boot; its captures in $OUT/NAME.
boot() {
    echo "bench-mux: boot '$1': $2" | cut -c1-160
    "$VERTIGO" run --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet \
        --elf "$BUILD/vertigo.elf" --kernel "$BUILD/guest/vmlinuz" \
        --initrd "$BUILD/guest/initrd.cpio.lz4" --guest-cmdline "$GUEST" \
        --cmdline "console=com2 log=e9 pmu=soft $2" --out "$OUT/$1" 2>"$OUT/$1.runner.txt" ||
        die "boot '$1' did not pass (see $OUT/$1.runner.txt)"
}

# span NAME: TSC ticks from the compute phase's start to the fault phase's end.
span() {
    local from to
    from=$(tr -d '\r' < "$OUT/$1/serial.txt" | awk '$1 == "phases:" && $2 == "compute" {print $4}')
    to=$(tr -d '\r' < "$OUT/$1/serial.txt" | awk '$1 == "phases:" && $2 == "fault" {print $5}')
    [ -n "$from" ] && [ -n "$to" ] || die "boot '$1': the workload printed no phases"
    echo $((to - from))
}

boot none ""
boot exact "pmu.soft.counters=32 pmu.events=$EVENTS"
boot mux "pmu.soft.counters=$COUNTERS pmu.interval=$N pmu.subinterval=$S pmu.events=$EVENTS"
boot ref "pmu.soft.counters=$REF_COUNTERS pmu.interval=$N pmu.subinterval=$REF_S pmu.interval.exact=on pmu.events=$EVENTS"
grep -q "32 events, .*sets over $COUNTERS counters, interval $N, turn $S instructions" \
    <(tr -d '\r' < "$OUT/mux/com2.txt") || die "the mux boot did not multiplex (see $OUT/mux/com2.txt)"
grep -q "32 events, .*sets over $REF_COUNTERS counters, interval $N, turn $REF_S instructions" \
    <(tr -d '\r' < "$OUT/ref/com2.txt") || die "the ref boot did not multiplex (see $OUT/ref/com2.txt)"

none=$(span none) exact=$(span exact) mux=$(span mux)
echo
echo "== overhead: the workload's TSC ticks (Bochs: emulated instructions, Vertigo's included)"
printf '  none %d, exact %d, mux %d\n' "$none" "$exact" "$mux"
awk -v n="$none" -v e="$exact" -v m="$mux" 'BEGIN {
    printf "  mux / exact = %.4f   (what multiplexing 32 events over 4 counters adds; target <= 1.02)\n", m / e
    printf "  mux / none  = %.4f   (the whole session, mode traps included)\n", m / n
    printf "  exact / none = %.4f\n", e / n }'

# totals NAME: the exact totals line of the boot's log ("name=count ...").
totals() {
    local line
    line=$("$VERTIGO" stats "$OUT/$1/debugcon.txt" | sed -n 's/^  dom 0 vcpu 0: //p')
    [ -n "$line" ] || die "no PMU totals in the $1 boot's log"
    echo "$line"
}

for run in mux ref; do
    "$VERTIGO" timeline -o "$OUT/$run/timeline.csv" "$OUT/$run/debugcon.txt" ||
        die "vertigo timeline failed on the $run boot's log"
done
"$VERTIGO" decode "$OUT/ref/debugcon.txt" > "$OUT/ref/decode.txt" || die "vertigo decode failed"
stats=$("$VERTIGO" stats "$OUT/mux/debugcon.txt") || die "vertigo stats failed"
echo
echo "== rows"
echo "$stats" | grep -E '^  interval ' | sed 's/^  /  records: /'
tr -d '\r' < "$OUT/mux/com2.txt" | grep '^pmu: vcpu 0: .*interval rows' | sed 's/^/  /'
echo
echo "== accuracy, mux boot (32 events over $COUNTERS counters, N = $N, S = $S)"
./tests/bench/bench_mux_accuracy.py "$OUT/mux/timeline.csv" "$(totals mux)" ||
    die "accuracy figures of the mux boot"
echo
echo "== accuracy, ref boot (32 events over $REF_COUNTERS counters, N = $N, S = $REF_S, exact counts per interval)"
./tests/bench/bench_mux_accuracy.py "$OUT/ref/timeline.csv" "$(totals ref)" "$OUT/ref/decode.txt" ||
    die "accuracy figures of the ref boot"
