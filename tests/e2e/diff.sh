#!/bin/bash
# Host-only test of `vertigo diff` on two synthetic captures of the real
# encoder (gen-profile): the default capture, g 60% / f 30% / h 10% of the
# instructions, and one with 16 samples of g per unit where 6 were, g 80% /
# f 15% / h 5%. A capture against itself shows every row with a zero
# delta; against the other, the documented deltas (+20.00%, -15.00%,
# -5.00%); a row only one side has keeps the other's column empty; the
# differential folded stacks carry each stack's count in either folded
# export, read as flamegraph.pl reads its differential input (the last two
# numbers of a line are the counts). Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/diff"
rm -rf "$out"
mkdir -p "$out"
V="$VERTIGO"
root="$BUILD/profile/root"
gen() { "$BUILD/gen-profile" "$root/bin/workload" "$BUILD/profile/hvmini" tests/fixtures/profile/kallsyms.txt \
            200 "$@"; }
gen "$out/a.bin" "$out/a.expect" && gen "$out/b.bin" "$out/b.expect" 16 ||
    { fail "diff: generate captures" "gen-profile failed"; exit 1; }
opts=(--guest-root "$root" --vertigo-elf "$BUILD/profile/hvmini")

# A capture against itself: every row has a baseline and +0.00%.
"$V" diff "${opts[@]}" "$out/a.bin" "$out/a.bin" >"$out/self.txt" 2>"$out/self.err"
rc=$?
rows=$(grep -cE '^ +[0-9]+\.[0-9]{2}% +[-+][0-9]+\.[0-9]{2}%  ' "$out/self.txt")
zero=$(grep -cE '^ +[0-9]+\.[0-9]{2}% +\+0\.00%  ' "$out/self.txt")
want=$(( $("$V" report "${opts[@]}" -q -e cycles -s dso,sym "$out/a.bin" | wc -l) +
         $("$V" report "${opts[@]}" -q -e instructions -s dso,sym "$out/a.bin" | wc -l) ))
[ $rc -eq 0 ] && [ "$rows" -gt 0 ] && [ "$rows" = "$zero" ] && [ "$rows" = "$want" ] &&
    pass "diff: a capture against itself: $rows rows (the report's), every delta +0.00%" ||
    fail "diff: a capture against itself" "exit $rc, $rows rows, $zero zero, report has $want"

# delta EVENT SYMBOL: the row's "BASELINE DELTA" in the event's section
delta() {
    awk -v ev="# Event '$1'" -v sym="$2" '/^# Event/ { on = ($0 == ev) }
        on && !/^#/ && $NF == sym { print $1, $2 }' "$out/ab.txt"
}
"$V" diff "${opts[@]}" "$out/a.bin" "$out/b.bin" >"$out/ab.txt" 2>"$out/ab.err"
for want in "g 60.00% +20.00%" "f 30.00% -15.00%" "h 10.00% -5.00%"; do
    set -- $want
    got=$(delta instructions "$1")
    [ "$got" = "$2 $3" ] && pass "diff: instructions of $1: baseline $2, delta $3" ||
        fail "diff: instructions of $1" "want '$2 $3', got '$got'"
done
# cycles: g is 6 of 19 cycles samples a unit, then 16 of 29.
got=$(delta cycles g)
[ "$got" = "31.58% +23.59%" ] && pass "diff: cycles of g: baseline 31.58%, delta +23.59% (6/19 -> 16/29)" ||
    fail "diff: cycles of g" "got '$got'"
# Rows by the absolute delta (perf's delta-abs): g, then f first.
first=$(awk '/^# Event .instructions./ { on = 1; next } on && !/^#/ && NF { print $NF; exit }' "$out/ab.txt")
[ "$first" = g ] && pass "diff: rows ordered by the absolute delta" || fail "diff: rows ordered" "first '$first'"

