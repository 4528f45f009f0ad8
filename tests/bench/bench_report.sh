#!/bin/bash
# `vertigo report` against `perf report --stdio`, by CPU time (user +
# system, the median of BENCH_REPORT_RUNS runs; wall time beside it) and,
# for Vertigo, instructions per sample under callgrind. Two inputs:
#
# 1. The synthetic capture (gen-profile, the hypervisor's encoder): 1 M and
#    10 M samples of 68 distinct addresses, shallow stacks. perf's side is
#    a perf.data of about as many `perf record -e cpu-clock` samples of a
#    busy program (tests/bench/bench_report_busy.c); the ratio is per
#    sample. This measures aggregation, not symbolization.
# 2. A real capture with varied addresses and deep stacks: `perf record -g
#    -e cpu-clock:u` of tests/bench/bench_report_deep.c (512 functions,
#    call chains 4 to 32 deep), and the very same samples as a Vertigo log
#    (`perf script` through tests/bench/perf_to_log.c). Both tools read one
#    profile and both resolve every frame's symbol in the same static ELF
#    (Vertigo also its source line and inline chain; the benchmark stops
#    if Vertigo leaves more than 1 % of the samples [unknown]). Three pairs: each
#    tool's default (perf: --children with call graphs; Vertigo: the flat
#    profile), the flat profile on both (perf --no-children -g none), and
#    call graphs on both (Vertigo --children -g graph).
#
# Needs perf (Debian's linux-perf) and a kernel that lets it record;
# otherwise only Vertigo's figures are printed. valgrind for the counts.
# BENCH_REPORT_SIZES overrides the synthetic sample counts (e.g.
# "100000"), BENCH_REPORT_REAL the real capture's target sample count
# (default 300000), BENCH_REPORT_RUNS the runs per median (default 3).
# perf.data files are kept in $BUILD/bench/report and reused.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
sizes=${BENCH_REPORT_SIZES:-"1000000 10000000"}
real_target=${BENCH_REPORT_REAL:-300000}
runs=${BENCH_REPORT_RUNS:-3}
dir="$BUILD/bench/report"
V="$BUILD/vertigo"
root="$BUILD/profile/root"
hv="$BUILD/profile/hvmini"
samples_per_unit=29     # GEN_SAMPLES_PER_UNIT (tests/fixtures/profile/gen_profile.h)
perf_period_ns=4000     # cpu-clock period: 250 k samples per second per CPU at most
real_period_ns=20000    # the real capture's period
mkdir -p "$dir"
. tests/bench/callgrind.sh

# measure CMD...: "CPU WALL" in seconds, each the median of $runs runs
# (output discarded; CPU is user + system, of the command and its children)
measure() {
    local cpus=() walls=() i line
    for ((i = 0; i < runs; i++)); do
        line=$(/usr/bin/time -f '%U %S %e' "$@" 2>&1 >/dev/null | tail -1)
        cpus+=("$(awk -v l="$line" 'BEGIN { split(l, f, " "); printf "%.3f", f[1] + f[2] }')")
        walls+=("$(awk -v l="$line" 'BEGIN { split(l, f, " "); printf "%.3f", f[3] }')")
    done
    echo "$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
         "$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
}

# ratio A B: A / B to one decimal
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }'; }

# perf_samples FILE: exact sample count of a perf.data
perf_samples() {
    perf report -i "$1" --stdio --no-children -n --sort comm 2>/dev/null |
        awk '!/^#/ && NF >= 3 && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }'
}

# vertigo_ir_per_sample LOG SAMPLES ARGS...: callgrind's instructions of
# `vertigo report ARGS LOG` over SAMPLES
vertigo_ir_per_sample() {
    local log=$1 n=$2 ir
    shift 2
    command -v valgrind >/dev/null || { echo "n/a"; return; }
    ir=$(callgrind_ir "$dir/callgrind-$(basename "$log")" -- "$V" report "$@" "$log") || { echo "n/a"; return; }
    awk -v ir="$ir" -v n="$n" 'BEGIN { printf "%.0f", ir / n }'
}

perf_ok=1
perf_why=""
if ! command -v perf >/dev/null; then
    perf_ok=0; perf_why="perf is not installed (Debian package linux-perf)"
elif ! perf record -q -e cpu-clock -o "$dir/probe.data" -- true >"$dir/probe.log" 2>&1; then
    perf_ok=0; perf_why="perf record -e cpu-clock failed: $(tail -1 "$dir/probe.log")"
