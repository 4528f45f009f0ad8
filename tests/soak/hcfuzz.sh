#!/bin/bash
# Soak test: HCFUZZ_CALLS (default 100000) hostile hypercalls from guest user
# mode and as many from guest kernel mode, from both CPUs of a 2-CPU Bochs
# boot at once (scenario hcfuzz: tests/guest/hc_fuzz.c and
# tests/guest/probe/vertigo_probe.c, tests/guest/hostile.h). Every call must
# get its documented result, Vertigo must survive and end the run itself.
# Prints PASS:/FAIL: lines like the e2e scripts and exits 1 on a failure.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

CALLS=${HCFUZZ_CALLS:-100000}
RUN=soak-hcfuzz
run_linux $RUN 0 "console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=hcfuzz vertigo.hcfuzz_calls=$CALLS" \
    --platform bochs --cpus 2 --timeout 14400 --cmdline "console=com2"
expect_line $RUN "user mode: $CALLS calls from 2 CPUs got their results" \
    "^hc_fuzz: $CALLS calls on 2 CPUs, 0 unexpected results$"
expect_line $RUN "kernel mode: $CALLS calls from 2 CPUs got their results" \
    "^vertigo_probe: fuzz: $CALLS calls on 2 CPUs, 0 unexpected results$"
expect_line $RUN "hcfuzz scenario" '^VERTIGO-GUEST: hcfuzz: PASS$'
expect_not_in $RUN com2.txt "Vertigo never panicked" 'PANIC|unhandled exception'
expect_in $RUN com2.txt "Vertigo's end of the run" '^VERTIGO-END: PASS \(guest passed and powered off\)'
capture $RUN | grep -E '^(hc_fuzz|vertigo_probe: fuzz): ' | indent
exit $E2E_FAILED
