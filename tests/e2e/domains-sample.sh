#!/bin/bash
# End-to-end test of sampling several Linux domains (docs/user-guide.md,
# "Profiling several domains"), one Bochs boot: three Linux domains (the
# same kernel and initramfs, each booted nokaslr) time-share CPU 0 with
# 10 ms slices while one sampling session from Vertigo's command line
# (instructions:uk) samples all of them.
#   dom0     domain 0 with the guest agent: /bin/sort_nofp (qsort with a
#            spinning comparison, cmp), maps shipped before it runs;
#   lin1     Linux domain 1 with its own agent: the demonstration workload
#            (hot/warm/cool+leaf = 60/30/10 % of its user instructions);
#   passive  Linux domain 2 without an agent (it ships no symbols).
# Checks: the report's split of the samples by domain is each domain's
# share of the CPU, measured apart by Vertigo's exit statistics (the
# guest cycles of its VCPU; one soft-PMU tick is one emulated instruction),
# within 2 points; each agent domain's functions are named under it and
# only under it (both programs are static binaries linked at the same
# addresses, so a sample named from the other domain's maps would show the
# other program's functions); the passive domain's kernel samples stay raw
# addresses until a kallsyms file is given for it (--kallsyms 2=FILE).
#
# The kallsyms given for the passive domain: a user gives the symbols of
# that domain's kernel. Debian's kernel package ships only a placeholder
# System.map (the real one is in its -dbg package, 280 MB), so the file is
# the /proc/kallsyms that domain 0's agent shipped in this log: the same
# kernel image, booted nokaslr like domain 2, so its core kernel's
# addresses are domain 2's too. The test checks domain 2 itself shipped
# nothing, so its names can only come from the file.
# Cost: one Bochs boot, about 180 s of Bochs CPU time (its wall clock on
# a loaded 2-core machine: 8 to 11 min); the checks take 3 s.
# The frame checker finds no invalid frame in any domain (check-frames).
# DS_REUSE=1 re-checks the captures of the last boot without booting.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

RUN=domains-sample
PERIOD=100003   # about 400 samples of each domain's 40 M-instruction program
# (cryptomgr.notests: the crypto manager's self-tests, RSA's above all,
# took 15 % of each boot; the library self-tests, blake2s's among them,
# still run and check the register switch below)
COMMON="nokaslr tsc=reliable panic=-1 quiet $GUEST_BOOT_SKIP"
GUEST="console=ttyS0,115200 $COMMON vertigo.agent=1 vertigo.scenario=sort vertigo.sort_rounds=3000"
DOM1="$COMMON vertigo.agent=1 vertigo.scenario=workload vertigo.workload_scale=4"
DOM2="$COMMON vertigo.scenario=hello"     # Vertigo adds the console
HV="console=com2 log=e9 sample.events=instructions:uk sample.period=$PERIOD sched.slice=10ms \
dom.1=linux:kernel:initrd dom.1.cmdline=\"$DOM1\" dom.1.name=lin1 dom.1.mem=128M \
dom.2=linux:kernel:initrd dom.2.cmdline=\"$DOM2\" dom.2.name=passive dom.2.mem=128M"

[ -n "$DS_REUSE" ] || run_linux $RUN 0 "$GUEST" --platform bochs --timeout 1500 --cmdline "$HV"

# Every domain ran its scenario and passed; the run ends after the last.
expect_line $RUN "dom0's sort scenario" '^VERTIGO-GUEST: sort: PASS$'
expect_in $RUN dom1.txt "lin1's workload scenario" '^VERTIGO-GUEST: workload: PASS$'
expect_in $RUN dom2.txt "passive's hello scenario" '^VERTIGO-GUEST: hello: PASS$'
expect_in $RUN com2.txt "the session samples from the command line" \
    "^sample: session started by the command line: instructions:uk every $PERIOD events"
expect_in $RUN com2.txt "the run ends after every domain" \
    '^VERTIGO-END: PASS \(every domain passed and powered off\)$'

# Each domain keeps its own x87/SSE/AVX registers across the switches:
# the kernel's library self-tests (blake2s with SSSE3/AVX-512 inside
# kernel_fpu_begin) pass and the agents run (with the registers shared,
# both failed in domains 1 and 2).
for f in serial.txt dom1.txt dom2.txt; do
    expect_not_in $RUN $f "no kernel self-test failed ($f)" 'self-test.*FAIL'
