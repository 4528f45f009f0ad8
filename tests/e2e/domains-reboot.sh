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
#     then passes: neither domain's reset touched it;
#   - every domain's kernel starts an interval multiplexing session on
#     its VCPU in every boot and leaves it running (mux_keep): domain 0's
#     runs through the others' boots, and beside it each of domain 1's
#     boots and domain 2's have their own. A session belongs to the VCPU
#     that started it: a VCPU that starts (domain 1's restarts) takes no
#     other domain's session, nor its own previous boot's, which ends with
#     that boot; each session's rows in the log carry its domain,
#     numbered from 0 without gaps.
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
COMMON="nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP"
GUEST="console=ttyS0,115200 $COMMON quiet vertigo.scenario=hello,mux_keep,sleep vertigo.sleep_s=$SLEEP_S"
DOM="$COMMON vertigo.scenario=hello,mux_keep"     # Vertigo adds the console
MUX_N=1000000       # mux_keep's interval
HV="console=com2 log=e9 sched.slice=10ms \
dom.1=linux:kernel:initrd dom.1.cmdline=\"$DOM vertigo.reboots=2\" dom.1.name=lin-again dom.1.mem=128M \
dom.1.on_reboot=restart \
dom.2=linux:kernel:initrd dom.2.cmdline=\"$DOM reboot=kbd vertigo.reboots=1\" dom.2.name=lin-end dom.2.mem=128M \
dom.2.on_reboot=end"

run_linux $RUN 1 "$GUEST" --platform bochs --timeout 1500 --mem 640 --cmdline "$HV"
"$VERTIGO" decode "$E2E_OUT/$RUN/debugcon.txt" >"$E2E_OUT/$RUN/decode.txt" 2>&1

# Domain 1: three boots, the later ones told their number, each passing;
# two restarts, each after the ACPI reset register, with its boot's verdict.
# The kernel saw its number: boot 2's init rebooted again (vertigo.boot=2
# is at most vertigo.reboots=2) and boot 3's powered off (its kernel log's
# "Command line:" is cut into two console lines at this length).
expect_in $RUN com2.txt "domain 1's first command line asks for the ACPI reset register" \
    '^domain 1 \(lin-again\): Linux kernel at .* command line "console=ttyS0,115200 noapic .* vertigo.reboots=2 reboot=acpi"$'
boots=$(capture $RUN dom1.txt | grep -c '^VERTIGO-GUEST: mux_keep: PASS$')
[ "$boots" = 3 ] && pass "$RUN: domain 1 booted three times and each boot passed hello and started its multiplexing session" ||
    fail "$RUN: domain 1 booted three times" "$boots hello PASS lines in dom1.txt"
for b in 2 3; do
    expect_in $RUN com2.txt "domain 1's boot $b has vertigo.boot=$b on its command line" \
        "^domain 1 \(lin-again\): Linux kernel at .* command line \".* reboot=acpi vertigo.boot=$b\"\$"
done
for b in 1 2; do
    expect_in $RUN dom1.txt "domain 1's boot $b rebooted" \
        "^vertigo-init: boot $b: rebooting \(vertigo.reboots=2\)$"
    expect_in $RUN com2.txt "domain 1's boot $b: its verdict" \
        "^guest: domain 1 \(lin-again\) boot $b verdict PASS: hello,mux_keep$"
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
expect_in $RUN com2.txt "domain 1's verdict: PASS" '^guest: domain 1 \(lin-again\) verdict PASS: hello,mux_keep$'
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
    '^guest: domain 2 \(lin-end\) verdict FAIL: hello,mux_keep \(passed but did not power off\)$'
expect_not_in $RUN com2.txt "domain 2 never restarted" '^guest: domain 2 .*restarts'

# The other domains unaffected: domain 0 passed, after domain 1's restarts.
expect_line $RUN "domain 0's hello" '^VERTIGO-GUEST: hello: PASS$'
expect_line $RUN "domain 0's sleep" '^VERTIGO-GUEST: sleep: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: hello,mux_keep,sleep$'
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

# Interval multiplexing sessions side by side, one per domain: each boot's
# mux_keep started one (its console line names the domain; domain 0's
# lines say only the VCPU) and none was refused. Domain 1's restarts ended
# its previous boot's session, and took neither that one nor domain 0's,
# which ran through them.
expect_line $RUN "domain 0 started its multiplexing session" '^VERTIGO-GUEST: mux_keep: PASS$'
expect_in $RUN dom2.txt "domain 2 started its multiplexing session" '^VERTIGO-GUEST: mux_keep: PASS$'
expect_not_in $RUN com2.txt "no multiplexing session refused" 'multiplexing session refused'
for d in 0 1 2; do
    case $d in 0) who='vcpu 0'; want=1 ;; 1) who='domain 1 vcpu 0'; want=3 ;; *) who='domain 2 vcpu 0'; want=1 ;; esac
    n=$(capture $RUN com2.txt | grep -c "^pmu: $who: multiplexing session of the guest: .*(10 events, 2 sets over 8 counters, interval $MUX_N, turn 100000 instructions)\$")
    [ "$n" = "$want" ] && pass "$RUN: domain $d's kernel started $want multiplexing session(s) on its VCPU" ||
        fail "$RUN: domain $d's multiplexing sessions" "$n console lines '$who: multiplexing session of the guest', not $want"
done
ended=$(capture $RUN com2.txt | grep -c "^pmu: domain 1 vcpu 0: the guest's multiplexing session ended with its boot\$")
[ "$ended" = 2 ] && pass "$RUN: domain 1's restarts each ended its previous boot's multiplexing session" ||
    fail "$RUN: domain 1's sessions end with their boots" "$ended lines, not 2"
# The rows: per domain, runs numbered 0, 1, ... without gaps, one run per
# session (domain 0's one across domain 1's restarts, domain 1's one per
# boot); every row but a session's last has MUX_N instructions, beyond by
# at most the largest skid Vertigo printed for these sessions.
skid=$(capture $RUN com2.txt | grep -E "^pmu: vcpu 0: [0-9]+ interval rows of $MUX_N " |
       sed -nE 's/.*skid at most ([0-9]+) instructions.*/\1/p' | sort -n | tail -n1)
for d in 0 1 2; do
    case $d in 1) want=3 ;; *) want=1 ;; esac
    verdict=$(grep -E " interval dom=$d vcpu=0 number=" "$E2E_OUT/$RUN/decode.txt" |
        sed -nE 's/.* number=([0-9]+) instructions=([0-9]+) .*/\1 \2/p' |
        awk -v n=$MUX_N -v k="${skid:-0}" '
            { if ($1 == 0) runs++
              else if ($1 != prev + 1) gaps++
              else if (pins < n || pins > n + k) off++
              prev = $1; pins = $2 }
            END { printf "%d %d %d %d\n", runs, gaps, off, NR }')
    read -r runs gaps off total <<<"$verdict"
    if [ -n "$skid" ] && [ "$runs" = "$want" ] && [ "$gaps" = 0 ] && [ "$off" = 0 ] &&
       [ "$total" -ge "$want" ]; then
        pass "$RUN: domain $d's rows in the log: $total in $runs session(s), each numbered from 0 without gaps, whole rows of $MUX_N instructions (+ at most $skid)"
    else
        fail "$RUN: domain $d's multiplexing rows" "sessions/gaps/rows off/rows: '$verdict' (want $want session(s)), skid '$skid'"
    fi
done
