#!/bin/bash
# PMU benchmark. Prints:
#  1. hypervisor instructions per PMU bookkeeping operation, counted by
#     callgrind on a host harness of the portable pmu/ code
#     (tests/bench/bench_pmu_harness.c; the hardware backend's MSRs are the
#     register-level model): a VCPU PMU switch (save + load, with write
#     elision) and the work around one VM exit (enter + exit, plus the
#     emulated-instruction correction when Vertigo emulated the exiting
#     instruction), for both backends, and the software-event count every
#     exit makes. instructions/op = (Ir(K2) - Ir(K1)) / (K2 - K1), so
#     start-up cancels; the model's MSR emulation and the simulated guest
#     are left out (callgrind --toggle-collect counts them separately) and
#     the harness loop ("nop") is subtracted. The MSR accesses per
#     operation are printed next to it: each is one RDMSR/WRMSR on real
#     hardware, costing far more cycles than an ordinary instruction.
#  2. the software backend's slowdown of a guest user loop at user step
#     granularities 1, 100 and 10000 (and pmu.step's default) against an
#     unstepped baseline: one Bochs boot (clock sync=none: the guest's
#     RDTSC counts emulated instructions, hypervisor included, so the
#     ratios are exact) running tests/guest/pmu_bench.c, which sets each
#     step with VERTIGO_HC_PMU_STEP and times the same loop.
#  3. what the mode traps cost (exact per-mode counts, docs/pmu.md "Exact
#     modes"): two more boots in parallel, one without a counting session
#     and one with a split-mode one (instructions:u, every user/kernel
#     change exits), each timing a compute loop and a loop of pipe round
#     trips (tests/guest/pmu_cost.c): the slowdowns (same guest, same
#     guest-visible hardware, guest RDTSC = emulated instructions) and the
#     exits per system call and per interrupt.
# A measurement that cannot be taken fails the benchmark; the figures are
# never judged.
#
# usage: BUILD=build tests/bench/bench_pmu.sh
#   env: BENCH_PMU_K1, BENCH_PMU_K2 (harness iterations, default 2000 and
#        22000), BENCH_PMU_N, BENCH_PMU_REPS (guest loop iterations and runs
#        per step, default 100000 and 3), BENCH_IPS (Bochs emulated
#        instructions per second, default 500000000 as in tests/e2e/pmu.sh),
#        BENCH_TIMEOUT (wall-clock seconds for the boot, default 600),
#        BENCH_COST (compute loop iterations and pipe round trips, default
#        10000000,10000)
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/callgrind.sh

BUILD=${BUILD:-build}
OUT="$BUILD/bench/pmu"
HARNESS="$BUILD/bench/bench_pmu_harness"
RUNNER=host-tools/vertigo-run
HV_ELF="$BUILD/vertigo.elf"
KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.lz4"
K1=${BENCH_PMU_K1:-2000}
K2=${BENCH_PMU_K2:-22000}
N=${BENCH_PMU_N:-100000}
REPS=${BENCH_PMU_REPS:-3}
IPS=${BENCH_IPS:-500000000}
TIMEOUT=${BENCH_TIMEOUT:-600}
LOOP_BODY=3                 # INC, DEC, JNZ: pmu_bench's loop
EVENTS="instructions:u,exits:preemption_timer,instructions:k"
GUEST_CMDLINE="console=ttyS0 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=pmu_bench"
GUEST_CMDLINE="$GUEST_CMDLINE vertigo.pmu_bench_idx=0,1 vertigo.pmu_bench=$N,$REPS"
COST=${BENCH_COST:-10000000,10000}
COST_EVENTS="instructions:u,exits:all,exits:1"
COST_GUEST="console=ttyS0 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=pmu_cost"
# Not Vertigo's work: the model's MSR emulation and the simulated guest.
EXCLUDED=(--toggle-collect=pmu_model_rdmsr --toggle-collect=pmu_model_wrmsr
          --toggle-collect=bench_guest_run)
OPS="nop hw-switch-same hw-switch-diff soft-switch hw-exit hw-exit-emulated soft-exit
     soft-exit-emulated swevent-exit"

die() { echo "bench-pmu: FAILED: $*" >&2; exit 1; }

