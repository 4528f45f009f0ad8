#!/bin/bash
# Host-only test of perf's options on `vertigo report`, `script` and
# `export`, on the synthetic capture of the report tests (gen-profile, the
# real encoder): every short form gives what its long form gives (-i, -s,
# -g, -G, -e, -c, -d, -S, -F, -q, -n, --stdio, --no-children), the
# filters keep what they name, `--time` keeps exactly the samples whose
# times `vertigo script --ns` prints inside the range (seconds, A%-B%,
# A%/N, several ranges) and the report's totals follow it, and the call
# chains of -g add up; --json of report and stats is read by Python's
# JSON parser and follows its schema. Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/perf-options"
rm -rf "$out"
mkdir -p "$out"
V="$VERTIGO"
root="$BUILD/profile/root"
log="$out/capture.bin"
"$BUILD/gen-profile" "$root/bin/workload" "$BUILD/profile/hvmini" tests/fixtures/profile/kallsyms.txt \
    500 "$log" "$out/expect.txt" || { fail "perf-options: generate capture" "gen-profile failed"; exit 1; }
opts=(--guest-root "$root" --vertigo-elf "$BUILD/profile/hvmini")

tag=perf-options
. tests/e2e/perf_forms.bash
same_forms cycles workload /bin/workload 42 g,f

# -q leaves out the header lines, nothing else.
"$V" report "${opts[@]}" "$log" | grep -v '^#' >"$out/noheader.txt"
"$V" report "${opts[@]}" -q "$log" >"$out/quiet.txt"
cmp -s "$out/noheader.txt" "$out/quiet.txt" && ! grep -q '^#' "$out/quiet.txt" &&
    pass "perf-options: -q drops exactly the # lines" || fail "perf-options: -q drops exactly the # lines" "differs"

# The filters keep what they name: -S g alone, g's own count.
want_g=$(awk '$NF ~ /^[0-9]+$/ && $2 == "g" { n += $NF } END { print n + 0 }' "$out/expect.txt")
got_g=$(total -S g)
[ "$got_g" = "$want_g" ] && pass "perf-options: -S g keeps g's $want_g samples" ||
    fail "perf-options: -S g keeps g's samples" "want $want_g, got '$got_g'"
"$V" report "${opts[@]}" -q -S g,f "$log" | awk '{ print $(NF-1) }' | sort -u >"$out/syms.txt"
[ "$(tr '\n' ' ' <"$out/syms.txt")" = "f g " ] && pass "perf-options: -S g,f shows f and g only" ||
    fail "perf-options: -S g,f shows f and g only" "$(tr '\n' ' ' <"$out/syms.txt")"
"$V" report "${opts[@]}" -q -d '[kernel.kallsyms]' "$log" | grep -vc 'kernel.kallsyms' >"$out/d.txt"
[ "$(cat "$out/d.txt")" = 0 ] && pass "perf-options: -d keeps that image's rows only" ||
    fail "perf-options: -d keeps that image's rows only" "$(cat "$out/d.txt") other rows"

# --time: exactly the samples whose time (script --ns) is in the range.
sample_times 1001
check_time "0.001,0.002 (seconds)" "0.001,0.002" "$(in_range 1000000 2000000 0)"
check_time "0.0015, (open stop)" "0.0015," "$(in_range 1500000 99999999999 0)"
check_time ",0.000600 (open start)" ",0.000600" "$(in_range 0 600000 0)"
check_time "two ranges" "0.001,0.0012 0.003,0.0031" \
    "$(( $(in_range 1000000 1200000 0) + $(in_range 3000000 3100000 0) ))"
check_time_percent
for bad in "5,3" "abc" "10%/0" "50%-20%" "1.1234567891,2"; do
    "$V" report "${opts[@]}" --time "$bad" "$log" >/dev/null 2>"$out/bad.err"
    rc=$?
    [ $rc -eq 1 ] && grep -q -- "--time '$bad'" "$out/bad.err" && pass "perf-options: --time '$bad' refused, named" ||
        fail "perf-options: --time '$bad' refused" "exit $rc: $(cat "$out/bad.err")"
done

# -g: the folded chains of a row add up to its share (threshold 0: all of them).
"$V" report "${opts[@]}" -q -e instructions -g folded,0,caller "$log" >"$out/folded.txt"
grep -qx '60.00% main;f;g' "$out/folded.txt" && grep -qx '30.00% main;f' "$out/folded.txt" &&
    pass "perf-options: -g folded,caller: 60.00% main;f;g and 30.00% main;f" ||
    fail "perf-options: -g folded,caller chains" "$(head -c 300 "$out/folded.txt")"
"$V" report "${opts[@]}" -q -e instructions -g folded,0 "$log" | grep -qx '60.00% g;f;main' &&
    pass "perf-options: -g folded (callee): g;f;main" || fail "perf-options: -g folded (callee): g;f;main" "missing"
"$V" report "${opts[@]}" -q -e instructions --children -g graph,0 "$log" >"$out/graph.txt"
grep -q -- '---main' "$out/graph.txt" && grep -q -- '--90.00%--f' "$out/graph.txt" &&
    pass "perf-options: --children -g graph: main's tree, f at 90.00% of all samples" ||
    fail "perf-options: --children -g graph" "$(head -c 400 "$out/graph.txt")"
"$V" report "${opts[@]}" -q -e instructions --children -g fractal,0 "$log" | grep -q -- '--66.67%--g' &&
    pass "perf-options: -g fractal: g is 66.67% of f's samples" ||
    fail "perf-options: -g fractal: g is 66.67% of f's samples" "missing"
status_of() { "$@" >/dev/null 2>"$out/st.err"; echo $?; }
[ "$(status_of "$V" report -g bogus "$log")" = 2 ] && grep -q "unknown part 'bogus'" "$out/st.err" &&
    pass "perf-options: -g bogus refused, named" || fail "perf-options: -g bogus refused" "$(cat "$out/st.err")"
[ "$(status_of "$V" script -F comm,speed "$log")" = 2 ] && grep -q "unknown field 'speed'" "$out/st.err" &&
    pass "perf-options: -F speed refused, named" || fail "perf-options: -F speed refused" "$(cat "$out/st.err")"

# --json: Python's JSON parser reads the report and the stats, whose
# fields follow the documented schema and agree with the text outputs.
for sort in "" "-s sym" "-s domain,pid"; do
    "$V" report "${opts[@]}" $sort --json "$log" >"$out/report.json"
    "$V" report "${opts[@]}" $sort "$log" >"$out/report.txt"
    python3 tests/e2e/json_check.py report "$out/report.json" "$out/report.txt" | sed "s/json: report:/json: report $sort:/"
done
"$V" stats --json "$log" >"$out/stats.json"
"$V" stats "$log" >"$out/stats.txt"
python3 tests/e2e/json_check.py stats "$out/stats.json" "$out/stats.txt"
exit $E2E_FAILED
