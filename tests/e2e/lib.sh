# Helpers for end-to-end tests: run Vertigo through `vertigo run` (the
# front door to host-tools/vertigo-run),
# read any capture of a run (or file written next to it), and check exit
# statuses, lines and the workload's profile. Each check prints
# "PASS: name" or "FAIL: name (why)"; tests/run-tests counts those lines.
BUILD=${BUILD:-build}
E2E_OUT="$BUILD/e2e"
RUNNER=host-tools/vertigo-run
VERTIGO="$BUILD/vertigo"                 # the host command
KERNEL="$BUILD/guest/vmlinuz"            # the guest of `make guest`
INITRD="$BUILD/guest/initrd.cpio.lz4"
# Boot work the tests' Linux guests skip (docs/build-and-boot.md): the
# crypto manager's self-tests, tracing's update of its event formats with
# the kernel's enum names (trace_eval_init: 0.7 s of a 11.2 s boot in
# Bochs; no test reads a tracepoint's format), and function tracing's
# check of every traced function's symbol and its system-call event
# metadata (ftrace_check_for_weak_functions, init_ftrace_syscalls: 75 M
# of a boot's 641 M emulated instructions; no test traces functions or
# system calls).
GUEST_BOOT_SKIP="cryptomgr.notests \
initcall_blacklist=trace_eval_init,ftrace_check_for_weak_functions,init_ftrace_syscalls"
# Symbols for reports of a guest run: the guest's files and Vertigo's ELF.
GUEST_SYMS=(--guest-root "$BUILD/guest/initramfs" --vertigo-elf "$BUILD/vertigo.elf")
# A `vertigo report` row of a guest kernel function named from kallsyms.
# (after the default comm column when the log names processes)
KERNEL_ROW='^ +[0-9.]+% +[0-9]+ +([^ ]+ +)?\[kernel\.kallsyms\] +\[k\] [a-z_]'
E2E_FAILED=0
# Wall-clock limit of a Bochs boot of Linux: alone on a core one takes 1-4
# minutes, but a loaded machine (other boots, builds) stretches that several
# times, and a limit reached is a false failure. Only a hung run should
# reach it.
LINUX_BOOT_TIMEOUT=1800

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1 ($2)"; E2E_FAILED=1; }

# run_vertigo NAME EXPECTED_STATUS [runner options...]
# Runs one boot with captures in $E2E_OUT/NAME and checks the exit status.
run_vertigo() {
    local name=$1 want=$2
    shift 2
    local dir="$E2E_OUT/$name"
    mkdir -p "$E2E_OUT"
    "$VERTIGO" run --elf "$BUILD/vertigo.elf" --out "$dir" --quiet "$@" 2>"$dir.runner.txt"
    local got=$?
    mkdir -p "$dir"
    cat "$dir.runner.txt"
    if [ "$got" -eq "$want" ]; then
        pass "$name: exit status $want"
    else
        fail "$name: exit status" "expected $want, got $got; captures in $dir"
        explain_status "$dir"
    fi
}

# explain_status DIR: why a run ended as it did, where a CI log that shows
# only the lines around a failure still shows it: the guest's FAIL lines
# (COM1), Vertigo's end lines (COM2, or COM1 with console=com1) and the
# runner's own messages, at most 20 lines.
explain_status() {
    {
        grep -hE '(^|: )FAIL|VERTIGO-END|^guest: (domain|verdict|no verdict)|^vmx: .*failed' \
            "$1/serial.txt" "$1/com2.txt" 2>/dev/null
        grep -v '^ ' "$1.runner.txt" 2>/dev/null
    } | tr -d '\r' | head -n 20 | sed 's/^/      why: /'
}

# run_linux NAME EXPECTED_STATUS GUEST_CMDLINE [runner options...]
# run_vertigo with the guest kernel and initrd and that guest command line.
run_linux() {
    local name=$1 want=$2 guest=$3
    shift 3
    run_vertigo "$name" "$want" "$@" --kernel "$KERNEL" --initrd "$INITRD" --guest-cmdline "$guest"
}

# capture NAME [FILE]: a file of run NAME with CRs removed. FILE defaults to
# serial.txt (COM1, the guest's console); others: com2.txt, debugcon.txt
# (port 0xE9), or what a test wrote next to them (decode.txt, stats.txt).
capture() { tr -d '\r' < "$E2E_OUT/$1/${2:-serial.txt}"; }

