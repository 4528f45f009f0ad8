#!/bin/bash
# End-to-end tests of the guest side of profiling: the kernel module, the
# agent shipping kernel symbols, process maps and JIT maps (two epochs),
# and bad input (malformed symbol chunks, session control from user mode);
# a session of one process (`record`: vertigo-ctl record around the
# workload while a shell loop competes, only the workload sampled);
# then the main job's scenario (`profile`: a session started from the
# guest around the demonstration workload) sampling instructions:ukh, so
# the report holds the whole stack: the workload's functions, kernel
# symbols and Vertigo's own functions (the software PMU single-steps
# Vertigo to find its overflow points, pmu/soft/pmu_step.h); before it,
# `churn`: programs that fork, exec and exit while sampled with user and
# kernel stacks (instructions:uk). Each session's samples carry its own
# event's name (the log's event ids are run-wide), so each check reads
# its own session's event: dwarf's instructions:u, record's cycles:u,
# churn's instructions:uk, profile's instructions:ukh. The
# frame checker (vertigo check-frames) finds no invalid frame in the
# whole capture.
# One boot under Vertigo in Bochs, one bare boot under QEMU TCG (where the
# module must refuse to load and everything degrades cleanly).
# AGENT_REUSE=1 re-checks the captures of the last Bochs boot without booting.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet vertigo.scenario=agent,jit,badinput"

# pmu.step_ahead above the profile's period (10007): every stretch of
# Vertigo is single-stepped, so every hypervisor overflow is found at its
# instruction (the unstepped stretches far from an overflow are the soak's,
# tests/soak/vpmu_soak.sh, and the unit tests').
[ -n "$AGENT_REUSE" ] || run_linux agent 0 "$GUEST,dwarf,record,churn,profile vertigo.profile_event=instructions:ukh vertigo.agent=1" \
    --platform bochs --timeout "$LINUX_BOOT_TIMEOUT" --cmdline "console=com2 log=e9 pmu.step_ahead=16384"
for s in agent jit badinput dwarf record churn profile; do
    expect_line agent "$s scenario" "^VERTIGO-GUEST: $s: PASS$"
done
expect_no_unknown_nmi agent
decode agent
decoded="$E2E_OUT/agent/decode.txt"
expect_in agent decode.txt "log: kallsyms chunks" ' symbols dom=0 kind=kallsyms pid=0 epoch=0 chunk=0 '
expect_in agent decode.txt "log: kallsyms has the kernel's start_kernel" 'start_kernel'
expect_in agent decode.txt "log: process maps" ' symbols dom=0 kind=proc-maps pid=[1-9][0-9]* '
expect_in agent decode.txt "log: process identities" ' symbols dom=0 kind=process pid=[1-9][0-9]* '
expect_in agent decode.txt "log: the kernel's build id" ' symbols dom=0 kind=kernel-build-id pid=0 .* "[0-9a-f]{40}\\n"$'
expect_in agent decode.txt "log: JIT map, epoch 1" ' symbols dom=0 kind=jit-map pid=[1-9][0-9]* epoch=1 .*jit_loop_epoch1'
expect_in agent decode.txt "log: JIT map, epoch 2 with the moved code" \
    ' symbols dom=0 kind=jit-map pid=[1-9][0-9]* epoch=2 .*jit_loop_epoch2'

# The whole stack in one profile: Vertigo's samples on its own functions.
com2=$(capture agent com2.txt)
report="$E2E_OUT/agent/report.txt"
opts=("${GUEST_SYMS[@]}" --event instructions:ukh)
"$VERTIGO" report --by-mode "${opts[@]}" "$E2E_OUT/agent/debugcon.txt" >"$report" 2>"$report.err" ||
    fail "agent: profile: vertigo report" "exit $?: $(head -2 "$report.err")"
# The log's build id is vertigo.elf's own (GNU build id note): no warning.
build=$(sed -nE 's/^# @[0-9]+ stream .* build=([0-9a-f]{40}) .*/\1/p' "$decoded" | head -1)
elf_id=$(elf_build_id "$BUILD/vertigo.elf")
[ -n "$build" ] && [ "$build" = "$elf_id" ] && ! grep -q warning "$report.err" &&
    pass "agent: the log carries vertigo.elf's build id ($build)" ||
    fail "agent: the log carries vertigo.elf's build id" "log '$build', ELF '$elf_id': $(head -1 "$report.err")"
