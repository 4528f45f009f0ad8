#!/bin/bash
# Sampling-overhead benchmark. Boots the same Linux guest in Bochs several
# times in parallel, with clock sync=none (the guest's RDTSC counts
# emulated instructions, hypervisor included, so the figures are exact
# even on a loaded machine): without a sampling session and with each
# session started from Vertigo's command line, each with the guest's
# virtual PMU on (the default; Linux's NMI watchdog keeps a counter of it
# running) and, for the headline pair, off. In each, the guest scenario
# bench_sample times the same user loop (tests/guest/bench_sample.c, a
# call chain 9 frames deep with frame pointers). The period is ips/1000
# events: about 1,000 samples per emulated second. Prints:
#   - per session, the loop's guest-visible time (the median of REPS runs in
#     one boot; the spread, max - min over the median, beside it), its ratio
#     to the time without a session with the same pmu.guest= (targets: <=
#     1.010 for instructions:ukh with the guest's PMU on, <= 1.015 with
#     16-deep stacks; reported, never enforced) and the guest-visible cost of
#     one sample ((time - time without) / samples in the window, the window's
#     guest ticks / period), and the hypervisor instructions per sample on the
#     sampling path (Vertigo's own TSC counter, pmu/sample/sample_nmi.c: from
#     the PMI being raised to the samples logged, averaged over the whole run;
#     in Bochs one TSC cycle is one emulated instruction);
#   - what the guest's virtual PMU costs: the headline session's loop time
#     with pmu.guest=on against pmu.guest=off, per sample and per VM exit
#     of the loop (each sample is a VM exit: the software PMU stops the
#     guest at the overflow point; target: within 20 instructions per
#     exit); and, from Vertigo's exit statistics of the boots without a
#     session, the average cost of each common exit reason with the guest's
#     PMU on and off: the handling (exit to handler and accounting done,
#     'exits: vcpu N:' lines; target for CPUID and I/O: within 5 %) and the
#     whole exit (to the next entry, 'exits to entry:' lines).
# Sessions:
#   ukh           sample.events=instructions:ukh: the headline (guest user,
#                 guest kernel and Vertigo; every mode, so the software PMU
#                 needs no user/kernel split: the halt traps keep idle time
#                 out and a run ends at the overflow point)
#   ukh-off       the same with pmu.guest=off
#   ukh-stack     the same with sample.depth (guest call stacks, perf -g)
#   uk            instructions:uk: the headline without Vertigo's own time
#                 (no single-stepping of Vertigo near an overflow; not run
#                 by default): what :h adds to every exit
#   cycles        sample.events=cycles pmu.step=1000000 (not run by default)
#   timer         sample.hz=1000 (VMX-preemption-timer sampling; not run by
#                 default)
# and the two boots without a session: none (pmu.guest on), none-off.
# A run that fails or a figure that cannot be extracted fails the benchmark.
#
# usage: BUILD=build tests/bench/bench_sample.sh
#   env: BENCH_IPS (Bochs emulated instructions per second, default
#        50000000), BENCH_SAMPLE_N, BENCH_SAMPLE_REPS (loop iterations of 5
#        instructions and runs per boot, default ips/5 = one emulated
#        second, and 7; at most 64), BENCH_SAMPLE_DEPTH (call-stack depth,
#        default 16),
#        BENCH_SAMPLE_SESSIONS (default "ukh ukh-off ukh-stack"; add cycles
#        or timer for more boots), BENCH_PERIOD (the sampling period,
#        default ips/1000), BENCH_PERIODS (the periods the headline pair
#        runs at, default BENCH_PERIOD and four near it, +21, -29, +43 and
#        -47: where a period's overflows fall against the guest's own work,
#        and the boot itself, move one boot's figure by more than builds
#        differ, so the headline figures are the medians over the periods;
#        the other sessions run at the first), BENCH_TIMEOUT (wall seconds
#        per boot, default 1800), BENCH_JOBS (boots at once, default all: 1
#        under one Bochs slot of a shared machine; the figures are the same)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/sample"
RUNNER=host-tools/vertigo-run
HV_ELF="$BUILD/vertigo.elf"
KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.lz4"
IPS=${BENCH_IPS:-50000000}
SAMPLES_PER_SECOND=1000
PERIOD=${BENCH_PERIOD:-$((IPS / SAMPLES_PER_SECOND))}
read -r -a PERIODS <<< "${BENCH_PERIODS:-$PERIOD $((PERIOD + 21)) $((PERIOD - 29)) $((PERIOD + 43)) $((PERIOD - 47))}"
PERIOD=${PERIODS[0]}
VARIED="ukh ukh-off"        # the sessions run at every period of PERIODS
LOOP_BODY=5                 # add, xor, ror, dec, jnz: bench_sample's loop
N=${BENCH_SAMPLE_N:-$((IPS / LOOP_BODY))}
REPS=${BENCH_SAMPLE_REPS:-7}
DEPTH=${BENCH_SAMPLE_DEPTH:-16}
TIMEOUT=${BENCH_TIMEOUT:-1800}
TARGET_RATIO=1.010
TARGET_STACK_RATIO=1.015
TARGET_PER_EXIT=20
TARGET_EXIT_PCT=5
HV_BASE="console=com2 log=e9 pmu=auto"
GUEST_BASE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=bench_sample"
GUEST_BASE="$GUEST_BASE vertigo.bench_sample=$N,$REPS"
SESSIONS=${BENCH_SAMPLE_SESSIONS:-"ukh ukh-off ukh-stack"}
UKH="sample.events=instructions:ukh sample.period=$PERIOD"
declare -A SESSION_OPTS=(
    [none]=""
    [none-off]="pmu.guest=off"
    [ukh]="$UKH"
    [ukh-off]="pmu.guest=off $UKH"
    [ukh-stack]="$UKH sample.depth=$DEPTH"
    [uk]="sample.events=instructions:uk sample.period=$PERIOD"
    [cycles]="pmu.step=1000000 sample.events=cycles sample.period=$PERIOD"
    [timer]="sample.hz=$SAMPLES_PER_SECOND"
)
# Exit reasons whose costs are compared (as Vertigo names them).
REASONS=("CPUID" "I/O instruction" "RDMSR" "WRMSR" "EPT violation" "VMX-preemption timer expired"
         "external interrupt" "HLT")

