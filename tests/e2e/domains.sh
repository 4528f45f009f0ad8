#!/bin/bash
# End-to-end test of several domains on one CPU (docs/architecture.md,
# "Domains and the scheduler"), one Bochs boot: domain 0 (Linux, the hello
# scenario) time-shares CPU 0 with 10 ms slices with two unikernel domains
# (guestlib/unikernel): ukloop, whose instructions:u counts must be exact
# while the others run interleaved (tests/e2e/ukloop_check.py), and
# ukfault refused, whose console hypercall from user mode Vertigo refuses.
# Every domain passes and powers off; the run ends after the last.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=hello"
UK="$BUILD/unikernel"
N=2000000       # ukloop's iterations: about 12 M instructions, many slices
RUN=domains
HV="console=com2 pmu.events=instructions:u sched.slice=10ms dom.1=unikernel:ukloop \
dom.1.name=ukloop dom.1.mem=32M dom.2=unikernel:ukfault dom.2.name=fault dom.2.mem=8M"

run_linux $RUN 0 "$GUEST" --platform bochs --timeout 900 --cmdline "$HV" \
    --module "$UK/ukloop.elf" "ukloop 0 $N" --module "$UK/ukfault.elf" "ukfault refused"

# Set-up: each domain's RAM taken and hidden from domain 0, its own EPT.
expect_in $RUN com2.txt "domain 1's RAM taken from Vertigo's allocator" \
    "^domain 1 \(ukloop\): unikernel 'ukloop', 32 MiB of RAM at \[0x[0-9a-f]+-0x[0-9a-f]+\), cpu 0$"
expect_in $RUN com2.txt "domain 2's EPT maps its 8 MiB and nothing else" \
    '^vmx: domain 2: EPT maps guest-physical \[0, 0x800000\) to \[0x[0-9a-f]+-0x[0-9a-f]+\), nothing else'
expect_in $RUN com2.txt "the slice" '^sched: slice 10000 us of guest time$'

# Domain 0 as before.
expect_line $RUN "domain 0's hello scenario" '^VERTIGO-GUEST: hello: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: hello$'

# ukloop: exact counts while sharing the CPU, its console in dom1.txt.
python3 tests/e2e/ukloop_check.py --run $RUN --console "$E2E_OUT/$RUN/dom1.txt" \
    --vertigo <(capture $RUN com2.txt) --domain 1 --n $N

# ukfault refused: VERTIGO_HC_CONSOLE_WRITE from CPL 3 gets -EPERM.
expect_in $RUN dom2.txt "a user-mode console hypercall is refused" \
    '^ukfault: VERTIGO_HC_CONSOLE_WRITE from CPL 3 returned -3$'
expect_not_in $RUN com2.txt "the refused text never reached the console" 'must not appear'
expect_in $RUN com2.txt "domain 2's verdict" '^guest: domain 2 \(fault\) verdict PASS'

# Time sharing: ukloop ran over many slices, each switch counted.
switches=$(capture $RUN com2.txt | sed -n '/^guest: domain 1 powered off/,/^guest: domain 1 (ukloop) verdict/p' |
           sed -nE 's/^exits: vcpu 0: ([0-9]+) switches in, .*/\1/p')
if [ -n "$switches" ] && [ "$switches" -ge 10 ]; then
    pass "$RUN: ukloop's VCPU got CPU 0 back $switches times (10 ms slices)"
else
    fail "$RUN: ukloop's VCPU shared CPU 0" "switches in: '${switches:-none}', expected >= 10"
fi
expect_in $RUN com2.txt "domain 1 powered off by hypercall" \
    '^guest: domain 1 powered off \(power-off hypercall\)$'
expect_in $RUN com2.txt "the run ends after every domain" \
    '^VERTIGO-END: PASS \(every domain passed and powered off\)$'
