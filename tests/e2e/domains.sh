#!/bin/bash
# End-to-end test of several domains on one CPU (docs/architecture.md,
# "Domains and the scheduler"), one Bochs boot: domain 0 (Linux) time-shares
# CPU 0 with 10 ms slices with a Linux domain 1 (the same kernel, the perf
# initramfs of `make guest-perf`) that has only virtual hardware (a 16550
# console, an x2APIC, its own CPUID and ACPI tables), and with two
# unikernel domains (guestlib/unikernel): ukloop, whose instructions:u
# counts must be exact while the others run interleaved
# (tests/e2e/ukloop_check.py), and ukfault refused, whose console
# hypercall from user mode Vertigo refuses; and two multiboot domains, the
# project's test kernel (tests/multiboot/mbtest.c) with a multiboot header
# (a module, dom.N.cmdline=) and with a multiboot2 header (its command line
# the rest of its module's line), each passing its checks of the virtual
# hardware and ending through the test-exit port with code 0. Each Linux domain counts its
# own known loop with its own virtual PMU while the other computes: both
# boot the perf initramfs and run Debian's `perf stat -e instructions:u`
# (the perf scenario's check 1, N and 2N), then domain 0 counts with
# perf_event_open (tests/guest/vpmu_perf.c) again and again until domain 1
# has ended; every instructions:u difference is exact. Every domain passes
# and powers off; the run ends after the last.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

PERF_INITRD="$BUILD/guest/initrd-perf.cpio"
# Domain 0 counts 3 N and 6 N loop instructions per run (N = VPMU_N) until
# a run has the CPU to itself (domain 1 ended; at most until its uptime is
# VPMU_UNTIL s); domain 1's perf stat counts 5 N and 10 N (N = PERF_N):
# each spans many slices (10 ms of guest time is 500,000 instructions at
# Bochs' 50 M a second).
VPMU_N=2000000
VPMU_UNTIL=150
PERF_N=1000000
GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet vertigo.scenario=perf,vpmu \
vertigo.perf_stat_only vertigo.perf_loop=$PERF_N vertigo.bp_slot=0 vertigo.bp_wait vertigo.vpmu=$VPMU_N \
vertigo.vpmu_until=$VPMU_UNTIL"
UK="$BUILD/unikernel"
N=2000000       # ukloop's iterations: about 12 M instructions, many slices
RUN=domains
# Vertigo adds the console
DOM1="nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP vertigo.scenario=perf,domhw vertigo.perf_stat_only vertigo.perf_loop=$PERF_N \
vertigo.bp_slot=1 vertigo.bp_idle"
MB="$BUILD/multiboot"
HV="console=com2 pmu.events=instructions:u sched.slice=10ms dom.1=linux:kernel:initrd dom.1.cmdline=\"$DOM1\" \
dom.1.name=lin1 dom.1.mem=256M dom.2=unikernel:ukloop dom.2.name=ukloop dom.2.mem=32M \
dom.3=unikernel:ukfault dom.3.name=fault dom.3.mem=8M \
dom.4=multiboot:mbk:mbenv dom.4.name=mb1 dom.4.mem=16M dom.4.cmdline=\"modules=1 beside=linux\" \
dom.5=multiboot:mbk2 dom.5.name=mb2 dom.5.mem=16M"

if [ ! -s "$PERF_INITRD" ]; then
    fail "$RUN: perf initramfs" "no $PERF_INITRD: run make BUILD=$BUILD guest-perf"
    exit 1
fi
INITRD=$PERF_INITRD     # domain 0's too (run_linux)
mkdir -p "$E2E_OUT"
printf 'NR_CPUS=1\n' >"$E2E_OUT/$RUN-env.txt"
run_linux $RUN 0 "$GUEST" --platform bochs --timeout 1500 --mem 800 --cmdline "$HV" \
    --module "$UK/ukloop.elf" "ukloop 0 $N" --module "$UK/ukfault.elf" "ukfault refused" \
    --module "$MB/mbtest.elf" mbk --module "$E2E_OUT/$RUN-env.txt" "mbenv hello env" \
    --module "$MB/mbtest2.elf" "mbk2 modules=0 from=line"

# Set-up: each domain's RAM taken and hidden from domain 0, its own EPT.
expect_in $RUN com2.txt "domain 2's RAM taken from Vertigo's allocator" \
    "^domain 2 \(ukloop\): unikernel 'ukloop', 32 MiB of RAM at \[0x[0-9a-f]+-0x[0-9a-f]+\), cpu 0$"
