#!/bin/bash
# Call-stack benchmark. First the walk alone: callgrind counts the
# instructions of a 16-deep kernel sample's walk on a host harness
# (tests/bench/bench_kstack_harness.c: Vertigo's ORC walk, stack reader
# and checked guest-memory cursor over a synthetic guest behind a real
# EPT), with the stack pages' translations cached and without, and what
# one kernel call frame adds (the cached walk less the same walk started
# 8 functions further out, over 8). Then one
# Bochs boot (clock sync=none: one TSC cycle is one emulated instruction)
# with the guest agent, which declares the kernel's ORC tables, running
# the dwarf scenario (user stacks copied with each user sample) and the
# main job's profile scenario (the demonstration workload: user loops,
# then pipe round trips that keep the kernel busy) sampling
# instructions:uk with call stacks of depth 16. Vertigo times the stack
# walk of every PMI (sample.cost_every=1; pmu/sample/sample_nmi.c: "sample: cpu N: kernel call
# stacks: ... avg C cycles per walk, F per frame", a least-squares fit of
# each walk's cycles to its depth, and how often the translation cache
# answered: "stack page translations"); this prints, per mode, the
# instructions per walk, the fit's two parts -- what every walk pays
# whatever its depth (the guest registers, the translation cache, the
# first stack page of each mode) and what each frame adds -- against the
# targets (<= 60 per frame; <= 400 for a whole 16-deep walk, from the fit:
# fixed + 16 x per frame, the real walks being shallower), the share of kernel
# samples whose chain reaches user code, and the log bytes per sample with
# and without the user-stack copy. Figures are reported, never enforced; a
# boot that fails or a line that is missing fails the benchmark.
#
# usage: BUILD=build tests/bench/bench_kstack.sh
#   env: BENCH_IPS (default 50000000), BENCH_TIMEOUT (wall seconds, default 900),
#        BENCH_JOBS (boots at once, default both)
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
OUT="$BUILD/bench/kstack"
IPS=${BENCH_IPS:-50000000}
TIMEOUT=${BENCH_TIMEOUT:-900}
DEPTH=16
TARGET_FRAME=60
TARGET_WALK=400
HV_OPTS="console=com2 log=e9 pmu=auto sample.cost_every=1"   # every PMI timed
GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=dwarf,profile"
GUEST="$GUEST vertigo.agent=1 vertigo.profile_event=instructions:uk"
KDEEP_GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=kdeep"

die() { echo "bench-kstack: FAILED: $*" >&2; exit 1; }

for f in "$BUILD/vertigo.elf" "$BUILD/guest/vmlinuz" "$BUILD/guest/initrd.cpio.lz4" "$BUILD/vertigo"; do
    [ -f "$f" ] || die "missing $f (run: make BUILD=$BUILD hv guest $BUILD/vertigo)"
done
rm -rf "$OUT"
mkdir -p "$OUT"

