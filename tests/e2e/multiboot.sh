#!/bin/bash
# End-to-end test of multiboot kernels as the only guest (vmm/domain/domain_mboot.c,
# docs/architecture.md "Multiboot domains"), one short Bochs boot without
# Linux: `vertigo run --multiboot` boots the project's test kernel
# (tests/multiboot/mbtest.c) as domain 1 with a command line and a module,
# as QEMU's -kernel/-append/-initrd would. The kernel checks what it was
# given (boot magic, loader name, memory map, its module, fw_cfg, the ACPI
# RSDP, the PM timer its FADT names (its rate against the TSC; a byte read
# and a write refused), QEMU's pc-testdev (its data port, also through REP
# OUTSB and REP INSB, and its test memory at 0xff000000), the xAPIC page
# and the x2APIC switch, single-stepping over CPUID and HLT, which Vertigo
# emulates), prints through the 16550 at
# 0x3f8 and writes code 5 to the test-exit port: its verdict line names
# the code and `vertigo run` exits with QEMU's status, 5 * 2 + 1. In the
# same boot six malformed images are declared as domains 2-7 (no header,
# not ELF, a segment past the domain's RAM, a segment over the boot
# information below 1 MiB, a bad load address in the header, a module
# larger than the domain's RAM): each is refused with its own error while
# domain 1 runs on. A second short boot (multiboot-sessions) runs the test
# kernel beside two unikernel domains (ukfault's session modes,
# guestlib/unikernel/tests/uksession.h): domain 2 starts a sampling session
# of its own and holds it; domain 3 finds it running, and its calls to stop
# it (-EPERM) and to start one beside it (-EBUSY) are refused; domain 2
# stops its session itself and every domain passes. A third
# (multiboot-sleepers) runs two test kernels that sleep on their APIC
# timers until one is left alone (below). (Beside Linux:
# tests/e2e/domains.sh.)
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

RUN=multiboot
MB="$BUILD/multiboot"
SPOILED="$E2E_OUT/$RUN-images"
rm -rf "$SPOILED"
mkdir -p "$SPOILED"
if ! tests/multiboot/spoil "$MB/mbtest.elf" "$SPOILED" >/dev/null; then
    fail "$RUN: malformed images" "tests/multiboot/spoil failed on $MB/mbtest.elf"
    exit 1
fi
printf 'NR_CPUS=1\nMEMSIZE=128\n' >"$SPOILED/env.txt"
head -c 9437184 /dev/zero >"$SPOILED/big.bin"     # 9 MiB: more than an 8 MiB domain holds

HV="console=com2 log=none \
dom.2=multiboot:noheader dom.2.name=noheader dom.2.mem=8M \
dom.3=multiboot:notelf dom.3.name=notelf dom.3.mem=8M \
dom.4=multiboot:outside dom.4.name=outside dom.4.mem=8M \
dom.5=multiboot:low dom.5.name=low dom.5.mem=8M \
dom.6=multiboot:badaddr dom.6.name=badaddr dom.6.mem=8M \
dom.7=multiboot:good:big dom.7.name=bigmodule dom.7.mem=8M"

run_vertigo $RUN 11 --platform bochs --timeout 600 --cmdline "$HV" \
    --multiboot "$MB/mbtest.elf" --append "modules=1 exit=5 singlestep=1 pmtimer=1 testdev=1 say=\"hello world\"" \
    --initrd "$SPOILED/env.txt envfile two words" \
    --module "$SPOILED/noheader.elf" noheader --module "$SPOILED/notelf.elf" notelf \
    --module "$SPOILED/outside.elf" outside --module "$SPOILED/low.elf" low \
    --module "$SPOILED/badaddr.elf" badaddr --module "$MB/mbtest.elf" good \
    --module "$SPOILED/big.bin" big

# Domain 1, the only guest: no domain 0, the kernel loaded by its header.
expect_in $RUN com2.txt "no domain 0: the domains run alone" \
    '^vertigo: no domain 0: the declared domains run alone on CPU 0$'
expect_in $RUN com2.txt "the kernel's segment, entry, module and command line" \
    '^domain 1 \(mbtest\): multiboot kernel .mbkernel.: 1 segments at \[0x200000-0x[0-9a-f]+\), entry 0x[0-9a-f]+, 1 modules at .*, ACPI tables at 0xf0000, test memory at 0xff000000, command line "modules=1 exit=5 singlestep=1 pmtimer=1 testdev=1 say="hello world""$'
