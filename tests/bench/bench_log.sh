#!/bin/bash
# Log benchmark (make bench-log): the figures of bench-log
# (tests/bench/bench_log.c: record size, producer cost, the decoder's
# records per second as the median of several passes by CPU time and by
# wall time), then the decoder's instructions per record as callgrind
# counts them: decode_once() on 200,000 and on 1,000,000 RIP-only samples,
# the difference over 800,000 (the start-up cancels out). The count
# includes the block framing and both checksums (the decoder reads blocks
# where they lie in its input, so nothing is copied). Figures are printed,
# never enforced; a run that fails fails the benchmark.
#
# usage: BUILD=build tests/bench/bench_log.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BENCH="$BUILD/bench/bench-log"
OUT="$BUILD/bench/log"
. tests/bench/callgrind.sh

[ -x "$BENCH" ] || { echo "bench-log: missing $BENCH (run: make BUILD=$BUILD $BENCH)" >&2; exit 1; }
"$BENCH" || exit 1
if ! command -v valgrind >/dev/null; then
    echo "bench-log: callgrind count skipped: valgrind is not installed"
    exit 0
fi
mkdir -p "$OUT"
# decode_ir BENCH K: instructions of decode_once() on K samples
decode_ir() { callgrind_ir "$OUT/decode-$2" --toggle-collect=decode_once -- "$1" --decode-once "$2"; }
per=$(callgrind_per_op decode_ir "$BENCH" 200000 1000000) || exit 1
echo "bench-log: decoder: $per instructions per record (callgrind; RIP-only samples, checksums included)"
