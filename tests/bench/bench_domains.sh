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
# A third boot shares both CPUs of a two-CPU machine with a domain of two
# VCPUs (dom.1.vcpus=2 on CPUs 0 and 1):
#   smp:    domain 0 (Linux, two VCPUs) and the Linux domain 1 each run
#           smp_spin (tests/guest/smp_spin.c: one thread pinned to each of
#           their CPUs, SMP_ROUNDS rounds of the same loop timed with the
#           TSC; domain 0 twice as many).
# The two kernels boot at different speeds, so a VCPU's loop runs partly
# beside the other domain's loop on its CPU (2 busy VCPUs: about 2 ticks
# per loop instruction) and partly alone (about 1). Each round is sorted
# by its ticks per instruction: shared at 1.9 or more, alone at 1.1 or
# less; the rounds in between overlapped the other loop only in part and
# are left out. For each VCPU of both domains the median shared round is
# printed with what is beyond its half of the CPU (median / 2 - 1: the
# VCPU switches, the slices' timer, and the kernel's own interrupts), and
# the median alone round with what is beyond the whole CPU (median - 1:
# the kernel's own interrupts and Vertigo's exits for them), so the cost
# of sharing is the difference of the two. A VCPU of domain 1 without a
# shared round fails the benchmark. With two Bochs CPUs one tick is only
# about one instruction each CPU ran (docs/user-guide.md), so these
# figures carry that bound too.
#
# usage: BUILD=build tests/bench/bench_domains.sh
#   env: BENCH_ROUNDS (default 30), BENCH_ITERATIONS (default 3000000),
#        BENCH_SMP_ROUNDS (default 20), BENCH_SMP_ITERATIONS (default
#        2000000), BENCH_SLICE (default 10ms), BENCH_TIMEOUT (wall seconds,
#        default 900; the smp boot, two Linux domains on two emulated CPUs,
#        gets three times as long), BENCH_DOMAINS_BOOTS (default "alone
#        shared smp"), BENCH_REUSE=1 (no boot: report the captures
#        already in build/bench/domains)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/domains"
ROUNDS=${BENCH_ROUNDS:-30}
ITERATIONS=${BENCH_ITERATIONS:-3000000}
SLICE=${BENCH_SLICE:-10ms}
TIMEOUT=${BENCH_TIMEOUT:-900}
SMP_ROUNDS=${BENCH_SMP_ROUNDS:-20}
SMP_ITERATIONS=${BENCH_SMP_ITERATIONS:-2000000}
BOOTS=${BENCH_DOMAINS_BOOTS:-alone shared smp}
LINUX="nokaslr tsc=reliable panic=-1"
GUEST="console=ttyS0,115200 $LINUX quiet vertigo.scenario=hello"
SPIN="$BUILD/unikernel/ukspin.elf"

die() { echo "bench-domains: FAILED: $*" >&2; exit 1; }

for f in "$BUILD/vertigo.elf" "$BUILD/guest/vmlinuz" "$BUILD/guest/initrd.cpio.lz4" "$SPIN"; do
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
        --initrd "$BUILD/guest/initrd.cpio.lz4" --guest-cmdline "$GUEST" \
        --cmdline "$hv" "${mods[@]}" --out "$OUT/$name" 2>"$OUT/$name.runner.txt" ||
        die "the $name boot (captures in $OUT/$name)"
}

# boot_smp: domain 0 and a Linux domain 1 of two VCPUs on CPUs 0 and 1,
# each running smp_spin on both its CPUs, domain 0 twice as long.
boot_smp() {
    local spin="vertigo.scenario=smp_spin vertigo.spin_iterations=$SMP_ITERATIONS"
    local hv="console=com2 sched.slice=$SLICE dom.1=linux:lin:initrd1 dom.1.name=lin-smp"
    hv="$hv dom.1.mem=256M dom.1.vcpus=2 dom.1.cpus=0,1"
    host-tools/vertigo-run --platform bochs --cpus 2 --mem 800 --timeout $((3 * TIMEOUT)) --quiet \
        --elf "$BUILD/vertigo.elf" --kernel "$BUILD/guest/vmlinuz" \
        --initrd "$BUILD/guest/initrd.cpio.lz4" \
        --guest-cmdline "console=ttyS0,115200 $LINUX quiet $spin vertigo.spin_rounds=$((2 * SMP_ROUNDS))" \
        --cmdline "$hv" --module "$BUILD/guest/vmlinuz" "lin $LINUX quiet $spin vertigo.spin_rounds=$SMP_ROUNDS" \
        --module "$BUILD/guest/initrd.cpio.lz4" initrd1 --out "$OUT/smp" 2>"$OUT/smp.runner.txt" ||
        die "the smp boot (captures in $OUT/smp)"
}

