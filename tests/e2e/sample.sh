#!/bin/bash
# End-to-end test of overflow sampling in Bochs, one boot with 2 CPUs: a sampling session from Vertigo's command line
# (sample.events=instructions:u, software PMU, each overflow sampled at its exit) while the
# guest runs tests/guest/workload (hot/warm/cool+leaf = 60/30/10 % of its
# user instructions, built with frame pointers), then guest-sent NMIs
# (sysrq 'l': NMI IPIs to the other CPU) while sampling still runs.
# Checks: the shares of the sampled RIPs within 5 points, call stacks
# main -> run -> cool -> leaf, one sample per overflow, no spurious NMI,
# every NMI Vertigo sent taken as its own and none the guest could not
# attribute, the guest saw every NMI it sent, and `vertigo report` reads
# the capture (and script, export: folded, pprof, Perfetto).
# Without the guest agent there are no process maps in the log, so user
# addresses are attributed with `nm` of the workload binary (static, at
# its link address) and the address space (CR3) that ran it.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

WORKLOAD="$BUILD/guest/bin/workload"
GUEST_BASE="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet vertigo.agent=1"
PERIOD=10007
DEPTH=8
COST_EVERY=4        # time one PMI in 4 (sample.cost_every=; the default is 16)
RUN=sample

if [ -z "$SAMPLE_REUSE" ]; then
    run_linux $RUN 0 "$GUEST_BASE vertigo.scenario=workload,jit,nmi" \
        --platform bochs --cpus 2 --timeout 1500 \
        --cmdline "console=com2 log=e9 pmu=auto sample.events=instructions:u sample.period=$PERIOD sample.depth=$DEPTH sample.cost_every=$COST_EVERY"
fi

expect_in $RUN com2.txt "session from the command line" \
    "^sample: session started by the command line: instructions:u every $PERIOD events, stack depth $DEPTH$"
expect_line $RUN "workload ran" '^workload: hot [0-9]+, warm [0-9]+, cool [0-9]+ iterations'
expect_line $RUN "workload scenario" '^VERTIGO-GUEST: workload: PASS$'
expect_line $RUN "guest saw every NMI it sent" '^VERTIGO-GUEST: nmi: PASS$'
capture $RUN | grep '^nmi: requested' | indent

decode $RUN
decoded="$E2E_OUT/$RUN/decode.txt"
com2=$(capture $RUN com2.txt)
expect_in $RUN decode.txt "the stream header announces sample and symbols records" \
    '^# @[0-9]+ stream .* pmu=soft .* types=[a-z,-]*sample,[a-z,-]*symbols'

# One sample per overflow, nothing spurious: per CPU, PMIs = samples
# logged + dropped; the PMU's overflow counts = samples; log = console.
stats=$(echo "$com2" | grep -E '^sample: cpu [0-9]+: [0-9]+ PMIs,')
echo "$stats" | indent
read -r pmis logged dropped spurious <<<"$(echo "$stats" | awk '
    { p += $4; l += $6; d += $9; s += $11 } END { print p + 0, l + 0, d + 0, s + 0 }')"
