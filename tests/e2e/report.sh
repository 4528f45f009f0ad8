#!/bin/bash
# Host-only end-to-end test of `vertigo report` and `vertigo export` on a
# synthetic capture written by the real encoder (gen-profile): shares and
# names in the report, protoc decoding the pprof export with the report's
# totals and Go's go tool pprof reading it (-raw, -tags, -top, -traces),
# perf's sort keys, annotate (the workload's g, and a kernel function with
# source lines from a vmlinux with DWARF), folded stacks with
# workload;main;f;g, Perfetto's
# protobuf trace (protoc and its stacks against the folded ones), CSV, and bad
# input with specific
# errors and exit statuses; then hostile logs (hostile-log) large enough
# that a cost growing faster than the log would blow the bounds of 30 s
# and 2 GB, and a hostile guest root (a FIFO, a link loop, links out of
# it, malformed ELF files). Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
out="$E2E_OUT/report"
mkdir -p "$out"

if ! make --no-print-directory BUILD="$BUILD" "$BUILD/vertigo" "$BUILD/gen-profile" "$BUILD/hostile-log" \
        "$BUILD/profile/root/bin/workload" "$BUILD/profile/hvmini" "$BUILD/profile/minikernel" "$BUILD/pprof" >"$out/build.log" 2>&1; then
    fail "report: build" "see $out/build.log"
    exit 1
fi
V="$VERTIGO"
root="$BUILD/profile/root"
hv="$BUILD/profile/hvmini"
log="$out/capture.bin"
"$BUILD/gen-profile" "$root/bin/workload" "$hv" tests/fixtures/profile/kallsyms.txt 500 "$log" "$out/expect.txt" ||
    { fail "report: generate capture" "gen-profile failed"; exit 1; }
opts=(--guest-root "$root" --vertigo-elf "$hv")

# expected EVENT SYMBOL: the generator's count
expected() { awk -v e="$1" -v s="$2" '{ n = $NF; $NF = ""; sub(/ $/, ""); ev = $1; $1 = ""; sub(/^ /, "");
                                         if (ev == e && $0 == s) print n }' "$out/expect.txt"; }

"$V" report "${opts[@]}" --event instructions "$log" >"$out/report-instr.txt" 2>"$out/report.err"
rc=$?
[ $rc -eq 0 ] && pass "report: exit status 0" || fail "report: exit status 0" "got $rc"
for fs in "g 60.00" "f 30.00" "h 10.00"; do
    set -- $fs
    line=$(grep -E "\[\.\] $1  .*workload\.c:[0-9]+$" "$out/report-instr.txt")
    pct=$(awk '{ sub(/%/, "", $1); print $1 }' <<<"$line")
    [ "$pct" = "$2" ] && pass "report: $1 has $2% of instructions with file:line" \
                      || fail "report: $1 has $2% of instructions" "row: '$line'"
done

"$V" report "${opts[@]}" "$log" >"$out/report.txt" 2>>"$out/report.err"
for sym in do_syscall_64 clear_page_erms testmod_work hv_handle_exit jit_add jit_mul; do
    want=$(expected 0 "$sym")
    got=$(grep -E "\] $sym( |$)" "$out/report.txt" | awk '{ print $2 }')
    [ -n "$want" ] && [ "$got" = "$want" ] && pass "report: $sym has $want samples" \
                                        || fail "report: $sym samples" "want $want, got '$got'"
done

# pprof: protoc reads it; per-type value sums equal the report's totals.
if "$V" export --format pprof -o "$out/profile.pb.gz" "${opts[@]}" "$log"; then
    pass "export pprof: written"
else
    fail "export pprof: written" "exit $?"
fi
if gunzip -c "$out/profile.pb.gz" | protoc --decode perftools.profiles.Profile \
        -I tests/fixtures/pprof profile.proto >"$out/profile.txt" 2>"$out/protoc.err"; then
    pass "export pprof: protoc --decode reads it"
else
    fail "export pprof: protoc --decode reads it" "$(head -3 "$out/protoc.err")"