# expect_in NAME FILE LABEL REGEX: capture FILE of run NAME has a line matching REGEX
expect_in() {
    if capture "$1" "$2" | grep -qE -- "$4"; then
        pass "$1: $3"
    else
        fail "$1: $3" "no line matches /$4/ in $E2E_OUT/$1/$2"
    fi
}

# expect_not_in NAME FILE LABEL REGEX: no line of it matches REGEX
expect_not_in() {
    if capture "$1" "$2" | grep -qE -- "$4"; then
        fail "$1: $3" "unexpected line matching /$4/ in $E2E_OUT/$1/$2"
    else
        pass "$1: $3"
    fi
}

# expect_line / expect_no_line NAME LABEL REGEX: the same on serial.txt (COM1)
expect_line() { expect_in "$1" serial.txt "$2" "$3"; }
expect_no_line() { expect_not_in "$1" serial.txt "$2" "$3"; }

# expect_no_unknown_nmi NAME: the guest kernel of run NAME reported no NMI
# it could not attribute ("Uhhuh. NMI received for unknown reason", "Dazed
# and confused"; the init copies them from the kernel log too): every NMI
# Vertigo reflected was the guest's, and every one of Vertigo's stayed its.
expect_no_unknown_nmi() {
    expect_not_in "$1" serial.txt "no unknown NMI in the guest's kernel log" \
        'Uhhuh|Dazed and confused'
}

# expect_exit NAME LABEL WANT_STATUS OUT COMMAND...: COMMAND, with its
# standard output and error in OUT, exits with WANT_STATUS.
expect_exit() {
    local name=$1 label=$2 want=$3 out=$4
    shift 4
    "$@" >"$out" 2>&1
    local rc=$?
    if [ "$rc" -eq "$want" ]; then
        pass "$name: $label"
    else
        fail "$name: $label" "exit $rc, want $want; see $out"
    fi
}

# expect_clean_stream NAME FILE: `vertigo stats` of FILE (written to
# stats.txt of run NAME) exits 0 and shows console records, the config
# record, no loss, and CPU 0's blocks numbered 0..N-1 without a gap.
expect_clean_stream() {
    local name=$1 stats="$E2E_OUT/$1/stats.txt" blocks
    expect_exit "$name" "vertigo stats: clean stream (exit 0)" 0 "$stats" "$VERTIGO" stats "$2"
    expect_in "$name" stats.txt "stats: console records" '^  console +[1-9][0-9]*( |$)'
    expect_in "$name" stats.txt "stats: config record" '^  config +1( |$)'
    expect_in "$name" stats.txt "stats: zero loss" \
        '^loss: ring_dropped=0 blocks_lost=0 records_lost=0$'
    blocks=$(sed -nE 's/^blocks: ([0-9]+) .*/\1/p' "$stats")
    expect_in "$name" stats.txt "stats: CPU 0 block sequence 0..N without gaps" \
        "^  cpu 0 +records=[0-9]+ blocks=${blocks:-x} seq=0\.\.$((${blocks:-1} - 1)) seq_gaps=0 ring_dropped=0$"
}

# decode NAME [CAPTURE]: `vertigo decode` of run NAME's CAPTURE (default
# debugcon.txt) into decode.txt next to it (diagnostics in decode.err).
decode() {
    local dir="$E2E_OUT/$1"
    "$VERTIGO" decode "$dir/${2:-debugcon.txt}" >"$dir/decode.txt" 2>"$dir/decode.err"
}

# expect_guest_pmis_logged NAME VCPU: run NAME's decoded log (decode NAME
# first) has one guest-pmi record per PMI Vertigo says, at the end of the
# domain, the guest's virtual PMU on VCPU delivered as an NMI or lost to a
# masked LVTPC, and at least one was delivered.
expect_guest_pmis_logged() {
    local name=$1 vcpu=$2 said nmis masked
    local decoded="$E2E_OUT/$name/decode.txt"
    said=$(capture "$name" com2.txt |
        sed -nE "s/^pmu: vcpu $vcpu: guest PMU: ([0-9]+) PMIs delivered, ([0-9]+) lost.*/\1 \2/p" | tail -n1)
    nmis=$(grep -cE " guest-pmi dom=0 vcpu=$vcpu status=0x[0-9a-f]+ delivery=nmi\$" "$decoded")
    masked=$(grep -cE " guest-pmi dom=0 vcpu=$vcpu status=0x[0-9a-f]+ delivery=masked\$" "$decoded")
    if [ -n "$said" ] && [ "$said" = "$nmis $masked" ] && [ "$nmis" -gt 0 ]; then
        pass "$name: the log has a guest-pmi record per PMI delivered ($nmis) and lost ($masked)"
    else
        fail "$name: the log has a guest-pmi record per PMI delivered and lost" \
             "Vertigo said '$said', log: $nmis delivered, $masked lost"
    fi
}