die() { echo "bench-sample: FAILED: $*" >&2; exit 1; }
capture() { tr -d '\r' < "$OUT/$1/$2"; }
base_of() { case ${1%@*} in *-off) echo none-off ;; *) echo none ;; esac; }

# opts_of RUN: Vertigo's options for RUN, a session name or SESSION@PERIOD
# (the session at another period).
opts_of() {
    local opts=${SESSION_OPTS[${1%@*}]}
    [[ $1 == *@* ]] && opts=${opts/sample.period=$PERIOD/sample.period=${1#*@}}
    echo "$opts"
}

# runs_of SESSION: its runs, one per period when it is one of VARIED.
runs_of() {
    echo "$1"
    [[ " $VARIED " == *" $1 "* ]] || return 0
    for p in "${PERIODS[@]:1}"; do echo "$1@$p"; done
}

# boot RUN: one Bochs boot in the background; its status lands in $OUT/RUN.status.
boot() {
    local run=$1
    # BENCH_JOBS: at most that many boots at once (default: all)
    while [ "$(jobs -rp | wc -l)" -ge "${BENCH_JOBS:-99}" ]; do wait -n; done
    ( "$RUNNER" --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet --elf "$HV_ELF" \
          --cmdline "$HV_BASE $(opts_of "$run")" --kernel "$KERNEL" --initrd "$INITRD" \
          --guest-cmdline "$GUEST_BASE vertigo.bench_sample_label=$run" \
          --out "$OUT/$run" 2>"$OUT/$run.runner.txt"
      echo $? > "$OUT/$run.status" ) &
}

# check_run RUN: the boot passed; prints "MEDIAN SPREAD" of the loop's runs
# (ticks; spread = (max - min) / median in percent).
check_run() {
    local run=$1 status ticks
    status=$(cat "$OUT/$run.status" 2>/dev/null)
    if [ "$status" != 0 ]; then
        echo "bench-sample: the $run boot failed (runner status ${status:-none}):" >&2
        sed 's/^/    /' "$OUT/$run.runner.txt" >&2
        die "$run boot (captures in $OUT/$run)"
    fi
    # (grep reads its whole input, never -q: under pipefail the writer's SIGPIPE
    # after an early match would fail the pipe and the check with it)
    capture "$run" serial.txt | grep '^VERTIGO-GUEST: bench_sample: PASS$' >/dev/null ||
        die "$run: the bench_sample scenario did not pass (see $OUT/$run/serial.txt)"
    ticks=$(capture "$run" serial.txt |
            sed -nE "s/^bench_sample: $run: [0-9]+ iterations x [0-9]+ instructions, min ([0-9]+) ticks, median ([0-9]+) ticks, max ([0-9]+) ticks.*/\1 \2 \3/p")
    [ -n "$ticks" ] || die "no 'bench_sample: $run:' line in $OUT/$run/serial.txt"
    echo "$ticks" | awk '{ printf "%d %.2f\n", $2, $2 ? 100 * ($3 - $1) / $2 : 0 }'
}

# session_stats RUN: "PMIS LOGGED DROPPED PATH RECORDING" summed / averaged over CPUs.
session_stats() {
    local stats
    stats=$(capture "$1" com2.txt | grep -E '^sample: cpu [0-9]+: .* sampling path avg [0-9]+ cycles per PMI')
    [ -n "$stats" ] || die "$1: no 'sample: cpu N: ... sampling path avg' line in $OUT/$1/com2.txt"
    echo "$stats" | sed -E 's/^sample: cpu [0-9]+: ([0-9]+) PMIs, ([0-9]+) samples logged, ([0-9]+) dropped, .* sampling path avg ([0-9]+) cycles per PMI \(([0-9]+) recording[^)]*\)$/\1 \2 \3 \4 \5/' |
        awk '{ p += $1; l += $2; d += $3; c += $1 * $4; r += $1 * $5 }
             END { printf "%d %d %d %.0f %.0f\n", p, l, d, p ? c / p : 0, p ? r / p : 0 }'
}

# exit_avg RUN PREFIX REASON: "COUNT AVG" of VCPU 0's line for REASON among
# the exit statistics lines starting with PREFIX ("exits" or "exits to
# entry"); "0 0" when it has none.
exit_avg() {
    capture "$1" com2.txt | awk -v p="$2: vcpu 0: " -v r="$3" '
        index($0, p) == 1 { rest = substr($0, length(p) + 1)
            if (index(rest, r) == 1 && substr(rest, length(r) + 1) ~ /^ +[0-9]+ exits /) {
                n = split(rest, f, " "); print f[n - 5], f[n - 1]; found = 1; exit } }
        END { if (!found) print 0, 0 }'
}

for f in "$HV_ELF" "$KERNEL" "$INITRD"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD hv guest)"
done
rm -rf "$OUT"
mkdir -p "$OUT"

SESSION_RUNS=$(for s in $SESSIONS; do runs_of "$s"; done)
RUNS="none none-off $SESSION_RUNS"
echo "bench-sample: $(echo $RUNS | wc -w) Bochs boots (clock sync=none, ips $IPS); Vertigo: $HV_BASE + the session"
echo "bench-sample: guest loop $N iterations x $LOOP_BODY instructions, median of $REPS runs a boot; period $PERIOD = ips/$SAMPLES_PER_SECOND"
echo "bench-sample: $VARIED also at periods ${PERIODS[*]:1} (RUN@PERIOD); their headline figures are the medians over the periods"
echo "bench-sample: figures are Bochs emulated instructions (clock sync=none), not Intel hardware"
start=$(date +%s)
for run in $RUNS; do boot "$run"; done
wait
wall=$(( $(date +%s) - start ))

# period_of RUN: its sampling period.
period_of() { if [[ $1 == *@* ]]; then echo "${1#*@}"; else echo "$PERIOD"; fi; }

# median V...: the median of the numbers (the mean of the middle two of an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A ticks spread path ratio cost
for run in none none-off; do
    figures=$(check_run "$run") || exit 1
    read -r "ticks[$run]" "spread[$run]" <<< "$figures"
    [ "${ticks[$run]}" -gt 0 ] || die "$run: zero loop time"
done
capture none com2.txt | grep '^pmu: using the software backend' >/dev/null ||
    die "Vertigo did not use the software backend (see $OUT/none/com2.txt)"
# samples in a run: the window's guest ticks / the run's period
samples_in() { awk -v t="${ticks[none]}" -v p="$(period_of "$1")" 'BEGIN { printf "%.1f", t / p }'; }
samples_per_run=$(samples_in none)
printf '%-16s %-72s %11s %7s %8s %7s %12s %13s %9s\n' run "Vertigo options" "loop ticks" spread \
    "guest s" ratio "ticks/sample" "path/PMI" recording
for run in none none-off; do
    printf '%-16s %-72s %11d %6s%% %8.4f %7s %12s %13s %9s\n' "$run" "${SESSION_OPTS[$run]:--}" "${ticks[$run]}" \
        "${spread[$run]}" "$(awk -v t="${ticks[$run]}" -v i="$IPS" 'BEGIN { print t / i }')" 1 - - -
done
for run in $SESSION_RUNS; do
    figures=$(check_run "$run") || exit 1
    read -r "ticks[$run]" "spread[$run]" <<< "$figures"
    stats=$(session_stats "$run") || exit 1
    read -r pmis logged dropped path_avg rec_avg <<< "$stats"
    [ "$pmis" -gt 0 ] || die "$run: no PMI taken"
    path[$run]=$path_avg
    read -r "ratio[$run]" "cost[$run]" <<< "$(awk -v t="${ticks[$run]}" -v b="${ticks[$(base_of "$run")]}" \
        -v n="$(samples_in "$run")" 'BEGIN { printf "%.4f %.1f\n", t / b, (t - b) / n }')"
    awk -v r="$run" -v o="$(opts_of "$run")" -v t="${ticks[$run]}" -v i="$IPS" -v q="${ratio[$run]}" \
        -v c="${cost[$run]}" -v pa="$path_avg" -v ra="$rec_avg" -v sp="${spread[$run]}" \
        'BEGIN { printf "%-16s %-72s %11d %6s%% %8.4f %7.4f %12.0f %13d %9d\n", r, o, t, sp, t / i, q, c, pa, ra }'
    echo "$run $pmis $logged $dropped" >> "$OUT/samples.txt"
done

# across SESSION FIELD: "MEDIAN LIST" of FIELD (an array's name) over the
# session's runs at every period.
across() {
    local -n field=$2
    local values=() r
    for r in $(runs_of "$1"); do values+=("${field[$r]}"); done
    echo "$(median "${values[@]}") ${values[*]}"
}

# The headline and its targets.
if [ -n "${ticks[ukh]:-}" ]; then
    read -r r_med r_all <<< "$(across ukh ratio)"
    read -r c_med c_all <<< "$(across ukh cost)"
    awk -v r="$r_med" -v rs="$r_all" -v c="$c_med" -v cs="$c_all" -v target="$TARGET_RATIO" \
        -v ps="${PERIODS[*]}" -v pc="${path[ukh]}" -v pst="${path[ukh-stack]:-(not run)}" -v d="$DEPTH" 'BEGIN {
        printf "bench-sample: instructions:ukh at 1,000 samples per emulated second, guest PMU on, the median over\n"
        printf "              periods %s: ratio %.4f (%s; target <= %s: %s)\n", ps, r, rs, target, r <= target ? "met" : "MISSED"
        printf "              one sample costs the guest %.0f emulated instructions (%s; VM exit, PMU, sampling\n", c, cs
        printf "              path, log drain, VM entry); sampling path (PMI raised -> logged, first period):\n"
        printf "              %d without call stacks, %s with depth %d\n", pc, pst, d
    }'
