#!/bin/bash
# End-to-end tests of the VT-x core: an unmodified Linux guest under
# Vertigo in Bochs. One boot runs several guest scenarios (each prints its
# own verdict line); a second boot checks SMP with two CPUs and hostile
# input from the guest (MSRs, I/O ports, hypercalls), with a unikernel
# domain sharing CPU 1.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST_BASE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet"
# Vertigo's image is linked at 2 MiB (linker.ld): the devmem scenario
# tries to read and write it from the guest.
VERTIGO_IMAGE=0x200000

run_linux linux-up 0 "$GUEST_BASE vertigo.scenario=hello,cpuid,devmem vertigo.devmem=$VERTIGO_IMAGE" \
    --platform bochs --timeout "$LINUX_BOOT_TIMEOUT" --cmdline "console=com2"
expect_line linux-up "guest runs a command" '^hello from the vertigo guest$'
expect_line linux-up "hello scenario" '^VERTIGO-GUEST: hello: PASS$'
expect_line linux-up "CPUID shows Vertigo's signature" '^cpuid: leaf 0x40000000: max leaf=0x40000001 signature="VertigoVMM'
expect_line linux-up "VMX hidden, hypervisor bit set" '^cpuid: leaf 1 ecx=0x[0-9a-f]{8}: VMX=0 hypervisor=1$'
expect_line linux-up "cpuid scenario" '^VERTIGO-GUEST: cpuid: PASS$'
expect_line linux-up "devmem scenario (refused or faulted, guest survived)" '^VERTIGO-GUEST: devmem: PASS$'
expect_in linux-up com2.txt "Vertigo logged the guest's access to its memory" \
    "^ept: vcpu 0: guest (read|write) of GPA 0x20[0-9a-f]{4} \(Vertigo's memory\)"
expect_in linux-up com2.txt "guest powered off" '^guest: domain 0 powered off'
expect_in linux-up com2.txt "exit statistics" '^exits: vcpu 0: CPUID +[0-9]+ exits'
expect_in linux-up com2.txt "guest verdict reached Vertigo" '^guest: verdict PASS'
expect_in linux-up com2.txt "run verdict" '^VERTIGO-END: PASS \(guest passed and powered off\)'

# The SMP boot also runs the hostile-input scenarios: every guarded MSR
# and I/O path from guest kernel mode (msrio), and hostile hypercalls from
# both CPUs at once, from user and kernel mode (hcfuzz; `make soak` runs
# 100,000 of each). Beside them a unikernel domain computes on CPU 1
# (dom.1.cpu=1), time-sharing it with domain 0's second VCPU: the
# scheduler of a CPU other than the boot CPU, with domain 0's interrupts
# and IPIs arriving there while the unikernel runs. The unikernel starts
# at once, before domain 0's kernel sends CPU 1 its SIPI (about 240 M
# TSC ticks later), so its loop is long enough to run on past that:
# 8 rounds of 16 M iterations, 384 M instructions.
HCFUZZ_CALLS=2000
UK_ROUNDS=8
UK_ITERATIONS=16000000
run_linux linux-smp 0 "$GUEST_BASE vertigo.scenario=cpuinfo,msrio,hcfuzz vertigo.expect_cpus=2 vertigo.hcfuzz_calls=$HCFUZZ_CALLS" \
    --platform bochs --cpus 2 --timeout "$LINUX_BOOT_TIMEOUT" \
    --cmdline "console=com2 log=e9 dom.1=unikernel:spin dom.1.cpu=1 dom.1.mem=8M" \
    --module "$BUILD/unikernel/ukspin.elf" "spin $UK_ROUNDS $UK_ITERATIONS"
expect_line linux-smp "both CPUs online in the guest" '^cpuinfo: 2 CPU\(s\) online$'
expect_line linux-smp "cpuinfo scenario" '^VERTIGO-GUEST: cpuinfo: PASS$'
expect_in linux-smp com2.txt "exit statistics for both VCPUs" '^exits: vcpu 1: '
expect_line linux-smp "msrio: every MSR and I/O check" '^vertigo_probe: msrio: [1-9][0-9]* passed, 0 failed$'
expect_line linux-smp "msrio scenario" '^VERTIGO-GUEST: msrio: PASS$'
for f in com2.txt debugcon.txt; do
    expect_not_in linux-smp $f "no byte of the guest's wide port writes in $f" 'forged by the guest'
done
expect_line linux-smp "hcfuzz: user-mode calls from 2 CPUs got their results" \
    "^hc_fuzz: $HCFUZZ_CALLS calls on 2 CPUs, 0 unexpected results$"
expect_line linux-smp "hcfuzz: kernel-mode calls from 2 CPUs got their results" \
    "^vertigo_probe: fuzz: $HCFUZZ_CALLS calls on 2 CPUs, 0 unexpected results$"
expect_line linux-smp "hcfuzz scenario" '^VERTIGO-GUEST: hcfuzz: PASS$'
expect_in linux-smp com2.txt "unikernel domain declared on CPU 1" \
    "^domain 1 \(dom1\): unikernel 'spin', 8 MiB of RAM at \[0x[0-9a-f]+-0x[0-9a-f]+\), cpu 1$"
expect_in linux-smp dom1.txt "unikernel on CPU 1 ran every round" "^ukspin: round $((UK_ROUNDS - 1)): instructions "
"$VERTIGO" decode "$E2E_OUT/linux-smp/debugcon.txt" >"$E2E_OUT/linux-smp/decode.txt" 2>&1
expect_in linux-smp decode.txt "its VCPU came online on CPU 1 (lifecycle record)" \
    ' dom=1 vcpu=0 event=vcpu-online arg=1$'
expect_in linux-smp decode.txt "domain 0's VCPU 1 came online on CPU 1 (lifecycle record)" \
    ' dom=0 vcpu=1 event=vcpu-online arg=1$'
# Shared: domain 0's VCPU 1 started (its SIPI taken at one of the
# unikernel's exits) before the unikernel powered off, and the unikernel
# got CPU 1 back from it.
order=$(capture linux-smp com2.txt | sed -nE 's/^smp: CPU 1 starts VCPU 1 .*/S/p; s/^guest: domain 1 powered off.*/E/p' | tr -d '\n')
switches=$(capture linux-smp com2.txt | sed -n '/^guest: domain 1 powered off/,/^guest: domain 1 (dom1) verdict/p' |
           sed -nE 's/^exits: vcpu 0: ([0-9]+) switches in, .*/\1/p')
if [ "$order" = SE ] && [ "${switches:-0}" -ge 1 ]; then
    pass "linux-smp: the unikernel shared CPU 1 with domain 0's VCPU 1 ($switches switches in)"
else
    fail "linux-smp: the unikernel shared CPU 1 with domain 0's VCPU 1" \
        "order of VCPU 1's start (S) and the unikernel's power-off (E): '$order', switches in: '${switches:-none}'"
fi
expect_in linux-smp com2.txt "the unikernel domain passed and powered off" '^guest: domain 1 \(dom1\) verdict PASS$'
expect_in linux-smp com2.txt "domain 0 passed too" '^guest: domain 0 \(dom0\) verdict PASS'
expect_in linux-smp com2.txt "Vertigo's end of the run after the hostile scenarios" \
    '^VERTIGO-END: PASS \(every domain passed and powered off\)'
