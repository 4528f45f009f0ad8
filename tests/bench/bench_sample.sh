#!/bin/bash
# Sampling-overhead benchmark. Boots the same Linux guest in
# Bochs several times in parallel, with clock sync=none (the guest's RDTSC
# counts emulated instructions, hypervisor included, so the figures are
# exact even on a loaded machine): once without a sampling session and
# once per session started from Vertigo's command line. In each, the guest
# scenario bench_sample times the same user loop (tests/guest/bench_sample.c,
# a call chain 8 frames deep with frame pointers). The period is ips/1000
# events: about 1,000 samples per emulated second. Prints:
#   - per session, the loop's guest-visible time, its ratio to the time
#     without a session (target for the headline session: <= 1.02,
#     reported, never enforced) and the guest-visible cost of one sample
#     ((time - time without) / samples in the window, the window's guest
#     ticks / period);
#   - hypervisor instructions per sample on the NMI path, from Vertigo's
#     own TSC counter (pmu/sample/sample_nmi.c: from the PMI being raised to the
#     samples logged, averaged over the whole run; in Bochs one TSC cycle
#     is one emulated instruction).
# Sessions:
#   cycles        sample.events=cycles, pmu.step=1000000: the headline. All
#                 modes, so the software PMU needs no user/kernel split and,
#                 with a step longer than the period, stops the guest only
#                 at overflows: one VM exit per sample, what a hardware PMI
#                 costs too (an NMI exit per sample).
#   cycles-stack  the same with sample.depth (guest call stacks, perf -g).
#   timer         sample.hz=1000 (VMX-preemption-timer sampling; not run
#                 by default, BENCH_SAMPLE_SESSIONS).
#   cycles-step   sample.events=cycles at the default pmu.step (10000): the
#                 software backend also exits every step while a session
#                 runs (bounds halted time counted); real hardware does not.
# A run that fails or a figure that cannot be extracted fails the benchmark.
#
# usage: BUILD=build tests/bench/bench_sample.sh
#   env: BENCH_IPS (Bochs emulated instructions per second, default
#        50000000), BENCH_SAMPLE_N, BENCH_SAMPLE_REPS (loop iterations of 5
#        instructions and runs per boot, default ips/5 = one emulated
#        second, and 2), BENCH_SAMPLE_DEPTH (call-stack depth, default 16),
#        BENCH_SAMPLE_SESSIONS (default "cycles cycles-stack cycles-step";
#        add timer for a fifth boot), BENCH_TIMEOUT (wall seconds per boot,
#        default 600)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/sample"
RUNNER=host-tools/vertigo-run
HV_ELF="$BUILD/vertigo.elf"
KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.gz"
IPS=${BENCH_IPS:-50000000}
SAMPLES_PER_SECOND=1000
PERIOD=$((IPS / SAMPLES_PER_SECOND))
LOOP_BODY=5                 # add, xor, ror, dec, jnz: bench_sample's loop
N=${BENCH_SAMPLE_N:-$((IPS / LOOP_BODY))}
REPS=${BENCH_SAMPLE_REPS:-2}
DEPTH=${BENCH_SAMPLE_DEPTH:-16}
TIMEOUT=${BENCH_TIMEOUT:-600}
TARGET_RATIO=1.02
STEP_ONLY_AT_OVERFLOWS=1000000
HV_BASE="console=com2 log=e9 pmu=auto"
GUEST_BASE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=bench_sample"
GUEST_BASE="$GUEST_BASE vertigo.bench_sample=$N,$REPS"
SESSIONS=${BENCH_SAMPLE_SESSIONS:-"cycles cycles-stack cycles-step"}
declare -A SESSION_OPTS=(
    [base]=""
    [cycles]="pmu.step=$STEP_ONLY_AT_OVERFLOWS sample.events=cycles sample.period=$PERIOD"
    [cycles-stack]="pmu.step=$STEP_ONLY_AT_OVERFLOWS sample.events=cycles sample.period=$PERIOD sample.depth=$DEPTH"
    [timer]="sample.hz=$SAMPLES_PER_SECOND"
    [cycles-step]="sample.events=cycles sample.period=$PERIOD"
)

die() { echo "bench-sample: FAILED: $*" >&2; exit 1; }
capture() { tr -d '\r' < "$OUT/$1/$2"; }

# boot RUN: one Bochs boot in the background; its status lands in $OUT/RUN.status.
boot() {
    local run=$1
    ( "$RUNNER" --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet --elf "$HV_ELF" \
          --cmdline "$HV_BASE ${SESSION_OPTS[$run]}" --kernel "$KERNEL" --initrd "$INITRD" \
          --guest-cmdline "$GUEST_BASE vertigo.bench_sample_label=$run" \
          --out "$OUT/$run" 2>"$OUT/$run.runner.txt"
      echo $? > "$OUT/$run.status" ) &
}

