# Sourced by tests/e2e/perf-options.sh (a synthetic capture) and
# tests/e2e/top.sh (the main job's capture from a Bochs boot): perf's short
# option forms against their long forms, and `--time` against the times
# `vertigo script --ns` prints. Not a test of its own (no .sh suffix).
# Needs lib.sh, and V (the command), opts (an array: symbol options), log
# (the capture), out (a scratch directory) and tag (the name's prefix).

# same NAME "SHORT ARGS" "LONG ARGS" [CMD]: both command lines give the
# same output (non-empty) and status 0
same() {
    local name=$1 short=$2 long=$3 cmd=${4:-report} a b
    "$V" $cmd "${opts[@]}" $short >"$out/a.txt" 2>"$out/a.err"; a=$?
    "$V" $cmd "${opts[@]}" $long >"$out/b.txt" 2>"$out/b.err"; b=$?
    if [ $a -eq 0 ] && [ $b -eq 0 ] && [ -s "$out/a.txt" ] && cmp -s "$out/a.txt" "$out/b.txt"; then
        pass "$tag: $name"
    else
        fail "$tag: $name" "status $a/$b, outputs $(wc -l <"$out/a.txt")/$(wc -l <"$out/b.txt") lines $(head -c 200 "$out/a.err")"
    fi
}

# same_forms EVENT COMM DSO PID "SYM,SYM": every short form against its
# long form, on filters that keep samples of the capture
same_forms() {
    local event=$1 comm=$2 dso=$3 pid=$4 syms=$5
    same "report -i FILE = report FILE" "-i $log" "$log"
    same "report -s = --sort" "-s dso,sym $log" "--sort=dso,sym $log"
    same "report -e = --event" "-e $event $log" "--event $event $log"
    same "report -c = --comms = --comm" "-c $comm $log" "--comms=$comm $log"
    same "report --comm = --comms" "--comm $comm $log" "--comms $comm $log"
    same "report -d = --dsos = --dso" "-d $dso $log" "--dsos $dso $log"
    same "report --pids = --pid" "--pids $pid $log" "--pid $pid $log"
    same "report -S = --symbols" "-S $syms $log" "--symbols=$syms $log"
    same "report -g = --call-graph" "-g graph,0.5,caller $log" "--call-graph=caller,graph,0.5 $log"
    same "report -G = --inverted" "-G $log" "--inverted $log"
    same "report -G = -g graph,caller" "-G $log" "-g graph,caller $log"
    same "report -q = --quiet" "-q $log" "--quiet $log"
    same "report -n = --show-nr-samples = default" "-n $log" "$log"
    same "report --stdio = default" "--stdio $log" "$log"
    same "report --no-children = default" "--no-children $log" "$log"
    same "report --children --no-children = --no-children" "--children --no-children $log" "$log"
    same "script -F = --fields" "-F comm,pid,time,ip,sym $log" "--fields=comm,pid,time,ip,sym $log" script
    same "script -F +/- changes" "-F -cpu,-period $log" "-F comm,pid,time,event,ip,sym,symoff,dso $log" script
    same "script default fields" "-F comm,pid,cpu,time,period,event,ip,sym,symoff,dso $log" "$log" script
    same "export -i = FILE" "--format folded -i $log" "--format folded $log" export
    same "export -e -c = --event --comms" "--format csv -e $event -c $comm $log" \
        "--format csv --event=$event --comms=$comm $log" export
}

# total OPTIONS...: the report's "# Total samples:"
total() { "$V" report "${opts[@]}" "$@" "$log" | sed -n 's/^# Total samples: //p'; }

# sample_times MIN: each sample's time in ns (script --ns) in
# $out/times.txt, at least MIN of them; sets n, first, last
sample_times() {
    "$V" script "${opts[@]}" --ns -F time "$log" | sed -n 's/^ *\([0-9]*\)\.\([0-9]*\): *$/\1\2/p' \
        | sed 's/^0*//' >"$out/times.txt"
    n=$(wc -l <"$out/times.txt")
    first=$(sort -n "$out/times.txt" | head -n1)
    last=$(sort -n "$out/times.txt" | tail -n1)
    [ "$n" -ge "$1" ] && pass "$tag: script --ns times of $n samples ($first..$last ns)" ||
        fail "$tag: script --ns times" "$n samples, want at least $1"
}

# in_range LO HI OPEN: samples with LO <= t <= HI (t < HI when OPEN=1)
in_range() { awk -v lo="$1" -v hi="$2" -v open="$3" '$1 >= lo && (open ? $1 < hi : $1 <= hi) { n++ } END { print n + 0 }' "$out/times.txt"; }

# check_time NAME RANGE WANT: script and report keep WANT samples
check_time() {
    local name=$1 range=$2 want=$3 s r
    s=$("$V" script "${opts[@]}" --ns -F time --time "$range" "$log" | grep -c ':')
    r=$(total --time "$range")
    [ "$s" = "$want" ] && [ "$r" = "$want" ] && pass "$tag: --time $name keeps exactly $want samples" ||
        fail "$tag: --time $name" "want $want, script $s, report '$r'"
}

# at P: the time P % of the way from the first sample to the last
at() { echo $(( first + (last - first) * $1 / 100 )); }

# check_time_percent: perf's percent forms (after sample_times)
check_time_percent() {
    check_time "10%/2" "10%/2" "$(in_range "$(at 10)" "$(at 20)" 1)"
    check_time "0%-10%,30%-40%" "0%-10%,30%-40%" "$(( $(in_range "$(at 0)" "$(at 10)" 1) + $(in_range "$(at 30)" "$(at 40)" 1) ))"
    check_time "90%-100% (the last sample in)" "90%-100%" "$(in_range "$(at 90)" "$(at 100)" 0)"
    check_time "10%/1 .. 10%/10 add up" "10%/1,10%/2,10%/3,10%/4,10%/5,10%/6,10%/7,10%/8,10%/9,10%/10" "$n"
    check_time "0%-100% = all" "0%-100%" "$(total)"
}