expect_in $RUN com2.txt "domain 3's EPT maps its 8 MiB and nothing else" \
    '^vmx: domain 3: EPT maps guest-physical \[0, 0x800000\) to \[0x[0-9a-f]+-0x[0-9a-f]+\), nothing else'
expect_in $RUN com2.txt "Linux domain 1's RAM taken from Vertigo's allocator" \
    "^domain 1 \(lin1\): linux 'kernel', 256 MiB of RAM at \[0x[0-9a-f]+-0x[0-9a-f]+\), cpu 0$"
expect_in $RUN com2.txt "domain 1's kernel loaded, ACPI tables in its RAM, console and noapic added" \
    '^domain 1 \(lin1\): Linux kernel at 0x[0-9a-f]+, initrd at 0x[0-9a-f]+ \([0-9]+ KiB\), ACPI tables at 0x9f000, command line "console=ttyS0,115200 noapic nokaslr .*vertigo.scenario=perf,domhw .*"$'
expect_in $RUN com2.txt "the slice" '^sched: slice 10000 us of guest time$'

# Domain 0: its own perf stat exact, then its perf events exact in every
# run (vpmu_perf prints the last run's checks, or the failed one's).
expect_line $RUN "domain 0: perf stat -e instructions:u difference exact" \
    "^perf_guest: PASS: perf stat instructions:u difference exact \(N=$PERF_N: "
expect_line $RUN "domain 0's perf scenario" '^VERTIGO-GUEST: perf: PASS$'
expect_line $RUN "domain 0's perf_event_open instructions:u difference exact" \
    '^vpmu_perf: PASS: instructions:u difference exact \(N='$VPMU_N
expect_line $RUN "domain 0's vpmu scenario (every run exact)" '^VERTIGO-GUEST: vpmu: PASS$'
expect_in $RUN com2.txt "domain 0's verdict" '^guest: domain 0 \(dom0\) verdict PASS: perf,vpmu$'

# Linux domain 1: its kernel on the virtual hardware, its console (the
# virtual 16550) in dom1.txt, its scenario, its ACPI power-off. First its
# kernel's log, "WHAT|MESSAGE" (after the timestamp):
while IFS='|' read -r what message; do
    expect_in $RUN dom1.txt "domain 1 $what" "^\[ *[0-9.]+\] $message\$"
done <<'EOF'
read the e820 map with the ACPI page|BIOS-e820: \[mem 0x000000000009f000-0x000000000009ffff\] ACPI data
found the MADT in that page|ACPI: APIC 0x000000000009F[0-9A-F]{3} .*
keeps the x2APIC|x2apic: enabled by BIOS, switching to x2apic ops
knows its TSC rate from CPUID|tsc: Detected [0-9.]+ MHz (processor|TSC)
uses the TSC-deadline timer|TSC deadline timer available
has the virtual 16550 as console|printk: console \[ttyS0\] enabled
EOF
expect_not_in $RUN dom1.txt "domain 1 got no #GP on an MSR it needs" 'unchecked MSR access error'
expect_not_in $RUN dom1.txt "domain 1 never fell back to the xAPIC's MMIO page" 'x2apic disabled'
expect_in $RUN dom1.txt "domain 1 reached user space" '^vertigo-init: running scenario perf$'
expect_in $RUN dom1.txt "domain 1's perf driver found its virtual PMU" \
    '^\[ *[0-9.]+\] Performance Events: .*Intel PMU driver'
expect_in $RUN dom1.txt "domain 1: perf stat counted its events for N and 2N" \
    '^perf_guest: PASS: perf stat counted instructions:u,instructions:k,cycles,ref-cycles'
expect_in $RUN dom1.txt "domain 1: perf stat -e instructions:u difference exact" \
    "^perf_guest: PASS: perf stat instructions:u difference exact \(N=$PERF_N: "
expect_in $RUN dom1.txt "domain 1's perf scenario" '^VERTIGO-GUEST: perf: PASS$'
capture $RUN dom1.txt | grep -E '^perf_guest: |^  [0-9]+,,(instructions:u|cycles),' | indent

# Debug registers are each domain's own: both Linux domains count their
# writes to one of two slots of the same static binary with a hardware
# breakpoint (tests/guest/bp_count.c; domain 0 slot 0, domain 1 slot 1),
# at the same time: domain 0's last round keeps its breakpoint armed until
# domain 1 has counted and gone idle (tests/guest/scenarios/perf), and the
# test checks that their TSC
# windows overlap by at least half of the shorter (the domains share the
# TSC). A DR0 left in the CPU by the other domain would count the other
# slot's writes, twice as many, or none.
expect_line $RUN "domain 0: its hardware breakpoint counted every write exactly" \
    '^perf_guest: PASS: hardware breakpoint on slot 0 counted every write exactly$'
