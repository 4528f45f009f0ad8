#!/bin/bash
# End-to-end test of a Linux domain's reboot (docs/architecture.md, "Domains
# and the scheduler"; docs/user-guide.md, "Several domains"), one Bochs boot
# with one CPU that three Linux kernels share with 10 ms slices:
#   - domain 1 (lin-again, dom.1.on_reboot=restart) reboots twice
#     (vertigo.reboots=2: `reboot -f` after its scenario passed; the kernel
#     writes the FADT's reset register, reboot=acpi being Vertigo's part of
#     its command line), so it boots three times, the later boots with
#     vertigo.boot=2 and 3 on their command lines, and its third boot
#     passes and powers off;
#   - domain 2 (lin-end, dom.2.on_reboot=end) reboots once, through the
#     keyboard controller (reboot=kbd on its own line, so Vertigo adds no
#     reboot=acpi: 0xFE to port 0x64 after kb_wait's polls of the absent
#     controller's status), and ends as "reset": its verdict is FAIL (it
#     passed but did not power off), so the run's is too;
#   - domain 0 says hello and sleeps while the others boot and reboot,
#     then passes: neither domain's reset touched it.
# Each restart prints the boot's end, its PMU reports and exit statistics
# as a domain's end does, the boot's verdict, then "restarts from its
# kernel and initrd"; the log records the stop (reset) and a new start.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

RUN=domains-reboot
# Domain 0's sleep, in guest seconds of the TSC (50 M instructions a
# second in Bochs): past domain 1's three boots and domain 2's one, which
# share the CPU with it (about 0.6 G instructions each with
# cryptomgr.notests); a halted CPU costs Bochs little.
SLEEP_S=80
COMMON="nokaslr tsc=reliable panic=-1 cryptomgr.notests"
GUEST="console=ttyS0,115200 $COMMON quiet vertigo.scenario=hello,sleep vertigo.sleep_s=$SLEEP_S"
DOM="$COMMON vertigo.scenario=hello"     # Vertigo adds the console
HV="console=com2 log=e9 sched.slice=10ms \
dom.1=linux:again:initrd1 dom.1.name=lin-again dom.1.mem=128M dom.1.on_reboot=restart \
dom.2=linux:once:initrd1 dom.2.name=lin-end dom.2.mem=128M dom.2.on_reboot=end"

run_linux $RUN 1 "$GUEST" --platform bochs --timeout 1500 --mem 640 --cmdline "$HV" \
    --module "$KERNEL" "again $DOM vertigo.reboots=2" --module "$INITRD" initrd1 \
    --module "$KERNEL" "once $DOM reboot=kbd vertigo.reboots=1"
"$VERTIGO" decode "$E2E_OUT/$RUN/debugcon.txt" >"$E2E_OUT/$RUN/decode.txt" 2>&1

# Domain 1: three boots, the later ones told their number, each passing;
# two restarts, each after the ACPI reset register, with its boot's verdict.
# The kernel saw its number: boot 2's init rebooted again (vertigo.boot=2
# is at most vertigo.reboots=2) and boot 3's powered off (its kernel log's
# "Command line:" is cut into two console lines at this length).
expect_in $RUN com2.txt "domain 1's first command line asks for the ACPI reset register" \
    '^domain 1 \(lin-again\): Linux kernel at .* command line "console=ttyS0,115200 noapic .* vertigo.reboots=2 reboot=acpi"$'
boots=$(capture $RUN dom1.txt | grep -c '^VERTIGO-GUEST: hello: PASS$')
[ "$boots" = 3 ] && pass "$RUN: domain 1 booted three times and each boot passed hello" ||
    fail "$RUN: domain 1 booted three times" "$boots hello PASS lines in dom1.txt"
for b in 2 3; do
    expect_in $RUN com2.txt "domain 1's boot $b has vertigo.boot=$b on its command line" \
        "^domain 1 \(lin-again\): Linux kernel at .* command line \".* reboot=acpi vertigo.boot=$b\"\$"
