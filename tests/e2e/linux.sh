#!/bin/bash
# End-to-end tests of the VT-x core: an unmodified Linux guest under
# Vertigo in Bochs. One boot runs several guest scenarios (each prints its
# own verdict line); a second boot checks SMP with two CPUs.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.gz"
GUEST_BASE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet"
# Vertigo's image is linked at 2 MiB (linker.ld): the devmem scenario
# tries to read and write it from the guest.
VERTIGO_IMAGE=0x200000

guest_line() { tr -d '\r' < "$E2E_OUT/$1/serial.txt" | grep -qE -- "$3" &&
    pass "$1: $2" || fail "$1: $2" "no guest console line matches /$3/"; }
vertigo_line() { tr -d '\r' < "$E2E_OUT/$1/com2.txt" | grep -qE -- "$3" &&
    pass "$1: $2" || fail "$1: $2" "no Vertigo console line matches /$3/"; }

run_vertigo linux-up 0 --platform bochs --timeout 600 --cmdline "console=com2" \
    --kernel "$KERNEL" --initrd "$INITRD" \
    --guest-cmdline "$GUEST_BASE vertigo.scenario=hello,cpuid,devmem vertigo.devmem=$VERTIGO_IMAGE"
guest_line linux-up "guest runs a command" '^hello from the vertigo guest$'
guest_line linux-up "hello scenario" '^VERTIGO-GUEST: hello: PASS$'
guest_line linux-up "CPUID shows Vertigo's signature" '^cpuid: leaf 0x40000000: max leaf=0x40000001 signature="VertigoVMM'
guest_line linux-up "VMX hidden, hypervisor bit set" '^cpuid: leaf 1 ecx=0x[0-9a-f]{8}: VMX=0 hypervisor=1$'
guest_line linux-up "cpuid scenario" '^VERTIGO-GUEST: cpuid: PASS$'
guest_line linux-up "devmem scenario (refused or faulted, guest survived)" '^VERTIGO-GUEST: devmem: PASS$'
vertigo_line linux-up "Vertigo logged the guest's access to its memory" \
    "^ept: vcpu 0: guest (read|write) of GPA 0x20[0-9a-f]{4} \(Vertigo's memory\)"
vertigo_line linux-up "guest powered off" '^guest: domain 0 powered off'
vertigo_line linux-up "exit statistics" '^exits: vcpu 0: CPUID +[0-9]+ exits'
vertigo_line linux-up "guest verdict reached Vertigo" '^guest: verdict PASS'
vertigo_line linux-up "run verdict" '^VERTIGO-END: PASS \(guest passed and powered off\)'

run_vertigo linux-smp 0 --platform bochs --cpus 2 --timeout 900 --cmdline "console=com2" \
    --kernel "$KERNEL" --initrd "$INITRD" \
    --guest-cmdline "$GUEST_BASE vertigo.scenario=cpuinfo vertigo.expect_cpus=2"
guest_line linux-smp "both CPUs online in the guest" '^cpuinfo: 2 CPU\(s\) online$'
guest_line linux-smp "cpuinfo scenario" '^VERTIGO-GUEST: cpuinfo: PASS$'
vertigo_line linux-smp "exit statistics for both VCPUs" '^exits: vcpu 1: '