read -r taken replayed missed late <<<"$(echo "$com2" | sed -nE \
    's/^pmu: vcpu 0: Vertigo single-stepped for :h sampling: [0-9]+ steps, ([0-9]+) hypervisor samples at their step, ([0-9]+) from the exit path.s RIP ring, ([0-9]+) missed; [0-9]+ of [0-9]+ stretches unstepped \([0-9]+ ticks counted by TSC, pmu.step_ahead=[0-9]+; [0-9]+ entries joined the stretch before them; [0-9]+ far rounds\), ([0-9]+) late$/\1 \2 \3 \4/p')"
hv_logged=$(grep -cE ' sample .*mode=hypervisor' "$decoded")
hv_report=$(awk '$1 == "dom0" && $3 == "hypervisor" { print $4 }' "$report")
[ -n "$taken" ] && [ "$taken" -gt 0 ] && [ $((taken + replayed + late)) = "$hv_logged" ] &&
    pass "agent: profile: every hypervisor overflow found by stepping is one sample ($taken at their step + $replayed replayed + $late late = $hv_logged logged, $missed missed)" ||
    fail "agent: profile: hypervisor samples from stepping" "taken '$taken' replayed '$replayed' late '$late' logged '$hv_logged'"
# Missed (no sample) or late (sampled at a sync point, not at its
# instruction). At most 20 %: a stretch of Vertigo runs unstepped when its
# kind's longest so far (plus PMU_STEP_MARGIN) cannot reach the overflow,
# so a kind's first long stretch, or one longer than any before, runs past
# an overflow now and then (docs/pmu.md). Eleven boots of this scenario
# gave 5 to 14 of 82 to 102 late (median 7.3 %, at most 15.7 %) while the
# exit path after an unstepped entry was never stepped, so an overflow in
# it was late whenever the guest ended its run (an EPT violation, a
# VMCALL) just before the overflow; since the exit stub steps that path
# when the run ends near an overflow, four boots gave 3 of 92, 4 of 100,
# 4 of 94 and 2 of 83, 0 missed.
[ $(( (${missed:-1} + ${late:-1}) * 100 )) -le $(( (taken + replayed + late) * 20 )) ] &&
    pass "agent: profile: at most 20 % of hypervisor overflows missed or late ($missed, $late of $((taken + replayed + late)))" ||
    fail "agent: profile: hypervisor overflows missed or late" "'$missed' and '$late' of $((taken + replayed + late))"
# The guest's runs end at the overflows of the :h counter too: its run's
# deadline leaves room for the rest of Vertigo's entry path, learnt as the
# least seen, so a run goes past the overflow point only by what that path
# varies (at most 2 events in four boots; 194 to 212 before, the whole
# entry path). 16: the entry path's branches that vary (the timer's
# deadline owners, an event to inject) with room to spare.
hskid=$(echo "$com2" | sed -nE 's/^pmu: vcpu 0: sampled instructions:ukh every [0-9]+: [0-9]+ overflows, skid at most ([0-9]+) events$/\1/p' | sort -n | tail -n1)
[ -n "$hskid" ] && [ "$hskid" -le 16 ] &&
    pass "agent: profile: the guest's runs stop at the :h counter's overflows (skid at most $hskid <= 16)" ||
    fail "agent: profile: skid of instructions:ukh in the guest's runs" "'$hskid' (> 16)"
[ "${hv_report:-0}" = "$hv_logged" ] && pass "agent: profile: the report's hypervisor mode has them all ($hv_report)" ||
    fail "agent: profile: the report's hypervisor mode" "'$hv_report' vs $hv_logged logged"
# Rows of Vertigo's own functions, named from its ELF with file:line (the
# path joined to the directory it was compiled in).
hv_rows=$(grep -cE ' vertigo\.elf +\[h\] [a-z_][a-z0-9_]+  (/[^ ]*/)?(vmm|vmx|pmu|boot)/[a-z0-9_]+\.[cS]:[0-9]+$' "$report")
[ "$hv_rows" -ge 3 ] && pass "agent: profile: hypervisor samples on $hv_rows Vertigo functions with file:line" ||
    fail "agent: profile: hypervisor samples on Vertigo functions" "$(grep -m3 vertigo.elf "$report")"
grep -qE "$KERNEL_ROW" "$report" && [ -n "$(report_samples "$report" /bin/workload hot)" ] &&
    pass "agent: profile: the same report names kernel and workload functions" ||
    fail "agent: profile: kernel and workload rows" "see $report"
