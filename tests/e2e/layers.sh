#!/bin/bash
# Host-only test of tests/check-layers (the layer check of make test): on a
# fixture tree that breaks its table once per rule it fails and names each
# include, and it finds the call cycle the fixture's objects close between
# vmm/ and vmx/ while leaving out the call through a hook header; on the
# real tree (with the hypervisor's objects) it passes with no cycle.
# Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/layers"
rm -rf "$out"
mkdir -p "$out"

fixture=tests/fixtures/layers
./tests/check-layers "$fixture" >"$out/bad.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && pass "check-layers: a tree against the table fails (exit 1)" ||
    fail "check-layers: a tree against the table fails" "exit $rc: $(head -c 300 "$out/bad.txt")"

# found LABEL REGEX: the report has a line matching REGEX
found() {
    grep -qE -- "$2" "$out/bad.txt" && pass "check-layers: finds $1" ||
        fail "check-layers: finds $1" "no '$2' in $out/bad.txt"
}
found "an include below the library floor" "^lib/bad_up.c:1: includes boot/start.h \(rule: lib/ may include lib/, include/\)"
found "vmx/ past pmu/'s front door" "^vmx/bad_door.c:1: includes pmu/run/pmu_run.h \(rule: pmu/ is entered through its front door pmu/pmu_loop.h only\)"
found "an include between rooms the table does not allow" "^pmu/backend/bad_room.c:1: includes pmu/hw/pmu_hw.h"
found "a room the table does not declare" "^vmm/odd/: a room the table of tests/check-layers does not declare"
found "a file outside a backend's room naming the backend" "^pmu/run/bad_backend.c:1: names pmu_hw_thing \(rule: only pmu/hw/ names that backend"
n=$(grep -c "^[a-z].*\(includes\|a room\| names \)" "$out/bad.txt")
[ "$n" -eq 5 ] && pass "check-layers: nothing else reported (what follows the table passes)" ||
    fail "check-layers: nothing else reported" "$n reports: $(head -6 "$out/bad.txt")"

# The cycles: the fixture's objects, compiled as the hypervisor's would be
# found (BUILD/hv/PATH.o).
objs="$out/build"
for c in $(cd "$fixture" && find . -name '*.c' | sed 's|^\./||'); do
    mkdir -p "$objs/hv/$(dirname "$c")"
    gcc -c -I"$fixture" "$fixture/$c" -o "$objs/hv/$c.o" || fail "check-layers: fixture $c compiles" "gcc failed"
done
./tests/check-layers --cycles "$objs" "$fixture" >"$out/cycles.txt" 2>&1
grep -q "^cycle: vmm -> vmx -> vmm$" "$out/cycles.txt" &&
    grep -q "vmm -> vmx: vmm/bad_calls_vmx.c calls vmx_thing (vmx/good_thing.c)" "$out/cycles.txt" &&
    pass "check-layers: finds the call cycle between vmm/ and vmx/ and the call that closes it" ||
    fail "check-layers: finds the call cycle" "$(head -8 "$out/cycles.txt")"
grep -q "vmm_calls_hook\|vmx_hooked" "$out/cycles.txt" &&
    fail "check-layers: a call through a hook header is no edge" "$(grep vmx_hooked "$out/cycles.txt")" ||
    pass "check-layers: a call through a hook header is no edge"
grep -q "^check-layers: 1 cycle(s) between top-level folders" "$out/cycles.txt" &&
    pass "check-layers: counts 1 cycle in the fixture" ||
    fail "check-layers: counts 1 cycle in the fixture" "$(tail -1 "$out/cycles.txt")"

./tests/check-layers --cycles "$BUILD" >"$out/real.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^check-layers: 0 cycle(s) between top-level folders" "$out/real.txt" &&
    pass "check-layers: the tree follows the table, no cycle between top-level folders" ||
    fail "check-layers: the tree follows the table" "exit $rc: $(tail -5 "$out/real.txt")"
exit $E2E_FAILED