done
# A Linux domain's own virtual PMU interrupts (its NMI watchdog's) are
# its own: none reaches domain 0 as an NMI it cannot attribute.
expect_no_unknown_nmi $RUN
for f in dom1.txt dom2.txt; do
    expect_not_in $RUN $f "no unknown NMI in the kernel log ($f)" 'Uhhuh|Dazed and confused'
done
expect_line $RUN "dom0's agent ran" '^vertigo-agent: ready: [0-9]+ chunks, [0-9]+ bytes shipped, 0 refused$'
expect_in $RUN dom1.txt "lin1's agent ran" '^vertigo-agent: ready: [0-9]+ chunks, [0-9]+ bytes shipped, 0 refused$'

# Each agent shipped its own domain's symbols; the passive domain none.
decode $RUN
log="$E2E_OUT/$RUN/debugcon.txt"
for d in 0 1; do
    expect_in $RUN decode.txt "domain $d's agent shipped its kallsyms" " symbols dom=$d kind=kallsyms pid=0 "
    expect_in $RUN decode.txt "domain $d's agent shipped process maps" " symbols dom=$d kind=proc-maps pid=[1-9]"
done
expect_not_in $RUN decode.txt "domain 2 shipped no symbols (passive)" ' symbols dom=2 '

# The split by domain against each domain's CPU time: the guest cycles in
# the exit statistics Vertigo prints at each domain's end.
report="$E2E_OUT/$RUN/report.txt"
ROOTS=(--guest-root 0="$BUILD/guest/initramfs" --guest-root lin1="$BUILD/guest/initramfs")
"$VERTIGO" report --sort domain,dso,sym "${ROOTS[@]}" "$log" >"$report" 2>"$report.err" ||
    fail "$RUN: vertigo report --sort domain,dso,sym" "exit $?: $(head -n 2 "$report.err")"
grep '^# Domains:' "$report" | indent
guest_cycles() {
    capture $RUN com2.txt | awk -v d="$1" '$1 == "guest:" && $2 == "domain" { mine = ($3 == d) }
        mine && /cycles in the guest$/ { print $(NF-4); exit }'
}
share_of() { sed -nE "s/^# Domains:.* $1 ([0-9.]+)%.*/\1/p" "$report"; }
c0=$(guest_cycles 0) c1=$(guest_cycles 1) c2=$(guest_cycles 2)
s0=$(share_of dom0) s1=$(share_of lin1) s2=$(share_of passive)
expect_share_split $RUN 2 "dom0 lin1 passive" "$c0 $c1 $c2" "$s0 $s1 $s2"

# Each agent domain's program named from its own agent's maps, and only
# under its own domain.
rows() { awk -v dom="$1" -v dso="$2" '$3 == dom && $4 == dso && $5 == "[.]" { n[$6] += $2 }
    END { for (f in n) print f, n[f] }' "$report"; }
named() { rows "$1" "$2" | awk -v f="$3" '$1 == f { print $2 }'; }
cmp=$(named dom0 /bin/sort_nofp cmp)
[ "${cmp:-0}" -gt 0 ] && pass "$RUN: dom0's sort_nofp samples named from dom0's maps (cmp: $cmp)" ||
    fail "$RUN: dom0's sort_nofp samples named" "$(grep -m3 ' dom0 ' "$report")"
h=$(named lin1 /bin/workload hot) w=$(named lin1 /bin/workload warm)
c=$(named lin1 /bin/workload cool) l=$(named lin1 /bin/workload leaf)
if [ "${h:-0}" -gt 0 ] && [ "${w:-0}" -gt 0 ]; then
    pass "$RUN: lin1's workload samples named from lin1's maps (hot $h, warm $w, cool $c, leaf $l)"
    expect_workload_shares "$RUN: lin1's workload share of" "$h" "$w" $(( ${c:-0} + ${l:-0} ))
else
    fail "$RUN: lin1's workload samples named" "$(grep -m3 ' lin1 ' "$report")"
fi
[ -z "$(rows lin1 /bin/sort_nofp)$(rows passive /bin/sort_nofp)" ] &&
    pass "$RUN: no other domain's samples named from dom0's sort_nofp" ||
    fail "$RUN: sort_nofp rows only under dom0" "$(grep sort_nofp "$report" | grep -v ' dom0 ' | head -n 3)"
[ -z "$(rows dom0 /bin/workload)$(rows passive /bin/workload)" ] &&
    pass "$RUN: no other domain's samples named from lin1's workload" ||
    fail "$RUN: workload rows only under lin1" "$(grep /bin/workload "$report" | grep -v ' lin1 ' | head -n 3)"
for d in dom0 lin1; do
    grep -qE "^ +[0-9.]+% +[0-9]+ +$d +\[kernel\.kallsyms\] +\[k\] [a-z_]" "$report" &&
        pass "$RUN: $d's kernel samples named from its agent's kallsyms" ||
        fail "$RUN: $d's kernel samples named" "$(grep -m3 " $d .*kernel" "$report")"
done

# The passive domain: raw kernel addresses, then names from --kallsyms 2=FILE.
kernel_rows() {     # "NAMED UNNAMED": samples of domain $1's kernel rows in report $2
    awk -v dom="$1" '$3 == dom && $4 == "[kernel.kallsyms]" && $5 == "[k]" {
        if ($6 == "[unknown]") u += $2; else n += $2 } END { print n + 0, u + 0 }' "$2"
}
kallsyms="$E2E_OUT/$RUN/dom0.kallsyms"
python3 - "$E2E_OUT/$RUN/decode.txt" >"$kallsyms" <<'EOF'
# Domain 0's last complete kallsyms set in the decoded log, as text.
import re, sys
pat = re.compile(r' symbols dom=0 kind=kallsyms pid=0 epoch=(\d+) chunk=(\d+) last=(\d) len=\d+ "(.*)"$')
sets, done = {}, []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = pat.search(line.rstrip("\n"))
    if not m:
        continue
    epoch, chunk, last, text = int(m[1]), int(m[2]), m[3] == "1", m[4]
    if chunk == 0:
        sets[epoch] = []
    sets.setdefault(epoch, []).append(text)
    if last:
        done.append(epoch)
