#!/bin/bash
# End-to-end test of the unikernel runtime's failure paths
# (guestlib/unikernel, docs/unikernel.md), one Bochs boot: beside domain 0
# (Linux, hello) three unikernel domains end on purpose with ukfault: a
# null pointer (#PF), UD2 (#UD) and exit status 3. Each prints the
# runtime's report on its own console and ends alone with FAIL and that
# reason. Isolation, in the same boot: a fourth hands Vertigo addresses it
# has no RAM behind (unmapped, mapped by its own page tables past its RAM,
# running off it, non-canonical) in hypercalls from CPL 3 and CPL 0, each
# refused with -EFAULT, then tries what a hostile kernel can from CPL 0
# (ukfault's hostile mode, guestlib/unikernel/tests/ukhostile.h): MSR writes
# with reserved bits or non-canonical addresses and IA32_XSS with Intel
# PT's bit (#GP), XRSTORS of a PT state (#GP), CPUID's supervisor XSAVE
# components (none), a session of period 1 (-EINVAL), beside the command
# line's (-EBUSY), stopping it (-EPERM), 17 symbol sets (its own oldest
# given up), a log flood and a console flood (dropped over its rate,
# counted and said), while it goes on and passes and the other domains'
# console lines, samples and log records are intact; a fifth maps the host's
# local APIC address with its own page tables and reads it: Vertigo logs
# the access and ends that domain alone; a seventh loads an empty IDT and
# faults: the triple fault ends it alone. Sampling, in the same boot: a
# session of instructions:uk over every domain, with a sixth domain
# running a compute loop (ukspin): the report splits the samples by domain
# as their CPU time, and the passive unikernel's are symbolized from its
# image (--domain-elf). Domain 0 goes on and passes; the run is FAIL
# because domains failed. (The passing paths and exact counts: tests/e2e/domains.sh.)
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet vertigo.scenario=hello"
UK="$BUILD/unikernel"
RUN=unikernel-faults
PERIOD=200003   # sampling: about 300 samples of ukspin's 60 M loop instructions
HV="console=com2 dom.1=unikernel:null dom.1.mem=8M dom.2=unikernel:ud dom.2.mem=8M \
dom.3=unikernel:exit dom.3.mem=8M dom.4=unikernel:pointers dom.4.mem=8M \
dom.5=unikernel:wild dom.5.mem=8M dom.6=unikernel:spin dom.6.mem=8M \
dom.7=unikernel:triple dom.7.mem=8M log=e9 sample.events=instructions:uk sample.period=$PERIOD"

run_linux $RUN 1 "$GUEST" --platform bochs --timeout "$LINUX_BOOT_TIMEOUT" --cmdline "$HV" \
    --module "$UK/ukfault.elf" "null null" --module "$UK/ukfault.elf" "ud ud" \
    --module "$UK/ukfault.elf" "exit exit 3" --module "$UK/ukfault.elf" "pointers hostile" \
    --module "$UK/ukfault.elf" "wild wild 0xfee00000" --module "$UK/ukspin.elf" "spin 20 1000000" \
    --module "$UK/ukfault.elf" "triple triple"

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
while IFS='|' read -r what want; do
    expect_in $RUN dom4.txt "hostile: $what: refused ($want)" "^ukfault: $what: refused \($want\)\$"
done <<'CASES'
wrmsr TSC_AUX with bits 63:32 set|-13
wrmsr SFMASK with bits 63:32 set|-13
wrmsr PAT with reserved type 2|-13
wrmsr SYSENTER_ESP non-canonical|-13
wrmsr SYSENTER_EIP non-canonical|-13
wrmsr LSTAR non-canonical|-13
wrmsr XSS with Intel PT's bit 8|-13
wrmsr KERNEL_GS_BASE non-canonical|-13
wrmsr KERNEL_GS_BASE canonical: taken \(0 expected\)|0
sampling session with period 1|-2
sampling session beside the command line's|-5
stopping the command line's session|-3
17 symbol sets: the first given up|-2
17 symbol sets: the last goes on \(0 expected\)|0
CASES
expect_in $RUN dom4.txt "hostile: XRSTORS of an Intel PT state faults (#GP, or #UD without XSAVES)" \
    '^ukfault: xrstors of Intel PT state \((#GP|#UD: no XSAVES)\): refused \((-13|-6)\)$'
expect_in $RUN dom4.txt "hostile: CPUID enumerates no supervisor XSAVE component" \
    '^ukfault: cpuid 0xd.1: XSAVES o(n|ff), supervisor components ecx 0 edx 0$'
expect_in $RUN dom4.txt "hostile: CPUID 0xD.8 (Intel PT's state) is empty" \
    '^ukfault: cpuid 0xd.8 \(Intel PT.s component\): 0 0 0 0$'