# Per VCPU (VCPU n runs on CPU n): overflows the PMU counted vs PMIs the
# CPU took; a CPU still running while the end is reported may be one ahead.
pmi_mismatch=$(echo "$com2" | awk '
    /^sample: cpu [0-9]+: [0-9]+ PMIs,/ { sub(":", "", $3); pmi[$3] = $4 }
    /^pmu: vcpu [0-9]+: .* overflows$/ { sub(":", "", $3); ovf[$3] = $(NF - 1); seen[$3] = 1 }
    END { bad = ""; for (c in pmi) { d = pmi[c] - ovf[c]; if (!(c in seen) || d > 1 || d < -1) bad = bad " cpu" c ":" pmi[c] "/" ovf[c] }
          print bad }')
records=$(grep -c ' sample ' "$decoded")
[ "$pmis" -gt 0 ] && [ "$pmis" = $((logged + dropped)) ] &&
    pass "$RUN: every PMI gave one sample ($pmis PMIs, $logged logged, $dropped dropped)" ||
    fail "$RUN: every PMI gave one sample" "$pmis PMIs, $logged logged, $dropped dropped"
[ -z "$pmi_mismatch" ] && pass "$RUN: PMIs = counter overflows on every CPU" ||
    fail "$RUN: PMIs = counter overflows on every CPU" "PMIs/overflows:$pmi_mismatch"
[ "$records" = "$logged" ] && pass "$RUN: sample records in the log = samples logged ($records)" ||
    fail "$RUN: sample records in the log = samples logged" "$records vs $logged"
[ "$spurious" = 0 ] && pass "$RUN: no spurious NMI" || fail "$RUN: no spurious NMI" "$spurious"
# sample.cost_every=4: each CPU timed one PMI in 4, and about as many user
# call stacks: PMIs / 4 rounded up (the first PMI is timed), less at most
# 2: a timed PMI may record no stack (seen once in a fresh-clone run,
# 9,402 walks for 37,611 PMIs; its cause not yet found).
cost_bad=$(echo "$com2" | awk -v k="$COST_EVERY" '
    /^sample: cpu [0-9]+: [0-9]+ PMIs,/ { sub(":", "", $3); pmi[$3] = $4; if ($0 !~ "1 PMI in " k " measured") bad = bad " cpu" $3 ":not-1-in-" k }
    /^sample: cpu [0-9]+: user call stacks: [0-9]+ walks measured/ { sub(":", "", $3); walks[$3] = $7 }
    END { for (c in pmi) { t = int((pmi[c] + k - 1) / k)
              if (walks[c] > t || walks[c] < t - 2) bad = bad " cpu" c ":" walks[c] "-walks-for-" pmi[c] "-PMIs" }
          print bad }')
[ -n "$stats" ] && [ -z "$cost_bad" ] &&
    pass "$RUN: sample.cost_every=$COST_EVERY: one PMI in $COST_EVERY timed, about as many walks" ||
    fail "$RUN: sample.cost_every=$COST_EVERY" "$cost_bad"
expect_no_unknown_nmi $RUN
# Every NMI Vertigo sent a CPU was taken as Vertigo's (the last may still
# be on its way when the domain ends); merges are reasons riding on one.
nmis=$(echo "$com2" | grep -E "^nmi: cpu [0-9]+: Vertigo's NMIs ")
echo "$nmis" | indent
nmi_bad=$(echo "$nmis" | awk '{ if ($6 - $8 > 1 || $8 > $6) printf " cpu %s %s sent/%s taken", $3, $6, $8 }')
[ -n "$nmis" ] && [ -z "$nmi_bad" ] && pass "$RUN: every NMI Vertigo sent was taken as Vertigo's" ||
    fail "$RUN: every NMI Vertigo sent was taken as Vertigo's" "${nmi_bad:-no nmi: lines}"

# Shares of hot/warm/cool+leaf among the workload's sampled RIPs.
ranges=$(nm -S --defined-only "$WORKLOAD" | awk '
    $4 ~ /^(main|run|hot|warm|cool|leaf)$/ { print $4, $1, $2 }')
analysis=$(awk -v ranges="$ranges" '
    function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
        for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
        return v }
    function fn(a,   k) { for (k in lo) if (a >= lo[k] && a < hi[k]) return k; return "" }
    BEGIN { n = split(ranges, r, "\n")
        for (i = 1; i <= n; i++) { split(r[i], fld, " "); lo[fld[1]] = hex(fld[2]); hi[fld[1]] = hex(fld[2]) + hex(fld[3]) } }
    / sample / && /mode=[^ ]*user/ {
        rip = ""; cr3 = ""; stack = ""
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^rip=/) rip = substr($i, 5)
            if ($i ~ /^cr3=/) cr3 = substr($i, 5)
            if ($i ~ /^stack=/) stack = substr($i, 7)
        }
        f = fn(hex(rip)); if (f == "") next
        key = cr3 SUBSEP f; count[key]++; per_cr3[cr3]++
        if (f == "leaf") { leafs[cr3]++; split(stack, st, ",")
            if (fn(hex(st[1]) - 1) == "cool" && fn(hex(st[2]) - 1) == "run" && fn(hex(st[3]) - 1) == "main")
                chains[cr3]++ }
    }
    END { best = ""; for (c in per_cr3) if (best == "" || per_cr3[c] > per_cr3[best]) best = c
        printf "%d %d %d %d %d\n", count[best, "hot"], count[best, "warm"],
            count[best, "cool"] + count[best, "leaf"], leafs[best] + 0, chains[best] + 0 }
' "$decoded")
read -r hot warm cool leafs chains <<<"$analysis"
total=$((hot + warm + cool))
echo "    workload samples: $total (hot $hot, warm $warm, cool+leaf $cool; want 60/30/10 % +- 5)"
[ "$total" -ge 500 ] && pass "$RUN: enough workload samples ($total)" ||
    fail "$RUN: enough workload samples" "$total"
expect_workload_shares "$RUN: share of" "$hot" "$warm" "$cool"
[ "$leafs" -gt 0 ] && [ $((chains * 10)) -ge $((leafs * 9)) ] &&
    pass "$RUN: call stacks main -> run -> cool -> leaf ($chains of $leafs leaf samples)" ||
    fail "$RUN: call stacks main -> run -> cool -> leaf" "$chains of $leafs leaf samples"

# The host report reads the capture and counts every sample.
report="$E2E_OUT/$RUN/report.txt"
if "$VERTIGO" report "${GUEST_SYMS[@]}" "$E2E_OUT/$RUN/debugcon.txt" > "$report" 2>"$report.err"; then
    rep_total=$(sed -n 's/^# Total samples: \([0-9]*\).*/\1/p' "$report")
    [ "$rep_total" = "$records" ] && pass "$RUN: vertigo report counts every sample ($rep_total)" ||
        fail "$RUN: vertigo report counts every sample" "'$rep_total' vs $records"
    head -n 12 "$report" | indent
else
    fail "$RUN: vertigo report" "exit status $?: $(head -n3 "$report.err")"
fi
# Symbolized: the workload's functions by name (the agent shipped its maps
# and identity), kernel time on kallsyms symbols, call chains in the folded
# export, and a pprof export whose totals equal the report's.
h=$(report_samples "$report" /bin/workload hot); w=$(report_samples "$report" /bin/workload warm)
c=$(report_samples "$report" /bin/workload cool); l=$(report_samples "$report" /bin/workload leaf)
if [ $(( ${h:-0} + ${w:-0} + ${c:-0} + ${l:-0} )) -gt 0 ]; then
    expect_workload_shares "$RUN: report names" "$h" "$w" $(( ${c:-0} + ${l:-0} ))
else
    fail "$RUN: report names the workload's functions" "no /bin/workload hot/warm/cool rows in $report"
fi
# Every process named: the session samples from boot, so it sees the
# agent read and ship the kernel's symbols (most of the user samples); the
# agent names itself first. Only samples before its first identity (the
# exec of the agent, its module's loading: 0.38 % in a run at this commit)
# may stay [unknown]; 2 % bounds them.
by_comm="$E2E_OUT/$RUN/report-comm.txt"
"$VERTIGO" report "${GUEST_SYMS[@]}" --sort comm "$E2E_OUT/$RUN/debugcon.txt" >"$by_comm" 2>/dev/null
unknown=$(awk '$3 == "[unknown]" { n += $2 } END { print n + 0 }' "$by_comm")
agent=$(awk '$3 == "vertigo-agent" { n += $2 } END { print n + 0 }' "$by_comm")
[ "$agent" -gt 0 ] && [ $((unknown * 50)) -le "${rep_total:-0}" ] &&
    pass "$RUN: samples of unnamed processes $unknown of ${rep_total:-0} (vertigo-agent's start-up named: $agent)" ||
    fail "$RUN: samples of unnamed processes" "$unknown of ${rep_total:-0}, vertigo-agent $agent: $(sed -n '9,14p' "$by_comm")"
# JIT code (tests/guest/jit_test.c): the same bytes ran at two addresses,
# registered in two perf-map epochs; samples resolve to each epoch's name.
expect_line $RUN "jit scenario (both map epochs shipped)" '^VERTIGO-GUEST: jit: PASS$'
for epoch in 1 2; do
    n=$(awk -v sym="jit_loop_epoch$epoch" '/^ +[0-9.]+%/ { for (i = 4; i <= NF; i++)
        if ($i == sym && $(i - 1) ~ /^\[.\]$/) { s += $2; break } } END { print s + 0 }' "$report")
    [ "$n" -gt 0 ] && pass "$RUN: JIT samples resolve to jit_loop_epoch$epoch ($n)" ||
        fail "$RUN: JIT samples resolve to jit_loop_epoch$epoch" "no such rows in $report"
done
# instructions:u is sampled with the mode traps on (a counter that filters by
# mode), so its overflows are taken at their exact user-mode points and
# kernel samples are rare or absent; those there are must resolve through
# kallsyms (agent.sh checks kernel rows of an instructions:ukh session).
if grep -qE '^# Modes: .*kernel 0\.00%' "$report"; then
    pass "$RUN: no kernel samples of instructions:u (overflows taken at their user-mode points)"
else
    expect_in $RUN report.txt "kernel samples resolve to kallsyms symbols" "$KERNEL_ROW"
fi
folded="$E2E_OUT/$RUN/folded.txt"
"$VERTIGO" export --format folded "${GUEST_SYMS[@]}" "$E2E_OUT/$RUN/debugcon.txt" >"$folded" 2>/dev/null
inl='(;[^; ]+_\[i\])*'    # functions inlined into the leaf (spin, vertigo_loop_mix)
grep -qE "(^|;)main;run;cool;leaf$inl [0-9]+\$" "$folded" && grep -qE "(^|;)main;run;hot$inl [0-9]+\$" "$folded" &&
    pass "$RUN: folded stacks hold main;run;hot and main;run;cool;leaf" ||
    fail "$RUN: folded stacks hold the workload's call chains" "$(grep -m3 workload "$folded")"
grep -qE '^workload;([^;]+;)*main;run;hot;spin_\[i\];vertigo_loop_mix_\[i\] [0-9]+$' "$folded" &&
    pass "$RUN: folded stacks start with the process and show inlined spin;vertigo_loop_mix as _[i]" ||
    fail "$RUN: folded process root and inlined frames" "$(grep -m2 'run;hot' "$folded")"
# vertigo script through a stackcollapse-style parser gives the folded
# export's stacks and counts, in time order; the Perfetto export is Trace
# Event JSON with one track per VCPU (tests/e2e/script_check.py).
script="$E2E_OUT/$RUN/script.txt"
"$VERTIGO" script "${GUEST_SYMS[@]}" "$E2E_OUT/$RUN/debugcon.txt" >"$script" 2>/dev/null
out=$(tests/e2e/script_check.py fold "$script" "$folded" 2>&1) && pass "$RUN: vertigo script, folded: $out" ||
    fail "$RUN: vertigo script folds to the folded export" "$out"
perfetto="$E2E_OUT/$RUN/trace.json"
"$VERTIGO" export --format perfetto -o "$perfetto" "${GUEST_SYMS[@]}" "$E2E_OUT/$RUN/debugcon.txt" 2>/dev/null
out=$(tests/e2e/script_check.py perfetto "$perfetto" 2 2>&1) && pass "$RUN: $out" ||
    fail "$RUN: the Perfetto export (Trace Event JSON, one track per VCPU)" "$out"
pprof="$E2E_OUT/$RUN/profile.pb.gz"
if "$VERTIGO" export --format pprof -o "$pprof" "${GUEST_SYMS[@]}" "$E2E_OUT/$RUN/debugcon.txt" &&
   gunzip -c "$pprof" | protoc --decode perftools.profiles.Profile -I tests/fixtures/pprof \
       profile.proto >"$pprof.txt" 2>"$pprof.err"; then
    sum=$(awk '/^sample \{/ { k = 0 } /^  value:/ { if (k++ == 0) s += $2 } END { print s + 0 }' "$pprof.txt")
    [ "$sum" = "$rep_total" ] && pass "$RUN: protoc reads the pprof export; its samples equal the report's ($sum)" ||
        fail "$RUN: pprof samples equal the report's" "pprof $sum, report $rep_total"
else
    fail "$RUN: protoc reads the pprof export" "$(head -3 "$pprof.err" 2>/dev/null)"
fi

# Event counts: the session's period is in the log (an event-period
# record), so each sample stands for PERIOD events.
events=$(sed -nE "s/^# Event count \(approx\.\): ([0-9]+) \(period $PERIOD\)$/\1/p" "$report")
[ -n "$events" ] && [ "$events" = $(( ${rep_total:-0} * PERIOD )) ] &&
    pass "$RUN: the report's event count is samples x period ($events)" ||
    fail "$RUN: the report's event count" "'$events' for $rep_total samples of period $PERIOD"
# Go's own pprof reader: the period and both sample types, every label,
# the workload's source lines (built by clang: no .debug_aranges), the
# call chains; per process, perf's sort keys.
gopprof() { HOME="$E2E_OUT/$RUN" go tool pprof -symbolize=none "$@" "$pprof" 2>>"$pprof.go.err"; }
gopprof -raw >"$pprof.raw.txt"
grep -qx "Period: $PERIOD" "$pprof.raw.txt" &&
    grep -qx 'samples/count instructions:u/count\[dflt\]' "$pprof.raw.txt" &&
    pass "$RUN: go tool pprof -raw: period $PERIOD, samples and instructions:u counts" ||
    fail "$RUN: go tool pprof -raw" "$(head -3 "$pprof.raw.txt") $(head -2 "$pprof.go.err")"
gopprof -tags >"$pprof.tags.txt"
missing=""
for tag in domain vcpu mode pid comm; do
    grep -qE "^ *$tag: Total" "$pprof.tags.txt" || missing="$missing $tag"
done
grep -qE '[0-9.]+%\): workload$' "$pprof.tags.txt" || missing="$missing comm=workload"
[ -z "$missing" ] && pass "$RUN: go tool pprof -tags: domain, vcpu, mode, pid, comm (workload)" ||
    fail "$RUN: go tool pprof -tags" "missing$missing"
# (every node: pprof drops nodes under 0.5 % of the samples by default, and
# leaf is 1 % of the workload, which the agent's own parsing may outweigh)
gopprof -top -lines -sample_index=samples -nodefraction=0 >"$pprof.top.txt"
fns=$(grep -oE ' (hot|warm|leaf) [^ ]*tests/guest/workload\.c:[0-9]+$' "$pprof.top.txt" | awk '{ print $1 }' | sort -u | tr '\n' ' ')
[ "$fns" = "hot leaf warm " ] && pass "$RUN: go tool pprof -top -lines: workload.c lines of hot, warm, leaf" ||
    fail "$RUN: go tool pprof -top -lines" "functions with lines: '$fns'; $(grep -m3 workload "$pprof.top.txt")"
gopprof -traces >"$pprof.traces.txt"
grep -qE ' leaf$' "$pprof.traces.txt" && grep -qE '^ +cool$' "$pprof.traces.txt" &&
    pass "$RUN: go tool pprof -traces: chains through cool and leaf" ||
    fail "$RUN: go tool pprof -traces" "$(head -8 "$pprof.traces.txt")"
# The log names processes (the agent shipped identities), so the report's
# default is perf's: comm,dso,sym.
grep -qx '# Sort: comm,dso,sym' "$report" &&
    grep -qE '^# Overhead +Samples +Command +Shared Object +Symbol$' "$report" &&
    grep -qE '^ +[0-9.]+% +[0-9]+  workload +/bin/workload +\[\.\] hot  ' "$report" &&
    pass "$RUN: report: perf's default comm,dso,sym with the workload process's rows" ||
    fail "$RUN: report: default comm,dso,sym" "$(sed -n '7,11p' "$report")"

# The frame checker on this capture (two CPUs; user samples with call
# stacks, a JIT that moved its code, guest-sent NMIs): no frame invalid,
# each sample named by the identities in force at its TSC whichever CPU
# shipped them; JIT code is unchecked.
expect_valid_frames $RUN "${GUEST_SYMS[@]}" --kernel-image "$KERNEL"

expect_in $RUN com2.txt "session stopped at the end of the domain" '^sample: session stopped at the end of the domain: [0-9]+ samples logged$'
expect_in $RUN com2.txt "run verdict" '^VERTIGO-END: PASS \(guest passed and powered off\)'