text = "".join(sets[done[-1]]) if done else ""
sys.stdout.write(re.sub(r'\\(x[0-9a-f]{2}|.)', lambda m: {"n": "\n", "t": "\t"}.get(
    m[1], chr(int(m[1][1:], 16)) if m[1][0] == "x" and len(m[1]) == 3 else m[1]), text))
EOF
passive_named="$E2E_OUT/$RUN/report-kallsyms.txt"
"$VERTIGO" report --sort domain,dso,sym "${ROOTS[@]}" --kallsyms 2="$kallsyms" "$log" >"$passive_named" 2>&1 ||
    fail "$RUN: report --kallsyms 2=FILE" "$(head -n 2 "$passive_named")"
read -r raw_named raw_unnamed <<<"$(kernel_rows passive "$report")"
read -r ks_named ks_unnamed <<<"$(kernel_rows passive "$passive_named")"
echo "    kallsyms from dom0's shipment: $(wc -l <"$kallsyms") symbols; passive kernel samples:" \
     "without it $raw_named named + $raw_unnamed raw, with it $ks_named named + $ks_unnamed raw"
[ "$raw_unnamed" -gt 0 ] && [ "$raw_named" = 0 ] &&
    pass "$RUN: the passive domain's kernel samples stay raw addresses ($raw_unnamed)" ||
    fail "$RUN: the passive domain's kernel samples stay raw" "$raw_named named, $raw_unnamed raw"
total=$((ks_named + ks_unnamed))
[ "$total" = "$raw_unnamed" ] && [ $((ks_named * 100)) -ge $((total * 95)) ] &&
    pass "$RUN: --kallsyms 2=FILE names $ks_named of its $total kernel samples (>= 95 %)" ||
    fail "$RUN: --kallsyms 2=FILE names the passive domain's kernel samples" \
        "$ks_named of $total named (without it: $raw_unnamed)"
grep -qE '^# Domains:.* passive [0-9.]+% \([0-9]+ samples, passive\)' "$report" &&
    pass "$RUN: the report marks domain 2 passive" ||
    fail "$RUN: the report marks domain 2 passive" "$(grep '^# Domains:' "$report")"

# Every frame of every domain's samples, checked against the bytes of the
# binary it is named in: each domain's own guest files and kallsyms, the
# same kernel image for all three, vertigo.elf.
expect_valid_frames $RUN "${ROOTS[@]}" --kallsyms 2="$kallsyms" --vertigo-elf "$BUILD/vertigo.elf" \
    --kernel-image "$KERNEL" --kernel-image lin1="$KERNEL" --kernel-image passive="$KERNEL"