# The workload's 60/30/10 shares hold in the whole-stack profile too.
cool=$(report_samples "$report" /bin/workload cool) leaf=$(report_samples "$report" /bin/workload leaf)
expect_workload_shares "agent: profile: share of the workload:" \
    "$(report_samples "$report" /bin/workload hot)" "$(report_samples "$report" /bin/workload warm)" \
    $(( ${cool:-0} + ${leaf:-0} ))
folded="$E2E_OUT/agent/folded.txt"
"$VERTIGO" export --format folded "${opts[@]}" "$E2E_OUT/agent/debugcon.txt" >"$folded" 2>/dev/null
# (folded lines start with the process name; the functions inlined into
# a frame follow it as NAME_[i])
grep -qE '(^|;)main;run;hot(;[^; ]+_\[i\])* [0-9]+$' "$folded" &&
    pass "agent: profile: the workload's call chains in the folded export" ||
    fail "agent: profile: the workload's call chains" "$(grep -m2 'run;' "$folded")"

# The pprof export names the kernel's build (the id the agent shipped).
pprof="$E2E_OUT/agent/profile.pb.gz"
"$VERTIGO" export --format pprof -o "$pprof" "${opts[@]}" "$E2E_OUT/agent/debugcon.txt" 2>/dev/null
HOME="$E2E_OUT/agent" go tool pprof -symbolize=none -raw "$pprof" 2>/dev/null | grep -qE ' \[kernel\.kallsyms\] [0-9a-f]{40} ' &&
    pass "agent: go tool pprof: the [kernel.kallsyms] mapping has the kernel's build id" ||
    fail "agent: pprof kernel build id" "$(HOME="$E2E_OUT/agent" go tool pprof -symbolize=none -raw "$pprof" 2>&1 | grep -m1 kallsyms)"

# Guest kernel call stacks through the kernel's own ORC tables, which the
# agent declared: no kernel frame is an unnamed kernel address, and the
# pipe round trips' pipe_write samples sit under the workload's user frames
# (main;...;write), across the system call's entry frame.
echo "$com2" | grep -qE '^sample: domain 0: kernel ORC tables: [0-9]+ of [0-9]+ entries kept' &&
    pass "agent: the agent declared the kernel's ORC tables" ||
    fail "agent: the kernel's ORC tables" "$(echo "$com2" | grep -m1 'kernel unwind\|ORC')"
kaddr='\[\[kernel\.kallsyms\]\]_\[k\]([; ]|$)'     # an unknown kernel function, folded
unnamed=$(grep -cE "$kaddr" "$folded")
[ "$unnamed" = 0 ] && pass "agent: profile: no unnamed kernel frame ([[kernel.kallsyms]]_[k])" ||
    fail "agent: profile: unnamed kernel frames" "$unnamed stacks: $(grep -m2 -E "$kaddr" "$folded")"
read -r under total <<<"$(awk '/pipe_write/ { t += $NF
    if ($0 ~ /(^|;)main;([^;]*;)*[^;]*write;entry_SYSCALL_64[^;]*;([^;]*;)*pipe_write/) u += $NF }
    END { print u + 0, t + 0 }' "$folded")"
[ "$total" -gt 0 ] && [ $((under * 100)) -ge $((total * 95)) ] &&
    pass "agent: profile: $under of $total pipe_write samples under main;...;write (>= 95 %)" ||
    fail "agent: profile: pipe_write samples under the workload's user frames" \
        "$under of $total: $(grep -m2 pipe_write "$folded")"

# User stacks through code without frame pointers (the dwarf scenario:
# /bin/sort_nofp's qsort callback, --call-graph dwarf, instructions:u):
# the copied user stacks unwound on the host from the binary's DWARF CFI
# give the whole chain main;...;qsort;...;cmp, as a frame-pointer walk
# cannot.
dwarf_folded="$E2E_OUT/agent/dwarf-folded.txt"
"$VERTIGO" export --format folded "${GUEST_SYMS[@]}" --event instructions:u "$E2E_OUT/agent/debugcon.txt" \
    >"$dwarf_folded" 2>/dev/null
