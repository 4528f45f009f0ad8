#!/bin/bash
# `vertigo report` speed: time to report 1 M and 10 M synthetic
# samples (gen-profile, real encoder), against `perf report --stdio` on a
# perf.data holding as many samples, recorded here with
# `perf record -e cpu-clock` on a busy program. Prints both times, samples
# per second and the ratio per sample (target: Vertigo >= 5x faster).
# BENCH_REPORT_SIZES overrides the sample counts (e.g. "100000").
# perf.data files are kept in $BUILD/bench/report and reused.
set -u
BUILD=${BUILD:-build}
sizes=${BENCH_REPORT_SIZES:-"1000000 10000000"}
dir="$BUILD/bench/report"
V="$BUILD/vertigo"
root="$BUILD/profile/root"
hv="$BUILD/profile/hvmini"
samples_per_unit=29     # GEN_SAMPLES_PER_UNIT (tests/fixtures/profile/gen_profile.h)
perf_period_ns=4000     # cpu-clock period: 250 k samples per second per CPU at most
mkdir -p "$dir"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# best_time CMD...: the best wall time of 2 runs, output discarded
best_time() {
    local best="" t0 t1 t
    for _ in 1 2; do
        t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
        t=$(elapsed "$t0" "$t1")
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    done
    echo "$best"
}

# perf_samples FILE: exact sample count of a perf.data
perf_samples() {
    perf report -i "$1" --stdio -n --sort comm 2>/dev/null |
        awk '!/^#/ && NF >= 3 && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }'
}

perf_ok=1
perf_why=""
if ! command -v perf >/dev/null; then
    perf_ok=0; perf_why="perf is not installed (Debian package linux-perf)"
elif ! perf record -q -e cpu-clock -o "$dir/probe.data" -- true >"$dir/probe.log" 2>&1; then
    perf_ok=0; perf_why="perf record -e cpu-clock failed: $(tail -1 "$dir/probe.log")"
fi
if [ $perf_ok -eq 1 ]; then
    ${HOST_CC:-gcc} -O1 -g tests/bench/bench_report_busy.c -o "$dir/busy" || { perf_ok=0; perf_why="cannot build the busy program"; }
fi
cpus=$(nproc)
# record_perf SECONDS OUT: cpu-clock samples of one busy process per CPU
record_perf() {
    local procs="" i
    for i in $(seq "$cpus"); do procs="$procs $dir/busy $1 &"; done
    perf record -q -e cpu-clock -c "$perf_period_ns" -o "$2" -- sh -c "$procs wait" >/dev/null 2>&1
}
rate=0
if [ $perf_ok -eq 1 ]; then
    record_perf 1 "$dir/calibrate.data"
    rate=$(perf_samples "$dir/calibrate.data")
    [ "$rate" -gt 0 ] || { perf_ok=0; perf_why="perf recorded no samples"; }
fi
[ $perf_ok -eq 1 ] || echo "bench-report: perf comparison skipped: $perf_why; Vertigo figures only"

echo "bench-report: vertigo report vs perf report --stdio (cpus=$cpus)"
for n in $sizes; do
    units=$(( (n + samples_per_unit - 1) / samples_per_unit ))
    cap="$dir/capture-$n.bin"
    [ -s "$cap" ] || "$BUILD/gen-profile" "$root/bin/workload" "$hv" tests/fixtures/profile/kallsyms.txt \
        "$units" "$cap" || { echo "bench-report: gen-profile failed"; exit 1; }
    vs=$(( units * samples_per_unit ))
    vt=$(best_time "$V" report --guest-root "$root" --vertigo-elf "$hv" "$cap")
    line=$(printf "  %9d samples: vertigo report %7.3f s (%s samples/s, %s MB log)" "$vs" "$vt" \
        "$(awk -v n="$vs" -v t="$vt" 'BEGIN { printf "%.0f", (t > 0) ? n / t : 0 }')" \
        "$(awk -v b="$(stat -c %s "$cap")" 'BEGIN { printf "%.1f", b / 1e6 }')")
    if [ $perf_ok -eq 1 ]; then
        pd="$dir/perf-$n.data"
        ps=0
        secs=0
        [ -s "$pd" ] && ps=$(perf_samples "$pd")
        # Record for n/rate seconds; if throttling kept it short, once more
        # for a duration scaled by the shortfall.
        for _ in 1 2; do
            [ "$ps" -ge $(( n * 95 / 100 )) ] && break
            [ "$ps" -gt 0 ] && rate=$(awk -v r="$rate" -v ps="$ps" -v s="$secs" \
                'BEGIN { printf "%d", (s > 0) ? ps / s : r }')
            secs=$(awk -v n="$n" -v r="$rate" 'BEGIN { printf "%.1f", 1.03 * n / r }')
            echo "  (recording $n perf samples: about $secs s)"
            record_perf "$secs" "$pd"
            ps=$(perf_samples "$pd")
        done
        pt=$(best_time perf report -i "$pd" --stdio)
        ratio=$(awk -v pt="$pt" -v ps="$ps" -v vt="$vt" -v vs="$vs" \
            'BEGIN { printf "%.1f", (vt > 0 && ps > 0) ? (pt / ps) / (vt / vs) : 0 }')
        line="$line; perf report $pt s for $ps samples; ratio per sample ${ratio}x (target >= 5x)"
    fi
    echo "$line"
done
