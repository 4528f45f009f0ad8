#!/bin/bash
# Host-only test of the `vertigo` command's front door: every subcommand
# answers --help (and `vertigo help CMD`) on stdout with status 0; --version
# names the version and the log format version; a wrong command line exits
# 2 with a message, each data error has its own code (1 unreadable, 4 no
# log; `vertigo run`: 5 nothing to boot); `vertigo run` is the runner (its
# usage, its usage errors, and its verdict with the output paths, judged
# from a capture directory without booting). Prints
# PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/cli"
rm -rf "$out"
mkdir -p "$out"
V=$VERTIGO
[ -x "$V" ] || { fail "cli: $V built" "run make first"; exit 1; }

# status_is NAME WANT_STATUS STDOUT_REGEX STDERR_REGEX command...: the
# command exits WANT_STATUS, stdout matches STDOUT_REGEX ('' = empty) and
# stderr STDERR_REGEX ('' = empty)
status_is() {
    local name=$1 want=$2 o_re=$3 e_re=$4 rc ok=1
    shift 4
    "$@" >"$out/o.txt" 2>"$out/e.txt"
    rc=$?
    [ "$rc" -eq "$want" ] || ok=0
    if [ -z "$o_re" ]; then [ -s "$out/o.txt" ] && ok=0; else grep -qE -- "$o_re" "$out/o.txt" || ok=0; fi
    if [ -z "$e_re" ]; then [ -s "$out/e.txt" ] && ok=0; else grep -qE -- "$e_re" "$out/e.txt" || ok=0; fi
    if [ $ok -eq 1 ]; then pass "$name"
    else fail "$name" "exit $rc (want $want); stdout: $(head -c 200 "$out/o.txt"); stderr: $(head -c 200 "$out/e.txt")"
    fi
}

# The subcommands, as the overview lists them.
mapfile -t cmds < <("$V" help | sed -n '/^commands:/,/^$/p' | sed -nE 's/^  ([a-z-]+) .*/\1/p')
[ ${#cmds[@]} -ge 5 ] && pass "cli: help lists ${#cmds[@]} commands (${cmds[*]})" ||
    fail "cli: help lists the commands" "got '${cmds[*]}'"
for c in "${cmds[@]}"; do
    status_is "cli: vertigo $c --help: status 0, usage on stdout" 0 "^usage: vertigo $c" '' "$V" "$c" --help
    "$V" "$c" --help >"$out/help1.txt" 2>&1
    "$V" help "$c" >"$out/help2.txt" 2>&1
    cmp -s "$out/help1.txt" "$out/help2.txt" && pass "cli: vertigo help $c = vertigo $c --help" ||
        fail "cli: vertigo help $c = vertigo $c --help" "they differ"
done
for c in run decode stats report export; do
    printf '%s\n' "${cmds[@]}" | grep -qx "$c" && pass "cli: '$c' is a command" ||
        fail "cli: '$c' is a command" "not in vertigo help"
done
status_is "cli: vertigo --help: status 0" 0 '^usage: vertigo COMMAND' '' "$V" --help
status_is "cli: vertigo help --help: status 0" 0 '^usage: vertigo COMMAND' '' "$V" help --help

version=$(sed -nE 's/^#define VERTIGO_VERSION "([^"]+)"/\1/p' vmm/version.h)
format=$(sed -nE 's/^#define LOG_FORMAT_VERSION ([0-9]+)u?/\1/p' include/vertigo/log_format.h)
status_is "cli: --version names the version ($version)" 0 "^vertigo $version\$" '' "$V" --version
status_is "cli: --version names the log format ($format)" 0 "^log format version $format " '' "$V" --version
for c in "${cmds[@]}" help; do
    status_is "cli: vertigo $c --version: status 0, the version" 0 "^vertigo $version\$" '' "$V" "$c" --version
done
status_is "cli: --version after other options: status 0" 0 "^vertigo $version\$" '' \
    "$V" report --sort sym --version

# A wrong command line: status 2, a message, the usage on stderr.
status_is "cli: no command: 2" 2 '' '^usage: vertigo' "$V"
status_is "cli: unknown command: 2" 2 '' "unknown command 'bogus'" "$V" bogus
status_is "cli: help of an unknown command: 2" 2 '' "unknown command 'bogus'" "$V" help bogus
status_is "cli: decode without input: 2, named" 2 '' '^vertigo decode: no input' "$V" decode
status_is "cli: stats with an unknown option: 2, named" 2 '' "^vertigo stats: unknown option '--bogus'" \
    "$V" stats --bogus x
status_is "cli: stats with two inputs: 2, named" 2 '' "^vertigo stats: a second input 'b'" "$V" stats a b
status_is "cli: report with an option missing its value: 2, named" 2 '' \
    '^vertigo report: --sort needs a value' "$V" report x --sort
status_is "cli: report with an unknown option: 2" 2 '' "unknown option '--bogus'" \
    "$V" report --bogus tests/fixtures/profile/kallsyms.txt
status_is "cli: export without --format: 2" 2 '' '--format is required' "$V" export -
status_is "cli: run on an unknown platform: 2" 2 '' "^vertigo run: unknown platform 'nope'" \
    "$V" run --platform nope
status_is "cli: run with an unknown option: 2" 2 '' "^vertigo run: unknown option '--bogus'" \
    "$V" run --bogus
status_is "cli: run without a hypervisor image: 5" 5 '' "^vertigo run: no hypervisor image at $out/none.elf" \
    "$V" run --elf "$out/none.elf" --out "$out/run-none"
status_is "cli: run --judge without run-info: 5" 5 '' "^vertigo run: no run-info in $out\$" \
    "$V" run --judge "$out"
status_is "cli: run --help names the platforms" 0 'bochs \(default\) \| qemu-tcg \| qemu-tcg-efi \| qemu-kvm' '' \
    "$V" run --help

# Data errors keep their codes.
status_is "cli: unreadable file: 1" 1 '' 'No such file or directory' "$V" stats /nonexistent/log.bin
status_is "cli: no Vertigo log: 4" 4 '' 'no Vertigo log stream header' \
    "$V" export --format csv tests/fixtures/profile/kallsyms.txt
log=$(ls tests/fixtures/log/*.bin | head -n1)
status_is "cli: a fixture log decodes: 0" 0 '^records:|^blocks:' '' "$V" stats "$log"

# vertigo run's verdict and outputs, from a capture directory (no boot).
d="$out/run-pass"
mkdir -p "$d"
printf 'VERTIGO-END: PASS (guest passed)\r\n' >"$d/com2.txt"
printf 'guest console\r\n' >"$d/serial.txt"
: >"$d/debugcon.txt"
printf 'platform=bochs\nbare_linux=0\nemulator_status=1\nelapsed=3\nhv_cmdline=console=com2 log=e9\n' >"$d/run-info"
status_is "cli: run --judge: the verdict" 0 '' '^vertigo run: bochs: VERTIGO-END: PASS \(guest passed\) in 3s' \
    "$V" run --judge "$d"
status_is "cli: run --judge: the outputs" 0 '' "^    $d/com2.txt: COM2" "$V" run --judge "$d"
status_is "cli: run --judge: the exit status" 0 '' '^vertigo run: exit status 0 ' "$V" run --judge "$d"
exit $E2E_FAILED
