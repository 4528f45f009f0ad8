#!/bin/bash
# Host-only test of the plots `vertigo timeline --format png` and `vertigo
# correlate --format png` draw, on the interval rows of the synthetic
# capture (gen-profile: cycles extrapolated from a quarter of each
# interval, instructions never measured, exits:all measured, all three
# constant), through the gnuplot scripts they keep (--gnuplot-script):
# titles, axis labels with units and the platform, count axes from 0,
# extrapolated and unmeasured values marked, undefined correlations grey
# with a legend entry (tests/e2e/plot_check.py). tests/e2e/pmu.sh checks
# the same on a Bochs boot's rows. Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/plots"
rm -rf "$out"
mkdir -p "$out/run"
V="$VERTIGO"
log="$out/run/debugcon.txt"
"$BUILD/gen-profile" "$BUILD/profile/root/bin/workload" "$BUILD/profile/hvmini" \
    tests/fixtures/profile/kallsyms.txt 40 "$log" || { fail "plots: generate capture" "gen-profile failed"; exit 1; }

# Without a run-info beside the log, the platform is what the log's PMU
# backend says; with one (vertigo run writes it), its platform.
"$V" timeline --format png -o "$out/t-time.png" --gnuplot-script "$out/t-time.gp" "$log" 2>"$out/t.err" &&
    pass "plots: timeline png (time) written" || fail "plots: timeline png (time)" "$(cat "$out/t.err")"
python3 tests/e2e/plot_check.py timeline "$out/t-time.gp" "$out/t-time.png" debugcon.txt 1,000 \
    "an emulator (software PMU)" time
printf 'platform=bochs\nelapsed=3\n' >"$out/run/run-info"
"$V" timeline --format png --x instructions -o "$out/t-instr.png" --gnuplot-script "$out/t-instr.gp" "$log" \
    2>"$out/t.err" && pass "plots: timeline png (instructions) written" ||
    fail "plots: timeline png (instructions)" "$(cat "$out/t.err")"
python3 tests/e2e/plot_check.py timeline "$out/t-instr.gp" "$out/t-instr.png" debugcon.txt 1,000 Bochs instructions
grep -q "'extrapolated (shared a counter)'" "$out/t-instr.gp" && grep -q "'not measured (no value)'" "$out/t-instr.gp" &&
    pass "plots: this capture has both marks (cycles extrapolated, instructions not measured)" ||
    fail "plots: this capture has both marks" "missing"

# The two measured events are constant here: every r is undefined, none
# is 1 or 0 (instructions, never measured, would leave no row).
"$V" correlate --format png --events cycles,exits:all -o "$out/c.png" --gnuplot-script "$out/c.gp" "$log" \
    2>"$out/c.err" &&
    pass "plots: correlate png written" || fail "plots: correlate png" "$(cat "$out/c.err")"
python3 tests/e2e/plot_check.py correlate "$out/c.gp" "$out/c.png" debugcon.txt 40
[ "$(tr ' ' '\n' <"$out/c.gp.dat" | grep -vc '^2$')" = 0 ] &&
    pass "plots: correlate: constant events give undefined r everywhere (not 1.000 on the diagonal)" ||
    fail "plots: correlate: constant events" "$(cat "$out/c.gp.dat")"
"$V" correlate --events cycles,exits:all "$log" >"$out/c.txt"
grep -q '1\.000\|0\.000' "$out/c.txt" && fail "plots: correlate text: no r of a constant event" "$(cat "$out/c.txt")" ||
    pass "plots: correlate text: a constant event has no r (-)"
"$V" timeline --gnuplot-script x "$log" 2>&1 >/dev/null | head -n1 |
    grep -qx "vertigo timeline: --gnuplot-script goes with --format png" &&
    pass "plots: --gnuplot-script without png refused, named" || fail "plots: --gnuplot-script without png" "not refused"
exit $E2E_FAILED