for f in "$HARNESS" "$HV_ELF" "$KERNEL" "$INITRD"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD bench-pmu)"
done
command -v valgrind >/dev/null || die "valgrind is not installed (host-tools/setup-deps)"
[ "$K2" -gt "$K1" ] || die "BENCH_PMU_K2 ($K2) must be larger than BENCH_PMU_K1 ($K1)"
rm -rf "$OUT"
mkdir -p "$OUT/callgrind"

# ---- The Bochs boot runs in the background while callgrind counts ----------

echo "bench-pmu: booting Bochs (ips $IPS, pmu=auto pmu.events=$EVENTS, guest loop N=$N x $REPS runs per step) in the background"
boot_start=$(date +%s)
( "$RUNNER" --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet --elf "$HV_ELF" \
      --cmdline "console=com2 pmu=auto pmu.events=$EVENTS" \
      --kernel "$KERNEL" --initrd "$INITRD" --guest-cmdline "$GUEST_CMDLINE" \
      --out "$OUT/bochs" 2>"$OUT/bochs.runner.txt"
  echo $? > "$OUT/bochs.status" ) &
boot_pid=$!

# cost_boot NAME VERTIGO_CMDLINE GUEST_PARAMS: a pmu_cost boot in the background.
cost_boot() {
    ( "$RUNNER" --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet --elf "$HV_ELF" \
          --cmdline "$2" --kernel "$KERNEL" --initrd "$INITRD" \
          --guest-cmdline "$COST_GUEST vertigo.pmu_cost=$3" \
          --out "$OUT/$1" 2>"$OUT/$1.runner.txt"
      echo $? > "$OUT/$1.status" ) &
}
cost_boot cost-none "console=com2 pmu=auto" "$COST"
cost_none_pid=$!
cost_boot cost-traps "console=com2 pmu=auto pmu.events=$COST_EVENTS" "$COST,1,2"
cost_traps_pid=$!

# ---- 1. Hypervisor instructions per operation (callgrind) -------------------

# collected OP K NAME [callgrind options...]: callgrind's "Collected" Ir.
collected() {
    local op=$1 k=$2 name=$3
    shift 3
    callgrind_ir "$OUT/callgrind/$op.$k.$name" "$@" -- "$HARNESS" "$op" "$k" || die "callgrind $op $k ($name)"
}

# vertigo_ir OP K: Ir of Vertigo's code in a run of K operations.
vertigo_ir() {
    local all excluded
    all=$(collected "$1" "$2" all) || exit 1
    excluded=$(collected "$1" "$2" excluded "${EXCLUDED[@]}") || exit 1
    echo $((all - excluded))
}

declare -A per_op msr_stats
for op in $OPS; do
    per_op[$op]=$(callgrind_per_op vertigo_ir "$op" "$K1" "$K2") || die "$op"
    msr_stats[$op]=$(harness_msrs "$OUT/callgrind/$op.$K2.all.stdout" "$op" "$K2") || die "$op"
done
nop=${per_op[nop]}

echo "bench-pmu: hypervisor instructions per PMU bookkeeping operation (callgrind, portable pmu/ code at -O2;"
echo "           (Ir(K=$K2) - Ir(K=$K1)) / $((K2 - K1)), harness loop ($nop instr/op) subtracted,"
echo "           MSR accesses listed separately; the hardware backend runs on PMU model v4, full-width writes)"
printf '%-58s %10s %8s %8s %8s\n' operation instr/op RDMSR WRMSR elided
describe() {
    case $1 in
        hw-switch-same)     echo "VCPU switch, hw: save + load, both VCPUs same events" ;;
        hw-switch-diff)     echo "VCPU switch, hw: save + load, different events" ;;
        soft-switch)        echo "VCPU switch, soft: save + load" ;;
        hw-exit)            echo "VM exit, hw: enter + exit" ;;
        hw-exit-emulated)   echo "VM exit, hw: enter + exit + emulated-instr. correction" ;;
        soft-exit)          echo "VM exit, soft: enter + exit (step deadline, attribution)" ;;
        soft-exit-emulated) echo "VM exit, soft: enter + exit + emulated-instr. correction" ;;
        swevent-exit)       echo "VM exit: software-event count (every exit)" ;;
    esac
}
for op in $OPS; do
    [ "$op" = nop ] && continue
    read -r reads writes elided <<< "${msr_stats[$op]}"
    awk -v d="$(describe "$op")" -v ir="${per_op[$op]}" -v nop="$nop" -v k="$K2" \
        -v r="$reads" -v w="$writes" -v e="$elided" \
        'BEGIN { printf "%-58s %10.1f %8.2f %8.2f %8.2f\n", d, ir - nop, r / k, w / k, e / k }'