fi
if [ $perf_ok -eq 1 ]; then
    ${HOST_CC:-gcc} -O1 -g tests/bench/bench_report_busy.c -o "$dir/busy" &&
    ${HOST_CC:-gcc} -O1 -g -static -fno-pie -no-pie -fno-omit-frame-pointer -fno-optimize-sibling-calls \
        tests/bench/bench_report_deep.c -o "$dir/deep" ||
        { perf_ok=0; perf_why="cannot build the benchmark's programs"; }
fi
cpus=$(nproc)
# record_perf PROGRAM SECONDS OUT PERF-OPTIONS...: samples of one PROGRAM per CPU
record_perf() {
    local prog=$1 secs=$2 out=$3 procs="" i
    shift 3
    for i in $(seq "$cpus"); do procs="$procs $prog $secs &"; done
    perf record -q "$@" -o "$out" -- sh -c "$procs wait" >/dev/null 2>&1
}
# record_until PROGRAM N OUT PERF-OPTIONS...: at least 95 % of N samples in
# OUT (a second, longer recording if throttling kept the first short)
record_until() {
    local prog=$1 n=$2 out=$3 ps=0 secs rate=0
    shift 3
    [ -s "$out" ] && ps=$(perf_samples "$out")
    [ "$ps" -ge $(( n * 95 / 100 )) ] && return 0
    record_perf "$prog" 1 "$out" "$@"
    rate=$(perf_samples "$out")
    for _ in 1 2; do
        [ "$rate" -gt 0 ] || return 1
        secs=$(awk -v n="$n" -v r="$rate" 'BEGIN { printf "%.1f", 1.05 * n / r }')
        echo "  (recording $n perf samples of $(basename "$prog"): about $secs s)"
        record_perf "$prog" "$secs" "$out" "$@"
        ps=$(perf_samples "$out")
        [ "$ps" -ge $(( n * 95 / 100 )) ] && return 0
        rate=$(awk -v ps="$ps" -v s="$secs" 'BEGIN { printf "%d", ps / s }')
    done
}
[ $perf_ok -eq 1 ] || echo "bench-report: perf comparison skipped: $perf_why; Vertigo figures only"

echo "bench-report: CPU time (user + system) and wall time, median of $runs runs; cpus=$cpus"
echo "bench-report: 1. synthetic capture (68 distinct addresses, stacks 0-2 deep)"
for n in $sizes; do
    units=$(( (n + samples_per_unit - 1) / samples_per_unit ))
    cap="$dir/capture-$n.bin"
    [ -s "$cap" ] || "$BUILD/gen-profile" "$root/bin/workload" "$hv" tests/fixtures/profile/kallsyms.txt \
        "$units" "$cap" || { echo "bench-report: gen-profile failed"; exit 1; }
    vs=$(( units * samples_per_unit ))
    read -r vc vw < <(measure "$V" report --guest-root "$root" --vertigo-elf "$hv" "$cap")
    line=$(printf "  %9d samples: vertigo report %.3f s CPU, %.3f s wall (%s samples/s by CPU, %s MB log)" \
        "$vs" "$vc" "$vw" "$(awk -v n="$vs" -v t="$vc" 'BEGIN { printf "%.0f", (t > 0) ? n / t : 0 }')" \
        "$(awk -v b="$(stat -c %s "$cap")" 'BEGIN { printf "%.1f", b / 1e6 }')")
    if [ $perf_ok -eq 1 ]; then
        pd="$dir/perf-$n.data"
        record_until "$dir/busy" "$n" "$pd" -e cpu-clock -c "$perf_period_ns"
        ps=$(perf_samples "$pd")
        read -r pc pw < <(measure perf report -i "$pd" --stdio)
        r=$(awk -v pc="$pc" -v ps="$ps" -v vc="$vc" -v vs="$vs" \
            'BEGIN { printf "%.1f", (vc > 0 && ps > 0) ? (pc / ps) / (vc / vs) : 0 }')
        line="$line; perf report $pc s CPU, $pw s wall for $ps samples; ratio per sample by CPU ${r}x"
    fi
    echo "$line"
done
small=100000
units=$(( (small + samples_per_unit - 1) / samples_per_unit ))
[ -s "$dir/capture-$small.bin" ] || "$BUILD/gen-profile" "$root/bin/workload" "$hv" \
    tests/fixtures/profile/kallsyms.txt "$units" "$dir/capture-$small.bin"
echo "  vertigo report: $(vertigo_ir_per_sample "$dir/capture-$small.bin" $(( units * samples_per_unit )) \
    --guest-root "$root" --vertigo-elf "$hv") instructions per sample (callgrind, $(( units * samples_per_unit )) samples, start-up included)"