expect_in $RUN com2.txt "its EPT maps its 128 MiB and its pc-testdev memory only" \
    '^vmx: domain 1: EPT maps guest-physical \[0, 0x8000000\) to \[0x[0-9a-f]+-0x[0-9a-f]+\), nothing else but pc-testdev memory \[0xff000000-0xff010000\) to \[0x[0-9a-f]+-0x[0-9a-f]+\) \([0-9]+ table pages\)$'
while IFS='|' read -r what line; do
    expect_in $RUN dom1.txt "mbtest: $what" "^mbtest: $line\$"
done <<'EOF'
prints through the virtual 16550|started
was booted by multiboot|PASS: booted with a multiboot magic
sees its command line|command line 'modules=1 exit=5 singlestep=1 pmtimer=1 testdev=1 say="hello world"'
sees the loader's name|PASS: boot loader name Vertigo
sees the memory map|PASS: memory map: RAM from 1 MiB to the top, as mem_upper says
sees its module, its string and its bytes|module 0: 22 bytes at 0x[0-9a-f]{8}, string 'envfile two words', first line 'NR_CPUS=1'
counts one module|PASS: the modules the command line expects
reads fw_cfg's CPU count|PASS: fw_cfg CPU count 1
reads fw_cfg's RAM size|PASS: fw_cfg RAM size is the top of the memory map
finds the ACPI RSDP|PASS: ACPI RSDP \(revision 2\) in the BIOS area, checksums valid
finds the PM timer in the FADT|PASS: ACPI FADT names a 32-bit PM timer \(PM_TMR_BLK, PM_TMR_LEN 4, X_PM_TMR_BLK\)
reads the PM timer at its rate|PASS: ACPI PM timer counts 3.579545 MHz of the TSC rate CPUID leaf 0x15 gives
is refused a byte read and a write of the PM timer|PASS: ACPI PM timer: a byte read reads all ones, a write does not reset it
reads pc-testdev's port back|PASS: pc-testdev port reads back a word, a byte at 0xe2 and the dword
sends a string to pc-testdev's port|PASS: pc-testdev port: REP OUTSB leaves the last byte, ESI past the string
finds pc-testdev's memory zeroed|PASS: pc-testdev memory at 0xff000000 starts zeroed
reads pc-testdev's port into its memory|PASS: pc-testdev port: REP INSB into the test memory across a page
reads pc-testdev's memory back|PASS: pc-testdev memory reads back what was written, first page to last
starts on the xAPIC|PASS: the local APIC starts enabled in xAPIC mode at 0xfee00000
reads the xAPIC page|PASS: xAPIC MMIO: version register of an integrated APIC
switches to x2APIC|PASS: x2APIC MSR: the same version after the switch
is single-stepped over CPUID|PASS: single-step #DB after CPUID, at the next instruction
is single-stepped over STI;HLT|PASS: single-step #DBs after STI and after HLT, each at the next instruction
every check passed|22 passed, 0 failed
EOF
expect_not_in $RUN dom1.txt "mbtest: no check failed" '^mbtest: FAIL'
expect_in $RUN com2.txt "the PM timer's first refused access is reported" \
    '^vhw: domain 1: ACPI PM timer: 1-byte IN from port 0x608 refused: a read narrower than 32 bits \(reads all ones\)$'
expect_in $RUN com2.txt "the test-exit code reaches Vertigo" \
    '^guest: domain 1 \(mbtest\) test-exit code 5 \(QEMU.s exit status would be 11\)$'
expect_in $RUN com2.txt "domain 1's verdict names the code" \
    '^guest: domain 1 \(mbtest\) verdict FAIL: test-exit code 5$'
if grep -q 'the multiboot kernel wrote 5 to the test-exit port: exit status 11' "$E2E_OUT/$RUN.runner.txt"; then
    pass "$RUN: vertigo run says it exits as QEMU would"
else
    fail "$RUN: vertigo run says it exits as QEMU would" "see $E2E_OUT/$RUN.runner.txt"
fi
# The refusals, each with its rule, while domain 1 ran on.
while IFS='|' read -r n name why; do
    expect_in $RUN com2.txt "$name refused: $why" \
        "^vertigo: dom\\.$n \\($name\\): multiboot kernel '[a-z]+' refused: $why"
    expect_in $RUN com2.txt "$name's verdict" "^guest: domain $n \\($name\\) verdict FAIL: refused\$"
    expect_not_in $RUN com2.txt "$name never ran" "^vmx: domain $n vcpu"
