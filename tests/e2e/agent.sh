#!/bin/bash
# End-to-end tests of the guest side of profiling: the kernel module, the
# agent shipping kernel symbols, process maps and JIT maps (two epochs),
# and bad input (malformed symbol chunks, session control from user mode).
# One boot under Vertigo in Bochs, one bare boot under QEMU TCG (where the
# module must refuse to load and everything degrades cleanly).
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

KERNEL="$BUILD/guest/vmlinuz"
INITRD="$BUILD/guest/initrd.cpio.gz"
GUEST="console=ttyS0,115200 nokaslr tsc=reliable panic=-1 quiet vertigo.scenario=agent,jit,badinput"
VERTIGO="$BUILD/vertigo"

guest_line() { tr -d '\r' < "$E2E_OUT/$1/serial.txt" | grep -qE -- "$3" &&
    pass "$1: $2" || fail "$1: $2" "no guest console line matches /$3/"; }

run_vertigo agent 0 --platform bochs --timeout 900 --cmdline "console=com2 log=e9" \
    --kernel "$KERNEL" --initrd "$INITRD" --guest-cmdline "$GUEST vertigo.agent=1"
for s in agent jit badinput; do
    guest_line agent "$s scenario" "^VERTIGO-GUEST: $s: PASS$"
done
decoded="$E2E_OUT/agent/decode.txt"
"$VERTIGO" decode "$E2E_OUT/agent/debugcon.txt" >"$decoded" 2>&1
has() { grep -qE -- "$2" "$decoded" && pass "agent: log: $1" || fail "agent: log: $1" "no /$2/ in $decoded"; }
has "kallsyms chunks" ' symbols dom=0 kind=kallsyms pid=0 epoch=0 chunk=0 '
has "kallsyms has the kernel's start_kernel" 'start_kernel'
has "process maps" ' symbols dom=0 kind=proc-maps pid=[1-9][0-9]* '
has "process identities" ' symbols dom=0 kind=process pid=[1-9][0-9]* '
has "JIT map, epoch 1" ' symbols dom=0 kind=jit-map pid=[1-9][0-9]* epoch=1 .*jit_loop_epoch1'
has "JIT map, epoch 2 with the moved code" ' symbols dom=0 kind=jit-map pid=[1-9][0-9]* epoch=2 .*jit_loop_epoch2'

# Without Vertigo (QEMU TCG boots the kernel directly): the module refuses,
# the scenarios say so and still pass.
mkdir -p "$E2E_OUT/agent-bare"
timeout 300 qemu-system-x86_64 -accel tcg -m 512 -kernel "$KERNEL" -initrd "$INITRD" \
    -append "$GUEST vertigo.agent=1" -display none -no-reboot -monitor none \
    -serial "file:$E2E_OUT/agent-bare/serial.txt" </dev/null >/dev/null 2>&1
for s in agent jit badinput; do
    guest_line agent-bare "$s scenario without Vertigo" "^VERTIGO-GUEST: $s: PASS$"
done