expect_in $RUN dom1.txt "domain 1: its hardware breakpoint counted every write exactly" \
    '^perf_guest: PASS: hardware breakpoint on slot 1 counted every write exactly$'
bp0=$(capture $RUN | sed -nE 's/^bp_count: tsc ([0-9]+) to ([0-9]+)$/\1 \2/p')
bp1=$(capture $RUN dom1.txt | sed -nE 's/^bp_count: tsc ([0-9]+) to ([0-9]+)$/\1 \2/p')
overlap=$(echo "$bp0 $bp1" | awk 'NF == 4 {
    lo = $1 > $3 ? $1 : $3; hi = $2 < $4 ? $2 : $4; s0 = $2 - $1; s1 = $4 - $3
    short = s0 < s1 ? s0 : s1
    if (short > 0 && hi > lo && (hi - lo) * 2 >= short) printf "%.0f", 100 * (hi - lo) / short }')
[ -n "$overlap" ] &&
    pass "$RUN: the two domains' breakpoint runs overlapped ($overlap % of the shorter)" ||
    fail "$RUN: the two domains' breakpoint runs overlapped by half the shorter" \
        "domain 0 tsc '$bp0', domain 1 tsc '$bp1'"
capture $RUN | grep -E '^bp_count: (tsc|after|the other|[0-9]+ windows|shared again|never|PASS|FAIL)' | indent
capture $RUN dom1.txt | grep -E '^bp_count: (tsc|PASS|FAIL)' | indent
capture $RUN | grep -E '^vpmu: |^vpmu_perf: (PASS|FAIL): instructions:u' | indent
# Interleaved. In Bochs a TSC tick is an instruction, so a window's share
# of the CPU is the guest's own instructions over the window's TSC ticks:
# near 100 % (less Vertigo's exits) alone, about half or less while
# another domain runs between the VCPU's runs. Domain 1: its cycles (the
# software backend counts its VCPU's guest ticks) over perf stat's running
# time (ns, TSC time) at the TSC rate its kernel detected; domain 0: the
# TSC ticks vpmu_perf read around each run's 2N window. Each domain's
# exact counts had the CPU for less than MAX_SHARE % of the ticks, and
# domain 0 counted until domain 1 had ended (its last run alone). The
# domains' uptimes cannot be compared (domain 1's lagged domain 0's by seconds).
MAX_SHARE=75
# (Domain 0 boots quiet, so its kernel's TSC line is not on its console:
# its windows are converted at the rate domain 1's kernel found, the same
# machine TSC.)
mhz=$(capture $RUN dom1.txt | sed -nE 's/^\[ *[0-9.]+\] tsc: Detected ([0-9.]+) MHz.*/\1/p' | head -n1)
stat_shares() {     # FILE: each perf stat window's share, "%d "
    capture $RUN "$1" | awk -F, -v mhz="$mhz" '/^ +[0-9]+,/ && $3 == "cycles" && $4 > 0 && mhz > 0 {
        printf "%d ", 100 * $1 / ($4 * mhz / 1000) }'
}
for dom in 0 1; do
    file=dom1.txt; [ $dom = 0 ] && file=serial.txt
    shares=$(stat_shares $file)
    if [ -n "$mhz" ] && awk -v s="$shares" -v max=$MAX_SHARE 'BEGIN {
            n = split(s, a, " "); if (n != 2) exit 1
            for (i = 1; i <= n; i++) if (a[i] >= max) exit 1 }'; then
        pass "$RUN: domain $dom's exact perf stat windows shared the CPU (its share of them: ${shares}%)"
    else
        fail "$RUN: domain $dom's perf stat windows shared the CPU" \
            "shares '${shares}' (TSC ${mhz:-unknown} MHz), want two below $MAX_SHARE %"
    fi
done
dom0_shares=$(capture $RUN | sed -nE 's/^vpmu: run [0-9]+: 2N window: .* \(([0-9]+) % of them\)$/\1/p' | tr '\n' ' ')
shared=$(awk -v s="$dom0_shares" -v max=$MAX_SHARE 'BEGIN {
    n = split(s, a, " "); for (i = 1; i <= n; i++) if (a[i] < max) k++; print k + 0 }')
if [ "$shared" -ge 1 ]; then
    pass "$RUN: $shared of domain 0's exact perf_event_open windows shared the CPU (its shares: ${dom0_shares}%)"