# A row only one side has: the first third of the capture (a damaged
# log: exit 3) has no jit_mul, which only the second half samples.
size=$(stat -c %s "$out/a.bin")
head -c $((size / 3)) "$out/a.bin" >"$out/third.bin"
"$V" diff "${opts[@]}" -e cycles "$out/a.bin" "$out/third.bin" >"$out/a3.txt" 2>/dev/null
rc=$?
[ $rc -eq 3 ] && grep -qE '^ +2\.63% {13}perf-42\.map +\[\.\] jit_mul$' "$out/a3.txt" &&
    pass "diff: a row the new log lacks keeps its baseline, no delta (exit 3: damaged input)" ||
    fail "diff: a row the new log lacks" "exit $rc: $(grep jit_mul "$out/a3.txt")"
"$V" diff "${opts[@]}" -e cycles "$out/third.bin" "$out/a.bin" 2>/dev/null |
    grep -qE '^ {23}perf-42\.map +\[\.\] jit_mul$' &&
    pass "diff: a row the baseline lacks has neither baseline nor delta" ||
    fail "diff: a row the baseline lacks" "$("$V" diff "${opts[@]}" -e cycles "$out/third.bin" "$out/a.bin" 2>&1 | grep jit_mul)"
"$V" diff "${opts[@]}" --time 0%-40% -e cycles "$out/a.bin" "$out/a.bin" | grep -q jit_mul &&
    fail "diff: --time applies to both logs" "jit_mul (second half only) shown" ||
    pass "diff: --time applies to both logs (jit_mul, of the second half, absent)"

# Differential folded stacks: "STACK A B", the counts of either export.
"$V" diff "${opts[@]}" --format folded "$out/a.bin" "$out/b.bin" >"$out/diff.folded"
"$V" export "${opts[@]}" --format folded "$out/a.bin" >"$out/a.folded"
"$V" export "${opts[@]}" --format folded "$out/b.bin" >"$out/b.folded"
# flamegraph.pl's reading of a differential line: the last number is the
# second count, the one before it the first, the rest the stack.
awk 'FNR == 1 { f++ }
     f == 1 { n = $NF; $NF = ""; sub(/ $/, ""); a[$0] = n; next }
     f == 2 { n = $NF; $NF = ""; sub(/ $/, ""); b[$0] = n; next }
     { c2 = $NF; $NF = ""; c1 = $(NF - 1); $(NF - 1) = ""; sub(/ +$/, ""); seen[$0] = 1
       if (c1 != a[$0] + 0 || c2 != b[$0] + 0) { bad++; print "bad: " $0 " " c1 " " c2 > "/dev/stderr" }
       lines++ }
     END { for (k in a) if (!(k in seen)) bad++; for (k in b) if (!(k in seen)) bad++
           print lines + 0, bad + 0 }' "$out/a.folded" "$out/b.folded" "$out/diff.folded" >"$out/check.txt" 2>"$out/check.err"
read -r lines bad <"$out/check.txt"
[ "$lines" -gt 0 ] && [ "$bad" = 0 ] &&
    pass "diff: --format folded: $lines stacks, each with its count in either export" ||
    fail "diff: --format folded" "$lines lines, $bad wrong: $(head -c 300 "$out/check.err")"
grep -qE '^cycles;workload;main;f;g 1200 3200$' "$out/diff.folded" &&
    pass "diff: --format folded: cycles;workload;main;f;g 1200 3200" ||
    fail "diff: --format folded: the g stack" "$(grep 'main;f;g ' "$out/diff.folded")"

# Usage errors name the problem.
"$V" diff "$out/a.bin" >/dev/null 2>"$out/e.txt"
rc=$?
[ $rc -eq 2 ] && grep -q "vertigo diff: 2 inputs expected, 1 given" "$out/e.txt" &&
    pass "diff: one input: exit 2, named" || fail "diff: one input" "exit $rc: $(head -1 "$out/e.txt")"
exit $E2E_FAILED