fi
if [ -n "${ticks[ukh-stack]:-}" ]; then
    awk -v r="${ratio[ukh-stack]}" -v c="${cost[ukh-stack]}" -v target="$TARGET_STACK_RATIO" -v d="$DEPTH" \
        -v p="$PERIOD" 'BEGIN {
        printf "bench-sample: the same with call stacks (sample.depth=%d, the loop 9 frames deep, period %d): ratio %.4f\n", d, p, r
        printf "              (target <= %s: %s), %.0f instructions per sample\n", target, r <= target ? "met" : "MISSED", c
    }'
fi
if [ -n "${ticks[ukh]:-}" ] && [ -n "${ticks[ukh-off]:-}" ]; then
    declare -A pmu_cost
    for r in $(runs_of ukh); do
        p=${r#ukh}
        [ -n "${cost[ukh-off$p]:-}" ] || die "no ukh-off$p run beside $r"
        pmu_cost[$r]=$(awk -v on="${cost[$r]}" -v off="${cost[ukh-off$p]}" 'BEGIN { printf "%.1f", on - off }')
    done
    read -r g_med g_all <<< "$(across ukh pmu_cost)"
    read -r o_med o_all <<< "$(across ukh-off ratio)"
    # The target is judged only where the periods agree to within it: a
    # difference of two boots moves with where each period's overflows
    # fall (hundreds of instructions a sample), far more than the target.
    awk -v g="$g_med" -v gs="$g_all" -v o="$o_med" -v os="$o_all" -v target="$TARGET_PER_EXIT" 'BEGIN {
        n = split(gs, v, " "); lo = hi = v[1]
        for (i = 2; i <= n; i++) { lo = v[i] < lo ? v[i] : lo; hi = v[i] > hi ? v[i] : hi }
        verdict = hi - lo > target ? sprintf("not judged: the periods spread %.1f", hi - lo) : (g <= target ? "met" : "MISSED")
        printf "bench-sample: the guest'"'"'s virtual PMU with the session: each sample costs %.1f instructions more with\n", g
        printf "              pmu.guest=on than off (the median of %s over the periods; pmu.guest=off ratio %.4f:\n", gs, o
        printf "              %s); a sample is one VM exit, so %.1f per exit (target: within %d: %s;\n", os, g, target, verdict
        printf "              make bench-exit counts the same per exit without this noise)\n"
    }'
