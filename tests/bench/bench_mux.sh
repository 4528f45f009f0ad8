#!/bin/bash
# Interval multiplexing benchmark (`make bench`, docs/pmu.md "Interval
# multiplexing"). Three Bochs boots, one after the other, of the same guest
# running the three-phase workload (tests/guest/phases.c: compute, system
# calls, page faults), with the software backend (pmu=soft):
#   none   no counting session;
#   exact  the 32 events below counted exactly (pmu.soft.counters=32);
#   mux    the same 32 events multiplexed over 4 counters, N = 1M, S = 100K.
# Prints:
#  1. the overhead: the workload's TSC span in mux against exact (what
#     multiplexing adds: an exit per turn and the reads at its end) and
#     against none (the whole session: the mode traps that make per-mode
#     counts exact cost most of it). In Bochs with clock sync=none the
#     guest's RDTSC counts emulated instructions, Vertigo's included, so the
#     ratios are exact, not timings;
#  2. the rows: how many, their field bytes (vertigo stats' average) and
#     their instructions (N exactly but the last);
#  3. accuracy: each event's extrapolated total (the rows' sum) against the
#     exact total the software backend counted in the same run, and, for
#     the events whose exact per-interval value is known (instructions,
#     cycles and ref-cycles with :uk: one per retired instruction in
#     Bochs, so the row's instructions), the per-interval error.
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
# 21 hardware events (3 events x 7 mode sets) and 11 software events.
EVENTS=""
for ev in instructions cycles ref-cycles; do
    for mods in u k uk h uh kh ukh; do
        EVENTS="$EVENTS${EVENTS:+,}$ev:$mods"
    done
done
EVENTS="$EVENTS,exits:all,exits:cpuid,exits:io,exits:vmcall,exits:rdmsr,exits:wrmsr"
EVENTS="$EVENTS,exits:ept_violation,exits:preemption_timer,exits:hlt,exits:external_interrupt,nmis"
GUEST="console=ttyS0 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=phases vertigo.phases=$SCALE"

die() { echo "bench-mux: FAILED: $*" >&2; exit 1; }

for f in "$BUILD/vertigo.elf" "$BUILD/guest/vmlinuz" "$BUILD/guest/initrd.cpio.gz" "$VERTIGO"; do
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
        --initrd "$BUILD/guest/initrd.cpio.gz" --guest-cmdline "$GUEST" \
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
grep -q "32 events, .*sets over $COUNTERS counters, interval $N, turn $S instructions" \
    <(tr -d '\r' < "$OUT/mux/com2.txt") || die "the mux boot did not multiplex (see $OUT/mux/com2.txt)"

none=$(span none) exact=$(span exact) mux=$(span mux)
echo
echo "== overhead: the workload's TSC ticks (Bochs: emulated instructions, Vertigo's included)"
printf '  none %d, exact %d, mux %d\n' "$none" "$exact" "$mux"
awk -v n="$none" -v e="$exact" -v m="$mux" 'BEGIN {
    printf "  mux / exact = %.4f   (what multiplexing 32 events over 4 counters adds; target <= 1.02)\n", m / e
    printf "  mux / none  = %.4f   (the whole session, mode traps included)\n", m / n
    printf "  exact / none = %.4f\n", e / n }'

"$VERTIGO" timeline -o "$OUT/mux/timeline.csv" "$OUT/mux/debugcon.txt" ||
    die "vertigo timeline failed on the mux boot's log"
stats=$("$VERTIGO" stats "$OUT/mux/debugcon.txt") || die "vertigo stats failed"
totals=$(echo "$stats" | sed -n 's/^  dom 0 vcpu 0: //p')
[ -n "$totals" ] || die "no PMU totals in the mux boot's log"
echo
echo "== rows"
echo "$stats" | grep -E '^  interval ' | sed 's/^  /  records: /'
tr -d '\r' < "$OUT/mux/com2.txt" | grep '^pmu: vcpu 0: .*interval rows' | sed 's/^/  /'
echo
echo "== accuracy (32 events over $COUNTERS counters, N = $N, S = $S)"
python3 - "$OUT/mux/timeline.csv" "$totals" <<'EOF' || die "accuracy figures"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
totals = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in sys.argv[2].split())
worst = 0.0
for name, exact in totals.items():
    got = sum(int(r[name]) for r in rows)
    err = (got - exact) / exact if exact else 0.0
    worst = max(worst, abs(err))
    print("  %-26s exact %14d  extrapolated %14d  %+8.3f %%" % (name, exact, got, 100 * err))
print("  worst error of a total: %.3f %%" % (100 * worst))
full = rows[:-1]
for name in ("instructions:uk", "cycles:uk", "ref-cycles:uk"):
    errs = [abs(int(r[name]) - int(r["instructions"])) / int(r["instructions"]) for r in full]
    print("  per interval, %-15s (exact = the row's instructions): mean %.3f %%, max %.3f %% over %d rows"
          % (name, 100 * sum(errs) / len(errs), 100 * max(errs), len(errs)))
EOF
