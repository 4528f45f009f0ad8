#!/bin/bash
# Boot-overhead benchmark: boots the same Linux kernel, initrd and
# command line (scenario hello) in Bochs twice, in parallel -- bare (GRUB
# loads Linux directly) and under Vertigo -- both with `clock: sync=none`,
# so guest-visible time counts emulated instructions and the figures are
# exact even on a loaded machine. Prints:
#   - the guest-visible uptime at init of each boot and their ratio
#     (Vertigo / bare; target <= 1.10, reported, never enforced);
#   - from Vertigo's exit statistics (com2.txt), the exits per second of
#     guest time by reason, guest time = cycles in the guest / TSC Hz.
# A run that fails or a figure that cannot be extracted fails the benchmark.
#
# Both command lines get tsc_early_khz=<ips/1000>: Bochs' CPUID leaves
# 0x15/0x16 claim a 3.5 GHz TSC while its TSC counts `ips` ticks per
# emulated second. Bare Linux believes CPUID, so its clock runs 70x slow and
# every udelay() lasts 70x too long; under Vertigo (which hides those
# leaves) it calibrates against the PIT. Without the parameter the two
# uptimes are not comparable.
#
# usage: BUILD=build tests/bench/bench_boot.sh
#   env: BENCH_GUEST_CMDLINE (guest command line; tsc_early_khz= is added
#        unless present), BENCH_TIMEOUT (wall-clock seconds per boot, default
#        900), BENCH_IPS (Bochs emulated instructions per second, default 50000000)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/boot"
RUNNER=host-tools/vertigo-run
HV_ELF="$BUILD/vertigo.elf"
KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.lz4"
TIMEOUT=${BENCH_TIMEOUT:-900}
IPS=${BENCH_IPS:-50000000}
GUEST_CMDLINE=${BENCH_GUEST_CMDLINE:-"console=ttyS0 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=hello"}
case " $GUEST_CMDLINE " in
    *" tsc_early_khz="*) ;;
    *) GUEST_CMDLINE="$GUEST_CMDLINE tsc_early_khz=$((IPS / 1000))" ;;
esac
TARGET_RATIO=1.10

die() { echo "bench-boot: FAILED: $*" >&2; exit 1; }

# console_of RUN FILE: a capture of one boot, carriage returns removed.
console_of() { tr -d '\r' < "$OUT/$1/$2"; }

# boot RUN [runner options...]: one Bochs boot in the background; its
# runner status lands in $OUT/RUN.status.
boot() {
    local run=$1
    shift
    ( "$RUNNER" --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet \
          --kernel "$KERNEL" --initrd "$INITRD" --guest-cmdline "$GUEST_CMDLINE" \
          --out "$OUT/$run" "$@" 2>"$OUT/$run.runner.txt"
      echo $? > "$OUT/$run.status" ) &
}

# check_run RUN: the boot ended with status 0 (guest verdict PASS).
check_run() {
    local status
    status=$(cat "$OUT/$1.status" 2>/dev/null)
    [ "$status" = 0 ] && return 0
    echo "bench-boot: the $1 boot failed (runner status ${status:-none}):" >&2
    sed 's/^/    /' "$OUT/$1.runner.txt" >&2
    echo "    last guest console lines ($OUT/$1/serial.txt):" >&2
    console_of "$1" serial.txt | tail -n 8 | sed 's/^/    /' >&2
    return 1
}

# uptime_at_init RUN: seconds from kernel start to init, as the guest saw it.
uptime_at_init() {
    local s
    s=$(console_of "$1" serial.txt |
        sed -nE 's/.*vertigo-init: uptime at init ([0-9]+(\.[0-9]+)?) s.*/\1/p' | head -n1)
    [ -n "$s" ] || die "no 'vertigo-init: uptime at init' line in $OUT/$1/serial.txt"
    echo "$s"
}

# tsc_hz: Vertigo's calibrated TSC rate, from its console.
tsc_hz() {
    local mhz
    mhz=$(console_of vertigo com2.txt | sed -nE 's/^tsc: ([0-9]+\.[0-9]+) MHz.*/\1/p' | head -n1)
    [ -n "$mhz" ] || die "no 'tsc: N MHz' line in $OUT/vertigo/com2.txt"
    awk -v m="$mhz" 'BEGIN { printf "%.0f\n", m * 1000000 }'
}