# ---- 1. The walk alone, counted by callgrind on the host harness ----------
# Twice: as Vertigo runs (the stack pages' translations cached across
# samples, vmm/guest/guest_tlb.h) and with every sample walking the guest's page
# tables (--no-tlb: a sample whose stack pages no recent sample used).
HARNESS="$BUILD/bench/bench_kstack_harness"
WALKS=1000
[ -x "$HARNESS" ] || die "missing $HARNESS (run: make BUILD=$BUILD $HARNESS)"
for variant in cached no-tlb; do
    opt=; [ "$variant" = no-tlb ] && opt=--no-tlb
    cg="$OUT/harness-$variant"
    valgrind --tool=callgrind --callgrind-out-file="$cg.callgrind" --toggle-collect=sample_walk \
        "$HARNESS" "$WALKS" $opt >"$cg.stdout" 2>"$cg.stderr" ||
        die "callgrind on $HARNESS $opt failed: see $cg.stderr"
    ir=$(sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p' "$cg.stderr")
    read -r _ walks _ frames < "$cg.stdout"
    [ -n "$ir" ] && [ "${walks:-0}" = "$WALKS" ] && [ "${frames:-0}" -gt 0 ] ||
        die "no callgrind total or walk count (see $cg.stderr, $cg.stdout)"
    awk -v ir="$ir" -v w="$walks" -v f="$frames" -v tf="$TARGET_FRAME" -v tw="$TARGET_WALK" -v v="$variant" 'BEGIN {
        pw = ir / w; pf = ir / f
        printf "bench-kstack: host harness (callgrind, compiled as vertigo.elf, %s): a %d-deep kernel sample (12 ORC frames, the syscall entry, 3 user frames; 2 stack pages)\n", v == "cached" ? "stack pages cached across samples" : "no translation cache", f / w
        printf "              %.0f instructions per walk (target <= %d: %s), %.1f per frame (target <= %d: %s)\n", pw, tw, pw <= tw ? "met" : "MISSED", pf, tf, pf <= tf ? "met" : "MISSED"
    }'
    # by source file and the function its code was inlined into (link-time
    # optimisation inlines most of the walk into the harness's sample_walk)
    callgrind_annotate "$cg.callgrind" 2>/dev/null |
        awk -v w="$walks" '$1 ~ /^[0-9,]+$/ && /:/ { fn = ""
            for (i = 2; i <= NF; i++) if ($i ~ /:/) fn = $i
            if (fn == "") next
            gsub(",", "", $1); n = split(fn, p, ":"); m = split(p[1], f, "/")
            printf "              %6.0f per walk in %s (%s)\n", $1 / w, f[m], p[n] }' | head -8
done

# What a call frame adds, exactly: the cached walk again from the 9th
# kernel function (--from 8: the same pages, entry and user frames, the 8
# innermost frames gone); the difference over 8 is their cost per frame.
SKIP=8
cg="$OUT/harness-from-$SKIP"
valgrind --tool=callgrind --callgrind-out-file="$cg.callgrind" --toggle-collect=sample_walk \
    "$HARNESS" "$WALKS" --from "$SKIP" >"$cg.stdout" 2>"$cg.stderr" ||
    die "callgrind on $HARNESS --from $SKIP failed: see $cg.stderr"
