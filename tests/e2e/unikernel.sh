#!/bin/bash
# End-to-end test of the unikernel runtime's failure paths
# (guestlib/unikernel, docs/unikernel.md), one Bochs boot: beside domain 0
# (Linux, hello) three unikernel domains end on purpose with ukfault: a
# null pointer (#PF), UD2 (#UD) and exit status 3. Each prints the
# runtime's report on its own console and ends alone with FAIL and that
# reason. Isolation, in the same boot: a fourth hands Vertigo addresses it
# has no RAM behind (unmapped, mapped by its own page tables past its RAM,
# running off it, non-canonical) in hypercalls from CPL 3 and CPL 0, each
# refused with -EFAULT while it goes on and passes; a fifth maps the host's
# local APIC address with its own page tables and reads it: Vertigo logs
# the access and ends that domain alone. Domain 0 goes on and passes; the
# run is FAIL because domains failed. (The passing paths and exact counts: tests/e2e/domains.sh.)
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=hello"
UK="$BUILD/unikernel"
RUN=unikernel-faults
HV="console=com2 dom.1=unikernel:null dom.1.mem=8M dom.2=unikernel:ud dom.2.mem=8M \
dom.3=unikernel:exit dom.3.mem=8M dom.4=unikernel:pointers dom.4.mem=8M \
dom.5=unikernel:wild dom.5.mem=8M"

run_linux $RUN 1 "$GUEST" --platform bochs --timeout 900 --cmdline "$HV" \
    --module "$UK/ukfault.elf" "null null" --module "$UK/ukfault.elf" "ud ud" \
    --module "$UK/ukfault.elf" "exit exit 3" --module "$UK/ukfault.elf" "pointers pointers" \
    --module "$UK/ukfault.elf" "wild wild 0xfee00000"

HEX='0x[0-9a-f]{16}'
HEX_SHORT='0x[0-9a-f]+'
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
for what in "verdict reason at an unmapped address, CPL 3" "verdict reason past its RAM, CPL 3" \
            "console text at an unmapped address, CPL 0" "console text past its RAM, CPL 0" \
            "console text running off its RAM, CPL 0" "console text at a non-canonical address, CPL 0"; do
    expect_in $RUN dom4.txt "pointers: $what: refused (-EFAULT)" "^ukfault: $what: refused \(-4\)$"
done
expect_in $RUN com2.txt "pointers: domain 4 goes on and passes" '^guest: domain 4 \(dom4\) verdict PASS$'
expect_in $RUN dom5.txt "wild: the program mapped the host's APIC address and read it" \
    '^ukfault: reading guest-physical 0xfee00000$'
expect_not_in $RUN dom5.txt "wild: the read never returned" 'the read returned'
expect_in $RUN com2.txt "wild: Vertigo logs the access outside the domain's RAM" \
    "^ept: domain 5 \(dom5\): read of guest-physical 0xfee00000 at rip $HEX_SHORT, outside its 8 MiB of RAM: violated isolation$"
expect_in $RUN com2.txt "wild: domain 5 ends alone" '^guest: domain 5 violated isolation \(violated isolation\)$'
expect_line $RUN "domain 0 goes on: its hello scenario" '^VERTIGO-GUEST: hello: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: hello$'
expect_in $RUN com2.txt "the run fails because domains failed" '^VERTIGO-END: FAIL'
