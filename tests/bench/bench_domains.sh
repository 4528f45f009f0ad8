#!/bin/bash
# The slowdown of a domain's compute loop when it shares its CPU, beyond
# its share of the time. Two Bochs boots, one CPU, slices of sched.slice=
# (default 10 ms), domain 0 Linux booting and running the short hello
# scenario (busy all along: the benchmark checks that domain 0 ended after
# the loops' domains, else its figures would not be comparable):
#   alone:  one unikernel domain runs ukspin (guestlib/unikernel/tests/
#           ukspin.c: ROUNDS rounds of a loop of known instructions, each
#           timed with the TSC) beside domain 0: 2 busy domains;
#   shared: two such domains at once: 3 busy domains.
# In Bochs one TSC tick is one instruction the machine emulated, a clock
# no guest can set, so a round's ticks over its instructions is its
# slowdown; the median round of each domain is printed. With n busy
# domains a loop's fair share is 1/n of the CPU, so
#   beyond its share = median ticks per instruction / n - 1
# is what sharing costs on top of that: VCPU switches, the slices' timer,
# domain 0's interrupts taken while another domain runs. Figures, not a
# pass/fail test; a boot that fails or a missing figure fails the
# benchmark. VCPU switches per domain come from Vertigo's exit statistics.
#
# usage: BUILD=build tests/bench/bench_domains.sh
#   env: BENCH_ROUNDS (default 30), BENCH_ITERATIONS (default 3000000),
#        BENCH_SLICE (default 10ms), BENCH_TIMEOUT (wall seconds, default 900)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/domains"
ROUNDS=${BENCH_ROUNDS:-30}
ITERATIONS=${BENCH_ITERATIONS:-3000000}
SLICE=${BENCH_SLICE:-10ms}
TIMEOUT=${BENCH_TIMEOUT:-900}
GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=hello"
SPIN="$BUILD/unikernel/ukspin.elf"

die() { echo "bench-domains: FAILED: $*" >&2; exit 1; }

for f in "$BUILD/vertigo.elf" "$BUILD/guest/vmlinuz" "$BUILD/guest/initrd.cpio.gz" "$SPIN"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD hv guest unikernel)"
done
mkdir -p "$OUT"

# boot NAME DOMAINS: DOMAINS unikernel domains running ukspin beside domain 0.
boot() {
    local name=$1 n=$2 hv="console=com2 sched.slice=$SLICE" mods=() d
    for d in $(seq 1 "$n"); do
        hv="$hv dom.$d=unikernel:spin$d dom.$d.mem=8M"
        mods+=(--module "$SPIN" "spin$d $ROUNDS $ITERATIONS")
    done
    host-tools/vertigo-run --platform bochs --timeout "$TIMEOUT" --quiet \
        --elf "$BUILD/vertigo.elf" --kernel "$BUILD/guest/vmlinuz" \
        --initrd "$BUILD/guest/initrd.cpio.gz" --guest-cmdline "$GUEST" \
        --cmdline "$hv" "${mods[@]}" --out "$OUT/$name" 2>"$OUT/$name.runner.txt" ||
        die "the $name boot (captures in $OUT/$name)"
}

# median_ratio FILE: the median round's ticks / instructions, 4 decimals.
median_ratio() {
    tr -d '\r' <"$1" | sed -nE 's/^ukspin: round [0-9]+: instructions ([0-9]+) ticks ([0-9]+)$/\1 \2/p' |
        awk '{ printf "%.6f\n", $2 / $1 }' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.4f %d\n", v[int((NR + 1) / 2)], NR }'
}

# switches NAME D: domain D's VCPU switches in, from the statistics Vertigo
# prints after "guest: domain D ..." at its end.
switches() {
    tr -d '\r' <"$OUT/$1/com2.txt" |
        awk -v d="$2" '$1 == "guest:" && $2 == "domain" { mine = ($3 == d) }
                       mine && /^exits: vcpu 0: [0-9]+ switches in,/ { print $4; exit }'
}

# dom0_last NAME: domain 0's verdict line comes after every other's.
dom0_last() {
    tr -d '\r' <"$OUT/$1/com2.txt" | grep -E '^guest: domain [0-9]+ \(' | tail -n1 |
        grep -q '^guest: domain 0 (' || die "$1: domain 0 ended before the loops (captures in $OUT/$1)"
}

# report NAME DOMAINS: each loop's median round and what is beyond its share.
report() {
    local name=$1 n=$2 d ratio rounds busy=$(($2 + 1))
    for d in $(seq 1 "$n"); do
        read -r ratio rounds <<<"$(median_ratio "$OUT/$name/dom$d.txt")"
        [ "${rounds:-0}" = "$ROUNDS" ] ||
            die "$name: ${rounds:-0} of $ROUNDS rounds in $OUT/$name/dom$d.txt"
        beyond=$(awk -v r="$ratio" -v n="$busy" 'BEGIN { printf "%.2f", (r / n - 1) * 100 }')
        printf '  %-6s dom%d: median round %s ticks per loop instruction, %s busy domains: %s %% beyond its 1/%s share; %s VCPU switches in\n' \
            "$name" "$d" "$ratio" "$busy" "$beyond" "$busy" "$(switches "$name" "$d")"
    done
}

boot alone 1
boot shared 2
dom0_last alone
dom0_last shared
echo "== sharing a CPU between domains (Bochs, one CPU, slices of $SLICE; $ROUNDS rounds of $((3 * ITERATIONS)) loop instructions per domain, domain 0 booting Linux)"
report alone 1
report shared 2
