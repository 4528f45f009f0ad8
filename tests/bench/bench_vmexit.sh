#!/bin/bash
# kvm-unit-tests' exit-cost table under Vertigo, beside Vertigo's own
# figures. One Bochs boot (clock sync=none: the guest's RDTSC counts the
# machine's emulated instructions, so the figures are instructions, not
# time, and are the same on a loaded machine) with x86/vmexit.flat as the
# only guest (vertigo run --multiboot: one domain on CPU 0, nothing else
# runs between its exits). vmexit.flat times each of its tests' operations
# with RDTSC until 2^30 ticks have passed and prints the average: the
# whole round trip as the guest sees it (the exit, Vertigo's handler, the
# entry, the guest's own instructions around them). Beside each, Vertigo's
# own average for that exit reason from its end-of-domain statistics
# ("exits: vcpu 0: REASON  N exits  C cycles  A avg": the TSC from the exit to
# the handler's end), so the part of the round trip spent in Vertigo's
# handler shows. Tests that exit for no reason here run natively and show
# only the guest's figure. Figures, not a pass/fail test; a boot that
# fails or a missing figure fails the benchmark.
#
# usage: BUILD=build KUT_DIR=/path/to/kvm-unit-tests tests/bench/bench_vmexit.sh
#   env: BENCH_VMEXIT_TESTS (vmexit.flat's test names, default below),
#        BENCH_TIMEOUT (wall seconds, default 600 a test: each takes 3 to 6
#        minutes alone in Bochs on the project's loaded 2-core machine)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/vmexit"
TESTS=${BENCH_VMEXIT_TESTS:-"cpuid vmcall mov_from_cr8 mov_to_cr8 inl_from_qemu outl_to_kernel wr_kernel_gs_base rd_tsc_adjust_msr wr_tsc_adjust_msr tscdeadline_immed self_ipi_sti_nop x2apic_self_ipi_sti_nop"}
TIMEOUT=${BENCH_TIMEOUT:-$((600 * $(echo $TESTS | wc -w)))}

if [ -z "${KUT_DIR:-}" ]; then
    echo "bench-vmexit: skipped: set KUT_DIR to a kvm-unit-tests tree built with ./configure && make (docs/conformance.md)"
    exit 0
fi
FLAT="$KUT_DIR/x86/vmexit.flat"
# kvm-unit-tests takes the command line's first word as its program name
# (argv[0]), as GRUB and QEMU put the kernel's name first: vmexit.flat.
die() { echo "bench-vmexit: FAILED: $*" >&2; exit 1; }
[ -f "$FLAT" ] || die "no $FLAT (build kvm-unit-tests first: docs/conformance.md)"
[ -f "$BUILD/vertigo.elf" ] || die "no $BUILD/vertigo.elf (run make)"

mkdir -p "$(dirname "$OUT")"
echo "bench-vmexit: kvm-unit-tests $(git -C "$KUT_DIR" rev-parse --short=12 HEAD 2>/dev/null || echo '(commit unknown)'), $FLAT, one Bochs boot"
"$BUILD/vertigo" run --elf "$BUILD/vertigo.elf" --out "$OUT" --quiet --timeout "$TIMEOUT" \
    --cmdline "console=com2 log=none" --multiboot "$FLAT" --append "vmexit.flat $TESTS" >"$OUT.runner.txt" 2>&1
status=$?
[ -s "$OUT/dom1.txt" ] || die "no console lines from vmexit.flat (vertigo run exit status $status; see $OUT)"
grep -q 'test-exit code 0 ' "$OUT/com2.txt" ||
    die "vmexit.flat did not exit with code 0 (see $OUT/com2.txt, $OUT/dom1.txt)"

# Vertigo's average for the exit reason each test makes.
reason_of() {
    case "$1" in
        cpuid) echo CPUID ;; vmcall) echo VMCALL ;;
        mov_from_cr8|mov_to_cr8) echo "control-register access" ;;
        inl_*|outl_*) echo "I/O instruction" ;;
        wr_*) echo WRMSR ;; rd_*) echo RDMSR ;;
        tscdeadline*) echo WRMSR ;;
        self_ipi_*) echo "EPT violation" ;; x2apic_self_ipi_*) echo WRMSR ;;
        *) echo "" ;;
    esac
}
vertigo_avg() {
    [ -n "$1" ] || return 0
    # '#' as sed's delimiter: a reason can hold a '/' ("I/O instruction")
    tr -d '\r' <"$OUT/com2.txt" | sed -nE "s#^exits: vcpu 0: +$1 +[0-9]+ exits +[0-9]+ cycles +([0-9]+) avg.*#\\1#p" | head -n1
}
printf '%-28s %14s   %-26s %12s\n' "vmexit.flat test" "round trip" "Vertigo's exit reason" "in Vertigo"
printf '%-28s %14s   %-26s %12s\n' "" "(instr.)" "" "(instr.)"
found=0
for t in $TESTS; do
    guest=$(tr -d '\r' <"$OUT/dom1.txt" | sed -nE "s/^$t ([0-9]+)$/\\1/p" | head -n1)
    if [ -z "$guest" ]; then
        skipped=$(grep -c "^$t (skipped)" "$OUT/dom1.txt")
        [ "$skipped" -gt 0 ] && { printf '%-28s %14s\n' "$t" "skipped"; continue; }
        die "no figure for $t in $OUT/dom1.txt"
    fi
    reason=$(reason_of "$t")
    printf '%-28s %14s   %-26s %12s\n' "$t" "$guest" "${reason:--}" "$(vertigo_avg "$reason")"
    found=$((found + 1))
done
[ $found -gt 0 ] || die "no figures"
echo "bench-vmexit: Bochs emulated instructions (clock sync=none), not a hardware measurement; Vertigo's column is the average over all of the domain's exits of that reason (the test's own and any other)"