expect_in $RUN dom4.txt "hostile: every case refused as it must be" '^ukfault: hostile: 0 cases not refused'
expect_in $RUN dom4.txt "hostile: the log flood's calls all answered" \
    '^ukfault: log flood: 200 of 200 chunks of 2048 bytes answered 0$'
expect_in $RUN dom4.txt "hostile: Vertigo says in its console what it dropped of the flood" \
    '^\(vertigo: [1-9][0-9]* lines, [1-9][0-9]* bytes of this console dropped: over its rate of 4096 bytes/s\)$'
expect_in $RUN dom4.txt "hostile: the console flood's calls all returned, its line after it shown" \
    '^ukfault: console flood: 48 of 48 writes of 4096 bytes returned their length$'
expect_in $RUN dom4.txt "hostile: ... and what found its console queue full" \
    "^\(vertigo: [1-9][0-9]* lines, [1-9][0-9]* bytes of this console dropped: Vertigo's console queue of 65536 bytes full\)\$"
expect_in $RUN com2.txt "hostile: the domain's end counts the console lines dropped" \
    '^guest: domain 4 \(dom4\): [1-9][0-9]* console lines \([1-9][0-9]* bytes\) dropped over the rate limit of 4096 bytes/s$'
expect_in $RUN com2.txt "hostile: ... and those its full queue dropped" \
    "^guest: domain 4 \(dom4\): [1-9][0-9]* console lines \([1-9][0-9]* bytes\) dropped: Vertigo's console queue of 65536 bytes was full\$"
expect_in $RUN com2.txt "hostile: the domain's end counts its log records refused over its share" \
    '^guest: domain 4 \(dom4\): [1-9][0-9]* log records refused over its share of the log rings \(1/4 of each\)$'
expect_in $RUN com2.txt "pointers, hostile: domain 4 goes on and passes" '^guest: domain 4 \(dom4\) verdict PASS$'
expect_not_in $RUN com2.txt "hostile: no other domain lost a console line or a log record" \
    '^guest: domain [^4] .*(console lines .* dropped|refused over its share)'
expect_in $RUN dom5.txt "wild: the program mapped the host's APIC address and read it" \
    '^ukfault: reading guest-physical 0xfee00000$'
expect_not_in $RUN dom5.txt "wild: the read never returned" 'the read returned'
expect_in $RUN com2.txt "wild: Vertigo logs the access outside the domain's RAM" \
    "^ept: domain 5 \(dom5\): read of guest-physical 0xfee00000 at rip $HEX_SHORT, outside its 8 MiB of RAM: violated isolation$"
expect_in $RUN com2.txt "wild: domain 5 ends alone" '^guest: domain 5 violated isolation \(violated isolation\)$'
expect_in $RUN dom7.txt "triple: the program asked for the triple fault" '^ukfault: triple$'
expect_in $RUN com2.txt "triple: Vertigo takes the triple-fault exit" '^vmx: vcpu [0-9]+: guest triple fault$'
expect_in $RUN com2.txt "triple: domain 7 ends alone, triple-faulted" '^guest: domain 7 triple-faulted \(guest triple fault\)$'
expect_in $RUN com2.txt "triple: domain 7's verdict is FAIL" '^guest: domain 7 \(dom7\) verdict FAIL'
# Sampling of every domain: each sample is its domain's. The report's
# share of each domain (instructions:uk, one event an emulated guest
# instruction) against its CPU time in the exit statistics (the guest
# cycles of its VCPU), within 2 points; the passive unikernel's samples
# keep raw addresses until its image is given (--domain-elf), then name
# ukspin's loop.
log="$E2E_OUT/$RUN/debugcon.txt"
plain=$("$VERTIGO" report --sort domain,sym "$log" 2>&1)
named=$("$VERTIGO" report --sort domain,sym --domain-elf 6="$UK/ukspin.elf" "$log" 2>&1)
echo "$plain" | grep '^# Domains:' | indent
guest_cycles() {
    capture $RUN com2.txt | awk -v d="$1" '$1 == "guest:" && $2 == "domain" { mine = ($3 == d) }
        mine && /cycles in the guest$/ { print $(NF-4); exit }'
}
share_of() { echo "$plain" | sed -nE "s/^# Domains:.* $1 ([0-9.]+)%.*/\1/p"; }
c0=$(guest_cycles 0) c6=$(guest_cycles 6) s0=$(share_of dom0) s6=$(share_of dom6)
if [ -n "$c0" ] && [ -n "$c6" ] && [ -n "$s0" ] && [ -n "$s6" ] &&
   awk -v c0="$c0" -v c6="$c6" -v s0="$s0" -v s6="$s6" 'BEGIN {
       t = 100 * c6 / (c0 + c6); d = s6 - t; if (d < 0) d = -d
       e = 100 * c0 / (c0 + c6) - s0; if (e < 0) e = -e
       exit !(d <= 2 && e <= 2) }'; then
    pass "$RUN: samples split by domain as their CPU time (dom0 $s0 %, dom6 $s6 %; guest cycles $c0 and $c6)"
