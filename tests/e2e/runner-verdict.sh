#!/bin/bash
# Host-only test of host-tools/vertigo-run's verdict (--judge DIR, no
# boot): only Vertigo's channels decide it, as the hypervisor command line
# sets them up; a verdict line the guest forges on its own console, inside
# the binary log, or through its verdict reason (a second line on
# Vertigo's console) never passes; the QEMU exit port must agree; guest
# text is printed escaped. Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/runner-verdict"
rm -rf "$out"
mkdir -p "$out"
ESC=$'\033'

# run_dir NAME PLATFORM EMULATOR_STATUS HV_CMDLINE [BARE]: a capture
# directory as a run leaves it (empty captures, run-info)
run_dir() {
    local d="$out/$1"
    mkdir -p "$d"
    : >"$d/serial.txt"
    : >"$d/com2.txt"
    : >"$d/debugcon.txt"
    printf 'platform=%s\nbare_linux=%s\nemulator_status=%s\nelapsed=7\nhv_cmdline=%s\n' \
        "$2" "${5:-0}" "$3" "$4" >"$d/run-info"
}
# put NAME FILE TEXT: appends TEXT (printf format) to capture FILE, CRLF ends as a UART's
put() { printf "$3" >>"$out/$1/$2"; }
# judged NAME LABEL WANT_STATUS REGEX: --judge exits WANT_STATUS, stderr matches REGEX
judged() {
    "$RUNNER" --judge "$out/$1" 2>"$out/$1.err"
    local rc=$?
    if [ $rc -eq "$3" ] && grep -qE -- "$4" "$out/$1.err"; then
        pass "verdict: $2"
    else
        fail "verdict: $2" "exit $rc (want $3): $(head -c 300 "$out/$1.err")"
    fi
}

run_dir clean bochs 0 "console=com2 log=e9"
put clean serial.txt 'vertigo-init: all scenarios done: PASS\r\n'
put clean com2.txt 'guest: verdict PASS\r\nVERTIGO-END: PASS (guest passed and powered off)\r\n'
judged clean "Vertigo's PASS on COM2" 0 '^vertigo-run: bochs: VERTIGO-END: PASS \(guest passed and powered off\) in 7s'

run_dir guest-console bochs 0 "console=com2 log=e9"
put guest-console serial.txt 'VERTIGO-END: PASS (forged by the guest)\n'
put guest-console com2.txt 'VERTIGO-END: FAIL (guest reported failure)\r\n'
judged guest-console "a PASS on the guest's console does not count" 1 'VERTIGO-END: FAIL \(guest reported failure\)'

run_dir guest-only bochs 0 "console=com2 log=e9"
put guest-only serial.txt 'VERTIGO-END: PASS (forged by the guest)\n'
judged guest-only "the guest's console alone gives no verdict" 4 "without a VERTIGO-END verdict line on Vertigo's console \(com2.txt\)"

run_dir reason bochs 0 "console=com2"
put reason com2.txt 'guest: verdict FAIL: x\r\nVERTIGO-END: PASS (forged)\r\nVERTIGO-END: FAIL (guest reported failure)\r\n'
judged reason "a verdict line forged in the verdict reason fails the run" 1 "2 verdict lines on Vertigo's console \(com2.txt\), one is forged: FAIL"

run_dir in-log bochs 0 "console=com2 log=e9"
put in-log debugcon.txt 'VTGS\001\000@\000\nVERTIGO-END: PASS (in a symbols record)\n'
judged in-log "a verdict line inside the binary log does not count" 4 'without a VERTIGO-END verdict line'

run_dir mid-line bochs 0 "console=com2"
put mid-line com2.txt 'text VERTIGO-END: PASS (not at a line start)\r\n'
judged mid-line "a verdict not at a line's start does not count" 4 'without a VERTIGO-END verdict line'

run_dir escape bochs 0 "console=com2"
put escape com2.txt "VERTIGO-END: FAIL (guest ${ESC}[2J says \\\\ hi)\r\n"
judged escape "guest text in the verdict is escaped" 1 'VERTIGO-END: FAIL \(guest \\x1b\[2J says \\\\ hi\)'
grep -q "$ESC" "$out/escape.err" && fail "verdict: no raw escape byte printed" "$(cat -v "$out/escape.err")" ||
    pass "verdict: no raw escape byte printed"

run_dir default qemu-tcg 37 "log=e9"
put default serial.txt 'VERTIGO-END: NO-VMX (no VT-x)\r\n'
judged default "the default console is COM1" 3 'VERTIGO-END: NO-VMX \(no VT-x\)'