done
for b in 1 2; do
    expect_in $RUN dom1.txt "domain 1's boot $b rebooted" \
        "^vertigo-init: boot $b: rebooting \(vertigo.reboots=2\)$"
    expect_in $RUN com2.txt "domain 1's boot $b: its verdict" \
        "^guest: domain 1 \(lin-again\) boot $b verdict PASS: hello$"
    next=$((b + 1))
    expect_in $RUN com2.txt "domain 1 restarts for boot $next, its PMU state and sessions reset" \
        "^guest: domain 1 \(lin-again\) restarts from its kernel and initrd \(dom.1.on_reboot=restart\): boot $next, its PMU state, sessions and exit statistics reset$"
done
resets=$(capture $RUN com2.txt | grep -c '^guest: domain 1 reset (ACPI reset register)$')
[ "$resets" = 2 ] && pass "$RUN: domain 1 asked for a reset twice, through the ACPI reset register" ||
    fail "$RUN: domain 1's two resets" "$resets reset lines"
entries=$(capture $RUN com2.txt | grep -c '^vmx: domain 1 vcpu 0: entering the guest at rip 0x[0-9a-f]*$')
[ "$entries" = 3 ] && pass "$RUN: domain 1's VCPU entered its kernel three times, from its start" ||
    fail "$RUN: domain 1's three entries" "$entries entry lines"
expect_in $RUN com2.txt "domain 1's third boot powered off" \
    '^guest: domain 1 powered off \(ACPI S5 \(sleep control register\)\)$'
expect_in $RUN com2.txt "domain 1's verdict: PASS" '^guest: domain 1 \(lin-again\) verdict PASS: hello$'
stops=$(capture $RUN decode.txt | grep -cE ' dom=1 vcpu=0 event=domain-stop arg=1$')
starts=$(capture $RUN decode.txt | grep -cE ' dom=1 vcpu=0 event=domain-start ')
[ "$stops" = 2 ] && [ "$starts" = 3 ] &&
    pass "$RUN: the log has domain 1's two reset stops and three starts" ||
    fail "$RUN: domain 1's life-cycle records" "$stops domain-stop arg=1, $starts domain-start"

# Domain 2: on_reboot=end: its reboot ends it as "reset".
expect_in $RUN com2.txt "domain 2's own reboot= kept, no reboot=acpi added" \
    '^domain 2 \(lin-end\): Linux kernel at .* command line "console=ttyS0,115200 noapic .* reboot=kbd vertigo.reboots=1"$' 
expect_in $RUN dom2.txt "domain 2's boot passed and rebooted" \
    '^vertigo-init: boot 1: rebooting \(vertigo.reboots=1\)$'
expect_in $RUN com2.txt "domain 2 ended as reset, through the keyboard controller" \
    '^guest: domain 2 reset \(keyboard-controller reset\)$'
expect_in $RUN com2.txt "domain 2's verdict: FAIL, it did not power off" \
    '^guest: domain 2 \(lin-end\) verdict FAIL: hello \(passed but did not power off\)$'
expect_not_in $RUN com2.txt "domain 2 never restarted" '^guest: domain 2 .*restarts'

# The other domains unaffected: domain 0 passed, after domain 1's restarts.
expect_line $RUN "domain 0's hello" '^VERTIGO-GUEST: hello: PASS$'
expect_line $RUN "domain 0's sleep" '^VERTIGO-GUEST: sleep: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: hello,sleep$'
last_restart=$(capture $RUN com2.txt | grep -n '^guest: domain 1 (lin-again) restarts' | tail -n 1 | cut -d: -f1)
d0_off=$(capture $RUN com2.txt | grep -n '^guest: domain 0 powered off' | cut -d: -f1)
[ -n "$last_restart" ] && [ -n "$d0_off" ] && [ "$d0_off" -gt "$last_restart" ] &&
    pass "$RUN: domain 0 ran on through domain 1's restarts (powered off at line $d0_off, after line $last_restart)" ||
    fail "$RUN: domain 0 ran on through domain 1's restarts" "last restart at line '$last_restart', domain 0's power-off at '$d0_off'"
expect_not_in $RUN com2.txt "dom.N.on_reboot= is a known option" 'unknown command-line option'
for f in serial.txt dom1.txt dom2.txt; do
    expect_not_in $RUN $f "no segfault, oops or killed init in $f" 'segfault at|Attempted to kill init|Oops'
done
expect_in $RUN com2.txt "the run fails only for domain 2" \
    '^VERTIGO-END: FAIL \(a domain did not pass or did not power off\)$'