ir_short=$(sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p' "$cg.stderr")
ir_full=$(sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p' "$OUT/harness-cached.stderr")
[ -n "$ir_short" ] && [ -n "$ir_full" ] || die "no callgrind total (see $cg.stderr)"
awk -v a="$ir_full" -v b="$ir_short" -v w="$WALKS" -v k="$SKIP" -v tf="$TARGET_FRAME" 'BEGIN {
    pf = (a - b) / w / k
    printf "bench-kstack: host harness: a kernel call frame adds %.1f instructions (target <= %d: %s; the %d innermost frames: the walk from the first function less the walk from the %dth, %.0f - %.0f per walk, over %d)\n", pf, tf, pf <= tf ? "met" : "MISSED", k, k + 1, a / w, b / w, k
}'

# ---- 2. The whole NMI path in Bochs ----------------------------------------
echo "bench-kstack: two Bochs boots in parallel (ips $IPS). One with the agent: the dwarf scenario"
echo "              (instructions:u, --call-graph dwarf) then the main job's profile scenario (instructions:uk,"
echo "              period 10007, depth $DEPTH). One with a guest kernel path of known depth: the kdeep scenario"
echo "              (a module declares its ORC tables as the kernel's and spins under chains of 8 and 24"
echo "              functions; instructions:k, period 10007, depth $DEPTH)"
# boot NAME GUEST_CMDLINE: a boot in the background; its status in $OUT/NAME.status.
boot() {
    # BENCH_JOBS: at most that many boots at once (default: all)
    while [ "$(jobs -rp | wc -l)" -ge "${BENCH_JOBS:-99}" ]; do wait -n; done
    ( "$BUILD/vertigo" run --platform bochs --ips "$IPS" --timeout "$TIMEOUT" --quiet \
          --elf "$BUILD/vertigo.elf" --cmdline "$HV_OPTS" --kernel "$BUILD/guest/vmlinuz" \
          --initrd "$BUILD/guest/initrd.cpio.lz4" --guest-cmdline "$2" --out "$OUT/$1" \
          2>"$OUT/$1.runner.txt"
      echo $? >"$OUT/$1.status" ) &
}
boot run "$GUEST"
boot kdeep "$KDEEP_GUEST"
wait
for b in run kdeep; do
    [ "$(cat "$OUT/$b.status")" = 0 ] || die "the $b boot failed: $(tail -3 "$OUT/$b.runner.txt")"
done
for s in run:dwarf run:profile kdeep:kdeep; do
    # (grep reads its whole input, never -q: under pipefail the writer's SIGPIPE
    # after an early match would fail the pipe and the check with it)
    tr -d '\r' < "$OUT/${s%%:*}/serial.txt" | grep "^VERTIGO-GUEST: ${s#*:}: PASS$" >/dev/null ||
        die "the ${s#*:} scenario did not pass (see $OUT/${s%%:*}/serial.txt)"
done
com2=$(tr -d '\r' < "$OUT/run/com2.txt")
echo "$com2" | grep '^sample: domain [0-9]*: kernel ORC tables' >/dev/null ||
    die "the agent declared no kernel ORC tables (see $OUT/run/com2.txt)"

# walk_cost MODE: "WALKS FRAMES CYCLES" summed over the CPUs.
walk_cost() {
    echo "$com2" | sed -nE "s/^sample: cpu [0-9]+: $1 call stacks: ([0-9]+) walks measured, ([0-9]+) frames, avg ([0-9]+) cycles per walk, .*/\1 \2 \3/p" |
        awk '{ w += $1; f += $2; c += $1 * $3 } END { printf "%d %d %d\n", w, f, c }'
}
# walk_fit MODE: "FIXED PER_FRAME", each CPU's least-squares fit weighted by
# its measured walks (one CPU runs the workload here: its own fit).
walk_fit() {
    echo "$com2" | awk -v m="$1" '
        $1 == "sample:" && $2 == "cpu" && $4 == m && $5 == "call" {
            if ($7 ~ /^[0-9]+$/ && $8 == "walks") n[$3] = $7          # the walk count line
            else if ($7 == "least") { a[$3] = $13; b[$3] = ($17 == "-" ? -$18 : $18) }
        }
        END { for (c in a) if (n[c]) { w += n[c]; fa += n[c] * a[c]; fb += n[c] * b[c] }
              if (w) printf "%.1f %.1f\n", fa / w, fb / w }'
}
for mode in kernel user; do
    read -r walks frames cycles <<<"$(walk_cost $mode)"
    [ "$walks" -gt 0 ] || die "no measured $mode walk ('sample: cpu N: $mode call stacks' in $OUT/run/com2.txt)"
    read -r fixed per_frame <<<"$(walk_fit $mode)"
    [ -n "$per_frame" ] || die "no least-squares fit of the $mode walks (their depths all alike?) in $OUT/run/com2.txt"
    awk -v m="$mode" -v w="$walks" -v f="$frames" -v c="$cycles" -v a="$fixed" -v b="$per_frame" \
        -v tf="$TARGET_FRAME" -v tw="$TARGET_WALK" -v d="$DEPTH" 'BEGIN {
        printf "bench-kstack: %s stacks: %d walks measured, %.1f frames per walk, %.0f instructions per walk (%.1f per frame on average)\n", m, w, f / w, c / w, f ? c / f : 0
        printf "              least squares over the walks: %.0f per walk whatever its depth + %.1f per frame\n", a, b
        if (m == "kernel") {
            dw = a + b * d
            printf "              targets: <= %d per frame (%.1f: %s), <= %d for a %d-deep walk (%.0f + %d x %.1f = %.0f: %s)\n", tf, b, b <= tf ? "met" : "MISSED", tw, d, a, d, b, dw, dw <= tw ? "met" : "MISSED"
        }
    }'
done