# exit_table GUEST_SECONDS: Vertigo's per-reason exit lines, summed over
# VCPUs, as "reason  exits  exits/s  avg cycles" rows (most frequent first).
exit_table() {
    console_of vertigo com2.txt |
        sed -nE 's/^exits: vcpu [0-9]+: (.*[^ ]) +([0-9]+) exits +([0-9]+) cycles +[0-9]+ avg$/\2\t\3\t\1/p' |
        awk -F'\t' -v secs="$1" '
            { n[$3] += $1; c[$3] += $2 }
            END { for (r in n)
                      printf "%d\t%-32s %10d %10.1f %12.0f\n", n[r], r, n[r], n[r] / secs, c[r] / n[r] }' |
        sort -t$'\t' -k1,1rn | cut -f2-
}

for f in "$HV_ELF" "$KERNEL" "$INITRD"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD hv guest)"
done
rm -rf "$OUT"
mkdir -p "$OUT"

echo "bench-boot: booting the guest bare and under Vertigo in parallel (Bochs, clock sync=none, ips $IPS)"
echo "bench-boot: guest command line: $GUEST_CMDLINE"
start=$(date +%s)
boot bare --bare-linux
boot vertigo --elf "$HV_ELF" --cmdline "console=com2"
wait
wall=$(( $(date +%s) - start ))
check_run bare || die "bare boot"
check_run vertigo || die "Vertigo boot"

bare_s=$(uptime_at_init bare) || exit 1
vertigo_s=$(uptime_at_init vertigo) || exit 1
awk -v s="$bare_s" 'BEGIN { exit !(s > 0) }' || die "the bare boot reports an uptime at init of $bare_s s"
hz=$(tsc_hz) || exit 1
summary=$(console_of vertigo com2.txt |
          sed -nE 's/^exits: vcpu [0-9]+: ([0-9]+) exits, ([0-9]+) cycles handling them, ([0-9]+) cycles in the guest$/\1 \2 \3/p' |
          awk '{ n += $1; h += $2; g += $3; v++ } END { if (v) print v, n, h, g }')
[ -n "$summary" ] || die "no 'exits: vcpu N: ... cycles in the guest' line in $OUT/vertigo/com2.txt"
read -r vcpus exits handling_cycles guest_cycles <<< "$summary"
[ "$guest_cycles" -gt 0 ] || die "Vertigo reports 0 cycles in the guest"
table=$(exit_table "$(awk -v g="$guest_cycles" -v hz="$hz" 'BEGIN { print g / hz }')")
[ -n "$table" ] || die "no per-reason 'exits: vcpu N: REASON ... avg' lines in $OUT/vertigo/com2.txt"

awk -v bare="$bare_s" -v vt="$vertigo_s" -v target="$TARGET_RATIO" \
    -v hz="$hz" -v vcpus="$vcpus" -v exits="$exits" -v h="$handling_cycles" -v g="$guest_cycles" '
BEGIN {
    ratio = vt / bare
    printf "bench-boot: uptime at init (guest-visible, kernel start to init): bare %.3f s, under Vertigo %.3f s\n", bare, vt
    printf "bench-boot: boot-overhead ratio (Vertigo / bare): %.3f (target <= %.2f: %s)\n",
           ratio, target, ratio <= target ? "met" : "MISSED"
    printf "bench-boot: Vertigo exit statistics (whole run, %d VCPU(s)): %d exits; TSC %.3f MHz; guest time %.3f s (cycles in the guest / TSC Hz); handling %.4f s = %.3f%% of guest time; %.1f exits/s\n",
           vcpus, exits, hz / 1e6, g / hz, h / hz, 100 * h / g, exits / (g / hz)
}'
printf '%-32s %10s %10s %12s\n' reason exits exits/s "avg cycles"
echo "$table"
awk -v n="$exits" -v h="$handling_cycles" -v g="$guest_cycles" -v hz="$hz" \
    'BEGIN { printf "%-32s %10d %10.1f %12.0f\n", "total", n, n / (g / hz), n ? h / n : 0 }'
echo "bench-boot: wall time ${wall}s (both boots in parallel); captures in $OUT"
