#!/bin/bash
# Soak of a domain ending beside another CPU's guest: tests/e2e/domains-cpu1.sh
# (domain 0 on CPU 0, a Linux domain alone on CPU 1, two Bochs CPUs) run
# SOAK_DOMAINS_CPU1_RUNS times (default 20). Each boot's domain 0 ends at
# another point of CPU 1's exit path, so the runs sample where a domain's
# end on one CPU meets the other CPU's look at its VCPU list; a race there
# (the flag and deadlines of a CPU left alone, docs/architecture.md
# "Domains and the scheduler") hung about one such boot in 40 to 60 before
# it was fixed. A run passes when its script printed PASS lines, no FAIL
# line and exited 0; the first run that does not stops the soak, its
# output and captures kept under $BUILD/soak/domains-cpu1/. Prints a
# PASS:/FAIL: line per run and exits 1 on a failure.
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
RUNS=${SOAK_DOMAINS_CPU1_RUNS:-20}
OUT="$BUILD/soak/domains-cpu1"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "FAIL: SOAK_DOMAINS_CPU1_RUNS must be a positive count, not '$RUNS'"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"

for i in $(seq 1 "$RUNS"); do
    log="$OUT/run.$i.txt"
    BUILD="$BUILD" bash tests/e2e/domains-cpu1.sh >"$log" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^PASS: ' "$log" && ! grep -q '^FAIL: ' "$log"; then
        echo "PASS: domains-cpu1 run $i of $RUNS"
        continue
    fi
    cp -r "$BUILD/e2e/domains-cpu1" "$OUT/run.$i"
    echo "FAIL: domains-cpu1 run $i of $RUNS (exit $rc; $log, captures in $OUT/run.$i)"
    grep '^FAIL: ' "$log" | sed 's/^/    /'
    exit 1
done