fi

# Exit costs with the guest's PMU on and off, from the boots without a session.
echo "bench-sample: average cost of each exit reason (VCPU 0, whole boot without a session), guest PMU on / off:"
printf '    %-30s %20s %20s %10s %22s\n' reason "exits on / off" "handling on / off" "on - off" "exit to entry on / off"
for reason in "${REASONS[@]}"; do
    read -r n_on h_on <<< "$(exit_avg none exits "$reason")"
    read -r n_off h_off <<< "$(exit_avg none-off exits "$reason")"
    read -r _ e_on <<< "$(exit_avg none "exits to entry" "$reason")"
    read -r _ e_off <<< "$(exit_avg none-off "exits to entry" "$reason")"
    [ "$n_on" -gt 0 ] || [ "$n_off" -gt 0 ] || continue
    awk -v r="$reason" -v no="$n_on" -v nf="$n_off" -v ho="$h_on" -v hf="$h_off" -v eo="$e_on" -v ef="$e_off" \
        -v target="$TARGET_EXIT_PCT" 'BEGIN {
        pct = hf ? 100 * (ho - hf) / hf : 0
        judged = (r == "CPUID" || r == "I/O instruction") && no && nf
        printf "    %-30s %9d / %-9d %9d / %-9d %+9.1f%% %10d / %-10d%s\n", r, no, nf, ho, hf, pct, eo, ef,
               judged ? sprintf("  (target: within %d%%: %s)", target, (pct <= target && pct >= -target) ? "met" : "MISSED") : ""
    }'
done
echo "bench-sample: (ticks/sample: (loop ticks - loop ticks without a session, same pmu.guest=) / $samples_per_run samples"
echo "              per run = the window's guest ticks / period. path/PMI and recording: averaged over the whole"
echo "              boot ('sample: cpu N:' in com2.txt), whose samples are mostly guest-kernel ones: no agent"
echo "              declares the kernel's ORC tables here, so they carry no stack, while every loop sample walks"
echo "              9 frames -- the loop's ticks/sample is the figure for a 9-deep user stack)"
if [ -s "$OUT/samples.txt" ]; then     # none without a session (BENCH_SAMPLE_SESSIONS=" ")
    echo "bench-sample: PMIs, samples logged, dropped over each whole boot:"
    awk '{ printf "    %-16s %8d PMIs %8d logged %6d dropped\n", $1, $2, $3, $4 }' "$OUT/samples.txt"
fi
echo "bench-sample: wall time ${wall}s (all boots in parallel); captures in $OUT"