[ $perf_ok -eq 1 ] || exit 0
echo "bench-report: 2. real capture: perf record -g -e cpu-clock:u of a 512-function program, stacks to 32 deep; the same samples as a Vertigo log"
pd="$dir/real.data"
log="$dir/real.bin"
rroot="$dir/real-root"
mkdir -p "$rroot/bin"
cp "$dir/deep" "$rroot/bin/deep"
# real_image: the program perf's samples name, by the absolute path it ran
# from, when that file is the $dir/deep just built (else nothing)
real_image() {
    perf script -i "$pd" -F pid,ip,dso >"$dir/real.txt" 2>/dev/null
    local image
    image=$(sed -nE 's|^[[:space:]]+[0-9a-f]+ \((/.*/deep)\)$|\1|p' "$dir/real.txt" | head -1)
    [ -n "$image" ] && cmp -s "$image" "$dir/deep" && echo "$image"
}
record_until "$dir/deep" "$real_target" "$pd" -g -e cpu-clock:u -c "$real_period_ns" ||
    { echo "bench-report: perf recorded no samples of the real program"; exit 1; }
image=$(real_image)
if [ -z "$image" ]; then        # a recording kept from another build of the program
    rm -f "$pd"
    record_until "$dir/deep" "$real_target" "$pd" -g -e cpu-clock:u -c "$real_period_ns" ||
        { echo "bench-report: perf recorded no samples of the real program"; exit 1; }
    image=$(real_image)
fi
# perf-to-log maps the addresses of that image (and only those) to /bin/deep.
[ -n "$image" ] || { echo "bench-report: perf script names no image that is $dir/deep"; exit 1; }
"$BUILD/perf-to-log" "$image" /bin/deep "$real_period_ns" "$log" <"$dir/real.txt" >/dev/null ||
    { echo "bench-report: perf-to-log failed"; exit 1; }
ps=$(perf_samples "$pd")
addrs=$(awk '/\(/ { a[$1] = 1 } END { print length(a) }' "$dir/real.txt")
depth=$(awk '/\(/ { n++ } /^$/ { s += n; c++; n = 0 } END { printf "%.1f", c ? s / c : 0 }' "$dir/real.txt")
echo "  $ps samples, $addrs distinct addresses, $depth frames per sample on average (perf's chains; Vertigo keeps 33 at most)"
vr=(--guest-root "$rroot" "$log")
# Both sides must name the samples' functions: Vertigo may leave at most
# 1 % of them [unknown] (perf's chains start in ld.so and sh, whose
# files the guest root does not hold).
unknown=$("$V" report -q -s sym "${vr[@]}" | awk '/\[unknown\]/ { u += $2 } { t += $2 } END { printf "%.2f", t ? 100 * u / t : 100 }')
awk -v u="$unknown" 'BEGIN { exit !(u <= 1) }' ||
    { echo "bench-report: vertigo report leaves $unknown% of the real capture's samples [unknown]"; exit 1; }
read -r vd vdw < <(measure "$V" report "${vr[@]}")
read -r pd_c pd_w < <(measure perf report -i "$pd" --stdio)
read -r vf vfw < <(measure "$V" report -s comm,dso,sym "${vr[@]}")
read -r pf pfw < <(measure perf report -i "$pd" --stdio --no-children -g none -s comm,dso,sym)
read -r vg vgw < <(measure "$V" report --children -g graph -s comm,dso,sym "${vr[@]}")
read -r pg pgw < <(measure perf report -i "$pd" --stdio --children -g graph -s comm,dso,sym)
echo "  defaults:    vertigo report $vd s CPU ($vdw s wall); perf report --stdio $pd_c s CPU ($pd_w s wall): perf/vertigo $(ratio "$pd_c" "$vd")x"
echo "  flat:        vertigo report -s comm,dso,sym $vf s CPU ($vfw s wall); perf report --no-children -g none $pf s CPU ($pfw s wall): perf/vertigo $(ratio "$pf" "$vf")x (target >= 5x)"
echo "  call graphs: vertigo report --children -g graph $vg s CPU ($vgw s wall); perf report --children -g graph $pg s CPU ($pgw s wall): perf/vertigo $(ratio "$pg" "$vg")x (target >= 5x)"
echo "  vertigo report: $(vertigo_ir_per_sample "$log" "$ps" --guest-root "$rroot") instructions per sample (callgrind, start-up and symbolization included)"