# median_ratio FILE [CPU]: the median round's ticks / instructions, 4
# decimals, of ukspin's rounds or of smp_spin's rounds on CPU.
median_ratio() {
    local round='ukspin: round'
    [ $# -gt 1 ] && round="smp_spin: cpu $2 round"
    tr -d '\r' <"$1" | sed -nE "s/^$round [0-9]+: instructions ([0-9]+) ticks ([0-9]+)\$/\1 \2/p" |
        awk '{ printf "%.6f\n", $2 / $1 }' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.4f %d\n", v[int((NR + 1) / 2)], NR }'
}

# switches NAME D [V]: domain D's VCPU V's (default 0) switches in, from
# the statistics Vertigo prints after "guest: domain D ..." at its end.
switches() {
    tr -d '\r' <"$OUT/$1/com2.txt" |
        awk -v d="$2" -v v="vcpu ${3:-0}:" '$1 == "guest:" && $2 == "domain" { mine = ($3 == d) }
                       mine && index($0, "exits: " v " ") == 1 && / switches in,/ { print $4; exit }'
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

# split_rounds FILE CPU: smp_spin's rounds on CPU, each "shared" or
# "alone" (see above) with its ticks per instruction, the others dropped.
split_rounds() {
    tr -d '\r' <"$1" |
        sed -nE "s/^smp_spin: cpu $2 round [0-9]+: instructions ([0-9]+) ticks ([0-9]+)\$/\1 \2/p" |
        awk '{ r = $2 / $1; if (r >= 1.9) printf "shared %.6f\n", r
               else if (r <= 1.1) printf "alone %.6f\n", r }'
}

# median_of KIND: "median count" of the KIND rounds on stdin (count 0: none).
median_of() {
    awk -v k="$1" '$1 == k { print $2 }' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.4f %d\n", v[int((NR + 1) / 2)], NR; else print "- 0" }'
}

# report_smp: each VCPU's median shared and alone rounds, both domains.
report_smp() {
    local d cpu file name rounds shared ns alone na
    for d in 0 1; do
        file="$OUT/smp/serial.txt" name=dom0 rounds=$((2 * SMP_ROUNDS))
        [ $d = 1 ] && file="$OUT/smp/dom1.txt" name=lin-smp rounds=$SMP_ROUNDS
        grep -q '^smp_spin: PASS' "$file" || die "smp: $name's smp_spin did not pass ($file)"
        for cpu in 0 1; do
            [ "$(median_ratio "$file" "$cpu" | cut -d' ' -f2)" = "$rounds" ] ||
                die "smp: not $rounds rounds of $name's CPU $cpu in $file"
            read -r shared ns <<<"$(split_rounds "$file" "$cpu" | median_of shared)"
            read -r alone na <<<"$(split_rounds "$file" "$cpu" | median_of alone)"
            [ $d = 0 ] || [ "$ns" -gt 0 ] || die "smp: no round of $name's VCPU $cpu ran beside domain 0's"
            printf '  smp    %-7s vcpu%d: %2d shared rounds, median %s ticks per loop instruction: %s %% beyond its 1/2 share; %2d alone, median %s: %s %% beyond the whole CPU; %s VCPU switches in\n' \
                "$name" "$cpu" "$ns" "$shared" \
                "$(awk -v r="$shared" 'BEGIN { if (r == "-") print "-"; else printf "%.2f", (r / 2 - 1) * 100 }')" \
                "$na" "$alone" \
                "$(awk -v r="$alone" 'BEGIN { if (r == "-") print "-"; else printf "%.2f", (r - 1) * 100 }')" \
                "$(switches smp "$d" "$cpu")"
        done
    done
}

for b in $BOOTS; do
    case "$b" in
        alone) [ -n "${BENCH_REUSE:-}" ] || boot alone 1; dom0_last alone ;;
        shared) [ -n "${BENCH_REUSE:-}" ] || boot shared 2; dom0_last shared ;;
        smp) [ -n "${BENCH_REUSE:-}" ] || boot_smp ;;
        *) die "unknown boot '$b' in BENCH_DOMAINS_BOOTS (alone, shared, smp)" ;;
    esac
done
case " $BOOTS " in *" alone "*|*" shared "*)
    echo "== sharing a CPU between domains (Bochs, one CPU, slices of $SLICE; $ROUNDS rounds of $((3 * ITERATIONS)) loop instructions per domain, domain 0 booting Linux)" ;;
esac
case " $BOOTS " in *" alone "*) report alone 1 ;; esac
case " $BOOTS " in *" shared "*) report shared 2 ;; esac
case " $BOOTS " in *" smp "*)
    echo "== sharing two CPUs with a domain of two VCPUs (Bochs, two CPUs, slices of $SLICE; domain 0 and lin-smp each with a VCPU on CPUs 0 and 1, each VCPU running rounds of $((3 * SMP_ITERATIONS)) loop instructions: lin-smp $SMP_ROUNDS, domain 0 $((2 * SMP_ROUNDS)))"
    report_smp ;;
esac
