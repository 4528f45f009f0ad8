#!/bin/bash
# End-to-end test of the guest's own perf and PAPI on Vertigo's virtual PMU
# (pmu.guest=on, the software backend in Bochs), one boot of the perf
# initramfs (`make guest-perf`: Debian's perf and PAPI with their
# libraries) running two scenarios:
#  - perf (tests/guest/scenarios/perf): perf stat of a known loop for N
#    and 2N iterations (instructions:u difference exact, instructions:k,
#    cycles and ref-cycles counted), branches and cache-misses
#    <not supported>, perf record -e instructions:u -c 10007 of the
#    workload keeping every sample, perf report's hot/warm/cool at
#    60/30/10 % within 3 points;
#  - papi (tests/guest/scenarios/papi): papi_avail lists PAPI_TOT_INS and
#    PAPI_TOT_CYC as available, and each of twelve PAPI ctests passes (one
#    check per test; the tests left out and why: docs/user-guide.md).
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST_BASE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet"
PERF_INITRD="$BUILD/guest/initrd-perf.cpio"
# The PAPI ctests of tests/guest/perf_guest.mk (PAPI_CTESTS, a make
# variable continued over lines). Its validation tests are in the image but
# not run here: docs/user-guide.md says why.
PAPI_TESTS=$(sed -n '/^PAPI_CTESTS /,/[^\\]$/p' tests/guest/perf_guest.mk | sed 's/.*:=//; s/\\//')
PAPI_TESTS=$(echo $PAPI_TESTS)
RUN=vpmu

if [ -z "$PAPI_TESTS" ]; then
    fail "$RUN: PAPI test list" "no PAPI_CTESTS in tests/guest/perf_guest.mk"
    exit 1
fi
if [ ! -s "$PERF_INITRD" ]; then
    fail "$RUN: perf initramfs" "no $PERF_INITRD: run make BUILD=$BUILD guest-perf"
    exit 1
fi
INITRD=$PERF_INITRD run_linux $RUN 0 \
    "$GUEST_BASE vertigo.scenario=perf,papi vertigo.papi_tests=$(echo $PAPI_TESTS | tr ' ' ,)" \
    --platform bochs --ips 500000000 --timeout 1500 \
    --cmdline "console=com2 log=e9 pmu=auto pmu.guest=on"
# The boot's length (the perf initramfs is bigger than the default one).
sed -n 's/.* in \([0-9]*s\) (emulator status.*/    boot and scenarios: \1 of wall time/p' "$E2E_OUT/$RUN.runner.txt"
capture $RUN | grep -E '^vertigo-init: uptime' | indent
expect_in $RUN com2.txt "Vertigo offers the guest a PMU" '^pmu: the guest gets a virtual PMU'
expect_line $RUN "the guest's perf driver found the PMU" 'Performance Events: .*Intel PMU driver'

# perf
expect_line $RUN "perf stat: the four events counted for N and 2N" \
    '^perf_guest: PASS: perf stat counted instructions:u,instructions:k,cycles,ref-cycles'
expect_line $RUN "perf stat: instructions:u difference exact" \
    '^perf_guest: PASS: perf stat instructions:u difference exact'
for ev in branches cache-misses; do
    expect_line $RUN "perf stat: $ev <not supported>" "^perf_guest: PASS: perf stat shows $ev <not supported>"
done
expect_line $RUN "perf record kept every sample" '^perf_guest: PASS: perf record kept every sample'
for part in hot warm cool+leaf; do
    expect_line $RUN "perf record/report: $part share within 3 points" \
        "^perf_guest: PASS: perf report: ${part//+/\\+} "
done
capture $RUN | grep -E '^perf_guest: (PASS|FAIL): perf (stat instructions|record|report)' | indent

# PAPI
for ev in PAPI_TOT_INS PAPI_TOT_CYC; do
    expect_line $RUN "papi_avail: $ev available" "^papi: PASS: papi_avail lists $ev as available"
done
for t in $PAPI_TESTS; do
    expect_line $RUN "PAPI test $t passed" "^papi: $t: PASSED "
done
capture $RUN | grep -E '^papi: [a-z_-]+: ' | indent

expect_no_unknown_nmi $RUN
expect_in $RUN com2.txt "run verdict" '^VERTIGO-END: PASS \(guest passed and powered off\)'