# The known depths: the kdeep boot's kernel walks by depth (CPU 0's line:
# one VCPU), those of 8 and of 16 frames (the chains of 8 and of 24
# functions under the depth limit), measured, not fitted.
by_depth=$(tr -d '\r' < "$OUT/kdeep/com2.txt" |
           sed -nE 's/^sample: cpu 0: kernel call stacks by depth \(walks\/avg cycles\): //p')
read -r n8 c8 n16 c16 <<<"$(echo "$by_depth" | tr ' ' '\n' |
    awk -F'[:/]' '$1 == 8 { a = $2 " " $3 } $1 == 16 { b = $2 " " $3 } END { print a, b }')"
[ "${n16:-0}" -gt 0 ] && [ "${n8:-0}" -gt 0 ] ||
    die "no kernel walks of depth 8 and 16 in the kdeep boot (see $OUT/kdeep/com2.txt: '$by_depth')"
awk -v n8="$n8" -v c8="$c8" -v n16="$n16" -v c16="$c16" -v tf="$TARGET_FRAME" -v tw="$TARGET_WALK" 'BEGIN {
    pf = (c16 - c8) / 8
    printf "bench-kstack: measured kernel walks of known depth (kdeep boot, ORC, every frame in the module):\n"
    printf "              16 deep: %d instructions per walk over %d walks (target <= %d: %s); 8 deep: %d over %d\n", c16, n16, tw, c16 <= tw ? "met" : "MISSED", c8, n8
    printf "              a frame adds (16-deep - 8-deep) / 8 = %.1f (target <= %d: %s); what every walk pays: %.0f\n", pf, tf, pf <= tf ? "met" : "MISSED", c16 - 16 * pf
}'

echo "$com2" | sed -nE 's/^sample: cpu [0-9]+: stack page translations: ([0-9]+) cached, ([0-9]+) walked$/\1 \2/p' |
    awk '{ h += $1; m += $2 } END { if (h + m) printf "bench-kstack: new stack pages: %d of %d (%.1f %%) translated from the cache, %d by walking the guest page tables\n", h, h + m, 100 * h / (h + m), m }'

"$BUILD/vertigo" decode "$OUT/run/debugcon.txt" >"$OUT/decode.txt" 2>"$OUT/decode.err" ||
    die "vertigo decode: $(head -2 "$OUT/decode.err")"
awk '/ sample .*mode=guest-kernel/ {
        k++; n = 0
        for (i = 1; i <= NF; i++) if ($i ~ /^stack=/) n = split(substr($i, 7), st, ",")
        for (j = 1; j <= n; j++) if (st[j] !~ /^0xffff/) { u++; break }
     }
     END { printf "bench-kstack: %d kernel samples, %d (%.1f %%) with a chain reaching user code\n", k, u, k ? 100 * u / k : 0 }' "$OUT/decode.txt"
# Log bytes per sample: a record is its fields plus the type byte, the
# length varint and the TSC delta (about 4 bytes).
"$BUILD/vertigo" stats "$OUT/run/debugcon.txt" >"$OUT/stats.txt" 2>&1 ||
    die "vertigo stats failed: $(head -2 "$OUT/stats.txt")"
read -r samples sample_bytes <<<"$(sed -nE 's/^  sample +([0-9]+)  \(avg ([0-9.]+) field bytes\)$/\1 \2/p' "$OUT/stats.txt")"
read -r stacks stack_bytes <<<"$(sed -nE 's/^  user-stack +([0-9]+)  \(avg ([0-9.]+) field bytes\)$/\1 \2/p' "$OUT/stats.txt")"
[ -n "$samples" ] && [ -n "$stacks" ] || die "no sample or user-stack records in $OUT/stats.txt"
awk -v n="$samples" -v b="$sample_bytes" -v k="$stacks" -v sb="$stack_bytes" 'BEGIN {
    printf "bench-kstack: log bytes per sample: %.1f without the user-stack copy (%d sample records),\n", b + 4, n
    printf "              %.1f more with it (%d user-stack records of at most %d stack bytes: %.0f per user sample)\n", sb + 4, k, 896, b + sb + 8
}'
echo "bench-kstack: captures in $OUT"