read -r chained leafs <<<"$(awk '/(^|;)cmp [0-9]+$/ { t += $NF
    if ($0 ~ /(^|;)main;([^;]*;)*[^;]*qsort[^;]*;([^;]*;)*cmp [0-9]+$/) c += $NF }
    END { print c + 0, t + 0 }' "$dwarf_folded")"
[ "$leafs" -gt 0 ] && [ $((chained * 100)) -ge $((leafs * 90)) ] &&
    pass "agent: dwarf: $chained of $leafs cmp samples under main;...;qsort;... (>= 90 %)" ||
    fail "agent: dwarf: cmp samples under main;...;qsort" "$chained of $leafs: $(grep -m2 'cmp [0-9]*$' "$dwarf_folded")"
grep -qE ' user-stack dom=0 vcpu=[0-9]+ rip=0x[0-9a-f]+ rsp=0x7ff[0-9a-f]+ rbp=0x[0-9a-f]+ bytes=[1-9]' "$decoded" &&
    pass "agent: dwarf: user-stack records in the log" ||
    fail "agent: dwarf: user-stack records" "none in $decoded"

# Every frame of every sample, checked against the bytes of the binary it
# is named in (the guest's files, the kernel image, vertigo.elf): the
# make-run scenario's samples and the churn scenario's processes that
# fork, exec and exit (in the same pid, two static programs at the same
# addresses) while they are sampled.
expect_valid_frames agent "${GUEST_SYMS[@]}" --kernel-image "$KERNEL"
churn=$("$VERTIGO" report --sort comm --event instructions:uk "${GUEST_SYMS[@]}" "$E2E_OUT/agent/debugcon.txt" 2>/dev/null |
    grep -cE '^ +[0-9.]+% +[0-9]+ +(workload|vertigo-ctl|exe|churn) *$')
[ "$churn" -ge 3 ] && pass "agent: churn: samples of $churn of its programs" ||
    fail "agent: churn: samples of its programs" "$churn"

# Whole-stack samples: a hypervisor sample taken while Vertigo handled an
# exit stands on the guest's stack at that exit. In the folded export, a
# line whose Vertigo frames (_[h]) sit on guest kernel frames (_[k]) that
# sit on the process's user frames; in pprof, a hypervisor sample
# (hypervisor_frames label) whose stack holds Vertigo's, the kernel's
# entry and the user's main.
read -r whole hv_all <<<"$(awk '{ c = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); h = k = u = 0
        for (i = 2; i <= n; i++) {
            if (!h && f[i] ~ /_\[h\]$/) h = i
            if (!h && f[i] ~ /_\[k\]$/ && !k) k = i
            if (!h && !k && f[i] !~ /_\[[khi]\]$/) u = i }
        if (h) t += c; if (h && k && u) w += c } END { print w + 0, t + 0 }' "$folded")"
[ "$whole" -gt 0 ] && pass "agent: whole stack: $whole of $hv_all hypervisor samples on the guest's user and kernel frames (folded)" ||
    fail "agent: whole stack in the folded export" "$whole of $hv_all: $(grep -m2 '_\[h\]' "$folded")"
! grep -qE '^\[vertigo\];[^ ]*_\[k\]' "$folded" && pass "agent: whole stack: no guest frame under a [vertigo] root" ||
    fail "agent: whole stack: guest frames under [vertigo]" "$(grep -m2 -E '^\[vertigo\];[^ ]*_\[k\]' "$folded")"
HOME="$E2E_OUT/agent" go tool pprof -symbolize=none -traces "$pprof" >"$E2E_OUT/agent/traces.txt" 2>/dev/null
awk '/^-+\+-+$/ { if (hv && vm && entry && main) ok++; hv = vm = entry = main = 0 }
     /hypervisor_frames:/ { hv = 1 } / (vmx|pmu|vmm)_[a-z_0-9.]*$/ { vm = 1 }
     / entry_SYSCALL_64[a-z_]*$/ { entry = 1 } / main$/ { main = 1 }
     END { if (hv && vm && entry && main) ok++; print ok + 0 }' "$E2E_OUT/agent/traces.txt" >"$E2E_OUT/agent/traces.n"
[ "$(cat "$E2E_OUT/agent/traces.n")" -gt 0 ] &&
    pass "agent: whole stack: pprof samples with Vertigo's frames on the guest's kernel entry and main ($(cat "$E2E_OUT/agent/traces.n") stacks)" ||
    fail "agent: whole stack in pprof" "none in $E2E_OUT/agent/traces.txt"

