#!/bin/bash
# VM-exit cost of the PMU. Prints, per VM exit, the instructions Vertigo's
# PMU calls in the VM-exit loop run (pmu_after_exit, pmu_exit_handled,
# pmu_emulated_instruction, pmu_before_entry, pmu_entering), counted by
# callgrind on a host harness of pmu/ as the hypervisor links it, compiled
# as vertigo.elf is (tests/bench/bench_exit_harness.c, the fake arch hooks
# standing for the VMCS reads and writes): instr/exit = (Ir(K2) - Ir(K1)) /
# (K2 - K1), only what runs inside one exit (callgrind --toggle-collect),
# the cost of an empty call ("nop") subtracted. Each exit is a CPUID-like
# one (an emulated instruction) after a guest run of 500 to 1,499 ticks,
# kernel and user mode in turn. Cases, all on the software backend:
#   off        pmu.guest=off, no session: the loop's calls with nothing to do
#   on         the guest's virtual PMU (the default) with the counter Linux's
#              NMI watchdog programs (core cycles, both modes, a PMI every
#              10 s of a 500 MHz guest)
#   on-user    the guest's virtual PMU counting instructions:u (perf stat of
#              a user program: the mode traps run)
#   sample-off a sampling session of instructions:uk at a period of 50,000,
#              pmu.guest=off (its PMIs are taken outside the count)
#   sample-on  the same with the guest's virtual PMU and its NMI watchdog
#   sample-h-off the same with instructions:ukh (bench-sample's headline:
#              Vertigo's own time counted at the loop's sync points, where
#              the single-stepping of Vertigo near an overflow is decided),
#              pmu.guest=off
#   sample-h-on  the headline with the guest's virtual PMU and its watchdog
#   on-sampling  the guest's virtual PMU sampling instructions:u (perf record
#              of a user program: a PMI every 10,007 events), no session
#   mux-exact  bench-mux's session (32 events: instructions, cycles and
#              ref-cycles in each of 7 mode sets, 11 software events)
#              counted exactly on 32 counters, the guest PMU's watchdog on
#   mux-4      the same multiplexed over 4 counters (rows of 1M
#              instructions, turns of 100K): what multiplexing adds an exit
# and, in a second build of the harness (bench_exit_writes_harness, whose
# one_exit tests which case it runs), on-pmi-writes: on-sampling with each
# exit a WRMSR of the guest's PMI handler in turn (GLOBAL_CTRL off, the
# counter reloaded, GLOBAL_OVF_CTRL, GLOBAL_CTRL on), and on-reads, each
# exit a read while the counter counts (RDPMC of the counter, as a read()
# of it or PAPI_read does, and RDMSR of GLOBAL_STATUS, in turn), against
# on-sampling in the same build: what one such write or read costs pmu/.
# and what the guest's virtual PMU adds to an exit (on - off, sample-on -
# sample-off, sample-h-on - sample-h-off: the last against its target of
# 20). The software backend writes a sample at the exit that finds its
# overflow (sample_record_at_exit): that recording is left out of the
# per-exit figures and counted apart, for the sampling cases, per sample
# of the K2 run (the sample recorded, encoded and written to the log
# ring; bench-sample's "sampling path" is the same in Bochs). The whole exit in Bochs, VMCS accesses and the rest of the
# exit path included, is bench-sample's. A measurement that cannot be taken
# fails the benchmark; the figures are never judged.
#
# usage: BUILD=build tests/bench/bench_exit.sh
#   env: BENCH_EXIT_K1, BENCH_EXIT_K2 (exits, default 2000 and 12000)
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/bench/callgrind.sh
. tests/bench/mux_events.sh
export BENCH_MUX_EVENTS=$MUX_EVENTS   # the harness's mux-exact and mux-4

BUILD=${BUILD:-build}
OUT="$BUILD/bench/exit"
HARNESS="$BUILD/bench/bench_exit_harness"
K1=${BENCH_EXIT_K1:-2000}
K2=${BENCH_EXIT_K2:-12000}
CASES="nop off on on-user sample-off sample-on sample-h-off sample-h-on on-sampling mux-exact mux-4"
WRITES_HARNESS="$BUILD/bench/bench_exit_writes_harness"

die() { echo "bench-exit: FAILED: $*" >&2; exit 1; }

for h in "$HARNESS" "$WRITES_HARNESS"; do
    [ -x "$h" ] || die "no $h (make BUILD=$BUILD bench-exit builds it)"
done
command -v valgrind >/dev/null || die "valgrind is not installed (host-tools/setup-deps)"
mkdir -p "$OUT"

