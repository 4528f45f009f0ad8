#!/bin/bash
# End-to-end test of `vertigo top`, live, on a Bochs boot of the main job
# (`make run`: Vertigo's and the guest's command lines of its ISO, the
# guest's profile scenario: a sampling session of instructions:ukh with
# call stacks around the demonstration workload), the workload scaled up
# so it runs for a while. `vertigo run --top` runs in a tmux pane (a real
# terminal: the view redraws in place), polled every half second: the
# pane shows the workload's hot function within a few seconds of the log
# naming it (`vertigo report` of the log so far, polled too) and while the
# run is still going; when the run ends the view's last refresh says so,
# `vertigo top` exits, `vertigo run` exits 0 (PASS) and the capture's
# report is what it is without --top (hot first). Then perf's short option
# forms against their long forms, and --time against `vertigo script
# --ns`, on that capture (tests/e2e/perf_forms.bash; perf-options.sh runs
# them on a synthetic capture too), and `vertigo check-frames` finds no
# invalid frame in it. Prints PASS:/FAIL: lines.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
RUN=top
out="$E2E_OUT/$RUN"
rm -rf "$out" "$out.pane" "$out.forms"
mkdir -p "$out.pane"
command -v tmux >/dev/null || { fail "top: tmux installed" "no tmux (host-tools/setup-deps)"; exit 1; }
# guestlib/guest.mk's GUEST_CMDLINE and ISO_CMDLINE, the profile scenario.
GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 $GUEST_BOOT_SKIP quiet vertigo.agent=1 vertigo.scenario=profile"
# Scale 12: the workload's session lasted 17 s of wall time on a loaded
# 2-core machine (scale 40: 99 s there, about 55 s in fresh-clone CI
# runs), and the pane named hot 0 to 3 s into it in every run seen: the
# checks need the run still going when it does, and a machine slow enough
# to stretch that is slow for the workload too. Each sample also costs
# check-frames and the perf-option forms below host time (21,500 samples
# now, 70,400 at scale 40).
GUEST="$GUEST vertigo.workload_scale=12"
HV="console=com2 log=e9"
session="vertigo-top-$$"
# The run in the pane; its exit status lands in a file when it ends.
tmux new-session -d -s "$session" -x 150 -y 40 \
    "$VERTIGO run --top --elf $BUILD/vertigo.elf --out $out --platform bochs --timeout 900 \
     --cmdline '$HV' --kernel $KERNEL --initrd $INITRD --guest-cmdline '$GUEST'; \
     echo \$? >$out.pane/status; sleep 600"
start=$SECONDS
screen_at= log_at= running_at_screen=
while [ $((SECONDS - start)) -lt 900 ] && [ ! -s "$out.pane/status" ]; do
    tmux capture-pane -p -t "$session" >"$out.pane/screen.txt" 2>/dev/null
    now=$((SECONDS - start))
    if [ -z "$screen_at" ] && grep -qE '%.*\[\.\] +dom0 +hot  \(/bin/workload\)' "$out.pane/screen.txt"; then
        screen_at=$now
        cp "$out.pane/screen.txt" "$out.pane/first-hot.txt"
        [ ! -s "$out.pane/status" ] && running_at_screen=1
    fi
    if [ -z "$log_at" ] && [ -s "$out/debugcon.txt" ] &&
       "$VERTIGO" report -q -s sym "${GUEST_SYMS[@]}" "$out/debugcon.txt" 2>/dev/null | grep -qE '\] hot( |$)'; then
        log_at=$now
    fi
    sleep 0.5
done
# With its history: the run's verdict lines scroll the last view's header
# off the pane.
tmux capture-pane -p -S - -t "$session" >"$out.pane/last.txt" 2>/dev/null
tmux kill-session -t "$session" 2>/dev/null
status=$(cat "$out.pane/status" 2>/dev/null)

[ "$status" = 0 ] && pass "top: vertigo run --top: PASS (exit 0)" || fail "top: vertigo run --top" "exit '$status'"
if [ -n "$screen_at" ] && [ -n "$log_at" ] && [ $((screen_at - log_at)) -le 3 ] && [ -n "$running_at_screen" ]; then
    pass "top: the pane shows hot $((screen_at - log_at)) s after the log names it (at ${screen_at} s, the run still going)"
else
    fail "top: the pane shows hot within 3 s of the log naming it" \
        "log at '${log_at}' s, pane at '${screen_at}' s, running '${running_at_screen}'"
fi
[ -s "$out.pane/first-hot.txt" ] && sed 's/^/      /' "$out.pane/first-hot.txt" | head -n 8
last_view=$(grep '^vertigo top: ' "$out.pane/last.txt" | tail -n 1)
[[ $last_view =~ \(the\ run\ ended\):\ [0-9]+\ samples ]] &&
    pass "top: its last refresh came after the run ended, and it exited" ||
    fail "top: last refresh after the run ended" "last view: '$last_view'"
grep -q 'vertigo top failed' "$out.pane/last.txt" && fail "top: vertigo top exited 0" "it failed" ||
    pass "top: vertigo top exited 0"
first_user=$("$VERTIGO" report -q -s sym "${GUEST_SYMS[@]}" "$out/debugcon.txt" 2>/dev/null |
             sed -n 's/.*\[\.\] \([^ ]*\).*/\1/p' | head -n 1)
[ "$first_user" = hot ] && pass "top: the capture's report: hot first, as without --top" ||
    fail "top: the capture's report" "first user row '$first_user'"
expect_line $RUN "profile scenario" '^VERTIGO-GUEST: profile: PASS$'
# The frame checker on the main job's capture (make run's command lines
# and profile scenario, instructions:ukh with call stacks): every frame
# checked against the bytes of its binary, none invalid.
expect_valid_frames $RUN "${GUEST_SYMS[@]}" --kernel-image "$KERNEL"

# perf's option forms on this capture: the filters name the workload's
# process, image and functions, the event the session sampled.
V=$VERTIGO log=$out/debugcon.txt tag="top: perf options" opts=("${GUEST_SYMS[@]}")
out=$out.forms                      # perf_forms.bash's scratch files
mkdir -p "$out"
event=$("$V" report "${opts[@]}" "$log" | sed -n "s/^# Samples: [0-9]* of event '\(.*\)'$/\1/p" | head -n 1)
pid=$("$V" script "${opts[@]}" -F comm,pid "$log" | awk '$1 == "workload" { print $2; exit }')
. tests/e2e/perf_forms.bash
if [ -n "$event" ] && [ -n "$pid" ]; then
    same_forms "$event" workload /bin/workload "$pid" hot,warm
else
    fail "$tag: the capture's event and the workload's PID" "event '$event', pid '$pid'"
fi
# --time in seconds (to the nanosecond, as script --ns prints them) and in
# percent: exactly the samples script --ns puts in the range.
sample_times 1000
secs() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
check_time "25%..50% in seconds" "$(secs "$(at 25)"),$(secs "$(at 50)")" "$(in_range "$(at 25)" "$(at 50)" 0)"
check_time "75%.. in seconds (open stop)" "$(secs "$(at 75)")," "$(in_range "$(at 75)" "$last" 0)"
check_time "..10% in seconds (open start)" ",$(secs "$(at 10)")" "$(in_range 0 "$(at 10)" 0)"
check_time_percent
exit $E2E_FAILED
