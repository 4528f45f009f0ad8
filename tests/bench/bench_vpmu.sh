#!/bin/bash
# Virtual PMU benchmark: the VM exits each guest PMU operation costs on
# the software backend in Bochs (pmu.guest=on). One boot runs
# tests/guest/vpmu_cost.c (scenario vpmu_cost) with a counting session of
# Vertigo's own exit counts, read by hypercall around each window; each
# operation is measured against the same window without it:
#   read    a read() of an enabled counter (Linux reads it with RDPMC),
#           against a read() of /dev/zero;
#   pmi     a PMI of a sampling counter (instructions:u every PERIOD
#           events over a user loop; the PMIs are the samples in its ring
#           buffer), against the loop unsampled;
#   switch  a context switch to or from a thread whose counter is enabled,
#           against the same pipe ping-pong without the counter.
# Printed per operation: exits per operation, split by reason.
#
# Two more boots, of the perf initramfs (`make guest-perf`, scenario
# perf_overhead), measure the guest's own Debian perf against no perf:
# /bin/workload run alone, under `perf stat` (default events) and under
# `perf record -F 1000` (default event), each run timed by
# tests/guest/timed_run.c with the guest's TSC (on the software backend
# in Bochs, every emulated tick, the guest's and Vertigo's):
#   overhead       with Vertigo's counting session of instructions:ukh
#                  (the same ticks by a clock the guest cannot set: each
#                  run's TSC window is checked against it) and
#                  instructions:h (Vertigo's share of those ticks, which
#                  splits a sample's cost into Vertigo's time and the
#                  guest's);
#   overhead-bare  without a session: perf's cost as a guest sees it, the
#                  session's own work at every exit no longer in the
#                  window (the headline figure, against its target).
# Printed per round: the ticks of each run, the ratios stat/none and
# record/none (the targets are 1.01 and 1.02; printed, never judged), a
# sample's cost with and without the session and its split, what perf
# recorded and whether the guest kernel lowered its perf sample rate (its
# log says "perf: interrupt took too long"). The boots run in parallel,
# BENCH_JOBS at a time (BENCH_JOBS=1: one after the other). A guest second is
# BENCH_IPS emulated instructions, so -F 1000 is a PMI every BENCH_IPS/1000
# instructions.
#
# The figures are Bochs's and the software backend's, never hardware's; a
# measurement that cannot be taken fails the benchmark.
#
# usage: BUILD=build tests/bench/bench_vpmu.sh
#   env: BENCH_VPMU (READS,ROUNDTRIPS,LOOP,PERIOD; default
#        2000,1000,1000000,10007), BENCH_VPMU_OVERHEAD (SCALE,ROUNDS; default
#        25,8: SCALE times the workload's 10 M loop instructions; rounds of
#        one boot differ by about 0.0004 in perf record's ratio, so two
#        rounds cannot place a figure this close to its target),
#        BENCH_IPS (default 500000000), BENCH_TIMEOUT (wall-clock seconds
#        per boot, default 3600), BENCH_JOBS (boots at once, default both:
#        1 under one Bochs slot of a shared machine; the figures are the same)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/vpmu"
RUNNER=host-tools/vertigo-run
HV_ELF="$BUILD/vertigo.elf"
KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.lz4"
PARAMS=${BENCH_VPMU:-2000,1000,1000000,10007}
IPS=${BENCH_IPS:-500000000}
TIMEOUT=${BENCH_TIMEOUT:-3600}
OVERHEAD=${BENCH_VPMU_OVERHEAD:-25,8}
TARGET_RECORD=1.02
PERF_INITRD="$BUILD/guest/initrd-perf.cpio"
# The order tests/guest/vpmu_cost.c reads them in.
EVENTS="exits:all,exits:rdmsr,exits:wrmsr,exits:rdpmc,exits:ept_violation"
EVENTS="$EVENTS,exits:preemption_timer,exits:nmi_window"
GUEST_CMDLINE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet"
GUEST_CMDLINE="$GUEST_CMDLINE vertigo.scenario=vpmu_cost vertigo.vpmu_cost=$PARAMS"

die() { echo "bench-vpmu: FAILED: $*" >&2; exit 1; }

for f in "$HV_ELF" "$KERNEL" "$INITRD" "$PERF_INITRD"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD bench-vpmu)"
done
rm -rf "$OUT"
mkdir -p "$OUT"

