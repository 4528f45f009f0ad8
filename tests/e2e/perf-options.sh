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

# same NAME "SHORT ARGS" "LONG ARGS" [CMD]: both command lines give the
# same output (non-empty) and status 0
same() {
    local name=$1 short=$2 long=$3 cmd=${4:-report} a b
    "$V" $cmd "${opts[@]}" $short >"$out/a.txt" 2>"$out/a.err"; a=$?
    "$V" $cmd "${opts[@]}" $long >"$out/b.txt" 2>"$out/b.err"; b=$?
    if [ $a -eq 0 ] && [ $b -eq 0 ] && [ -s "$out/a.txt" ] && cmp -s "$out/a.txt" "$out/b.txt"; then
        pass "perf-options: $name"
    else
        fail "perf-options: $name" "status $a/$b, outputs $(wc -l <"$out/a.txt")/$(wc -l <"$out/b.txt") lines $(head -c 200 "$out/a.err")"
    fi
}

same "report -i FILE = report FILE" "-i $log" "$log"
same "report -s = --sort" "-s dso,sym $log" "--sort=dso,sym $log"
same "report -e = --event" "-e cycles $log" "--event cycles $log"
same "report -c = --comms = --comm" "-c workload $log" "--comms=workload $log"
same "report --comm = --comms" "--comm workload $log" "--comms workload $log"
same "report -d = --dsos = --dso" "-d /bin/workload $log" "--dsos /bin/workload $log"
same "report --pids = --pid" "--pids 42 $log" "--pid 42 $log"
same "report -S = --symbols" "-S g,f $log" "--symbols=g,f $log"
same "report -g = --call-graph" "-g graph,0.5,caller $log" "--call-graph=caller,graph,0.5 $log"
same "report -G = --inverted" "-G $log" "--inverted $log"
same "report -G = -g graph,caller" "-G $log" "-g graph,caller $log"
same "report -q = --quiet" "-q $log" "--quiet $log"
same "report -n = --show-nr-samples = default" "-n $log" "$log"
same "report --stdio = default" "--stdio $log" "$log"
same "report --no-children = default" "--no-children $log" "$log"
same "report --children --no-children = --no-children" "--children --no-children $log" "$log"
same "script -F = --fields" "-F comm,pid,time,ip,sym $log" "--fields=comm,pid,time,ip,sym $log" script
same "script -F +/- changes" "-F -cpu,-period $log" "-F comm,pid,time,event,ip,sym,symoff,dso $log" script
same "script default fields" "-F comm,pid,cpu,time,period,event,ip,sym,symoff,dso $log" "$log" script
same "export -i = FILE" "--format folded -i $log" "--format folded $log" export
same "export -e -c = --event --comms" "--format csv -e cycles -c workload $log" \
    "--format csv --event=cycles --comms=workload $log" export

# -q leaves out the header lines, nothing else.
"$V" report "${opts[@]}" "$log" | grep -v '^#' >"$out/noheader.txt"
"$V" report "${opts[@]}" -q "$log" >"$out/quiet.txt"
cmp -s "$out/noheader.txt" "$out/quiet.txt" && ! grep -q '^#' "$out/quiet.txt" &&
    pass "perf-options: -q drops exactly the # lines" || fail "perf-options: -q drops exactly the # lines" "differs"

# total OPTIONS...: the report's "# Total samples:"
total() { "$V" report "${opts[@]}" "$@" "$log" | sed -n 's/^# Total samples: //p'; }
all=$(total)
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
"$V" script "${opts[@]}" --ns -F time "$log" | sed -n 's/^ *\([0-9]*\)\.\([0-9]*\): *$/\1\2/p' \
    | sed 's/^0*//' >"$out/times.txt"
n=$(wc -l <"$out/times.txt")
first=$(sort -n "$out/times.txt" | head -n1)
last=$(sort -n "$out/times.txt" | tail -n1)
[ "$n" -gt 1000 ] && pass "perf-options: script --ns times of $n samples ($first..$last ns)" ||
    fail "perf-options: script --ns times" "$n samples"
# in_range LO HI OPEN: samples with LO <= t <= HI (t < HI when OPEN=1)
in_range() { awk -v lo="$1" -v hi="$2" -v open="$3" '$1 >= lo && (open ? $1 < hi : $1 <= hi) { n++ } END { print n + 0 }' "$out/times.txt"; }
# check_time NAME RANGE WANT: script and report keep WANT samples
check_time() {
    local name=$1 range=$2 want=$3 s r
    s=$("$V" script "${opts[@]}" --ns -F time --time "$range" "$log" | grep -c ':')
    r=$(total --time "$range")
    [ "$s" = "$want" ] && [ "$r" = "$want" ] && pass "perf-options: --time $name keeps exactly $want samples" ||
        fail "perf-options: --time $name" "want $want, script $s, report '$r'"
}
check_time "0.001,0.002 (seconds)" "0.001,0.002" "$(in_range 1000000 2000000 0)"
check_time "0.0015, (open stop)" "0.0015," "$(in_range 1500000 99999999999 0)"
check_time ",0.000600 (open start)" ",0.000600" "$(in_range 0 600000 0)"
check_time "two ranges" "0.001,0.0012 0.003,0.0031" \
    "$(( $(in_range 1000000 1200000 0) + $(in_range 3000000 3100000 0) ))"
at() { echo $(( first + (last - first) * $1 / 100 )); }
check_time "10%/2" "10%/2" "$(in_range "$(at 10)" "$(at 20)" 1)"
check_time "0%-10%,30%-40%" "0%-10%,30%-40%" "$(( $(in_range "$(at 0)" "$(at 10)" 1) + $(in_range "$(at 30)" "$(at 40)" 1) ))"
check_time "90%-100% (the last sample in)" "90%-100%" "$(in_range "$(at 90)" "$(at 100)" 0)"
check_time "10%/1 .. 10%/10 add up" "10%/1,10%/2,10%/3,10%/4,10%/5,10%/6,10%/7,10%/8,10%/9,10%/10" "$n"
check_time "0%-100% = all" "0%-100%" "$all"
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
