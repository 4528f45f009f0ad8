#!/bin/bash
# Host-only test of tests/check-docs (the doc check of make test): on a
# fixture page with one stale reference of each kind it fails and names
# each one, and nothing on the lines that name what exists; on the real
# docs it passes. Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/docs"
mkdir -p "$out"

fixture=tests/fixtures/docs/stale.md
./tests/check-docs "$fixture" >"$out/stale.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && pass "check-docs: a stale page fails (exit 1)" ||
    fail "check-docs: a stale page fails" "exit $rc: $(head -c 300 "$out/stale.txt")"

# found LABEL LINE REGEX: the report has a line for fixture line LINE matching REGEX
found() {
    grep -qE -- "^$fixture:$2: $3" "$out/stale.txt" && pass "check-docs: finds $1" ||
        fail "check-docs: finds $1" "no '$fixture:$2: $3' in $out/stale.txt"
}
found "a missing file" 11 "names 'host-tools/no_such_decoder.c', which does not exist"
found "a broken link" 12 "links to 'no-such-page.md', which does not exist"
found "an unknown option" 13 "names the option 'pmu.turbo=', which vmm/main.c does not know"
found "an unknown hypercall" 14 "names 'VERTIGO_HC_TELEPORT', which include/vertigo/hypercall.h does not define"
found "a wrong call number" 15 "gives VERTIGO_HC_SET_VERDICT the number 3; the header says 1"
found "a wrong feature bit" 16 "gives VERTIGO_FEAT_PMU bit 5; the header says 0x2"
found "a stale feature mask" 17 "gives the features as 0x7; the header's VERTIGO_FEATURES is 0x"
found "an unknown subcommand" 18 "names 'vertigo flamegraph', which is not a vertigo command"
found "an unknown runner option" 19 "gives the runner the option '--turbo'"
found "a reference outside the repository" 20 "refers to 'PLATFORM.md', outside this repository"
found "a missing function" 21 "names the function 'pmu_teleport', which is not in the tree"
found "a function its file does not name" 22 "names 'hw_overflows' in pmu/run/pmu_pmi.c, which does not name it"
found "a missing function in a call chain" 23 "names the function 'hw_overflows_gone', which is not in the tree"
n=$(grep -c "^$fixture:" "$out/stale.txt")
[ "$n" -eq 13 ] && pass "check-docs: nothing else reported (what exists passes)" ||
    fail "check-docs: nothing else reported" "$n reports: $(grep "^$fixture:\([1-9]\|10\):" "$out/stale.txt" | head -3)"

./tests/check-docs >"$out/real.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && pass "check-docs: README.md and docs/ name only what exists" ||
    fail "check-docs: README.md and docs/" "exit $rc: $(head -5 "$out/real.txt")"
exit $E2E_FAILED