fi
# Values: samples (all events), then each event's count (samples x period).
sums=$(awk '/^sample \{/ { k = 0 } /^  value:/ { s[k++] += $2 } END { print s[0], s[1], s[2] }' "$out/profile.txt")
report_totals="$(sed -nE "s/^# Total samples: ([0-9]+)$/\1/p" "$out/report.txt") $(sed -nE \
    "s/^# Event count \(approx\.\): ([0-9]+) .*/\1/p" "$out/report.txt" | tr '\n' ' ' | sed 's/ $//')"
[ "$sums" = "$report_totals" ] && pass "export pprof: samples and event counts equal the report's ($sums)" \
                               || fail "export pprof: sample totals" "pprof '$sums', report '$report_totals'"
grep -q 'string_table: "g"' "$out/profile.txt" && grep -q 'string_table: "mode"' "$out/profile.txt" &&
    pass "export pprof: functions and labels named" || fail "export pprof: names" "no g/mode strings"

# pprof: Go's own reader (go tool pprof) sees the periods, both sample
# types, every label, the workload as the main binary with its source
# lines, and the call chains; its totals are the report's.
gopprof() { HOME="$out" GOFLAGS= go tool pprof -symbolize=none "$@" "$out/profile.pb.gz" 2>"$out/go.err"; }
if command -v go >/dev/null; then
    gopprof -raw >"$out/go-raw.txt"
    grep -qx 'Period: 100000' "$out/go-raw.txt" &&
        grep -qx 'samples/count cycles/count\[dflt\] instructions/count' "$out/go-raw.txt" &&
        grep -qE '^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ /bin/workload [0-9a-f]{40} \[FN\]\[FL\]\[LN\]$' "$out/go-raw.txt" &&
        pass "go tool pprof -raw: the period, both sample types, /bin/workload first with its build id" ||
        fail "go tool pprof -raw" "$(head -4 "$out/go-raw.txt"; head -2 "$out/go.err")"
    go_total=$(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && $1 ~ /^[0-9]+$/ { s += $1 }
                    END { print s + 0 }' "$out/go-raw.txt")
    [ "$go_total" = "${report_totals%% *}" ] && pass "go tool pprof -raw: $go_total samples, as the report" ||
        fail "go tool pprof -raw: samples" "$go_total vs ${report_totals%% *}"
    gopprof -tags >"$out/go-tags.txt"
    missing=""
    for tag in "domain:" "vcpu:" "mode:" "pid:" "comm:" ": workload$" ": user$" ": 42$"; do
        grep -qE "^ *[a-z]*$tag|$tag" "$out/go-tags.txt" || missing="$missing '$tag'"
    done
    [ -z "$missing" ] && pass "go tool pprof -tags: domain, vcpu, mode, pid and comm" ||
        fail "go tool pprof -tags" "missing$missing"
    gopprof -top -lines -sample_index=samples >"$out/go-top.txt"
    lines=$(grep -cE ' (g|f|h) (/.*/)?tests/fixtures/profile/workload\.c:[0-9]+$' "$out/go-top.txt")
    [ "$lines" -ge 3 ] && pass "go tool pprof -top -lines: workload.c lines of g, f, h ($lines rows)" ||
        fail "go tool pprof -top -lines" "$(head -12 "$out/go-top.txt")"
    gopprof -traces >"$out/go-traces.txt"
    awk '/^-+\+-+$/ { t = "" } { t = t " " $NF } / main$/ && t ~ / g f main$/ { ok = 1 } END { exit !ok }' \
        "$out/go-traces.txt" && pass "go tool pprof -traces: g called by f called by main" ||
        fail "go tool pprof -traces" "$(head -12 "$out/go-traces.txt")"
else
    fail "go tool pprof" "go is not installed (host-tools/setup-deps installs golang-go)"
fi

# Annotated assembly. pprof (built from Debian's source: Go's `go tool
# pprof` reads no build id from a local binary, so it refuses every one a
# mapping names by its build id) finds /bin/workload under
# PPROF_BINARY_PATH by the build id the export carries and prints g's
# instructions with their samples; `vertigo annotate g` prints them with
# g's source lines, and both add up to g's samples in the report.
# Both pprofs read the export of /bin/workload's samples alone (--dsos):
# pprof works out where a binary is loaded from the first sampled address
# it looks at, once, in an order that changes from run to run; an address
# of another mapping ([libmissing.so], the perf map, hvmini) made it
# find no symbol at all in 5 runs of 30 on the whole capture's profile.
g_samples=$(expected 0 g) g_all=$(( $(expected 0 g) + $(expected 1 g) ))
"$V" export --format pprof --dsos /bin/workload -o "$out/workload.pb.gz" "${opts[@]}" "$log" 2>"$out/workload.err" ||
    fail "export --dsos /bin/workload" "$(head -3 "$out/workload.err")"
HOME="$out" PPROF_BINARY_PATH="$PWD/$root/bin" "$BUILD/pprof" -sample_index=samples -tagfocus=mode=user \
    -disasm '\bg\b' "$out/workload.pb.gz" >"$out/pprof-disasm.txt" 2>"$out/pprof-disasm.err"
read -r rows sum <<<"$(awk '$3 ~ /^[0-9a-f]+:$/ && $1 ~ /^[0-9]+$/ && $1 > 0 { n++; s += $1 } END { print n + 0, s + 0 }' \
    "$out/pprof-disasm.txt")"
grep -q '^ROUTINE =* g$' "$out/pprof-disasm.txt" && [ "$rows" -ge 3 ] && [ "$sum" = "$g_all" ] &&
    pass "pprof -disasm: g's instructions, $rows with samples adding up to its $sum (both events)" ||
    fail "pprof -disasm g" "$rows rows, $sum of $g_all samples: $(head -5 "$out/pprof-disasm.txt" "$out/pprof-disasm.err")"
# Go's own go tool pprof reads no build id from a local file, so it takes
# a binary only when the command line names it (pprof's "pprof BINARY
# PROFILE"; it stands for the main binary, the first mapping): then its
# -disasm of g has the same counts.
HOME="$out" go tool pprof -sample_index=samples -tagfocus=mode=user -disasm '\bg\b' "$root/bin/workload" \
    "$out/workload.pb.gz" >"$out/go-disasm.txt" 2>"$out/go-disasm.err"
read -r rows sum <<<"$(awk '$3 ~ /^[0-9a-f]+:$/ && $1 ~ /^[0-9]+$/ && $1 > 0 { n++; s += $1 } END { print n + 0, s + 0 }' \
    "$out/go-disasm.txt")"
grep -q '^ROUTINE =* g$' "$out/go-disasm.txt" && [ "$rows" -ge 3 ] && [ "$sum" = "$g_all" ] &&
    pass "go tool pprof -disasm g (the binary on the command line): $rows instructions with samples adding up to its $sum" ||
    fail "go tool pprof -disasm g" "$rows rows, $sum of $g_all samples: $(head -5 "$out/go-disasm.txt" "$out/go-disasm.err")"
"$V" annotate --event cycles "${opts[@]}" g "$log" >"$out/annotate.txt" 2>"$out/annotate.err"
read -r rows sum <<<"$(awk '$3 == ":" && $1 ~ /^[0-9.]+$/ { n++; s += $2 } END { print n + 0, s + 0 }' "$out/annotate.txt")"
grep -qE '^ +: +/.*tests/fixtures/profile/workload\.c:1[0-2]$' "$out/annotate.txt" &&
    grep -qE "^# g \(/bin/workload\): $g_samples samples, $g_samples beside its instructions$" "$out/annotate.txt" &&
    [ "$rows" -ge 3 ] && [ "$sum" = "$g_samples" ] &&
    pass "annotate g: $rows instructions with samples adding up to its $sum, with source lines" ||
    fail "annotate g" "$rows rows, $sum of $g_samples: $(head -8 "$out/annotate.txt" "$out/annotate.err")"

# A guest kernel function annotated from a vmlinux with DWARF given as
# --kernel-image (the fixture minikernel, linked at the fixture kallsyms'
# addresses): its instructions with their samples and its source lines.
k_samples=$(expected 0 do_syscall_64)
"$V" annotate --event cycles "${opts[@]}" --kernel-image "$BUILD/profile/minikernel" do_syscall_64 "$log" \
    >"$out/annotate-kernel.txt" 2>"$out/annotate-kernel.err"
read -r rows sum <<<"$(awk '$3 == ":" && $1 ~ /^[0-9.]+$/ { n++; s += $2 } END { print n + 0, s + 0 }' \
    "$out/annotate-kernel.txt")"
grep -qE '^ +: +/.*tests/fixtures/profile/minikernel\.c:[0-9]+$' "$out/annotate-kernel.txt" &&
    grep -qE '^ +: +ffffffff81002000:'$'\t''push +%rbp$' "$out/annotate-kernel.txt" &&
    grep -qE "^# do_syscall_64 \(\[kernel\.kallsyms\]\): $k_samples samples, $k_samples beside its instructions$" \
        "$out/annotate-kernel.txt" && [ "$rows" -ge 1 ] && [ "$sum" = "$k_samples" ] &&
    pass "annotate do_syscall_64 --kernel-image vmlinux: the kernel function's $sum samples with its source lines" ||
    fail "annotate do_syscall_64 --kernel-image" "$rows rows, $sum of $k_samples: $(head -8 "$out/annotate-kernel.txt" "$out/annotate-kernel.err")"

# perf's sort keys: one row per process, image and function.
"$V" report --sort comm,dso,sym --event cycles "${opts[@]}" "$log" >"$out/report-comm.txt"
grep -qx '# Overhead   Samples  Command    Shared Object       Symbol' "$out/report-comm.txt" &&
    grep -qE '^ +[0-9.]+% +[0-9]+  workload   /bin/workload +\[\.\] g  ' "$out/report-comm.txt" &&
    grep -qE '^ +[0-9.]+% +[0-9]+  \[vertigo\]  hvmini +\[h\] hv_handle_exit' "$out/report-comm.txt" &&
    pass "report --sort comm,dso,sym: perf's columns, the workload's and Vertigo's rows" ||
    fail "report --sort comm,dso,sym" "$(sed -n '9,12p' "$out/report-comm.txt")"

"$V" export --format folded --event cycles "${opts[@]}" "$log" >"$out/folded.txt"
want=$(expected 0 g)
grep -qx "workload;main;f;g $want" "$out/folded.txt" && pass "export folded: workload;main;f;g $want" \
                                           || fail "export folded: workload;main;f;g" "$(head -3 "$out/folded.txt")"
grep -qx "workload;entry_SYSCALL_64_\[k\];do_syscall_64_\[k\] $(expected 0 do_syscall_64)" "$out/folded.txt" &&
    pass "export folded: kernel frames end in _[k]" || fail "export folded: _[k]" "$(grep syscall "$out/folded.txt")"

# pftrace: Perfetto's protobuf trace, decoded by protoc with the schema the
# project wrote from Perfetto's format description; interning as the
# importer needs it, and the same stacks as the folded export.
if "$V" export --format pftrace --event cycles -o "$out/trace.pftrace" "${opts[@]}" "$log" &&
    protoc --decode vertigo.pftrace.Trace -I tests/fixtures/perfetto vertigo_trace.proto \
        <"$out/trace.pftrace" >"$out/pftrace.txt" 2>"$out/pftrace.err"; then
    pass "export pftrace: protoc decodes it"
else
    fail "export pftrace: protoc decodes it" "$(head -3 "$out/pftrace.err")"
fi
msg=$(python3 tests/e2e/pftrace_check.py "$out/pftrace.txt" "$out/folded.txt" 2>&1) &&
    pass "export pftrace: ${msg#pftrace: }" || fail "export pftrace: stacks and interning" "$msg"

"$V" export --format csv -o "$out/profile.csv" "${opts[@]}" "$log"
total=$(awk -F, 'NR > 1 { s += $(NF-3) } END { print s }' "$out/profile.csv")
all=$(awk '{ s += $NF } END { print s }' "$out/expect.txt")
head -1 "$out/profile.csv" |
    grep -qx 'event,domain,domain_name,vcpu,mode,pid,comm,image,symbol,source_file,source_line,samples,period_events,events,percent' &&
    [ "$total" = "$all" ] && pass "export csv: header and $total samples" || fail "export csv" "total $total, want $all"
# The typed import the user guide shows: every number a number in sqlite3
# (an empty field would stay text), the samples adding up.
rm -f "$out/profile.db"
typed=$(sqlite3 "$out/profile.db" 2>&1 <<EOF
CREATE TABLE profile (event TEXT, domain INTEGER, domain_name TEXT, vcpu INTEGER, mode TEXT, pid INTEGER,
                      comm TEXT, image TEXT, symbol TEXT, source_file TEXT, source_line INTEGER,
                      samples INTEGER, period_events INTEGER, events INTEGER, percent REAL);
.import --csv --skip 1 $out/profile.csv profile
SELECT sum(samples), sum(typeof(domain) || typeof(vcpu) || typeof(pid) || typeof(source_line) ||
       typeof(samples) || typeof(period_events) || typeof(events) || typeof(percent) <>
       'integerintegerintegerintegerintegerintegerintegerreal') FROM profile;
EOF
)
[ "$typed" = "$all|0" ] && pass "export csv: sqlite3 imports it typed ($all samples, every number a number)" ||
    fail "export csv: the typed sqlite3 import" "sum|untyped rows: '$typed', want '$all|0'"

# Vertigo's ELF must be the one that wrote the log (build id in the
# stream header): silent when it is, a specific warning when it is not.
grep -q 'warning' "$out/report.err" && fail "report: matching --vertigo-elf is silent" "$(head -2 "$out/report.err")" \
                                   || pass "report: matching --vertigo-elf is silent"
"$V" report --guest-root "$root" --vertigo-elf "$root/bin/workload" "$log" >/dev/null 2>"$out/mismatch.err"
grep -qE "^vertigo report: warning: --vertigo-elf $root/bin/workload has build id [0-9a-f]{40}, but the log was written by build [0-9a-f]{40}: hypervisor samples will be misnamed$" "$out/mismatch.err" &&
    pass "report: a foreign --vertigo-elf is named in a warning" ||
    fail "report: a foreign --vertigo-elf is named in a warning" "$(head -2 "$out/mismatch.err")"

# Bad input: specific errors and exit statuses.
check_error() {   # NAME WANT_STATUS REGEX command...
    local name=$1 want=$2 re=$3
    shift 3
    "$@" >/dev/null 2>"$out/err.txt"
    local rc=$?
    if [ $rc -eq "$want" ] && grep -qE -- "$re" "$out/err.txt"; then
        pass "$name"
    else
        fail "$name" "exit $rc, stderr: $(head -2 "$out/err.txt")"
    fi
}
head -c $(( $(stat -c %s "$log") / 2 )) "$log" >"$out/truncated.bin"
check_error "bad input: truncated log" 3 "damaged stream: .* records lost" "$V" report "$out/truncated.bin"
check_error "bad input: unknown event" 1 "unknown event 'bogus' \(this log has: cycles instructions\)" \
    "$V" report --event bogus "$log"
check_error "bad input: missing --guest-root" 1 "--guest-root /nonexistent/root: No such file or directory" \
    "$V" report --guest-root /nonexistent/root "$log"
check_error "bad input: no log" 4 "no Vertigo log stream header" "$V" export --format csv tests/fixtures/profile/kallsyms.txt
check_error "bad input: unknown format" 2 "unknown format 'svg'" "$V" export --format svg "$log"
check_error "bad input: unknown sort key" 2 "unknown sort key 'speed'" "$V" report --sort speed "$log"

# Hostile logs: each run within 30 s of wall-clock time and 2 GB of
# address space (the old quadratic lookups took minutes on these sizes).
TIME_LIMIT=30
MEM_LIMIT_KB=$((2 * 1024 * 1024))
# bounded NAME WANT_STATUS REGEX OUT command...: COMMAND (stdout in OUT,
# stderr in OUT.err) exits WANT_STATUS within the bounds and OUT or
# OUT.err has a line matching REGEX.
bounded() {
    local name=$1 want=$2 re=$3 file=$4 start rc
    shift 4
    start=$(date +%s%N)
    ( ulimit -v $MEM_LIMIT_KB; timeout $TIME_LIMIT "$@" ) >"$file" 2>"$file.err"
    rc=$?
    local ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ $rc -eq "$want" ] && cat "$file" "$file.err" | grep -qE -- "$re"; then
        pass "$name (${ms} ms)"
    else
        fail "$name" "exit $rc (want $want) after ${ms} ms; $(head -c 300 "$file.err")"
    fi
}
hostile() {   # KIND N: the hostile log's path, written once
    local f="$out/hostile-$1-$2.bin"
    [ -f "$f" ] || "$BUILD/hostile-log" "$1" "$2" "$f"
    echo "$f"
}
bounded "hostile: 200000 event ids need --event" 1 \
    "more than the 32 one profile shows side by side .*: choose one with --event E" \
    "$out/h-events.txt" "$V" report "$(hostile events 200000)"