# boot NAME INITRD VERTIGO_CMDLINE GUEST_CMDLINE: one Bochs boot into
# $OUT/NAME in the background, its status in $OUT/NAME.status.
boot() {
    local name=$1 initrd=$2 cmdline=$3 guest_cmdline=$4
    # BENCH_JOBS: at most that many boots at once (default: all)
    while [ "$(jobs -rp | wc -l)" -ge "${BENCH_JOBS:-99}" ]; do wait -n; done
    ( "$RUNNER" --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet --elf "$HV_ELF" \
          --cmdline "$cmdline" --kernel "$KERNEL" --initrd "$initrd" \
          --guest-cmdline "$guest_cmdline" --out "$OUT/$name" 2>"$OUT/$name.runner.txt"
      echo $? >"$OUT/$name.status" ) &
}

# boot_done NAME DONE_LINE: dies unless boot NAME ended well and its serial
# output (written without carriage returns to $OUT/NAME/serial.clean.txt)
# has DONE_LINE.
boot_done() {
    local name=$1 done_line=$2 serial="$OUT/$1/serial.txt" status
    status=$(cat "$OUT/$name.status" 2>/dev/null)
    [ "$status" = 0 ] || die "the $name boot ended with status ${status:-none} (see $OUT/$name.runner.txt, $serial)"
    tr -d '\r' <"$serial" >"$OUT/$name/serial.clean.txt"
    grep -q "^$done_line" "$OUT/$name/serial.clean.txt" || die "no '$done_line' in $serial"
}

# The guest's perf against no perf (second boot, in parallel).
OVERHEAD_EVENTS="instructions:ukh,exits:all,instructions:h"
OVERHEAD_CMDLINE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet"
OVERHEAD_CMDLINE="$OVERHEAD_CMDLINE vertigo.scenario=perf_overhead vertigo.perf_overhead=$OVERHEAD"
echo "bench-vpmu: three Bochs boots, ${BENCH_JOBS:-3} at once (ips $IPS; Bochs emulated instructions, not Intel hardware):"
echo "            pmu.guest=on, pmu.events=$EVENTS; READS,ROUNDTRIPS,LOOP,PERIOD = $PARAMS"
echo "            the perf initramfs, pmu.events=$OVERHEAD_EVENTS; SCALE,ROUNDS = $OVERHEAD"
echo "            the perf initramfs without a counting session; SCALE,ROUNDS = $OVERHEAD"
boot bochs "$INITRD" "console=com2 pmu=auto pmu.guest=on pmu.events=$EVENTS" "$GUEST_CMDLINE"
boot overhead "$PERF_INITRD" "console=com2 pmu=auto pmu.events=$OVERHEAD_EVENTS" "$OVERHEAD_CMDLINE"
boot overhead-bare "$PERF_INITRD" "console=com2 pmu=auto" "$OVERHEAD_CMDLINE"
wait
boot_done bochs "vpmu_cost: done"
boot_done overhead "perf_overhead: done"
boot_done overhead-bare "perf_overhead: done"
serial="$OUT/bochs/serial.clean.txt"

echo "bench-vpmu: VM exits per guest PMU operation (software backend, Bochs; with - without the operation):"
printf '  %-8s %8s %10s  %s\n' operation ops exits/op "by reason (per op)"
sed -nE 's/^vpmu_cost: (read|pmi|switch): ([0-9]+) ops exits -?[0-9]+ per-op (-?[0-9.]+) \((.*)\)$/\1 \2 \3 \4/p' "$serial" |
while read -r op ops per rest; do
    printf '  %-8s %8s %10s  %s\n' "$op" "$ops" "$per" "$rest"
done
rows=$(grep -cE '^vpmu_cost: (read|pmi|switch): ' "$serial")
[ "$rows" -eq 3 ] || die "expected 3 operations in $serial, found $rows"
tr -d '\r' <"$OUT/bochs/com2.txt" | grep -E 'guest PMU: ' | sed 's/^/  vertigo: /'

# rounds SERIAL FIELD: one line per complete round of timed_run lines
# (none, stat, record), the figure of field FIELD (4: the session's ticks,
# 12: the TSC) and the exits (field 6, "-" without a session).
rounds() {
    awk -v f="$2" '
        /^timed_run: (none|stat|record): ticks / {
            ticks[$2] = $f; exits[$2] = $6
            if ($2 == "record:") {
                n++
                printf "  %-6d %14d %14d %14d %10.4f %10.4f %8s %8s %8s\n", n, ticks["none:"],
                       ticks["stat:"], ticks["record:"], ticks["stat:"] / ticks["none:"],
                       ticks["record:"] / ticks["none:"], exits["none:"], exits["stat:"], exits["record:"]
            }
        }
        END { if (n == 0) exit 1 }' "$1" || die "no complete round of timed_run lines in $1"
}

# per_sample SERIAL FIELD: the emulated instructions a sample costs (the
# mean record run less the mean run alone, per 1,000 samples a guest
# second), by field FIELD.
per_sample() {
    awk -v f="$2" -v ips="$IPS" '
        /^timed_run: (none|record): ticks / { t[$2] += $f; n[$2]++ }
        END { per = t["record:"] / n["record:"] - t["none:"] / n["none:"]
              printf "%.0f", per / (t["none:"] / n["none:"] / ips * 1000) }' "$1"
}

