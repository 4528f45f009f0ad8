#!/bin/bash
# Host only: the hostile-log corpus through every command and output
# format. Every kind of tests/fuzz/hostile_logs.h (which between them hold
# every record type, names full of escape sequences and invalid UTF-8,
# sums and products past 64 bits, domains beyond 255 and named alike,
# hostile maps paths), an empty file and a truncated log, each through
# decode, stats, report (text, --by-mode, --json), stats --json, diff,
# check-frames, script, export (pprof, folded, csv, perfetto), timeline
# (csv, tsv, json) and correlate (text, csv).
# Each case either exits non-zero with a line "vertigo CMD: ..." on
# stderr naming the problem, or exits 0 (or 3, damaged, with its output
# still written) with output that a real parser accepts: protoc --decode
# with the project's profile.proto for pprof; Python's json and csv
# modules, and tests/e2e/hostile_check.py for TSV, folded stacks and
# text (valid UTF-8, no control character a terminal acts on). Then the
# failures the corpus was grown for, one check each. Prints PASS/FAIL.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/hostile-corpus"
rm -rf "$out"
mkdir -p "$out/logs" "$out/runs"

if ! make --no-print-directory BUILD="$BUILD" "$BUILD/vertigo" "$BUILD/hostile-log" \
        "$BUILD/profile/root/bin/workload" >"$out/build.log" 2>&1; then
    fail "hostile corpus: build" "see $out/build.log"
    exit 1
fi
V="$VERTIGO"
root="$BUILD/profile/root"

# Bounds of every run: the corpus's logs are small (under 1 MB each), so
# 20 s of wall-clock time (a loaded 2-core machine runs one in well under
# a second) can only be reached by a hang or a cost growing much faster
# than the log, and 2 GB of address space (the optimized tool, no
# sanitizer shadow memory) only by an allocation a hostile count made.
TIME_LIMIT=20
MEM_LIMIT_KB=$((2 * 1024 * 1024))

# The logs: KIND:N, each kind at a small scale, every variant of the
# overflow kinds.
cases="events:3 vcpus:3 jit:3 unfinished:3 identities:3 processes:3 paths:3 names:3 loss:3
       ranges:3 totals:70 modes:0 periods:3 escapes:4 exit-sums:0 period-sums:0 period-sums:1
       row-sums:0 row-sums:1 row-sums:2 domain-ids:0 every-type:0"
logs=()
for c in $cases; do
    f="$out/logs/${c/:/-}.bin"
    "$BUILD/hostile-log" "${c%%:*}" "${c##*:}" "$f" || { fail "hostile corpus: write $c" "hostile-log failed"; exit 1; }
    logs+=("$f")
done
: >"$out/logs/empty.bin"
head -c 200 "$out/logs/escapes-4.bin" >"$out/logs/truncated.bin"
logs+=("$out/logs/empty.bin" "$out/logs/truncated.bin")

# The runs: NAME FORMAT command... (FILE is the log, OUT the output file).
runs=(
    "decode|text|decode FILE"
    "stats|text|stats FILE"
    "report|text|report FILE"
    "report-by-mode|text|report --by-mode --sort comm,pid,dso,sym,domain FILE"
    "report-json|json|report --json FILE"
    "stats-json|json|stats --json FILE"
    "diff|text|diff FILE FILE"
    "check-frames|text|check-frames FILE"
    "script|text|script FILE"
    "pprof|pprof|export --format pprof -o OUT FILE"
    "folded|folded|export --format folded -o OUT FILE"
    "csv|csv|export --format csv -o OUT FILE"
    "perfetto|json|export --format perfetto -o OUT FILE"
    "timeline-csv|csv|timeline --format csv -o OUT FILE"
    "timeline-tsv|tsv|timeline --format tsv -o OUT FILE"
    "timeline-json|json|timeline --format json -o OUT FILE"
    "correlate|text|correlate FILE"
    "correlate-csv|csv|correlate --format csv -o OUT FILE"
)