# Perfetto's protobuf trace of the same samples: protoc decodes it with
# the project's schema, its interning is what Perfetto's importer needs,
# and its stacks are the folded export's.
"$VERTIGO" export --format pftrace -o "$E2E_OUT/agent/trace.pftrace" "${opts[@]}" "$E2E_OUT/agent/debugcon.txt" 2>/dev/null &&
    protoc --decode vertigo.pftrace.Trace -I tests/fixtures/perfetto vertigo_trace.proto \
        <"$E2E_OUT/agent/trace.pftrace" >"$E2E_OUT/agent/pftrace.txt" 2>"$E2E_OUT/agent/pftrace.err" &&
    msg=$(python3 tests/e2e/pftrace_check.py "$E2E_OUT/agent/pftrace.txt" "$folded" 2>&1) &&
    pass "agent: export pftrace: ${msg#pftrace: }" ||
    fail "agent: export pftrace" "${msg:-$(head -3 "$E2E_OUT/agent/pftrace.err")}"

# Annotated assembly of the workload's hot loop: pprof (built from
# Debian's source, reading build ids) finds /bin/workload by the build id
# the export carries; `vertigo annotate hot` gives each instruction its
# samples with hot's source lines; both add up to hot's samples.
# Both pprofs read the export of the workload's samples alone (--comms
# workload): pprof itself places a binary at the address of the first
# sampled location it looks at, in an order that changes from run to run,
# so in the whole capture's profile a location of another image ([vdso],
# another program) placed /bin/workload wrongly in 6 runs of 8 on one capture
# ("no matches found"); and Go's pprof takes the binary its command line
# names for the first mapping, which the workload's samples make
# /bin/workload's. --dsos /bin/workload also leaves out the workload's
# samples in [vdso] or Vertigo (report.sh's capture showed the same
# wrong placement from such an address in 5 runs of 30).
hot=$(report_samples "$report" /bin/workload hot)
go_pprof="$E2E_OUT/agent/workload.pb.gz"
"$VERTIGO" export --format pprof --comms workload --dsos /bin/workload -o "$go_pprof" "${opts[@]}" "$E2E_OUT/agent/debugcon.txt" 2>/dev/null
HOME="$E2E_OUT/agent" PPROF_BINARY_PATH="$PWD/$BUILD/guest/initramfs/bin" "$BUILD/pprof" -sample_index=samples \
    -tagfocus=mode=user -disasm '\bhot\b' "$go_pprof" >"$E2E_OUT/agent/disasm.txt" 2>"$E2E_OUT/agent/disasm.err"
read -r rows sum <<<"$(awk '$3 ~ /^[0-9a-f]+:$/ && $1 ~ /^[0-9]+$/ && $1 > 0 { n++; s += $1 } END { print n + 0, s + 0 }' \
    "$E2E_OUT/agent/disasm.txt")"
grep -q '^ROUTINE =* hot$' "$E2E_OUT/agent/disasm.txt" && [ "$rows" -ge 3 ] && [ "$sum" = "$hot" ] &&
    pass "agent: pprof -disasm hot: the loop's $rows instructions with samples, $sum in all" ||
    fail "agent: pprof -disasm hot" "$rows rows, $sum of '$hot': $(head -6 "$E2E_OUT/agent/disasm.txt" "$E2E_OUT/agent/disasm.err")"
# Go's own pprof (go tool pprof) reads no build id from a local file, so
# it takes a binary only when its command line names one, for the
# profile's first mapping (its main binary: the ELF image with the most
# user samples); its -disasm of hot has the same counts. (An anchored
# '^hot$' finds nothing with either pprof, in any profile: they match the
# regexp against each sampled address's "ADDRESS NAME FILE:LINE" before
# they open a binary.)
HOME="$E2E_OUT/agent" go tool pprof -sample_index=samples -tagfocus=mode=user -disasm '\bhot\b' \
    "$BUILD/guest/initramfs/bin/workload" "$go_pprof" >"$E2E_OUT/agent/go-disasm.txt" 2>"$E2E_OUT/agent/go-disasm.err"
read -r rows sum <<<"$(awk '$3 ~ /^[0-9a-f]+:$/ && $1 ~ /^[0-9]+$/ && $1 > 0 { n++; s += $1 } END { print n + 0, s + 0 }' \
    "$E2E_OUT/agent/go-disasm.txt")"