header() {
    printf '  %-6s %14s %14s %14s %10s %10s %8s %8s %8s\n' round none stat record stat/none rec/none \
        "exits-n" "exits-s" "exits-r"
}

serial="$OUT/overhead/serial.clean.txt"
bare="$OUT/overhead-bare/serial.clean.txt"
echo "bench-vpmu: the guest's perf against no perf (Bochs emulated ticks of each run of /bin/workload ${OVERHEAD%,*}; a guest second = $IPS ticks):"
echo "  without a counting session (the guest's TSC):"
header
rounds "$bare" 12
grep -E '^perf_overhead: (round [0-9]+: (stat|record)|kernel):' "$bare" | sed 's/^perf_overhead: /  /'
echo "  with Vertigo's counting session (its instructions:ukh):"
header
rounds "$serial" 4
grep -E '^perf_overhead: (round [0-9]+: (stat|record)|kernel):' "$serial" | sed 's/^perf_overhead: /  /'
# The session's ticks and the guest's TSC time the same windows: they
# differ by the ticks of the second reading's path, the same every run.
awk '/^timed_run: (none|stat|record): ticks / { d = $12 - $4; if (n++ == 0 || d < lo) lo = d; if (n == 1 || d > hi) hi = d }
     END { printf "  the guest'"'"'s TSC less the session'"'"'s ticks over the same windows: %d to %d ticks in %d runs\n", lo, hi, n
           exit !(n > 0 && hi - lo < 1000) }' "$serial" ||
    die "the guest's TSC and the session's ticks disagree over the same windows (see $serial)"
bare_per=$(per_sample "$bare" 12)
awk -v ips="$IPS" -v bare_per="$bare_per" '
    /^timed_run: (none|record): ticks / { t[$2] += $4; h[$2] += $8; n[$2]++ }
    END { r = (t["record:"] / n["record:"]) / (t["none:"] / n["none:"])
          samples = t["none:"] / n["none:"] / ips * 1000
          per = (t["record:"] / n["record:"] - t["none:"] / n["none:"]) / samples
          hv = (h["record:"] / n["record:"] - h["none:"] / n["none:"]) / samples
          guest = (t["record:"] / n["record:"] - t["none:"] / n["none:"]) - (h["record:"] / n["record:"] - h["none:"] / n["none:"])
          printf "bench-vpmu: with the session, perf record -F 1000 against the workload alone: %.4f over the rounds,\n", r
          printf "            about %.0f emulated instructions per sample (1,000 samples per guest second):\n", per
          printf "            Vertigo'"'"'s own time (instructions:h) %.0f of them, the guest'"'"'s %.0f (its PMI handler, perf'"'"'s\n", hv, per - hv
          printf "            buffer reads, the interrupts they raise); the guest'"'"'s share alone would be a ratio of %.4f;\n", 1 + guest / (t["none:"] / n["none:"])
          printf "            the session'"'"'s own work at the sample'"'"'s exits about %.0f of them (against the boot without it)\n", per - bare_per }' "$serial"
awk -v target="$TARGET_RECORD" -v per="$bare_per" '
    /^timed_run: (none|record): ticks / { t[$2] += $12; n[$2]++; last[$2] = $12
        if ($2 == "record:") ratio[++k] = last["record:"] / last["none:"] }
    END { r = (t["record:"] / n["record:"]) / (t["none:"] / n["none:"])
          for (i = 2; i <= k; i++) for (j = i; j > 1 && ratio[j - 1] > ratio[j]; j--) {
              x = ratio[j]; ratio[j] = ratio[j - 1]; ratio[j - 1] = x }
          med = k % 2 ? ratio[(k + 1) / 2] : (ratio[k / 2] + ratio[k / 2 + 1]) / 2
          printf "bench-vpmu: perf record -F 1000 against the workload alone, without a session: %.4f over the %d rounds\n", r, k
          printf "            (each round: median %.4f, %.4f to %.4f; target <= %s: %s), about %.0f emulated\n", med, ratio[1], ratio[k], target, r <= target ? "met" : "MISSED", per
          printf "            instructions per sample\n" }' "$bare"
for s in "$bare" "$serial"; do
    boot=$(basename "$(dirname "$s")")
    if grep -q '^perf_overhead: kernel: ' "$s"; then
        echo "bench-vpmu: $boot: the guest kernel lowered kernel.perf_event_max_sample_rate (its lines above)"
    else
        echo "bench-vpmu: $boot: the guest kernel never lowered kernel.perf_event_max_sample_rate"
    fi
done
