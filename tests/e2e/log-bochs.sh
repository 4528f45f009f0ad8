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

GUEST_ARGS="console=ttyS0 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet vertigo.scenario=hello"
NAME=log-e9
DIR="$E2E_OUT/$NAME"

run_linux "$NAME" 0 "$GUEST_ARGS" --platform bochs --timeout "$LINUX_BOOT_TIMEOUT" --cmdline "console=com2 log=e9"

CAPTURE="$DIR/debugcon.txt"
DECODED="$DIR/decode.txt"
TRIMMED="$DIR/log.bin"
decode "$NAME"

# check LABEL COMMAND...: PASS if the command succeeds.
check() {
    local label=$1
    shift
    if "$@"; then pass "$NAME: $label"; else fail "$NAME: $label" "see $DIR"; fi
}

expect_in "$NAME" com2.txt "text console still on COM2" '^VERTIGO-END: PASS'

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
expect_exit "$NAME" "vertigo stats on the raw capture: exit 0 (trailer is a note)" 0 "$DIR/stats.txt.raw" \
    "$VERTIGO" stats "$CAPTURE"

head -c "$trailer_off" "$CAPTURE" >"$TRIMMED"
expect_clean_stream "$NAME" "$TRIMMED"
expect_in "$NAME" stats.txt "stats: life-cycle records" '^  lifecycle +[5-9]( |$)'
expect_in "$NAME" stats.txt "stats: no problem but the skipped banner" '^problems: prefix-skipped=1$'

elf_build=$(elf_build_id "$BUILD/vertigo.elf")
expect_in "$NAME" decode.txt "header: vertigo.elf's GNU build id ($elf_build), TSC Hz, PMU" \
    "^# @[0-9]+ stream version=1 cpus=[0-9]+ tsc_hz=[1-9][0-9]* build=${elf_build:-none} pmu=soft pmu_version=4 gp=4x48"
expect_in "$NAME" decode.txt "config record echoes the command line" ' config "console=com2 log=e9"$'
expect_in "$NAME" decode.txt "console record: banner" ' console src=hv "\\nVertigo [0-9.]+ \(build '

lifecycle=$(grep -oE 'lifecycle dom=0 vcpu=0 event=[a-z-]+' "$DECODED" | sed 's/.*event=//' | tr '\n' ' ')
[ "$lifecycle" = "domain-create domain-start vcpu-online vcpu-offline domain-stop " ] &&
    pass "$NAME: life cycle create, start, vcpu online, vcpu offline, stop" ||
    fail "$NAME: life cycle create, start, vcpu online, vcpu offline, stop" "got: $lifecycle"
expect_in "$NAME" decode.txt "domain-stop says powered off (arg 0)" 'event=domain-stop arg=0$'
expect_in "$NAME" decode.txt "vcpu-stats record at the domain's end (exits by reason, no switch: alone on its CPU)" \
    ' vcpu-stats dom=0 vcpu=0 exits=[1-9][0-9]* switches=0 switch_ticks=0 .* 10=[1-9]'
expect_in "$NAME" stats.txt "stats: the domains section names dom0 with its exits" \
    '^    exits [1-9][0-9]* \(.*cpuid [1-9][0-9]*.*\); vcpu switches 0, '

# The first block left while the guest ran (a VM-exit poll), not in the
# final flush: the guest's end is in a later block than vcpu-online.
online_seq=$(sed -nE 's/.* seq=([0-9]+) .*event=vcpu-online.*/\1/p' "$DECODED")
end_seq=$(sed -nE 's/.* seq=([0-9]+) .*"\\nguest: domain 0 powered off.*/\1/p' "$DECODED")
[ -n "$online_seq" ] && [ -n "$end_seq" ] && [ "$end_seq" -gt "$online_seq" ] &&
    pass "$NAME: blocks drained from the VM-exit loop during the guest's run" ||
    fail "$NAME: blocks drained from the VM-exit loop during the guest's run" \
         "vcpu-online in block '$online_seq', guest end in block '$end_seq'"

expect_in "$NAME" decode.txt "console record: guest verdict" ' console src=hv "guest: verdict PASS: hello\\n"$'
expect_in "$NAME" decode.txt "console record: VERTIGO-END line" \
    ' console src=hv "VERTIGO-END: PASS \(guest passed and powered off\)\\n"$'

# Two short runs without a guest. log=serial: the stream on COM2 (a
# polled UART), text console on COM1. QEMU TCG (no VT-x) with log=e9:
# the header and the records reach -debugcon before the refusal.
run_vertigo log-serial 0 --platform bochs --timeout 120 --cmdline "console=com1 log=serial guest=none"
expect_exit log-serial "vertigo stats on COM2: clean stream (exit 0)" 0 "$E2E_OUT/log-serial/stats.txt" \
    "$VERTIGO" stats "$E2E_OUT/log-serial/com2.txt"
expect_in log-serial stats.txt "console records in the stream on COM2" '^  console +[1-9]'
expect_line log-serial "text console still on COM1" '^VERTIGO-END: PASS'

run_vertigo log-e9-novmx 3 --platform qemu-tcg --timeout 60 --cmdline "log=e9"
expect_exit log-e9-novmx "vertigo stats: clean stream (exit 0)" 0 "$E2E_OUT/log-e9-novmx/stats.txt" \
    "$VERTIGO" stats "$E2E_OUT/log-e9-novmx/debugcon.txt"
decode log-e9-novmx
expect_in log-e9-novmx decode.txt "the stream ends with the refusal's verdict record" \
    ' console src=hv "VERTIGO-END: NO-VMX \(no VT-x\)\\n"$'