declare -A total valid refused
manifest="$out/manifest.txt"
: >"$manifest"
bad_runs=()
# run_case LOG RUN: one bounded run; its output into the manifest (to be
# parsed) or its refusal checked for a message.
run_case() {
    local log=$1 spec=$2 name fmt cmd base o rc
    IFS='|' read -r name fmt cmd <<<"$spec"
    base="$out/runs/$(basename "$log" .bin).$name"
    o="$base.out"
    cmd=${cmd//FILE/$log}
    cmd=${cmd//OUT/$o}
    ( ulimit -v $MEM_LIMIT_KB; exec timeout $TIME_LIMIT "$V" $cmd ) >"$base.stdout" 2>"$base.err"
    rc=$?
    [ -f "$o" ] || cp "$base.stdout" "$o"
    echo "$rc" >"$base.rc"
    total[$fmt]=$(( ${total[$fmt]:-0} + 1 ))
    case $rc in
        0|3)                  # written (3: damaged, what was decoded still written)
            if [ $rc -eq 3 ] && [ ! -s "$o" ]; then
                grep -qE "^vertigo [a-z-]+: .+" "$base.err" &&
                    refused[$fmt]=$(( ${refused[$fmt]:-0} + 1 )) ||
                    bad_runs+=("$base: exit 3 with no output and no message")
                return
            fi
            if [ $rc -eq 3 ] && ! grep -qE "^vertigo [a-z-]+: .+" "$base.err"; then
                bad_runs+=("$base: exit 3 without a message")
                return
            fi
            if [ "$fmt" = pprof ]; then
                if gunzip -c "$o" | protoc --decode perftools.profiles.Profile -I tests/fixtures/pprof \
                        profile.proto >"$base.protoc" 2>"$base.protoc.err"; then
                    valid[$fmt]=$(( ${valid[$fmt]:-0} + 1 ))
                else
                    bad_runs+=("$base: protoc --decode: $(head -c 200 "$base.protoc.err")")
                fi
            else
                echo "$fmt $o" >>"$manifest"
            fi ;;
        1|2|4|5)             # 5: check-frames found invalid frames
            if grep -qE "^vertigo( [a-z-]+)?: .+" "$base.err"; then
                refused[$fmt]=$(( ${refused[$fmt]:-0} + 1 ))
            else
                bad_runs+=("$base: exit $rc without a message")
            fi ;;
        *)
            bad_runs+=("$base: exit $rc (124: over $TIME_LIMIT s; 128+N: signal N) $(head -c 200 "$base.err")") ;;
    esac
}

for log in "${logs[@]}"; do
    for spec in "${runs[@]}"; do
        run_case "$log" "$spec"
    done
