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
# Printed per operation: exits per operation, split by reason. The figures
# are Bochs's and the software backend's, never hardware's; a measurement
# that cannot be taken fails the benchmark, the figures are never judged.
#
# usage: BUILD=build tests/bench/bench_vpmu.sh
#   env: BENCH_VPMU (READS,ROUNDTRIPS,LOOP,PERIOD; default
#        2000,1000,1000000,10007), BENCH_IPS (default 500000000),
#        BENCH_TIMEOUT (wall-clock seconds, default 900)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/vpmu"
RUNNER=host-tools/vertigo-run
HV_ELF="$BUILD/vertigo.elf"
KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.gz"
PARAMS=${BENCH_VPMU:-2000,1000,1000000,10007}
IPS=${BENCH_IPS:-500000000}
TIMEOUT=${BENCH_TIMEOUT:-900}
# The order tests/guest/vpmu_cost.c reads them in.
EVENTS="exits:all,exits:rdmsr,exits:wrmsr,exits:rdpmc,exits:ept_violation"
EVENTS="$EVENTS,exits:preemption_timer,exits:nmi_window"
GUEST_CMDLINE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet"
GUEST_CMDLINE="$GUEST_CMDLINE vertigo.scenario=vpmu_cost vertigo.vpmu_cost=$PARAMS"

die() { echo "bench-vpmu: FAILED: $*" >&2; exit 1; }

for f in "$HV_ELF" "$KERNEL" "$INITRD"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD bench-vpmu)"
done
rm -rf "$OUT"
mkdir -p "$OUT"

echo "bench-vpmu: booting Bochs (ips $IPS, pmu.guest=on, pmu.events=$EVENTS; READS,ROUNDTRIPS,LOOP,PERIOD = $PARAMS)"
"$RUNNER" --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet --elf "$HV_ELF" \
    --cmdline "console=com2 pmu=auto pmu.guest=on pmu.events=$EVENTS" \
    --kernel "$KERNEL" --initrd "$INITRD" --guest-cmdline "$GUEST_CMDLINE" \
    --out "$OUT/bochs" 2>"$OUT/bochs.runner.txt"
status=$?
serial="$OUT/bochs/serial.txt"
[ "$status" -eq 0 ] || die "the boot ended with status $status (see $OUT/bochs.runner.txt, $serial)"
tr -d '\r' <"$serial" | grep -q '^vpmu_cost: done' || die "no 'vpmu_cost: done' in $serial"

echo "bench-vpmu: VM exits per guest PMU operation (software backend, Bochs; with - without the operation):"
printf '  %-8s %8s %10s  %s\n' operation ops exits/op "by reason (per op)"
tr -d '\r' <"$serial" | sed -nE 's/^vpmu_cost: (read|pmi|switch): ([0-9]+) ops exits -?[0-9]+ per-op (-?[0-9.]+) \((.*)\)$/\1 \2 \3 \4/p' |
while read -r op ops per rest; do
    printf '  %-8s %8s %10s  %s\n' "$op" "$ops" "$per" "$rest"
done
rows=$(tr -d '\r' <"$serial" | grep -cE '^vpmu_cost: (read|pmi|switch): ')
[ "$rows" -eq 3 ] || die "expected 3 operations in $serial, found $rows"
tr -d '\r' <"$OUT/bochs/com2.txt" | grep -E 'guest PMU: ' | sed 's/^/  vertigo: /'