# exit_ir CASE K: Ir of Vertigo's code in K exits (one_exit, or nop), the
# samples' recording left out: callgrind toggles collection off on entering
# sample_record_at_exit inside one_exit, and on again when it returns.
RECORDING=sample_record_at_exit
exit_ir() {
    local fn=one_exit
    [ "$1" = nop ] && fn=nop
    callgrind_ir "$OUT/$1.$2" --collect-atstart=no --toggle-collect=$fn \
        --toggle-collect=$RECORDING -- "$HARNESS" "$1" "$2" || die "callgrind $1 $2"
}

# writes_ir CASE K: the same in the build with the PMI handler's writes.
writes_ir() {
    callgrind_ir "$OUT/writes-$1.$2" --collect-atstart=no --toggle-collect=one_exit \
        --toggle-collect=$RECORDING -- "$WRITES_HARNESS" "$1" "$2" || die "callgrind $1 $2 (writes build)"
}

# sample_ir CASE: "IR SAMPLES" of the samples written in K2 exits.
sample_ir() {
    local ir name k samples
    ir=$(callgrind_ir "$OUT/$1.samples.$K2" --collect-atstart=no --toggle-collect=$RECORDING -- \
         "$HARNESS" "$1" "$K2") || die "callgrind $1 samples"
    read -r name k samples _ < "$OUT/$1.samples.$K2.stdout"
    [ "$name" = "$1" ] && [ "$k" = "$K2" ] && [ "${samples:-0}" -gt 0 ] ||
        die "no sample counted in $OUT/$1.samples.$K2.stdout"
    echo "$ir $samples"
}

declare -A per_exit
for c in $CASES; do
    per_exit[$c]=$(callgrind_per_op exit_ir "$c" "$K1" "$K2") || die "$c"
    read -r name k _ < "$OUT/$c.$K2.stdout"
    [ "$name" = "$c" ] && [ "$k" = "$K2" ] || die "unexpected harness output in $OUT/$c.$K2.stdout"
done

echo "bench-exit: instructions of pmu/'s calls per VM exit (callgrind, host harness compiled as vertigo.elf,"
echo "            software backend, $K2 - $K1 exits; the empty call subtracted)"
printf '  %-12s %10s\n' case instr/exit
for c in $CASES; do
    [ "$c" = nop ] && continue
    awk -v c="$c" -v n="${per_exit[$c]}" -v z="${per_exit[nop]}" 'BEGIN { printf "  %-12s %10.1f\n", c, n - z }'
done
awk -v a="${per_exit[on]}" -v b="${per_exit[off]}" -v c="${per_exit[sample-on]}" -v d="${per_exit[sample-off]}" \
    -v e="${per_exit[sample-h-on]}" -v f="${per_exit[sample-h-off]}" 'BEGIN {
    printf "bench-exit: the guest'"'"'s virtual PMU on (NMI watchdog counting) minus off: %+.1f instructions per exit\n", a - b
    printf "            without a session (on, it takes the short path of a VCPU that counts for it alone),\n"
    printf "            %+.1f with a sampling session of instructions:uk, %+.1f with instructions:ukh\n", c - d, e - f
    printf "            (target: within 20 an exit with the headline session: %s)\n", e - f <= 20 ? "met" : "MISSED"
}'
awk -v h="${per_exit[sample-h-on]}" -v c="${per_exit[sample-on]}" 'BEGIN {
    printf "bench-exit: Vertigo'"'"'s own time counted too (:ukh against :uk, guest PMU on): %+.1f per exit\n", h - c
}'
awk -v m="${per_exit[mux-4]}" -v x="${per_exit[mux-exact]}" 'BEGIN {
    printf "bench-exit: interval multiplexing (bench-mux'"'"'s 32 events over 4 counters) against the same\n"
    printf "            events counted exactly: %+.1f per exit, the turns'"'"' ends included\n", m - x
}'
declare -A per_write
for c in on-sampling on-pmi-writes on-reads; do
    per_write[$c]=$(callgrind_per_op writes_ir "$c" "$K1" "$K2") || die "$c (writes build)"
done
awk -v w="${per_write[on-pmi-writes]}" -v r="${per_write[on-reads]}" -v s="${per_write[on-sampling]}" 'BEGIN {
    printf "bench-exit: one WRMSR of the guest'"'"'s PMI handler to its virtual PMU: %+.1f instructions,\n", w - s
    printf "            a read while the counter counts (RDPMC, RDMSR of GLOBAL_STATUS): %+.1f, over an exit\n", r - s
    printf "            without one (on-pmi-writes and on-reads against on-sampling, in bench_exit_writes_harness)\n"
}'
for c in sample-on sample-h-on; do
    read -r ir samples <<< "$(sample_ir "$c")" || exit 1
    awk -v c="$c" -v ir="$ir" -v n="$samples" 'BEGIN {
        printf "bench-exit: %s: one sample written at its exit %.1f instructions (%d samples)\n", c, ir / n, n }'
done