done
echo "bench-pmu: (events: hw switch \"instructions:u,cycles:u,branches:u,branch-misses:u\" vs"
echo "           \"instructions:k,cycles:k,cache-references:k,cache-misses:k\"; exits"
echo "           \"$(sed -nE 's/^static const char session_events\[\] = "(.*)";$/\1/p' tests/bench/bench_pmu_harness.c)\")"

# ---- 2. Software-PMU slowdown in Bochs --------------------------------------

echo "bench-pmu: waiting for the Bochs boot"
wait "$boot_pid"
wall=$(( $(date +%s) - boot_start ))
status=$(cat "$OUT/bochs.status" 2>/dev/null)
serial() { tr -d '\r' < "$OUT/bochs/serial.txt"; }
if [ "$status" != 0 ]; then
    echo "bench-pmu: the Bochs boot failed (runner status ${status:-none}):" >&2
    sed 's/^/    /' "$OUT/bochs.runner.txt" >&2
    serial 2>/dev/null | grep -E '^(pmu_bench|reason|VERTIGO-GUEST)' | sed 's/^/    /' >&2
    die "Bochs boot (captures in $OUT/bochs)"
fi
# (grep reads its whole input, never -q: under pipefail the writer's SIGPIPE
# after an early match would fail the pipe and the check with it)
tr -d '\r' < "$OUT/bochs/com2.txt" | grep '^pmu: using the software backend' >/dev/null ||
    die "Vertigo did not use the software backend (see $OUT/bochs/com2.txt)"
lines=$(serial | grep -E '^pmu_bench: step [^:]+: [0-9]+ iterations, min [0-9]+ ticks')
[ -n "$lines" ] || die "no 'pmu_bench: step' lines in $OUT/bochs/serial.txt"
serial | grep '^pmu_bench: done$' >/dev/null || die "pmu_bench did not finish (see $OUT/bochs/serial.txt)"

echo "bench-pmu: software-PMU slowdown of a user loop (Bochs, guest RDTSC = emulated instructions;"
echo "           loop $N iterations x $LOOP_BODY instructions, fastest of $REPS runs per step; baseline:"
echo "           a user step the preemption timer cannot reach, i.e. no stepping; kernel at pmu.step)"
echo "$lines" | awk -v n="$N" -v body="$LOOP_BODY" '
    { step = $3; sub(/:$/, "", step); ticks = $7 + 0
      order[++count] = step
      if (!(step in t) || ticks < t[step]) { t[step] = ticks; x[step] = $14 + 0; u[step] = $NF }
    }
    END {
        if (!("base" in t) || t["base"] <= 0) { print "bench-pmu: FAILED: no baseline" > "/dev/stderr"; exit 1 }
        instr = n * body
        printf "%-22s %12s %9s %9s %10s %12s %11s %14s\n", "user step (ticks)", "loop ticks",
               "slowdown", "ticks/ins", "step exits", "ins/exit", "ticks/exit", "instructions:u"
        cost = 0; costs = 0
        for (i = 1; i <= count; i++) {
            s = order[i]
            if (s in done) continue
            done[s] = 1
            label = s == "base" ? "baseline (no stepping)" : s == "0" ? "0 (pmu.step default)" : s
            ins_exit = x[s] ? sprintf("%.1f", instr / x[s]) : "-"
            per_exit = x[s] && s != "base" ? sprintf("%.0f", (t[s] - t["base"]) / x[s]) : "-"
            printf "%-22s %12d %9.2f %9.2f %10d %12s %11s %14d\n", label, t[s], t[s] / t["base"],
                   t[s] / instr, x[s], ins_exit, per_exit, u[s]
            if (per_exit != "-") { cost += per_exit; costs++ }
        }
        if (!costs) { print "bench-pmu: FAILED: no stepped run exited" > "/dev/stderr"; exit 1 }
        cost /= costs
        printf "bench-pmu: one step exit costs %.0f emulated instructions (mean of the rows); a step of\n", cost
        printf "           exactly S instructions would slow the loop by 1 + %.0f/S:", cost
        split("1 100 10000", ex, " ")
        for (i = 1; i <= 3; i++) printf " step %d: %.2fx%s", ex[i], 1 + cost / ex[i], i < 3 ? "," : "\n"
    }' || die "could not compute the slowdowns"