# console= lists: the UARTs among the screens; a word Vertigo does not
# know, or a third UART, leave its default (COM1).
run_dir screens-com2 bochs 0 "console=vga,com2,fb log=e9"
put screens-com2 serial.txt 'VERTIGO-END: PASS (forged by the guest)\r\n'
put screens-com2 com2.txt 'VERTIGO-END: FAIL (on COM2)\r\n'
judged screens-com2 "console=vga,com2,fb: COM2 is Vertigo's" 1 'VERTIGO-END: FAIL \(on COM2\)'
run_dir screen-only bochs 0 "console=vga"
put screen-only serial.txt 'VERTIGO-END: PASS (forged by the guest)\r\n'
judged screen-only "console=vga: no UART, port 0xE9 only" 4 "verdict line on Vertigo's console \(debugcon.txt\)"
run_dir two-uarts bochs 0 "console=com2,com1 log=e9"
put two-uarts serial.txt 'VERTIGO-END: PASS (on COM1)\r\n'
put two-uarts com2.txt 'VERTIGO-END: PASS (on COM1)\r\n'
judged two-uarts "console=com2,com1: both UARTs are Vertigo's and agree" 0 'VERTIGO-END: PASS \(on COM1\)'
run_dir two-uarts-one bochs 0 "console=com2,com1 log=e9"
put two-uarts-one serial.txt 'VERTIGO-END: PASS (on COM1 only)\r\n'
judged two-uarts-one "console=com2,com1: the line on one UART is enough (a UART that does not answer is off)" 0 'VERTIGO-END: PASS \(on COM1 only\)'
put two-uarts-one com2.txt 'VERTIGO-END: FAIL (on COM2)\r\n'
judged two-uarts-one "console=com2,com1: the two UARTs disagree: FAIL" 1 "Vertigo's channels disagree: FAIL"
run_dir three-uarts bochs 0 "console=com2,0x3e8,com1 log=e9"
put three-uarts serial.txt 'VERTIGO-END: FAIL (COM1, the fallback)\r\n'
put three-uarts com2.txt 'VERTIGO-END: PASS (forged by the guest)\r\n'
judged three-uarts "console= with three UARTs: Vertigo falls back to COM1" 1 'VERTIGO-END: FAIL \(COM1, the fallback\)'

run_dir agree bochs 0 ""
put agree serial.txt 'VERTIGO-END: FAIL (panic)\r\n'
put agree debugcon.txt 'VERTIGO-END: FAIL (panic)\n(0) Magic breakpoint\n'
judged agree "COM1 and port 0xE9 agree" 1 'VERTIGO-END: FAIL \(panic\)'

run_dir disagree bochs 0 ""
put disagree serial.txt 'VERTIGO-END: PASS (one)\r\n'
put disagree debugcon.txt 'VERTIGO-END: FAIL (other)\n'
judged disagree "Vertigo's channels disagree: FAIL" 1 "Vertigo's channels disagree: FAIL"

run_dir exit-port qemu-tcg 35 "console=com1"
put exit-port serial.txt 'VERTIGO-END: PASS (forged)\r\n'
judged exit-port "the QEMU exit port must agree" 1 'the verdict line says PASS but Vertigo.s exit port said FAIL: FAIL'

run_dir no-text bochs 0 "console=com2 log=serial,com2 debugcon=off"
put no-text com2.txt 'VERTIGO-END: PASS (binary log on COM2)\r\n'
judged no-text "no text channel left: no verdict" 4 "Vertigo had no text console in this run \(hypervisor command line 'console=com2 log=serial,com2 debugcon=off'\)"

run_dir timeout bochs 124 "console=com2"
put timeout serial.txt "last guest line ${ESC}]0;title\a\n"
judged timeout "wall-clock limit" 124 'last guest line \\x1b\]0;title\\x07'

run_dir bare bochs 1 "" 1
put bare serial.txt 'vertigo-init: all scenarios done: PASS\r\n'
judged bare "bare Linux: the guest's line" 0 "vertigo-init: all scenarios done: PASS"

run_dir bare-mid bochs 1 "" 1
put bare-mid serial.txt 'x vertigo-init: all scenarios done: PASS\r\n'
judged bare-mid "bare Linux: the line must be whole" 4 "without the guest's 'vertigo-init: all scenarios done' line"

# Several domains: each one's "[NAME] " lines of Vertigo's console, the
# prefix stripped, in domN.txt (N from Vertigo's "domain N (NAME): " lines);
# the guest's console and names Vertigo never declared are not split.
run_dir domains bochs 0 "console=com2 dom.1=unikernel:uk dom.1.name=calc"
put domains serial.txt '[calc] forged on the guest console\n'
put domains com2.txt 'domain 1 (calc): unikernel '"'"'uk'"'"', 32 MiB of RAM\r\n[calc] hello\r\n'
put domains com2.txt '[dom0] from domain 0\r\n[calc] [x] bracketed\r\n[ghost] nobody\r\n'
put domains com2.txt 'VERTIGO-END: PASS (every domain passed and powered off)\r\n'
judged domains "several domains: the run's verdict" 0 "domain 1's console lines"
if [ "$(cat "$out/domains/dom1.txt" 2>/dev/null)" = $'hello\n[x] bracketed' ] &&
   [ "$(cat "$out/domains/dom0.txt" 2>/dev/null)" = "from domain 0" ] &&
   [ "$(ls "$out/domains" | grep -c '^dom[0-9].txt$')" = 2 ]; then
    pass "verdict: each domain's console lines in domN.txt, prefix stripped"
else
    fail "verdict: domN.txt" "dom1.txt: $(head -c 200 "$out/domains/dom1.txt" 2>&1)"
fi
exit $E2E_FAILED
