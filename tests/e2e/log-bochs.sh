#!/bin/bash
# End-to-end test of the profiling log: one Linux boot under Vertigo in
# Bochs with log=e9. Vertigo streams console, config and life-cycle
# records over port 0xE9 (Bochs port_e9_hack -> debugcon.txt) while its
# text console stays on COM2; `vertigo stats` and `vertigo decode` must
# find every record, zero loss and a gap-free block sequence.
#
# Bochs prints its own banner before the stream (skipped by the decoder
# as a prefix) and, on the passing run's magic breakpoint, a few lines of
# debugger text after it. The test checks that this trailer is the only
# foreign data after the stream header, then cuts it off and requires a
# clean `vertigo stats` (exit 0) on the rest.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.gz"
GUEST_ARGS="console=ttyS0 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=hello"
VERTIGO="$BUILD/vertigo"
NAME=log-e9
DIR="$E2E_OUT/$NAME"
mkdir -p "$E2E_OUT"    # run_vertigo writes its runner log next to DIR

run_vertigo "$NAME" 0 --platform bochs --timeout 600 --cmdline "console=com2 log=e9" \
    --kernel "$KERNEL" --initrd "$INITRD" --guest-cmdline "$GUEST_ARGS"

CAPTURE="$DIR/debugcon.txt"
DECODED="$DIR/decode.txt"
TRIMMED="$DIR/log.bin"
STATS="$DIR/stats.txt"
"$VERTIGO" decode "$CAPTURE" >"$DECODED" 2>"$DIR/decode.err"

# check LABEL COMMAND...: PASS if the command succeeds.
check() {
    local label=$1
    shift
    if "$@"; then pass "$NAME: $label"; else fail "$NAME: $label" "see $DIR"; fi
}
decoded_has() { grep -qE -- "$1" "$DECODED"; }
stats_has() { grep -qE -- "$1" "$STATS"; }

tr -d '\r' < "$DIR/com2.txt" | grep -q '^VERTIGO-END: PASS' &&
    pass "$NAME: text console still on COM2" ||
    fail "$NAME: text console still on COM2" "no VERTIGO-END line in $DIR/com2.txt"

# Foreign bytes: the Bochs banner before the header, its debugger trailer
# after the last block, nothing else (so no raw console text on 0xE9).
prefix=$(sed -nE 's/^! @0 prefix-skipped bytes=([0-9]+)$/\1/p' "$DECODED")
check "stream header after the emulator's banner only" \
    test -n "$prefix" -a "$(head -c "${prefix:-0}" "$CAPTURE" | grep -ac 'Vertigo')" = 0
problems=$(grep -E '^! ' "$DECODED" | grep -v ' prefix-skipped ')
size=$(stat -c %s "$CAPTURE")
trailer_off=$(sed -nE 's/^! @([0-9]+) suffix-skipped bytes=([0-9]+)$/\1/p' <<<"$problems")
trailer_len=$(sed -nE 's/^! @([0-9]+) suffix-skipped bytes=([0-9]+)$/\2/p' <<<"$problems")
if [ "$(wc -l <<<"$problems")" -eq 1 ] && [ -n "$trailer_off" ] &&
   [ $((trailer_off + trailer_len)) -eq "$size" ] &&
   tail -c "$trailer_len" "$CAPTURE" | grep -aq 'Magic breakpoint'; then
    pass "$NAME: only foreign data after the header is Bochs' debugger trailer"
else
    fail "$NAME: only foreign data after the header is Bochs' debugger trailer" \
         "problems: $(tr '\n' ';' <<<"$problems")"
    trailer_off=$size
fi

# The decoder itself treats the emulator's trailer as a note, not damage.
"$VERTIGO" stats "$CAPTURE" >"$STATS.raw" 2>&1 &&
    pass "$NAME: vertigo stats on the raw capture: exit 0 (trailer is a note)" ||
    fail "$NAME: vertigo stats on the raw capture: exit 0 (trailer is a note)" "see $STATS.raw"

head -c "$trailer_off" "$CAPTURE" >"$TRIMMED"
"$VERTIGO" stats "$TRIMMED" >"$STATS" 2>&1
rc=$?
[ $rc -eq 0 ] && pass "$NAME: vertigo stats: clean stream (exit 0)" ||
    fail "$NAME: vertigo stats: clean stream (exit 0)" "exit $rc; $STATS"