bounded "hostile: 200000 event ids, one chosen" 0 "^# Samples: 1 of event 'ev123456'$" \
    "$out/h-event.txt" "$V" report --event ev123456 "$(hostile events 200000)"
bounded "hostile: 200000 one-line JIT map sets, each named" 0 "perf-7\.map +\[\.\] jit_199999$" \
    "$out/h-jit.txt" "$V" report "$(hostile jit 200000)"
bounded "hostile: 400000 unfinished symbol sets counted" 0 "0 restarted before their last chunk, 0 abandoned by Vertigo, 400000 never finished" \
    "$out/h-unfinished.txt" "$V" report "$(hostile unfinished 400000)"
grep -q "^# Lost: .* 400000 symbol sets (0 broken, 0 restarted, 0 abandoned, 400000 unfinished)" "$out/h-unfinished.txt" &&
    pass "hostile: unfinished sets in the report's '# Lost:' line" ||
    fail "hostile: unfinished sets in the report's '# Lost:' line" "$(grep '^#' "$out/h-unfinished.txt" | head -8)"
bounded "hostile: 200000 processes with identities" 0 "/bin/p199999 +\[\.\] \[unknown\] /bin/p199999\+0x10$" \
    "$out/h-identities.txt" "$V" report "$(hostile identities 200000)"
