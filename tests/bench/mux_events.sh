# The 32 events of bench-mux's session, in one list (sourced by
# tests/bench/bench_mux.sh, which boots with them, and by
# tests/bench/bench_exit.sh, whose harness cases mux-exact and mux-4 count
# the same session): instructions, cycles and ref-cycles in each of the 7
# mode sets (21 hardware events) and 11 software events.
MUX_EVENTS=""
for ev in instructions cycles ref-cycles; do
    for mods in u k uk h uh kh ukh; do
        MUX_EVENTS="$MUX_EVENTS${MUX_EVENTS:+,}$ev:$mods"
    done
done
MUX_EVENTS="$MUX_EVENTS,exits:all,exits:cpuid,exits:io,exits:vmcall,exits:rdmsr,exits:wrmsr"
MUX_EVENTS="$MUX_EVENTS,exits:ept_violation,exits:preemption_timer,exits:hlt,exits:external_interrupt,nmis"