done
# stderr too reaches a terminal: every message valid UTF-8, no control
# character (names from the log in it are cleaned as in the outputs).
ls "$out"/runs/*.err | grep -v "\.protoc\.err$" | sed 's/^/stderr /' >"$out/stderr-manifest.txt"
sed 's/^stderr /text /' "$out/stderr-manifest.txt" | python3 tests/e2e/hostile_check.py >"$out/stderr-parsed.txt"
errs=$(grep -c '^OK ' "$out/stderr-parsed.txt")
grep '^BAD ' "$out/stderr-parsed.txt" | head -5 | while read -r line; do echo "  $line"; done
[ "$errs" -gt 0 ] && ! grep -q '^BAD ' "$out/stderr-parsed.txt" &&
    pass "hostile corpus: stderr of all $errs runs is valid UTF-8 without control characters" ||
    fail "hostile corpus: stderr" "$(grep -c '^BAD ' "$out/stderr-parsed.txt") runs' messages hold control characters or invalid UTF-8"
python3 tests/e2e/hostile_check.py <"$manifest" >"$out/parsed.txt"
while read -r verdict path rest; do
    [ "$verdict" = OK ] && { f=$(awk -v p="$path" '$2 == p { print $1 }' "$manifest"); valid[$f]=$(( ${valid[$f]:-0} + 1 )); }
    [ "$verdict" = BAD ] && bad_runs+=("${path%:} $rest")
done <"$out/parsed.txt"

parser() {
    case $1 in
        pprof) echo "protoc --decode" ;; json) echo "python3 json" ;; csv) echo "python3 csv" ;;
        tsv) echo "hostile_check.py tsv" ;; folded) echo "hostile_check.py folded" ;; *) echo "hostile_check.py text" ;;
    esac
}
all=0
for fmt in pprof json csv tsv folded text; do
    all=$(( all + ${total[$fmt]:-0} ))
    n=${total[$fmt]:-0} ok=${valid[$fmt]:-0} no=${refused[$fmt]:-0}
    if [ $(( ok + no )) -eq "$n" ] && [ "$ok" -gt 0 ]; then
        pass "hostile corpus: $fmt: $n cases, $ok valid ($(parser $fmt)), $no refused with a message"
    else
        fail "hostile corpus: $fmt" "$n cases, $ok valid, $no refused with a message"
    fi
done
if [ ${#bad_runs[@]} -eq 0 ]; then
    pass "hostile corpus: all $all cases of ${#logs[@]} logs within $TIME_LIMIT s and 2 GB"
else
    for b in "${bad_runs[@]}"; do fail "hostile corpus: case" "$b"; done
fi

# ---- The failures the corpus was grown for ------------------------------------
r="$out/runs"
# expect NAME WANT_RC REGEX FILE: the run's exit status and a line of its stderr
expect() {
    local name=$1 want=$2 re=$3 base=$4
    if [ "$(cat "$base.rc")" = "$want" ] && grep -qE -- "$re" "$base.err"; then
        pass "$name"
    else
        fail "$name" "exit $(cat "$base.rc"), stderr: $(head -c 300 "$base.err")"
    fi
}
expect "overflow: two vcpu-stats of 2^63 exits: stats exits 3 naming the record" 3 \
    "^vertigo stats: .*: the record at offset [0-9]+: vcpu-stats of domain 3: its exits or switches add up past 2\^64 - 1" \
    "$r/exit-sums-0.stats"
grep -q "exits and switches: unknown (they add up past 2^64 - 1 at the vcpu-stats record at offset" \
    "$r/exit-sums-0.stats.out" && ! grep -q "exits 0" "$r/exit-sums-0.stats.out" &&
    pass "overflow: stats shows the domain's exits as unknown, never 'exits 0'" ||
    fail "overflow: stats' domain exits" "$(grep -A1 dom3 "$r/exit-sums-0.stats.out")"
for run in report csv pprof; do
    expect "overflow: samples x period past 2^64: $run exits 3 naming the record, writes nothing" 3 \
        "the record at offset [0-9]+: sample of event 'event0': the events its samples stand for" \
        "$r/period-sums-0.$run"
done
expect "overflow: pprof refuses events past its signed 2^63 - 1 (was -3)" 1 \
    "event 'event0' counts 13835058055282163712 events, more than pprof's signed 64-bit values hold .*offset [0-9]+" \
    "$r/period-sums-1.pprof"
awk -F, 'NR == 2 { e = $(NF-1) } END { exit e != "13835058055282163712" }' "$r/period-sums-1.csv.out" &&
    pass "overflow: CSV's events column holds 3 x 2^62 exactly (was 0)" ||
    fail "overflow: CSV events" "$(tail -1 "$r/period-sums-1.csv.out")"
expect "overflow: missing interval rows past 2^64: timeline exits 3 naming the record" 3 \
    "the record at offset [0-9]+: interval row of dom 1 vcpu 1: the rows missing before it add up past" \
    "$r/row-sums-0.timeline-csv"
expect "overflow: a VCPU's instructions past 2^64: correlate exits 3 naming the record" 3 \
    "the record at offset [0-9]+: interval row of dom 1 vcpu 0: the VCPU's instructions add up past" \
    "$r/row-sums-1.correlate"
expect "overflow: a row's span past its TSC: timeline exits 3 naming the record" 3 \
    "the record at offset [0-9]+: interval row of dom 1 vcpu 0: its tsc_span 18446744073709551615 is more than its TSC" \
    "$r/row-sums-2.timeline-tsv"
for run in pprof perfetto csv timeline-tsv timeline-json correlate-csv report; do
    [ "$(cat "$r/escapes-4.$run.rc")" = 0 ] && ! grep -q "escapes-4.$run\." <(printf '%s\n' "${bad_runs[@]}") &&
        pass "escapes: names with ESC, CR, LF, invalid UTF-8: $run written and parsed" ||
        fail "escapes: $run" "exit $(cat "$r/escapes-4.$run.rc"): $(head -c 200 "$r/escapes-4.$run.err")"
done
# Valid UTF-8 passes whole (JSON escaped each byte above 0x7e apart,
# garbling e acute and the euro sign), controls never do.
python3 - "$r"/escapes-4.{perfetto,timeline-json,report-json}.out <<'PY' &&
import json, sys
for path in sys.argv[1:]:
    text = json.dumps(json.load(open(path, encoding='utf-8')), ensure_ascii=False)
    assert '\u00e9\u20ac' in text and '\x1b' not in text, path
PY
    grep -q '\\303\\251\\342\\202\\254' "$r/escapes-4.pprof.protoc" &&
    pass "escapes: valid UTF-8 (e acute, euro) passes whole into JSON and pprof, no ESC" ||
    fail "escapes: valid UTF-8 into JSON and pprof" "garbled or missing"
grep -q 'string_table: "ev0 ?\[31mred???x\\"y' "$r/escapes-4.pprof.protoc" &&
    pass "escapes: pprof's string table holds the event's name cleaned, valid UTF-8" ||
    fail "escapes: pprof string table" "$(grep -m3 'ev0\|ev1' "$r/escapes-4.pprof.protoc")"
for empty in decode stats report pprof timeline-csv correlate; do
    expect "empty input: $empty exits 4 with a message" 4 "no Vertigo log stream header or block found in 0 bytes" \
        "$r/empty.$empty"
done

# --guest-root DOM= names one domain: two named alike are refused with
# both numbers; ids beyond 255 and up to 2^32 - 1 are accepted.
dlog="$out/logs/domain-ids-0.bin"
"$V" report --guest-root "web=$root" "$dlog" >/dev/null 2>"$out/root-web.err"
rc=$?
[ $rc -eq 1 ] && grep -q "^vertigo report: --guest-root web=$root: 'web' names 2 domains of the log (1, 4): give the domain's number" \
    "$out/root-web.err" && pass "--guest-root web=: a name two domains share is refused, naming both" ||
    fail "--guest-root web=" "exit $rc: $(cat "$out/root-web.err")"
for d in 300 dom300 4294967295; do
    "$V" report --sort dso,sym --guest-root "$d=$root" "$dlog" >"$out/root-$d.txt" 2>"$out/root-$d.err"
    rc=$?
    [ $rc -eq 0 ] && grep -qE '^ +[0-9.]+% +1 +/bin/workload +\[\.\] _init' "$out/root-$d.txt" &&
        pass "--guest-root $d=: domain id beyond 255 accepted, its sample named" ||
        fail "--guest-root $d=" "exit $rc: $(head -c 200 "$out/root-$d.err") $(grep workload "$out/root-$d.txt")"
done

# A write error is an error, with a message, from every command.
for cmd in decode stats report script "export --format csv" "timeline --format csv" correlate; do
    log="$out/logs/escapes-4.bin"
    "$V" $cmd "$log" >/dev/full 2>"$out/full.err"
    rc=$?
    [ $rc -eq 1 ] && grep -qE "^vertigo ${cmd%% *}: (standard output|stdout): (No space left on device|write error)" "$out/full.err" &&
        pass "$cmd >/dev/full: exit 1 with a message" || fail "$cmd >/dev/full" "exit $rc: $(cat "$out/full.err")"
done
exit $E2E_FAILED
