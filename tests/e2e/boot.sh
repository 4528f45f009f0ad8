#!/bin/bash
# End-to-end tests of the foundation: platform report in Bochs, refusal
# without VT-x under QEMU TCG (SeaBIOS and OVMF), and the failure paths
# (CPU exception in the hypervisor, missing guest module).
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

run_vertigo bochs-report 0 --platform bochs --timeout 120 --cmdline "console=com1 guest=none"
expect_line bochs-report "banner" '^Vertigo [0-9.]+ \(build [^)]*\): vertical-profiling hypervisor$'
expect_line bochs-report "memory map" '^  \[0x000000100000-0x[0-9a-f]+\) usable$'
expect_line bochs-report "loader name" '^boot: loader "GRUB '
expect_line bochs-report "cpu line" '^cpu: GenuineIntel family 0x6 model 0x55'
expect_line bochs-report "VMX available" '^vmx: available, IA32_FEATURE_CONTROL=0x5 \(locked'
expect_line bochs-report "VMX capabilities" '^vmx: .*rev(ision)? 0x2b'
expect_line bochs-report "PMU described" '^pmu: cpuid 0xa: version 4, 4 GP counters x 48 bits'
expect_line bochs-report "PMU broken" '^pmu: broken \(claims v4, does not count\)$'
expect_line bochs-report "TSC calibrated (50 MHz = ips)" '^tsc: (50\.0[0-9]{2}|49\.99[0-9]) MHz'
# The machine's CMOS clock: Bochs' time0=1 starts it at the host's local
# time, within 14 hours of UTC wherever the host is.
clock=$(capture bochs-report | sed -nE 's/^clock: ([0-9-]+ [0-9:]+) \(the CMOS clock, taken as UTC\)$/\1/p' | head -n1)
if [ -n "$clock" ] && off=$(( $(date -u -d "$clock" +%s) - $(date -u +%s) )) && [ "${off#-}" -le 50400 ]; then
    pass "bochs-report: the CMOS clock read ($clock, the host's local time)"
else
    fail "bochs-report: the CMOS clock read" "clock line '${clock:-none}'"
fi
expect_line bochs-report "verdict" '^VERTIGO-END: PASS'

# Under QEMU the console also goes to the screen (console=vga on the BIOS
# boot, console=fb on the UEFI one), which --screen saves at the verdict;
# the BIOS boot has a second UART too (COM2).
for fw in qemu-tcg qemu-tcg-efi; do
    screen=com2,vga
    [ "$fw" = qemu-tcg-efi ] && screen=fb
    start=$(date +%s)
    run_vertigo "$fw-novmx" 3 --platform "$fw" --timeout 60 --screen --cmdline "console=com1,$screen"
    took=$(( $(date +%s) - start ))
    expect_line "$fw-novmx" "refusal names the missing feature" '^vertigo: cannot run: this is not an Intel CPU'
    expect_line "$fw-novmx" "refusal says what is needed" 'Vertigo needs Intel VT-x'
    expect_line "$fw-novmx" "PMU absent" '^pmu: absent$'
    if [ "$took" -lt 60 ]; then pass "$fw-novmx: ends within a minute (${took}s)"
    else fail "$fw-novmx: ends within a minute" "took ${took}s"; fi
done
expect_line qemu-tcg-efi-novmx "UEFI boot: RSDP from the new tag" '^boot: ACPI RSDP revision 2'

# The refusal people can see: the VGA text memory (BIOS) and the pixels
# of the framebuffer (UEFI), read back with the font (screen-text).
expect_in qemu-tcg-novmx com2.txt "the second UART (console=com1,com2,vga): the refusal" \
    '^vertigo: cannot run: this is not an Intel CPU'
"$BUILD/screen-text" vga "$E2E_OUT/qemu-tcg-novmx/vga-text.bin" >"$E2E_OUT/qemu-tcg-novmx/vga-text.txt"
expect_in qemu-tcg-novmx vga-text.txt "VGA text screen: the console says where it is" \
    '^console: on the VGA text screen \(80 x 25 characters\) *$'
expect_in qemu-tcg-novmx vga-text.txt "VGA text screen: the refusal" '^vertigo: cannot run: this is not an Intel CPU'
expect_in qemu-tcg-novmx vga-text.txt "VGA text screen: the verdict" '^VERTIGO-END: NO-VMX \(no VT-x\) *$'
"$BUILD/screen-text" ppm "$E2E_OUT/qemu-tcg-efi-novmx/screen.ppm" >"$E2E_OUT/qemu-tcg-efi-novmx/screen.txt"
lit=$(sed -nE '1s/.* ([0-9]+) lit pixels$/\1/p' "$E2E_OUT/qemu-tcg-efi-novmx/screen.txt")
[ "${lit:-0}" -gt 1000 ] && pass "qemu-tcg-efi-novmx: framebuffer: not blank ($lit lit pixels)" ||
    fail "qemu-tcg-efi-novmx: framebuffer: not blank" "${lit:-no} lit pixels"
expect_in qemu-tcg-efi-novmx screen.txt "framebuffer: the first row's glyphs are the font's, dot for dot" \
    '^console: on the framebuffer \([0-9]+ x [0-9]+ characters\) *$'
expect_in qemu-tcg-efi-novmx screen.txt "framebuffer: the refusal" '^vertigo: cannot run: this is not an Intel CPU'
expect_in qemu-tcg-efi-novmx screen.txt "framebuffer: the verdict" '^VERTIGO-END: NO-VMX \(no VT-x\) *$'

run_vertigo exception-ud 1 --platform bochs --timeout 120 --cmdline "guest=none selftest=ud"
expect_line exception-ud "vector and name" '^vertigo: CPU 0: exception 6 \(#UD invalid opcode\), error code 0$'
expect_line exception-ud "register dump" '^  rip=0x[0-9a-f]{16} cs=0x8 '
expect_line exception-ud "backtrace" '^  backtrace \(frame pointers\): 0x'
expect_line exception-ud "verdict" '^VERTIGO-END: FAIL \(unhandled exception'

run_vertigo exception-pf 1 --platform bochs --timeout 120 --cmdline "guest=none selftest=pf"
expect_line exception-pf "page fault with CR2" '^vertigo: CPU 0: exception 14 \(#PF page fault\)'
expect_line exception-pf "CR2 is the faulting address" 'cr2=0x8000000000 '

run_vertigo missing-module 1 --platform bochs --timeout 120 --cmdline "guest=linux"
expect_line missing-module "specific error" "^vertigo: cannot start the Linux guest: no 'kernel' module: .*modules passed: none$"
expect_line missing-module "verdict" '^VERTIGO-END: FAIL \(missing guest module\)'

echo "kernel placeholder" > "$BUILD/e2e/fake-kernel"
run_vertigo missing-initrd 1 --platform bochs --timeout 120 --cmdline "guest=linux" \
    --kernel "$BUILD/e2e/fake-kernel" --guest-cmdline "console=ttyS0"
expect_line missing-initrd "names the missing initrd and lists modules" "no 'initrd' module: .*modules passed: 'kernel console=ttyS0'$"