else
    fail "$RUN: domain 0's perf_event_open windows shared the CPU" "shares '${dom0_shares}', want one below $MAX_SHARE %"
fi
order=$(capture $RUN com2.txt | sed -nE 's/^guest: domain ([01]) powered off.*/\1/p' | tr -d '\n')
if [ "$order" = 10 ]; then
    pass "$RUN: domain 0 counted until domain 1 had powered off"
else
    fail "$RUN: domain 0 counted until domain 1 had powered off" "power-off order of domains 1 and 0: '$order'"
fi
expect_not_in $RUN serial.txt "domain 1's console stayed out of domain 0's" 'Command line: console=ttyS0,115200 noapic'
# Each VCPU's virtual PMU interrupts (the NMI watchdog's) reach its own
# kernel, and no program died of another domain's registers (CR2, SSE).
for f in serial.txt dom1.txt; do
    expect_not_in $RUN $f "no unknown NMI in $f" 'Uhhuh\. NMI received'
    expect_not_in $RUN $f "no segfault or killed init in $f" 'segfault at|Attempted to kill init'
done
expect_in $RUN com2.txt "domain 1 powered off through its FADT's sleep register" \
    '^guest: domain 1 powered off \(ACPI S5 \(sleep control register\)\)$'
# Then what a Linux domain may not do with the hardware Vertigo emulates
# for it (scenario domhw, vertigo_probe.ko test=domain): MSR writes WRMSR
# would refuse #GP in the guest (never in Vertigo), its own values are
# taken back, and its virtual APIC's periodic timer of 1 tick fires at
# most once per 200 us.
expect_in $RUN dom1.txt "domain 1: every emulated MSR refuses a bad value with #GP and takes its own" \
    '^vertigo_probe: domain: [1-9][0-9]* passed, 0 failed$'
expect_in $RUN dom1.txt "domain 1: TSC_AUX with a reserved bit #GP" \
    '^vertigo_probe: domain msr TSC_AUX: bit 32 \(reserved\) #GP: ok$'
expect_in $RUN dom1.txt "domain 1: a periodic virtual APIC timer of 1 tick fires at most once per 200 us" \
    '^vertigo_probe: vlapic: a periodic timer of 1 tick fires at most once per 200 us: ok$'
# Its wall clock comes from its CMOS clock (vmm/vhw/vrtc.h): the time
# Vertigo read from the machine's at start-up (its "clock:" line) plus the
# emulated seconds since, which the run's TSC keeps under 1000 (without
# the clock the kernel gave up on it and counted from 1970).
hv_clock=$(capture $RUN com2.txt | sed -nE 's/^clock: ([0-9-]+ [0-9:]+) \(the CMOS clock, taken as UTC\)$/\1/p' | head -n1)
dom_clock=$(capture $RUN dom1.txt | sed -nE 's/^domhw: wall clock ([0-9]+) s$/\1/p' | head -n1)
if [ -n "$hv_clock" ] && [ -n "$dom_clock" ] && since=$(( dom_clock - $(date -u -d "$hv_clock" +%s) )) &&
        [ "$since" -ge 0 ] && [ "$since" -lt 1000 ]; then
    pass "$RUN: domain 1's wall clock is Vertigo's clock $since s later"
else
    fail "$RUN: domain 1's wall clock" "Vertigo's clock '${hv_clock:-none}', domain 1's '${dom_clock:-none}'"
fi
# The floor, counted here from the probe's figures: its window (ended by
# a timer of Linux's own after 20 ms, later only by the slices of the
# domains that share the CPU: under 100 ms) of S us holds at most
# S / 200 + 1 interrupts: 101 for a window of 20 ms, as
# docs/architecture.md says.
floor_line=$(capture $RUN dom1.txt | grep -E '^vertigo_probe: domain: vlapic: [0-9]+ timer interrupts in [0-9]+ us' | tail -n1)
read -r vl_count vl_us < <(sed -E 's/^.*vlapic: ([0-9]+) timer interrupts in ([0-9]+) us.*$/\1 \2/' <<<"$floor_line")
if [ -n "$floor_line" ] && [ "${vl_count:-0}" -ge 1 ] && [ "$vl_us" -ge 20000 ] && [ "$vl_us" -lt 100000 ] &&
        [ "$vl_count" -le $((vl_us / 200 + 1)) ]; then
    pass "$RUN: domain 1: its periodic virtual APIC timer of 1 tick: $vl_count interrupts in $vl_us us (at most $((vl_us / 200 + 1)))"
else
    fail "$RUN: domain 1: the periodic timer's floor" "${floor_line:-no vlapic line}"
