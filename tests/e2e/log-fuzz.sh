#!/bin/bash
# Builds the log decoder's libFuzzer target and runs it for 60 seconds
# from the golden fixtures' seed corpus. Prints PASS/FAIL: fuzz-decoder-60s.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
name=fuzz-decoder-60s
if ! make --no-print-directory BUILD="$BUILD" "$BUILD/fuzz/fuzz-decoder" \
        "$BUILD/fuzz/corpus-decoder/.seeded"; then
    fail "$name" "build failed"
    exit 1
fi
log="$BUILD/fuzz/fuzz-decoder-60s.log"
"$BUILD/fuzz/fuzz-decoder" -max_total_time=60 -max_len=200000 \
    -artifact_prefix="$BUILD/fuzz/" "$BUILD/fuzz/corpus-decoder" >"$log" 2>&1
rc=$?
tail -n 3 "$log"
if [ $rc -eq 0 ] && grep -q 'Done [0-9]* runs' "$log"; then
    pass "$name"
else
    grep -E 'ERROR|runtime error|SUMMARY' "$log" | head -5
    fail "$name" "exit $rc, log $log"
    exit 1
fi
