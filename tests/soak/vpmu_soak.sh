#!/bin/bash
# Soak test of the guest's virtual PMU beside Vertigo's own sampling: one
# Bochs boot of the perf initramfs (`make guest-perf`) whose perf scenario
# records with the guest's own perf, `perf record -F 1000 -e
# instructions:u`, the workload (tests/guest/workload.c) run again and
# again for SOAK_VPMU_SECONDS (default 60) seconds of guest time, while
# Vertigo samples instructions:ukh (guest user, guest kernel and itself)
# every SOAK_VPMU_PERIOD (default 200,003: about 50 samples of each run of
# the workload's loops) events with call stacks. Checks:
#  - the perf scenario passes (its perf stat checks, and the soak's
#    recording: no throttling, at least 500 samples a second, perf report's
#    hot/warm/cool+leaf at 60/30/10 % within 3 points);
#  - the guest's kernel log has no unknown-NMI message;
#  - the log has a guest-pmi record for every PMI Vertigo delivered to the
#    guest or lost to its masked LVTPC (the end-of-domain line's figures);
#  - every hypervisor overflow the single-stepping found (at its step,
#    from the RIP ring, late) is one hypervisor sample in the log;
#  - Vertigo's own profile: `vertigo report` names /bin/workload's
#    hot/warm/cool+leaf at 60/30/10 % within 5 points.
# A guest second is SOAK_VPMU_IPS (default 50,000,000) emulated
# instructions (Bochs, clock sync=none). Prints PASS:/FAIL: lines like the
# e2e scripts and exits 1 on a failure.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST_SECONDS=${SOAK_VPMU_SECONDS:-60}
IPS=${SOAK_VPMU_IPS:-50000000}
PERIOD=${SOAK_VPMU_PERIOD:-200003}
# Vertigo's session; instructions:uk (no :h, no single-stepping) measures
# what the rest of the soak costs.
EVENTS=${SOAK_VPMU_EVENTS:-instructions:ukh}
# pmu.step_ahead= for Vertigo (empty: its default; see docs/pmu.md).
STEP_AHEAD=${SOAK_VPMU_STEP_AHEAD:+pmu.step_ahead=$SOAK_VPMU_STEP_AHEAD}
GUEST_BASE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.agent=1"
PERF_INITRD="$BUILD/guest/initrd-perf.cpio"
GUEST_SYMS=(--guest-root "$BUILD/guest/initramfs-perf" --vertigo-elf "$BUILD/vertigo.elf")
RUN=soak-vpmu

if [ ! -s "$PERF_INITRD" ]; then
    fail "$RUN: perf initramfs" "no $PERF_INITRD: run make BUILD=$BUILD guest-perf"
    exit 1
fi
INITRD=$PERF_INITRD run_linux $RUN 0 \
    "$GUEST_BASE vertigo.scenario=perf vertigo.perf_soak=$GUEST_SECONDS" \
    --platform bochs --ips "$IPS" --timeout 14400 \
    --cmdline "console=com2 log=e9 pmu=auto sample.events=$EVENTS sample.period=$PERIOD sample.depth=8 $STEP_AHEAD"
sed -n 's/.* in \([0-9]*s\) (emulator status.*/    wall time: \1/p' "$E2E_OUT/$RUN.runner.txt"
expect_in $RUN com2.txt "Vertigo's sampling session" \
    "^sample: session started by the command line: $EVENTS every $PERIOD events"
expect_line $RUN "the guest's perf soak" '^VERTIGO-GUEST: perf: PASS$'
capture $RUN | grep -E '^(perf_guest: |perf record|  SAMPLE|  THROTTLE)' | indent
expect_no_unknown_nmi $RUN

decode $RUN
expect_guest_pmis_logged $RUN 0
capture $RUN com2.txt | grep -E '^pmu: vcpu 0: Vertigo single-stepped|^exits: vcpu 0: [0-9]' | indent
read -r taken replayed late <<<"$(capture $RUN com2.txt | sed -nE \
    's/^pmu: vcpu 0: Vertigo single-stepped for :h sampling: [0-9]+ steps, ([0-9]+) hypervisor samples at their step, ([0-9]+) from the exit path.s RIP ring, [0-9]+ missed; .*, ([0-9]+) late$/\1 \2 \3/p')"
hv_logged=$(grep -cE ' sample .*mode=hypervisor' "$E2E_OUT/$RUN/decode.txt")
if [[ "$EVENTS" != *h* ]]; then
    :   # nothing stepped
elif [ -n "$taken" ] && [ $((taken + replayed + late)) = "$hv_logged" ]; then
    pass "$RUN: every hypervisor overflow is one sample ($taken at their step + $replayed replayed + $late late = $hv_logged)"
else
    fail "$RUN: hypervisor samples" "taken '$taken' replayed '$replayed' late '$late', logged $hv_logged"
fi

report="$E2E_OUT/$RUN/report.txt"
if "$VERTIGO" report "${GUEST_SYMS[@]}" "$E2E_OUT/$RUN/debugcon.txt" >"$report" 2>"$report.err"; then
    head -n 14 "$report" | indent
    h=$(report_samples "$report" /bin/workload hot); w=$(report_samples "$report" /bin/workload warm)
    c=$(report_samples "$report" /bin/workload cool); l=$(report_samples "$report" /bin/workload leaf)
    expect_workload_shares "$RUN: Vertigo's profile:" "$h" "$w" $(( ${c:-0} + ${l:-0} ))
else
    fail "$RUN: vertigo report" "exit status $?: $(head -n3 "$report.err")"
fi
expect_in $RUN com2.txt "run verdict" '^VERTIGO-END: PASS \(guest passed and powered off\)'
exit $E2E_FAILED