bounded "hostile: 100000 processes without CR3" 0 "/bin/p99999 +\[\.\] \[unknown\] /bin/p99999\+0x10$" \
    "$out/h-processes.txt" "$V" report "$(hostile processes 100000)"
bounded "hostile: 200000 VCPUs, a --by-mode row each" 0 "^  dom0 +199999  kernel " \
    "$out/h-vcpus.txt" "$V" report --by-mode "$(hostile vcpus 200000)"
rows=$(sed -n '/^# By domain/,$p' "$out/h-vcpus.txt" | grep -c '^  dom0 ')
[ "$rows" = 200000 ] && pass "hostile: --by-mode has all 200000 rows" || fail "hostile: --by-mode rows" "$rows"
bounded "hostile: folded stacks of 1000-byte names" 0 "^\\[[a-z]+\\];[a-z]{900}.*;[a-z]{900}.* [0-9]+$" \
    "$out/h-names.txt" "$V" export --format folded "$(hostile names 20000)"
bounded "hostile: loss records summed exactly" 3 "^loss: ring_dropped=55340232221128654845 " \
    "$out/h-loss.txt" "$V" stats "$(hostile loss 3)"
bounded "hostile: records out of range dropped and counted" 3 "damaged stream: 0 blocks and 70 records lost" \
    "$out/h-ranges.txt" "$V" report "$(hostile ranges 10)"