done <<'EOF'
2|noheader|no multiboot header \(in the first 8 KiB\) or multiboot2 header
3|notelf|the image is not an ELF file and its header has no load addresses$
4|outside|a segment lies outside the domain's RAM \(program header 0, [0-9]+ bytes at 0x7f000000\)$
5|low|a segment lies below 1 MiB, where the boot information and the firmware tables are \(program header 0, [0-9]+ bytes at 0x10000\)$
6|badaddr|the header's load addresses are inconsistent \(address 0x200100\)$
7|bigmodule|a module does not fit in the domain's RAM after the kernel \(module 0, 9437184 bytes at 0x[0-9a-f]+\)$
EOF
expect_in $RUN com2.txt "the run fails: domains were refused" '^VERTIGO-END: FAIL'

# One domain's sampling session against another domain's calls.
RUN2=multiboot-sessions
HV2="console=com2 log=e9 dom.2=unikernel:owner dom.2.name=owner dom.2.mem=8M \
dom.3=unikernel:rival dom.3.name=rival dom.3.mem=8M"
run_vertigo $RUN2 1 --platform bochs --timeout 600 --cmdline "$HV2" \
    --multiboot "$MB/mbtest.elf" --append "modules=0 exit=0" \
    --module "$BUILD/unikernel/ukfault.elf" "owner owner" --module "$BUILD/unikernel/ukfault.elf" "rival rival"
expect_in $RUN2 dom2.txt "owner: its own session starts" '^ukfault: owner: session started \(0\)$'
expect_in $RUN2 com2.txt "owner: the session samples domain 2 only" '^sample: the session samples domain 2 only'
expect_in $RUN2 dom3.txt "rival: stopping domain 2's session is refused" \
    '^ukfault: rival: stopping another domain.s session: refused \(-3\)$'  # -EPERM
expect_in $RUN2 dom3.txt "rival: a session beside domain 2's is refused" \
    '^ukfault: rival: a session beside another domain.s: refused \(-5\)$'  # -EBUSY
expect_in $RUN2 dom2.txt "owner: the session was still its own to stop" \
    '^ukfault: owner: session stopped by its owner \([0-9]+\)$'
expect_in $RUN2 com2.txt "owner passes" '^guest: domain 2 \(owner\) verdict PASS'
expect_in $RUN2 com2.txt "rival passes (both refusals as they must be)" '^guest: domain 3 \(rival\) verdict PASS'
expect_in $RUN2 com2.txt "the run passes" '^VERTIGO-END: PASS'

# Two test kernels that sleep on their virtual APIC timers, sharing CPU 0
# without domain 0: domain 1 sleeps once (0.4 s of guest time) and ends at
# once when it wakes; domain 2 has by then gone to sleep for 2 s. With
# both asleep the CPU idles in domain 2's HLT, which carries the
# preemption timer's deadline for domain 1's wake-up (docs/architecture.md,
# "Domains and the scheduler"). Left alone when domain 1 ended, domain 2
# once kept that deadline, past: every entry exited at once, and the run
# that ends in 6 s here reached its 180 s limit without domain 2 waking.
RUN3=multiboot-sleepers
HV3="console=com2 log=none dom.2=multiboot:sleeper dom.2.name=sleeper dom.2.mem=8M"
run_vertigo $RUN3 1 --platform bochs --timeout 120 --cmdline "$HV3" \
    --multiboot "$MB/mbtest.elf" --append "modules=0 sleeps=1 sleep_ticks=20000000" \
    --module "$MB/mbtest.elf" "sleeper modules=0 sleeps=1 sleep_ticks=100000000"
for dom in 1 2; do
    expect_in $RUN3 dom$dom.txt "domain $dom slept on its APIC timer" \
        '^mbtest: PASS: slept on the APIC timer as many times as sleeps= asks$'
done
expect_in $RUN3 com2.txt "domain 1 ends first" '^guest: domain 1 \(mbtest\) verdict PASS'
expect_in $RUN3 com2.txt "domain 2, alone after it, wakes and ends" '^guest: domain 2 \(sleeper\) verdict PASS'
line_of() { grep -n "$2" "$E2E_OUT/$RUN3/com2.txt" | head -n1 | cut -d: -f1; }
end1=$(line_of $RUN3 '^guest: domain 1 (mbtest) verdict'); end2=$(line_of $RUN3 '^guest: domain 2 (sleeper) verdict')
if [ -n "$end1" ] && [ -n "$end2" ] && [ "$end1" -lt "$end2" ]; then
    pass "$RUN3: domain 2 outlived domain 1 (verdicts at lines $end1 and $end2)"
else
    fail "$RUN3: domain 2 outlived domain 1" "verdicts at lines '${end1:-}' and '${end2:-}'"
fi
expect_in $RUN3 com2.txt "the run passes" '^VERTIGO-END: PASS'
exit $E2E_FAILED
