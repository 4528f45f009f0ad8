#!/bin/bash
# Short runs of the libFuzzer targets in `make test` (`make fuzz` runs them
# for FUZZ_SECONDS, 30 minutes each): the log decoder for 20 seconds from
# the golden fixtures' seed corpus, and the report/export path
# (tests/fuzz/fuzz_report.h: records framed into valid blocks, through the
# profile, the symbolizer and every writer) for 15 seconds from its seeds
# and regression corpus, and, for 10 seconds each, the NMI path's walk of
# hostile guest stacks and ORC tables (tests/fuzz/fuzz_kstack.c) and its
# guest-virtual reads through hostile page tables and the translation cache
# (tests/fuzz/fuzz_guest_pages.c).
# The lengths: each run replays its whole corpus (seeds, regression
# inputs) first, then mutates: here a smoke test that every target builds,
# runs from / and survives its corpus and some mutation. Finding new
# defects is `make fuzz`'s job: the 60/30/20/20 s runs this script had
# until November 2026 were no campaign either (in a fresh-clone CI the
# stack walk's coverage still grew from 302 to 313 edges in its last 10 s),
# and cost a test lane 130 s.
# Each runs from /, as a user may run it.
# Prints PASS/FAIL: fuzz-decoder-20s, fuzz-report-15s, fuzz-kstack-10s,
# fuzz-guest-pages-10s.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

# fuzz_for NAME TARGET SECONDS CORPUS [libFuzzer options...]: run from /,
# not the tree, so a fuzzer that finds its fixtures only from the tree's
# root (a relative path) fails here.
fuzz_for() {
    local name=$1 target=$2 seconds=$3 corpus=$4 log build
    shift 4
    build=$(cd "$BUILD" && pwd)
    log="$build/fuzz/$name.log"
    ( cd / && "$build/fuzz/$target" -max_total_time="$seconds" -artifact_prefix="$build/fuzz/$target-" \
        "$@" "$build/${corpus#"$BUILD"/}" ) >"$log" 2>&1
    local rc=$?
    tail -n 3 "$log"
    if [ $rc -eq 0 ] && grep -q 'Done [0-9]* runs' "$log"; then
        pass "$name"
    else
        grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -5
        fail "$name" "exit $rc, log $log"
    fi
}

if ! make --no-print-directory BUILD="$BUILD" "$BUILD/fuzz/fuzz-decoder" \
        "$BUILD/fuzz/corpus-decoder/.seeded"; then
    fail fuzz-decoder-20s "build failed"
else
    fuzz_for fuzz-decoder-20s fuzz-decoder 20 "$BUILD/fuzz/corpus-decoder" -max_len=200000
fi
if ! make --no-print-directory BUILD="$BUILD" "$BUILD/fuzz/fuzz-report" \
        "$BUILD/fuzz/corpus-report/.seeded"; then
    fail fuzz-report-15s "build failed"
else
    fuzz_for fuzz-report-15s fuzz-report 15 "$BUILD/fuzz/corpus-report" -max_len=100000 -timeout=20
fi
if ! make --no-print-directory BUILD="$BUILD" "$BUILD/fuzz/fuzz-kstack"; then
    fail fuzz-kstack-10s "build failed"
else
    mkdir -p "$BUILD/fuzz/corpus-kstack"
    fuzz_for fuzz-kstack-10s fuzz-kstack 10 "$BUILD/fuzz/corpus-kstack" -max_len=16384
fi
if ! make --no-print-directory BUILD="$BUILD" "$BUILD/fuzz/fuzz-guest-pages"; then
    fail fuzz-guest-pages-10s "build failed"
else
    mkdir -p "$BUILD/fuzz/corpus-guest-pages"
    fuzz_for fuzz-guest-pages-10s fuzz-guest-pages 10 "$BUILD/fuzz/corpus-guest-pages" -max_len=4096
fi
exit $E2E_FAILED