fi
expect_in $RUN dom1.txt "domain 1's domhw scenario" '^VERTIGO-GUEST: domhw: PASS$'
capture $RUN dom1.txt | grep -E '^vertigo_probe: (domain|vlapic)' | grep -vE ': ok$' | indent
expect_in $RUN com2.txt "domain 1's verdict" '^guest: domain 1 \(lin1\) verdict PASS: perf,domhw$'

# ukloop: exact counts while sharing the CPU, its console in dom2.txt.
python3 tests/e2e/ukloop_check.py --run $RUN --console "$E2E_OUT/$RUN/dom2.txt" \
    --vertigo <(capture $RUN com2.txt) --domain 2 --n $N

# ukfault refused: VERTIGO_HC_CONSOLE_WRITE from CPL 3 gets -EPERM.
expect_in $RUN dom3.txt "a user-mode console hypercall is refused" \
    '^ukfault: VERTIGO_HC_CONSOLE_WRITE from CPL 3 returned -3$'
expect_not_in $RUN com2.txt "the refused text never reached the console" 'must not appear'
expect_in $RUN com2.txt "domain 3's verdict" '^guest: domain 3 \(fault\) verdict PASS'

# The multiboot domains beside Linux: loaded, their checks passed, their
# test-exit code 0 their PASS.
expect_in $RUN com2.txt "domain 4's multiboot kernel loaded with its module and command line" \
    '^domain 4 \(mb1\): multiboot kernel .mbk.: 1 segments at \[0x200000-0x[0-9a-f]+\), .* 1 modules at .*command line "modules=1 beside=linux"$'
expect_in $RUN com2.txt "domain 5's multiboot2 kernel loaded, its command line from its module line" \
    '^domain 5 \(mb2\): multiboot2 kernel .mbk2.: .* 0 modules at .*command line "modules=0 from=line"$'
expect_in $RUN dom4.txt "domain 4 sees its module's string and bytes" \
    "^mbtest: module 0: 10 bytes at 0x[0-9a-f]{8}, string 'hello env', first line 'NR_CPUS=1'\$"
expect_in $RUN dom4.txt "domain 4 sees its command line" "^mbtest: command line 'modules=1 beside=linux'\$"
expect_in $RUN dom5.txt "domain 5 was booted through multiboot2" '^mbtest: multiboot2 information at 0x[0-9a-f]{8}$'
for d in 4 5; do
    expect_in $RUN dom$d.txt "domain $d's every check passed" '^mbtest: 12 passed, 0 failed$'
    expect_in $RUN com2.txt "domain $d's test-exit code reached Vertigo" \
        "^guest: domain $d \\(mb$((d - 3))\\) test-exit code 0 "
    expect_in $RUN com2.txt "domain $d's verdict: PASS from code 0" \
        "^guest: domain $d \\(mb$((d - 3))\\) verdict PASS: test-exit code 0\$"
done

# Time sharing: each of domain N's statistics (between its power-off and
# its verdict) shows its VCPU switched in at least MIN times.
switches_in() {
    capture $RUN com2.txt | sed -n "/^guest: domain $1 powered off/,/^guest: domain $1 ($2) verdict/p" |
        sed -nE 's/^exits: vcpu 0: ([0-9]+) switches in, .*/\1/p'
}
expect_switches() {
    local n; n=$(switches_in "$1" "$2")
    if [ -n "$n" ] && [ "$n" -ge "$3" ]; then
        pass "$RUN: $2's VCPU got CPU 0 back $n times (10 ms slices)"
    else
        fail "$RUN: $2's VCPU shared CPU 0" "switches in: '${n:-none}', expected >= $3"
    fi
}
expect_switches 2 ukloop 10
expect_switches 1 lin1 100
# A halted Linux domain sleeps until its virtual timer: HLT exits, no spin.
hlts=$(capture $RUN com2.txt | sed -n '/^guest: domain 1 powered off/,/^guest: domain 1 (lin1) verdict/p' |
       sed -nE 's/^exits: vcpu 0: HLT +([0-9]+) exits.*/\1/p')
if [ -n "$hlts" ] && [ "$hlts" -ge 1 ]; then
    pass "$RUN: lin1 halted $hlts times and was woken by its virtual timer"
else
    fail "$RUN: lin1 halted and woke" "HLT exits: '${hlts:-none}'"
fi
expect_in $RUN com2.txt "domain 2 powered off by hypercall" \
    '^guest: domain 2 powered off \(power-off hypercall\)$'
expect_in $RUN com2.txt "the run ends after every domain" \
    '^VERTIGO-END: PASS \(every domain passed and powered off\)$'
