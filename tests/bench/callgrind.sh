# Sourced by the benchmarks that count instructions with callgrind.
#
# callgrind_ir BASE [CALLGRIND OPTIONS...] -- COMMAND...: runs COMMAND under
# valgrind --tool=callgrind (its profile, stdout and stderr in BASE.out,
# BASE.stdout, BASE.stderr) and prints the Ir callgrind collected; returns 1
# after a message on stderr when it failed or said nothing.
callgrind_ir() {
    local base=$1 opts=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    valgrind --tool=callgrind --callgrind-out-file="$base.out" "${opts[@]}" "$@" \
        >"$base.stdout" 2>"$base.stderr" || { echo "callgrind failed: see $base.stderr" >&2; return 1; }
    local ir
    ir=$(sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p' "$base.stderr")
    [ -n "$ir" ] || { echo "no 'Collected' line in $base.stderr" >&2; return 1; }
    echo "$ir"
}