echo "bench-pmu: (step exits: exits:preemption_timer in the window; ins/exit: loop instructions per"
echo "           step exit -- Bochs takes the timer only at the end of a trace, so at step 1 a step"
echo "           runs a whole loop iteration or more; ticks/exit: (ticks - baseline ticks) / step exits"
echo "           = emulated instructions of one step's VM exit, handling and entry; instructions:u:"
echo "           the session's count over the window, $((N * LOOP_BODY)) + a few when exact)"
echo "bench-pmu: Bochs wall time ${wall}s; captures in $OUT"

# ---- 3. What the mode traps cost ----------------------------------------------

echo "bench-pmu: waiting for the two mode-trap boots"
wait "$cost_none_pid" "$cost_traps_pid"
cost_line() {   # cost_line BOOT KIND: "N TICKS [EXITS INTERRUPTS]"
    [ "$(cat "$OUT/$1.status" 2>/dev/null)" = 0 ] || die "the $1 boot failed (captures in $OUT/$1)"
    tr -d '\r' < "$OUT/$1/serial.txt" |
        sed -nE "s/^pmu_cost: $2 ([0-9]+) ticks ([0-9]+)( exits ([0-9]+) interrupts ([0-9]+))?$/\\1 \\2 \\4 \\5/p"
}
read -r cn ct_none _ <<< "$(cost_line cost-none compute)"
read -r rn rt_none _ <<< "$(cost_line cost-none roundtrips)"
read -r _ ct_traps c_exits c_intr <<< "$(cost_line cost-traps compute)"
read -r _ rt_traps r_exits r_intr <<< "$(cost_line cost-traps roundtrips)"
[ -n "$ct_none" ] && [ -n "$rt_none" ] && [ -n "$ct_traps" ] && [ -n "$rt_traps" ] ||
    die "missing pmu_cost lines (see $OUT/cost-none/serial.txt, $OUT/cost-traps/serial.txt)"
tr -d '\r' < "$OUT/cost-traps/com2.txt" | grep 'every user/kernel change exits' >/dev/null ||
    die "the traps boot did not trap mode changes (see $OUT/cost-traps/com2.txt)"
echo "bench-pmu: mode traps (instructions:u counted exactly: every user/kernel change exits) against"
echo "           no counting session; Bochs, guest RDTSC = emulated instructions, fastest of 3 runs"
awk -v cn="$cn" -v ctn="$ct_none" -v ctt="$ct_traps" -v ce="$c_exits" -v ci="$c_intr" \
    -v rn="$rn" -v rtn="$rt_none" -v rtt="$rt_traps" -v re="$r_exits" -v ri="$r_intr" 'BEGIN {
    printf "%-34s %14s %14s %9s %8s %11s\n", "loop", "ticks (none)", "ticks (traps)", "slowdown",
           "exits", "interrupts"
    printf "%-34s %14d %14d %9.4f %8d %11d\n", "compute (" cn " x 5 instructions)", ctn, ctt,
           ctt / ctn, ce, ci
    printf "%-34s %14d %14d %9.4f %8d %11d\n", "pipe round trips (" rn " x 2 syscalls)", rtn, rtt,
           rtt / rtn, re, ri
    syscalls = 2 * rn
    printf "bench-pmu: compute loop slowdown %.4f (target <= 1.01: %s); %.1f exits per interrupt in it\n",
           ctt / ctn, ctt / ctn <= 1.01 ? "met" : "MISSED", ci ? ce / ci : 0
    printf "bench-pmu: pipe round trips slowdown %.2f: %.2f exits per system call (SYSCALL and SYSRET\n",
           rtt / rtn, (re - 2 * ri) / syscalls
    printf "           or IRET), %.0f emulated instructions each (exit, emulation, entry)\n",
           ((re - 2 * ri) > 0 ? (rtt - rtn) / (re - 2 * ri) : 0)
}'
echo "bench-pmu: (a system call is a few hundred guest instructions; its two extra exits cost more"
echo "           than that in Bochs, where an exit and entry alone are ~350 emulated instructions)"