bounded "hostile: stats says which VCPUs' totals it leaves out" 0 \
    "^  \(99936 pmu-totals records of VCPUs beyond the first 64 not shown\)$" \
    "$out/h-totals.txt" "$V" stats "$(hostile totals 100000)"

# Frequency mode: each sample weighs its own VCPU's period (the hostile
# log's periods kind: 7 samples standing for HOSTILE_PERIODS_EVENTS, 7700
# events); pprof's event-count values add up to the report's event count,
# and its one period is their mean, 7700 / 7 = 1100.
hp=$(hostile periods 0)
"$V" report "$hp" >"$out/h-periods.txt" 2>&1
"$V" export --format pprof -o "$out/h-periods.pb.gz" "$hp" 2>>"$out/h-periods.txt"
hp_sums=$(gunzip -c "$out/h-periods.pb.gz" 2>/dev/null |
          protoc --decode perftools.profiles.Profile -I tests/fixtures/pprof profile.proto 2>/dev/null |
          awk '/^sample \{/ { k = 0 } /^  value:/ { s[k++] += $2 } /^period:/ { p = $2 }
               END { print s[0], s[1], p }')
hp_report="$(sed -nE 's/^# Total samples: ([0-9]+)$/\1/p' "$out/h-periods.txt") $(sed -nE \
    's/^# Event count \(approx\.\): ([0-9]+) .*/\1/p' "$out/h-periods.txt")"
[ "$hp_sums" = "7 7700 1100" ] && [ "$hp_report" = "7 7700" ] &&
    pass "export pprof: frequency-mode periods weigh each sample, as the report (7 samples, 7700 events), mean period 1100" ||
    fail "export pprof: frequency-mode periods" "pprof '$hp_sums', report '$hp_report', want '7 7700 1100' and '7 7700'"

# A hostile guest root: maps name a FIFO (reading it would block), a link
# loop, a truncated ELF, a text file, and paths or links that lead out of
# the root to a FIFO, /etc/passwd, /dev/zero, /proc: read there, each
# would draw a warning; resolved inside the root, they are simply absent.
groot="$out/guest-root"
rm -rf "$groot" "$out/outside"
mkdir -p "$groot/lib" "$groot/bin" "$out/outside"
cp "$root/bin/workload" "$groot/bin/workload"
head -c 3000 "$root/bin/workload" >"$groot/lib/trunc.so"
echo "not an ELF file" >"$groot/lib/text.so"
mkfifo "$groot/lib/fifo.so" "$out/outside/fifo"
ln -s loop.so "$groot/lib/loop.so"
ln -s ../../outside/fifo "$groot/lib/escape.so"
ln -s "$(cd "$out/outside" && pwd)/fifo" "$groot/lib/abs.so"
bounded "hostile root: report ends" 0 "^# Total samples: " \
    "$out/h-paths.txt" "$V" report --guest-root "$groot" "$(hostile paths 5)"
for w in "/lib/fifo.so: not a regular file" "/lib/loop.so: too many symbolic links" \
         "/lib/trunc.so: .*past the end of the file \(truncated\?\)" "/lib/text.so: not an ELF file"; do
    n=$(grep -cE "^vertigo report: warning: --guest-root: $w; its samples show as \[unknown\]$" "$out/h-paths.txt.err")
    [ "$n" = 1 ] && pass "hostile root: one warning: ${w%%:*}" || fail "hostile root: one warning: ${w%%:*}" "$n times"
done
grep -qE "escape|abs\.so|passwd|hostname|/dev/zero|/proc" "$out/h-paths.txt.err" &&
    fail "hostile root: nothing outside the root read" "$(cat "$out/h-paths.txt.err")" ||
    pass "hostile root: nothing outside the root read"

# pprof of the hostile paths without a guest root: go tool pprof, which
# opens a mapping's file to symbolize it and looks for it under its
# search path ($HOME/pprof/binaries), opens nothing the guest named
# (strace: no path of the maps, /etc/passwd through "..", outside that
# directory), and the mappings are named in brackets.
if command -v go >/dev/null && command -v strace >/dev/null; then
    "$V" export --format pprof -o "$out/h-paths-noroot.pb.gz" "$(hostile paths 5)" 2>/dev/null
    mkdir -p "$out/pprof-home"
    ( cd "$out/pprof-home" && HOME="$PWD" GOFLAGS= strace -f -qq -e trace=openat,open -o trace.txt \
          go tool pprof -raw "../h-paths-noroot.pb.gz" >raw.txt 2>&1 )
    opened=$(grep -E 'passwd|hostname|fifo\.so|loop\.so|escape\.so|abs\.so|trunc\.so|text\.so|/dev/zero|/proc/self/mem|/bin/workload' \
             "$out/pprof-home/trace.txt" | grep -v "$out/pprof-home/pprof/binaries/" | head -3)
    named=$(gunzip -c "$out/h-paths-noroot.pb.gz" | protoc --decode perftools.profiles.Profile \
            -I tests/fixtures/pprof profile.proto | grep -cE '^string_table: "(/etc/\[passwd\]|/lib/\[fifo\.so\]|/bin/\[workload\])"$')
    [ -z "$opened" ] && [ "$named" = 3 ] && grep -q '/etc/\[passwd\]' "$out/pprof-home/raw.txt" &&
        pass "pprof without a guest root: go tool pprof -raw opens no file the guest's maps name (/etc/[passwd])" ||
        fail "pprof without a guest root: host files opened" "${opened:-mappings named $named of 3}"
else
    fail "pprof without a guest root" "go or strace is not installed (host-tools/setup-deps installs them)"
fi
exit $E2E_FAILED
