#!/bin/bash
# End-to-end test of a Linux domain on a CPU other than 0 (docs/architecture.md,
# "Domains and the scheduler"), one Bochs boot with two CPUs: domain 0
# (Linux, maxcpus=1) stays on CPU 0 and never sends CPU 1 its SIPI; domain 1
# (Linux, dom.1.cpu=1) runs alone on CPU 1 from the start, entered there
# without waiting for domain 0. Both run the hello scenario, pass and power
# off; the run ends after the last.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

RUN=domains-cpu1
# cryptomgr.notests: the crypto manager's self-tests (its late initcall)
# were over half of each kernel's boot, and two boots on two Bochs CPUs
# cost twice one; neither domain shares its CPU, so they check no switch
# here. Domain 1 boots without quiet: its kernel's segfault lines count.
COMMON="nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP vertigo.scenario=hello"
GUEST="console=ttyS0,115200 $COMMON quiet maxcpus=1"
DOM="$COMMON"       # Vertigo adds the console
HV="console=com2 log=e9 sched.slice=10ms dom.1=linux:kernel:initrd dom.1.cmdline=\"$DOM\" dom.1.name=lin-cpu1 \
dom.1.mem=128M dom.1.cpu=1"

run_linux $RUN 0 "$GUEST" --platform bochs --cpus 2 --timeout 1500 --mem 512 --cmdline "$HV"

expect_in $RUN com2.txt "domain 1 declared on CPU 1" \
    "^domain 1 \(lin-cpu1\): linux 'kernel', 128 MiB of RAM at \[0x[0-9a-f]+-0x[0-9a-f]+\), cpu 1$"
expect_in $RUN com2.txt "domain 1 entered" '^vmx: domain 1 vcpu 0: entering the guest at rip 0x[0-9a-f]+$'
expect_not_in $RUN com2.txt "domain 0 never started its second VCPU (maxcpus=1)" '^smp: CPU 1 starts VCPU'
"$VERTIGO" decode "$E2E_OUT/$RUN/debugcon.txt" >"$E2E_OUT/$RUN/decode.txt" 2>&1
expect_in $RUN decode.txt "domain 1's VCPU came online on CPU 1 (lifecycle record)" \
    ' dom=1 vcpu=0 event=vcpu-online arg=1$'
expect_in $RUN decode.txt "domain 0's VCPU 0 came online on CPU 0 (lifecycle record)" \
    ' dom=0 vcpu=0 event=vcpu-online arg=0$'
# Its CMOS clock (vmm/vhw/vrtc.h): the kernel read its wall clock at once,
# where it used to poll an absent one for a second and give up.
expect_not_in $RUN dom1.txt "domain 1's kernel read its CMOS clock" 'Unable to read current time from RTC'
expect_not_in $RUN com2.txt "no refused access to the CMOS clock" 'CMOS clock: .* refused'
expect_in $RUN dom1.txt "domain 1's hello" '^VERTIGO-GUEST: hello: PASS$'
expect_in $RUN com2.txt "domain 1's verdict" '^guest: domain 1 \(lin-cpu1\) verdict PASS: hello$'
expect_line $RUN "domain 0's hello" '^VERTIGO-GUEST: hello: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: hello$'
for f in serial.txt dom1.txt; do
    expect_not_in $RUN $f "no segfault, oops or killed init in $f" 'segfault at|Attempted to kill init|Oops'
done
expect_in $RUN com2.txt "the run passes" '^VERTIGO-END: PASS'