# elf_build_id ELF: the GNU build id of ELF (40 hex digits), empty if none
elf_build_id() { readelf -n "$1" | sed -nE 's/^ *Build ID: ([0-9a-f]{40})$/\1/p'; }

# indent: standard input shown under the check lines
indent() { sed 's/^/    /'; }

# report_samples REPORT IMAGE SYMBOL: the samples of IMAGE's SYMBOL in a
# `vertigo report`, added up over its rows (one per process with the
# default comm,dso,sym; empty when it has no such row)
report_samples() {
    awk -v img="$2" -v sym="$3" '/^ +[0-9.]+%/ { for (i = 3; i + 2 <= NF; i++)
        if ($i == img && $(i + 1) ~ /^\[.\]$/ && $(i + 2) == sym) { s += $2; n++; break } }
        END { if (n) print s }' "$1"
}

# within VALUE WANT: VALUE is within 5 points of WANT
within() { awk -v v="$1" -v w="$2" 'BEGIN { exit !(v >= w - 5 && v <= w + 5) }'; }

# expect_workload_shares LABEL HOT WARM COOL: the workload's hot, warm and
# cool+leaf sample counts are 60, 30 and 10 % of their sum, each within 5
# points (tests/guest/workload.c). LABEL starts each check's name.
expect_workload_shares() {
    local label=$1 named=$(( ${2:-0} + ${3:-0} + ${4:-0} )) pair name got want pct
    for pair in "hot:${2:-0}:60" "warm:${3:-0}:30" "cool+leaf:${4:-0}:10"; do
        IFS=: read -r name got want <<<"$pair"
        pct=$(awk -v g="$got" -v t="$named" 'BEGIN { printf "%.2f", t ? 100 * g / t : 0 }')
        if within "$pct" "$want"; then
            pass "$label $name $pct % within 5 points of $want %"
        else
            fail "$label $name within 5 points of $want %" "$pct % ($got of $named)"
        fi
    done
}

# expect_share_split LABEL POINTS "NAMES" "CPU TIMES" "SHARES" [BY]: each
# domain's (or VCPU's) share of the samples (percent) is its share of the
# CPU time within POINTS; the three lists are in the same order, one word
# each. BY names the split in the messages (default "domain").
expect_share_split() {
    local label=$1 points=$2 names=$3 times=$4 shares=$5 by=${6:-domain} split unit=points
    [ "$points" = 1 ] && unit=point
    split=$(awk -v n="$names" -v c="$times" -v s="$shares" -v lim="$points" 'BEGIN {
        k = split(n, nm)
        if (split(c, cy) != k || split(s, sh) != k) { print "missing"; exit }
        t = 0; for (i = 1; i <= k; i++) t += cy[i]
        bad = ""
        for (i = 1; i <= k; i++) { want = 100 * cy[i] / t; d = sh[i] - want
            printf "%s%s %.2f %% of the samples for %.2f %% of the CPU time", (i > 1 ? ", " : ""), nm[i], sh[i], want
            if (d > lim || d < -lim) bad = bad " " nm[i] }
        if (bad != "") print ";" bad; else print "" }')
    if [ -n "$split" ] && [ "${split#*;}" = "$split" ] && [ "$split" != missing ]; then
        pass "$label: samples split by $by as their CPU time within $points $unit ($split)"
    else
        fail "$label: samples split by $by as their CPU time within $points $unit" \
            "$split; shares '$shares', CPU time '$times'"
    fi
}

# expect_valid_frames NAME [check-frames options...]: `vertigo check-frames`
# on run NAME's capture (debugcon.txt) finds no invalid frame; its output
# in NAME/check-frames.txt.
expect_valid_frames() {
    local name=$1 checked="$E2E_OUT/$1/check-frames.txt" status summary
    shift
    "$VERTIGO" check-frames "$@" "$E2E_OUT/$name/debugcon.txt" >"$checked" 2>"$checked.err"
    status=$?
    summary=$(sed -n 2p "$checked")
    if [ "$status" = 0 ] && echo "$summary" | grep -qE 'invalid 0,'; then
        pass "$name: check-frames: no invalid frame (${summary#\# })"
    else
        fail "$name: check-frames: invalid frames" "exit $status: $(head -12 "$checked" | tr '\n' ' ')"
    fi
}