# check_run RUN: the boot passed; prints "TICKS" of the loop's fastest run.
check_run() {
    local run=$1 status ticks
    status=$(cat "$OUT/$run.status" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "bench-sample: the $run boot failed (runner status ${status:-none}):" >&2
        sed 's/^/    /' "$OUT/$run.runner.txt" >&2
        die "$run boot (captures in $OUT/$run)"
    fi
    capture "$run" serial.txt | grep -q '^VERTIGO-GUEST: bench_sample: PASS$' ||
        die "$run: the bench_sample scenario did not pass (see $OUT/$run/serial.txt)"
    ticks=$(capture "$run" serial.txt |
            sed -nE "s/^bench_sample: $run: [0-9]+ iterations x [0-9]+ instructions, min ([0-9]+) ticks.*/\1/p")
    [ -n "$ticks" ] || die "$run: no 'bench_sample: $run:' line in $OUT/$run/serial.txt"
    echo "$ticks"
}

# session_stats RUN: "PMIS LOGGED DROPPED PATH RECORDING" summed / averaged over CPUs.
session_stats() {
    local stats
    stats=$(capture "$1" com2.txt | grep -E '^sample: cpu [0-9]+: .* NMI path avg [0-9]+ cycles per PMI')
    [ -n "$stats" ] || die "$1: no 'sample: cpu N: ... NMI path avg' line in $OUT/$1/com2.txt"
    echo "$stats" | sed -E 's/^sample: cpu [0-9]+: ([0-9]+) PMIs, ([0-9]+) samples logged, ([0-9]+) dropped, .* NMI path avg ([0-9]+) cycles per PMI \(([0-9]+) recording[^)]*\)$/\1 \2 \3 \4 \5/' |
        awk '{ p += $1; l += $2; d += $3; c += $1 * $4; r += $1 * $5 }
             END { printf "%d %d %d %.0f %.0f\n", p, l, d, p ? c / p : 0, p ? r / p : 0 }'
}

for f in "$HV_ELF" "$KERNEL" "$INITRD"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD hv guest)"
done
rm -rf "$OUT"
mkdir -p "$OUT"

echo "bench-sample: $((1 + $(echo $SESSIONS | wc -w))) Bochs boots in parallel (clock sync=none, ips $IPS); Vertigo: $HV_BASE + the session"
echo "bench-sample: guest loop $N iterations x $LOOP_BODY instructions, fastest of $REPS runs; period $PERIOD = ips/$SAMPLES_PER_SECOND"
start=$(date +%s)
boot base
for run in $SESSIONS; do boot "$run"; done
wait
wall=$(( $(date +%s) - start ))

base=$(check_run base) || exit 1
capture base com2.txt | grep -q '^pmu: using the software backend' ||
    die "Vertigo did not use the software backend (see $OUT/base/com2.txt)"
[ "$base" -gt 0 ] || die "base: zero loop time"
samples_per_run=$(awk -v t="$base" -v p="$PERIOD" 'BEGIN { printf "%.1f", t / p }')
printf '%-14s %-66s %11s %8s %7s %12s %13s %9s\n' session "Vertigo options" "loop ticks" "guest s" ratio \
    "ticks/sample" "NMI path/PMI" recording
printf '%-14s %-66s %11d %8.4f %7.4f %12s %13s %9s\n' none "-" "$base" \
    "$(awk -v t="$base" -v i="$IPS" 'BEGIN { print t / i }')" 1 - - -
declare -A ticks path
for run in $SESSIONS; do
    ticks[$run]=$(check_run "$run") || exit 1
    read -r pmis logged dropped path_avg rec_avg <<< "$(session_stats "$run")" || exit 1
    [ "$pmis" -gt 0 ] || die "$run: no PMI taken"
    path[$run]=$path_avg
    awk -v r="$run" -v o="${SESSION_OPTS[$run]}" -v t="${ticks[$run]}" -v b="$base" -v i="$IPS" \
        -v n="$samples_per_run" -v pa="$path_avg" -v ra="$rec_avg" \
        'BEGIN { printf "%-14s %-66s %11d %8.4f %7.4f %12.0f %13d %9d\n", r, o, t, t / i, t / b,
                        (t - b) / n, pa, ra }'
    echo "$run $pmis $logged $dropped" >> "$OUT/samples.txt"
done
# The summary needs the headline session; cycles-stack may be left out.
[ -n "${ticks[cycles]:-}" ] &&
awk -v t="${ticks[cycles]}" -v b="$base" -v target="$TARGET_RATIO" -v i="$IPS" -v p="$PERIOD" \
    -v n="$samples_per_run" -v pc="${path[cycles]}" -v ps="${path[cycles-stack]:-(not run)}" -v d="$DEPTH" \
    -v step="$STEP_ONLY_AT_OVERFLOWS" 'BEGIN {
    r = t / b
    printf "bench-sample: guest workload time with sampling at 1,000 samples per emulated second vs without\n"
    printf "              (sample.events=cycles sample.period=%d pmu.step=%d): %.4f s vs %.4f s,\n", p, step, t / i, b / i
    printf "              ratio %.4f (target <= 1.02: %s)\n", r, r <= target ? "met" : "MISSED"
    printf "bench-sample: hypervisor instructions per sample on the NMI path (PMI raised -> sample logged,\n"
    printf "              Vertigo TSC counter, 1 cycle = 1 emulated instruction in Bochs): %d without call\n", pc
    printf "              stacks, %s with depth %d; whole guest-visible cost of one sample (VM exit, PMU,\n", ps, d
    printf "              NMI path, log drain, VM entry): %.0f emulated instructions\n", (t - b) / n
}'
echo "bench-sample: (ticks/sample: (loop ticks - loop ticks without a session) / $samples_per_run samples per"
echo "              run = the window's guest ticks / period. NMI path/PMI and recording: averaged over the whole"
echo "              boot ('sample: cpu N:' in com2.txt), whose samples are mostly guest-kernel ones: no agent"
echo "              declares the kernel's ORC tables here, so they carry no stack, while every loop sample walks"
echo "              9 frames -- the loop's ticks/sample is the figure for a 9-deep user stack. cycles-step"
echo "              also pays the software PMU's exit every pmu.step (10000) ticks, which hardware does not)"
echo "bench-sample: PMIs, samples logged, dropped over each whole boot:"
awk '{ printf "    %-14s %8d PMIs %8d logged %6d dropped\n", $1, $2, $3, $4 }' "$OUT/samples.txt"
echo "bench-sample: wall time ${wall}s (all boots in parallel); captures in $OUT"