check "stats: console records" stats_has '^  console +[1-9][0-9]*$'
check "stats: life-cycle records" stats_has '^  lifecycle +[5-9]$'
check "stats: config record" stats_has '^  config +1$'
check "stats: zero loss" stats_has '^loss: ring_dropped=0 blocks_lost=0 records_lost=0$'
blocks=$(sed -nE 's/^blocks: ([0-9]+) .*/\1/p' "$STATS")
check "stats: CPU 0 block sequence 0..N without gaps" \
    stats_has "^  cpu 0 +records=[0-9]+ blocks=$blocks seq=0\.\.$((${blocks:-1} - 1)) seq_gaps=0 ring_dropped=0$"
check "stats: no problem but the skipped banner" stats_has '^problems: prefix-skipped=1$'

elf_build=$(readelf -n "$BUILD/vertigo.elf" | sed -nE 's/^ *Build ID: ([0-9a-f]{40})$/\1/p')
check "header: vertigo.elf's GNU build id ($elf_build), TSC Hz, PMU" decoded_has \
    "^# @[0-9]+ stream version=1 cpus=[0-9]+ tsc_hz=[1-9][0-9]* build=${elf_build:-none} pmu=soft pmu_version=4 gp=4x48"
check "config record echoes the command line" decoded_has ' config "console=com2 log=e9"$'
check "console record: banner" decoded_has ' console src=hv "\\nVertigo [0-9.]+ \(build '

lifecycle=$(grep -oE 'lifecycle dom=0 vcpu=0 event=[a-z-]+' "$DECODED" | sed 's/.*event=//' | tr '\n' ' ')
[ "$lifecycle" = "domain-create domain-start vcpu-online vcpu-offline domain-stop " ] &&
    pass "$NAME: life cycle create, start, vcpu online, vcpu offline, stop" ||
    fail "$NAME: life cycle create, start, vcpu online, vcpu offline, stop" "got: $lifecycle"
check "domain-stop says powered off (arg 0)" decoded_has 'event=domain-stop arg=0$'

# The first block left while the guest ran (a VM-exit poll), not in the
# final flush: the guest's end is in a later block than vcpu-online.
online_seq=$(sed -nE 's/.* seq=([0-9]+) .*event=vcpu-online.*/\1/p' "$DECODED")
end_seq=$(sed -nE 's/.* seq=([0-9]+) .*"\\nguest: domain 0 powered off.*/\1/p' "$DECODED")
[ -n "$online_seq" ] && [ -n "$end_seq" ] && [ "$end_seq" -gt "$online_seq" ] &&
    pass "$NAME: blocks drained from the VM-exit loop during the guest's run" ||
    fail "$NAME: blocks drained from the VM-exit loop during the guest's run" \
         "vcpu-online in block '$online_seq', guest end in block '$end_seq'"

check "console record: guest verdict" decoded_has ' console src=hv "guest: verdict PASS: hello\\n"$'
check "console record: VERTIGO-END line" decoded_has ' console src=hv "VERTIGO-END: PASS \(guest passed and powered off\)\\n"$'

# Two short runs without a guest. log=serial: the stream on COM2 (a
# polled UART), text console on COM1. QEMU TCG (no VT-x) with log=e9:
# the header and the records reach -debugcon before the refusal.
run_vertigo log-serial 0 --platform bochs --timeout 120 --cmdline "console=com1 log=serial guest=none"
"$VERTIGO" stats "$E2E_OUT/log-serial/com2.txt" >"$E2E_OUT/log-serial/stats.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qE '^  console +[1-9]' "$E2E_OUT/log-serial/stats.txt" &&
    pass "log-serial: clean stream with console records on COM2" ||
    fail "log-serial: clean stream with console records on COM2" "stats exit $rc"
expect_line log-serial "text console still on COM1" '^VERTIGO-END: PASS'

run_vertigo log-e9-novmx 3 --platform qemu-tcg --timeout 60 --cmdline "log=e9"
"$VERTIGO" stats "$E2E_OUT/log-e9-novmx/debugcon.txt" >"$E2E_OUT/log-e9-novmx/stats.txt" 2>&1
rc=$?
"$VERTIGO" decode "$E2E_OUT/log-e9-novmx/debugcon.txt" 2>/dev/null |
    grep -q ' console src=hv "VERTIGO-END: NO-VMX (no VT-x)\\n"$'
found=$?
[ $rc -eq 0 ] && [ $found -eq 0 ] &&
    pass "log-e9-novmx: clean stream ending with the refusal's verdict record" ||
    fail "log-e9-novmx: clean stream ending with the refusal's verdict record" \
         "stats exit $rc, verdict record found: $([ $found -eq 0 ] && echo yes || echo no)"
