#!/bin/bash
# Host tools in bounded memory and time (make bench-host): maximum
# resident memory and CPU time (user + system, /usr/bin/time; gnuplot's
# included for the PNG) of
#   - `vertigo export` of 10 M synthetic samples (gen-profile) in each
#     format: pprof, folded and csv keep the aggregated profile only
#     (target < 50 MB), Perfetto every sample's time;
#   - `vertigo timeline` of 1,000,000 interval rows of one event (hostile
#     log 'rows'): memory per row (target <= 64 bytes), the resident size
#     of a run on 10 rows subtracted;
#   - `vertigo report` of 100,000 domains and of 100,000 addresses that
#     differ only above bit 31 (hostile logs 'domains', 'addresses'):
#     target under 1 s;
#   - `vertigo timeline --format png` of 20,000 VCPUs (hostile log
#     'row-vcpus').
# Figures are printed, never enforced.
#
# usage: BUILD=build tests/bench/bench_host.sh
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
V="$BUILD/vertigo"
H="$BUILD/hostile-log"
dir="$BUILD/bench/host"
root="$BUILD/profile/root"
hv="$BUILD/profile/hvmini"
samples_per_unit=29     # GEN_SAMPLES_PER_UNIT (tests/fixtures/profile/gen_profile.h)
mkdir -p "$dir"

# usage_of CMD...: "MAXRSS_KB CPU_S" of one run (output discarded)
usage_of() {
    /usr/bin/time -f '%M %U %S' "$@" 2>&1 >/dev/null | tail -1 |
        awk '{ printf "%d %.2f\n", $1, $2 + $3 }'
}

units=$(( (10000000 + samples_per_unit - 1) / samples_per_unit ))
cap="$dir/capture-10m.bin"
[ -s "$cap" ] || "$BUILD/gen-profile" "$root/bin/workload" "$hv" tests/fixtures/profile/kallsyms.txt \
    "$units" "$cap" || { echo "bench-host: gen-profile failed"; exit 1; }
echo "bench-host: vertigo export of $(( units * samples_per_unit )) samples (target < 50 MB for pprof, folded, csv):"
for f in pprof folded csv perfetto; do
    read -r kb cpu < <(usage_of "$V" export --format "$f" --guest-root "$root" --vertigo-elf "$hv" \
        -o "$dir/export.$f" "$cap")
    printf "  %-8s %7.1f MB resident, %6.2f s CPU\n" "$f" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$cpu"
done
rm -f "$dir"/export.*

rows=1000000
"$H" rows "$rows" "$dir/rows.bin" && "$H" rows 10 "$dir/rows-10.bin" || exit 1
read -r kb cpu < <(usage_of "$V" timeline --format csv "$dir/rows.bin")
read -r kb0 _ < <(usage_of "$V" timeline --format csv "$dir/rows-10.bin")
echo "bench-host: vertigo timeline of $rows interval rows ($(stat -c %s "$dir/rows.bin") bytes of log):" \
     "$(awk -v k="$kb" -v k0="$kb0" -v n="$rows" 'BEGIN { printf "%.1f", (k - k0) * 1024 / n }') bytes" \
     "per row resident (target <= 64), ${cpu} s CPU"

for kind in domains addresses; do
    "$H" "$kind" 100000 "$dir/$kind.bin" || exit 1
    read -r kb cpu < <(usage_of "$V" report "$dir/$kind.bin")
    echo "bench-host: vertigo report of 100,000 $kind: $cpu s CPU (target < 1 s), $(( kb / 1024 )) MB resident"
done

if command -v gnuplot >/dev/null; then
    "$H" row-vcpus 20000 "$dir/row-vcpus.bin" || exit 1
    read -r kb cpu < <(usage_of "$V" timeline --format png -o "$dir/row-vcpus.png" "$dir/row-vcpus.bin")
    echo "bench-host: vertigo timeline --format png of 20,000 VCPUs: $cpu s CPU, gnuplot included"
else
    echo "bench-host: timeline PNG skipped: gnuplot is not installed"
fi
