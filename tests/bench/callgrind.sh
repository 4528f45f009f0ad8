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

# callgrind_per_op FN ARG K1 K2: instructions per operation, (FN ARG K2 -
# FN ARG K1) / (K2 - K1), FN printing the Ir of K operations; start-up
# cancels out.
callgrind_per_op() {
    local fn=$1 arg=$2 k1=$3 k2=$4 ir1 ir2
    ir1=$("$fn" "$arg" "$k1") || return 1
    ir2=$("$fn" "$arg" "$k2") || return 1
    awk -v a="$ir1" -v b="$ir2" -v k1="$k1" -v k2="$k2" 'BEGIN { printf "%.1f", (b - a) / (k2 - k1) }'
}

# harness_msrs FILE OP K: "reads writes elided" from a harness's output
# line "OP K reads writes elided"; returns 1 after a message if the line
# is not that.
harness_msrs() {
    local name k reads writes elided
    read -r name k reads writes elided < "$1"
    [ "$name" = "$2" ] && [ "$k" = "$3" ] || { echo "unexpected harness output in $1" >&2; return 1; }
    echo "$reads $writes $elided"
}