grep -q '^ROUTINE =* hot$' "$E2E_OUT/agent/go-disasm.txt" && [ "$rows" -ge 3 ] && [ "$sum" = "$hot" ] &&
    pass "agent: go tool pprof -disasm hot (/bin/workload on the command line): the loop's $rows instructions with samples, $sum in all" ||
    fail "agent: go tool pprof -disasm hot" "$rows rows, $sum of '$hot': $(head -6 "$E2E_OUT/agent/go-disasm.txt" "$E2E_OUT/agent/go-disasm.err")"
"$VERTIGO" annotate "${opts[@]}" hot "$E2E_OUT/agent/debugcon.txt" >"$E2E_OUT/agent/annotate.txt" 2>/dev/null
read -r rows sum <<<"$(awk '$3 == ":" && $1 ~ /^[0-9.]+$/ { n++; s += $2 } END { print n + 0, s + 0 }' \
    "$E2E_OUT/agent/annotate.txt")"
grep -qE '^ +: +/.*tests/guest/workload\.c:[0-9]+$' "$E2E_OUT/agent/annotate.txt" && [ "$rows" -ge 3 ] &&
    [ "$sum" = "$hot" ] && pass "agent: annotate hot: $rows instructions with samples adding up to its $sum, with source lines" ||
    fail "agent: annotate hot" "$rows rows, $sum of '$hot': $(head -12 "$E2E_OUT/agent/annotate.txt")"

# vertigo-ctl record (the record scenario): a session of one process. Its
# user samples (cycles:u, which no other session of the run samples) are
# all the recorded workload's, by its PID; Vertigo
# counted the competing shell loop's PMIs and wrote no sample for them.
rec_pid=$(capture agent | sed -nE 's/^vertigo-ctl: record: pid ([0-9]+) \(workload\), .*/\1/p' | head -n1)
expect_in agent com2.txt "record: the session is scoped to one page-table root" \
    '^sample: only the process of page-table root 0x[0-9a-f]+$'
expect_in agent com2.txt "record: the other processes' PMIs were not sampled" \
    '^sample: session stopped: [1-9][0-9]* samples logged, [1-9][0-9]* PMIs of other processes not sampled$'
"$VERTIGO" export --format csv "${GUEST_SYMS[@]}" --event cycles:u "$E2E_OUT/agent/debugcon.txt" \
    >"$E2E_OUT/agent/record.csv" 2>/dev/null
procs=$(awk -F, 'NR > 1 { n[$6 " " $7] += $12 } END { for (p in n) print p ":" n[p] }' "$E2E_OUT/agent/record.csv")
[ -n "$rec_pid" ] && [ "${procs%%:*}" = "$rec_pid workload" ] && [ "$(echo "$procs" | wc -l)" = 1 ] &&
    pass "agent: record: every cycles:u sample is the recorded workload's (pid $rec_pid, ${procs##*:} samples)" ||
    fail "agent: record: samples of the recorded process only" "pid '$rec_pid'; samples by pid and comm: $procs"

# From the boot stub to the VCPU loop, Vertigo's frames marked _[h] on top
# of the guest's at the exit they served (the functions between depend on
# what LTO inlined, shown as NAME_[i]; static functions may carry GCC's
# clone suffixes, .lto_priv.0; vmx_vcpu_run's call of the loop, the
# scheduler's entry point, may be a tail call).
grep -qE '(^|;)boot_entry64_\[h\];([a-z_0-9.]+_\[[hi]\];)+vmx_vcpu_(run|loop)_\[[hi]\];[][a-z_;0-9.]+ [0-9]+$' "$folded" &&
    pass "agent: profile: Vertigo's call stacks in the folded export" ||
    fail "agent: profile: Vertigo's call stacks" "$(grep -m2 vmx_ "$folded")"

# Without Vertigo (QEMU TCG boots the kernel directly): the module refuses,
# the scenarios say so and still pass.
mkdir -p "$E2E_OUT/agent-bare"
timeout 300 qemu-system-x86_64 -accel tcg -m 512 -kernel "$KERNEL" -initrd "$INITRD" \
    -append "$GUEST vertigo.agent=1" -display none -no-reboot -monitor none \
    -serial "file:$E2E_OUT/agent-bare/serial.txt" </dev/null >/dev/null 2>&1
for s in agent jit badinput; do
    expect_line agent-bare "$s scenario without Vertigo" "^VERTIGO-GUEST: $s: PASS$"
done