else
    fail "$RUN: samples split by domain as their CPU time" \
        "shares '$s0' '$s6', guest cycles '$c0' '$c6'"
fi
echo "$plain" | grep -qE '^ +[0-9.]+% +[0-9]+ +dom6 +\[\.\] \[unknown\] 0x' &&
    pass "$RUN: the passive unikernel's samples keep their raw addresses" ||
    fail "$RUN: the passive unikernel's samples keep their raw addresses" "$(echo "$plain" | grep dom6 | head -n 3)"
echo "$named" | grep -E '^ +[0-9.]+% +[0-9]+ +dom6 ' | head -n 1 | grep -qE '\[\.\] main +.*ukspin\.c:[0-9]+$' &&
    pass "$RUN: --domain-elf names its hottest function and line (main, ukspin.c)" ||
    fail "$RUN: --domain-elf names the unikernel's loop" "$(echo "$named" | grep dom6 | head -n 3)"
expect_in $RUN com2.txt "ukspin ran to its end" '^guest: domain 6 \(dom6\) verdict PASS$'
# Nothing of the other domains lost beside the hostile one's floods:
# ukspin's 20 rounds in its console in order, the same lines as its
# console records in the log, the stream without loss, every sample kept.
rounds=$(capture $RUN dom6.txt | sed -nE 's/^ukspin: round ([0-9]+): instructions [0-9]+ ticks [0-9]+$/\1/p' | tr '\n' ' ')
[ "$rounds" = "$(seq -s ' ' 0 19) " ] &&
    pass "$RUN: domain 6's 20 console lines all there, in order" ||
    fail "$RUN: domain 6's 20 console lines all there, in order" "rounds: $rounds"
decode $RUN
logged=$(sed -nE 's/.* console src=dom6 "(.*)\\n"$/\1/p' "$E2E_OUT/$RUN/decode.txt")
[ -n "$logged" ] && [ "$logged" = "$(capture $RUN dom6.txt)" ] &&
    pass "$RUN: domain 6's console records in the log are its console lines, none lost" ||
    fail "$RUN: domain 6's console records in the log are its console lines" \
        "$(diff <(echo "$logged") <(capture $RUN dom6.txt) | head -n 5)"
# The stream itself lost nothing. Bochs writes notes of its own into the
# 0xE9 capture (its banner, a line at domain 2's UD2, one at the shutdown
# port the FAIL verdict uses), which the decoder skips as foreign bytes:
# every skipped piece must be one of those.
"$VERTIGO" stats "$E2E_OUT/$RUN/debugcon.txt" >"$E2E_OUT/$RUN/stats.txt" 2>&1
expect_in $RUN stats.txt "stats: zero loss beside the floods" \
    '^loss: ring_dropped=0 blocks_lost=0 records_lost=0$'
expect_in $RUN stats.txt "stats: CPU 0's blocks without a gap" \
    '^  cpu 0 +records=[0-9]+ blocks=[0-9]+ seq=0\.\.[0-9]+ seq_gaps=0 ring_dropped=0$'
foreign=""
while read -r off len; do
    tail -c +$((off + 1)) "$E2E_OUT/$RUN/debugcon.txt" | head -c "$len" | grep -aq '(unk\. ctxt)' ||
        foreign+="@$off ($len bytes) "
done < <(sed -nE 's/^! @([0-9]+) (garbage|suffix-skipped) bytes=([0-9]+)$/\1 \3/p' \
         "$E2E_OUT/$RUN/decode.txt")
[ -z "$foreign" ] &&
    pass "$RUN: the only foreign bytes in the stream are Bochs' own notes" ||
    fail "$RUN: the only foreign bytes in the stream are Bochs' own notes" "$foreign"
last_cpu=$(capture $RUN com2.txt | grep '^sample: cpu 0: ' | tail -n 1)
echo "$last_cpu" | grep -qE ' [1-9][0-9]* samples logged, 0 dropped,' &&
    pass "$RUN: no sample dropped beside the hostile domain's floods" ||
    fail "$RUN: no sample dropped beside the hostile domain's floods" "$last_cpu"
expect_line $RUN "domain 0 goes on: its hello scenario" '^VERTIGO-GUEST: hello: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: hello$'
expect_in $RUN com2.txt "the run fails because domains failed" '^VERTIGO-END: FAIL'
