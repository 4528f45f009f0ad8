#!/bin/bash
# VCPU switch cost. Prints, per VCPU switch between two domains' VCPUs on
# one CPU through the PMU's switch hooks (pmu_vcpu_switch_out + _in):
#   - the instructions of Vertigo's code, counted by callgrind on a host
#     harness of the portable pmu/ code at -O2
#     (tests/bench/bench_switch_harness.c): instr/switch =
#     (Ir(K2) - Ir(K1)) / (K2 - K1), only what runs inside the switch
#     (callgrind --toggle-collect), the cost of an empty call ("nop")
#     subtracted and the MSR accesses themselves left out;
#   - the PMU MSR accesses per switch on the register-level model (PMU v4,
#     4 GP + 3 fixed counters, full-width writes) and the writes elided;
#   - an estimate of the cycles: instructions at one cycle each plus every
#     MSR access at 93 cycles, the dearest per-register cost Perfctr-Xen
#     measured (66-93), against the target of 4,000 cycles of PMU switch
#     work per VCPU switch.
# Cases: no PMU context on either VCPU (software, hardware backend), a
# counting context of the same events on both (software; hardware), and
# the hardware backend with the guests' own virtual PMU counting too.
# A measurement that cannot be taken fails the benchmark; the figures are
# never judged.
#
# usage: BUILD=build tests/bench/bench_switch.sh
#   env: BENCH_SWITCH_K1, BENCH_SWITCH_K2 (switches, default 2000 and 12000)
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/callgrind.sh

BUILD=${BUILD:-build}
OUT="$BUILD/bench/switch"
HARNESS="$BUILD/bench/bench_switch_harness"
K1=${BENCH_SWITCH_K1:-2000}
K2=${BENCH_SWITCH_K2:-12000}
MSR_CYCLES=93
TARGET=4000
# Counted: what runs inside switch_vcpus (nop for the "nop" case), the
# MSR accesses inside it excepted (callgrind's toggles nest: entering
# bench_switch_*msr turns the count off, leaving it turns it on again).
toggles() {
    local fn=switch_vcpus
    [ "$1" = nop ] && fn=nop
    echo --collect-atstart=no --toggle-collect=$fn --toggle-collect=bench_switch_rdmsr \
         --toggle-collect=bench_switch_wrmsr
}
CASES="nop soft-none soft-ctx hw-none hw-ctx hw-ctx-guest"

die() { echo "bench-switch: FAILED: $*" >&2; exit 1; }

[ -x "$HARNESS" ] || die "no $HARNESS (make BUILD=$BUILD bench-switch builds it)"
command -v valgrind >/dev/null || die "valgrind is not installed (host-tools/setup-deps)"
mkdir -p "$OUT"

# collected OP K NAME [callgrind options...]: callgrind's "Collected" Ir.
collected() {
    local op=$1 k=$2 name=$3
    shift 3
    callgrind_ir "$OUT/$op.$k.$name" "$@" -- "$HARNESS" "$op" "$k" || die "callgrind $op $k ($name)"
}

# switch_ir CASE K: Ir of Vertigo's code in K switches.
switch_ir() {
    # shellcheck disable=SC2046
    collected "$1" "$2" switch $(toggles "$1")
}

declare -A per_switch msrs
for c in $CASES; do
    per_switch[$c]=$(callgrind_per_op switch_ir "$c" "$K1" "$K2") || die "$c"
    msrs[$c]=$(harness_msrs "$OUT/$c.$K2.switch.stdout" "$c" "$K2") || die "$c"
done
nop=${per_switch[nop]}

describe() {
    case $1 in
        soft-none)    echo "soft, no PMU context" ;;
        soft-ctx)     echo "soft, counting context (4 events)" ;;
        hw-none)      echo "hw model, no PMU context" ;;
        hw-ctx)       echo "hw model, counting context (4 hw + 1 sw events)" ;;
        hw-ctx-guest) echo "hw model, context (3 events) + guest vPMU counter" ;;
    esac
}
echo "bench-switch: PMU work per VCPU switch (pmu_vcpu_switch_out + pmu_vcpu_switch_in, two domains"
echo "              on one CPU, same events in both; callgrind, (Ir(K=$K2) - Ir(K=$K1)) / $((K2 - K1)),"
echo "              empty call ($nop instr) subtracted; MSR accesses on the PMU model v4;"
echo "              cycles = instr + $MSR_CYCLES per MSR access; target <= $TARGET cycles on the hw model)"
printf '%-52s %10s %7s %7s %7s %9s\n' case instr/sw RDMSR WRMSR elided cycles
for c in $CASES; do
    [ "$c" = nop ] && continue
    read -r reads writes elided <<< "${msrs[$c]}"
    awk -v d="$(describe "$c")" -v ir="${per_switch[$c]}" -v nop="$nop" -v k="$K2" \
        -v r="$reads" -v w="$writes" -v e="$elided" -v mc="$MSR_CYCLES" \
        'BEGIN { i = ir - nop; printf "%-52s %10.1f %7.2f %7.2f %7.2f %9.0f\n",
                 d, i, r / k, w / k, e / k, i + (r + w) / k * mc }'
done
