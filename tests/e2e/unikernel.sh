#!/bin/bash
# End-to-end test of the unikernel runtime's failure paths
# (guestlib/unikernel, docs/unikernel.md), one Bochs boot: beside domain 0
# (Linux, hello) three unikernel domains end on purpose with ukfault: a
# null pointer (#PF), UD2 (#UD) and exit status 3. Each prints the
# runtime's report on its own console and ends alone with FAIL and that
# reason; domain 0 goes on and passes; the run is FAIL because domains
# failed. (The passing paths and exact counts: tests/e2e/domains.sh.)
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=hello"
UK="$BUILD/unikernel"
RUN=unikernel-faults
HV="console=com2 dom.1=unikernel:null dom.1.mem=8M dom.2=unikernel:ud dom.2.mem=8M \
dom.3=unikernel:exit dom.3.mem=8M"

run_linux $RUN 1 "$GUEST" --platform bochs --timeout 900 --cmdline "$HV" \
    --module "$UK/ukfault.elf" "null null" --module "$UK/ukfault.elf" "ud ud" \
    --module "$UK/ukfault.elf" "exit exit 3"

HEX='0x[0-9a-f]{16}'
expect_in $RUN dom1.txt "#PF: the report names it, at CPL 3, with CR2 = 0" \
    "^unikernel: exception #PF page fault \(vector 14\) at rip=$HEX cpl 3 error code $HEX cr2=0x0{16}$"
expect_in $RUN dom1.txt "#PF: the registers follow" "^unikernel:  rax=$HEX rbx=$HEX rcx=$HEX rdx=$HEX$"
expect_in $RUN com2.txt "#PF: domain 1 ends alone with FAIL and the exception as reason" \
    '^guest: domain 1 \(dom1\) verdict FAIL: #PF page fault$'
expect_in $RUN dom2.txt "#UD: the report names it" \
    "^unikernel: exception #UD invalid opcode \(vector 6\) at rip=$HEX cpl 3 error code 0x0{16}$"
expect_in $RUN com2.txt "#UD: domain 2's verdict" '^guest: domain 2 \(dom2\) verdict FAIL: #UD invalid opcode$'
expect_in $RUN dom3.txt "exit 3: the program ran" '^ukfault: exit$'
expect_in $RUN com2.txt "exit 3: domain 3's verdict names the status" \
    '^guest: domain 3 \(dom3\) verdict FAIL: exit status 3$'
expect_line $RUN "domain 0 goes on: its hello scenario" '^VERTIGO-GUEST: hello: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: hello$'
expect_in $RUN com2.txt "the run fails because domains failed" '^VERTIGO-END: FAIL'
