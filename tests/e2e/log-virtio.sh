#!/bin/bash
# End-to-end test of the virtio-console log drain (log=virtio) under QEMU
# TCG. QEMU has no VT-x, so Vertigo refuses to run (exit 3, NO-VMX), but
# it opens the drain first: the stream header and every record up to the
# refusal must arrive on the virtio console (virtio-log.bin), complete,
# gap-free and without loss. A second run without the device checks the
# specific warning and that the run goes on without a log.
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

NAME=log-virtio
DIR="$E2E_OUT/$NAME"
CAPTURE="$DIR/virtio-log.bin"

run_vertigo "$NAME" 3 --platform qemu-tcg --timeout 60 --log-virtio \
    --cmdline "console=com1 log=virtio"
expect_line "$NAME" "drain opened on the virtio console" \
    '^log: binary log on virtio \(PCI [0-9a-f]{2}:[0-9a-f]{2}\.[0-7], I/O 0x[0-9a-f]+\+0x[0-9a-f]+, tx queue [0-9]+\)'

expect_clean_stream "$NAME" "$CAPTURE"
expect_in "$NAME" stats.txt "stats: no problems (not even a skipped prefix)" '^problems: none$'

decode "$NAME" virtio-log.bin
expect_in "$NAME" decode.txt "decode: stream header first" '^# @0 stream version=1 '
expect_in "$NAME" decode.txt "decode: config record echoes the command line" ' config "console=com1 log=virtio"$'
expect_in "$NAME" decode.txt "decode: NO-VMX refusal as a console record" \
    ' console src=hv "vertigo: cannot run: this is not an Intel CPU'
expect_in "$NAME" decode.txt "decode: verdict as the last console record" \
    ' console src=hv "VERTIGO-END: NO-VMX \(no VT-x\)\\n"$'
last=$(grep -E ' console src=hv ' "$DIR/decode.txt" | tail -n 1)
grep -q 'VERTIGO-END: NO-VMX' <<<"$last" && pass "$NAME: nothing lost after the verdict" ||
    fail "$NAME: nothing lost after the verdict" "last record: $last"

# The binary stream goes to the virtio console only: COM1 holds no
# stream header (vertigo stats exit 4: no Vertigo log in the input).
expect_exit "$NAME" "no binary stream on the text console" 4 "$DIR/stats-com1.txt" \
    "$VERTIGO" stats "$DIR/serial.txt"

# Without the device: a specific warning, then the run goes on (no log).
run_vertigo log-virtio-missing 3 --platform qemu-tcg --timeout 60 \
    --cmdline "console=com1 log=virtio"
expect_line log-virtio-missing "specific warning for the missing device" \
    '^log: warning: log=virtio: no virtio console on PCI \(vendor 0x1af4, device 0x1003\); no log$'
expect_line log-virtio-missing "run continues to the refusal" '^VERTIGO-END: NO-VMX'

# Bochs has no virtio: the runner says it ignores --log-virtio, Vertigo's
# PCI scan finds nothing on Bochs' i440FX and the run still passes.
run_vertigo log-virtio-bochs 0 --platform bochs --timeout 120 --log-virtio \
    --cmdline "console=com1 log=virtio guest=none"
grep -q 'ignored on bochs' "$E2E_OUT/log-virtio-bochs.runner.txt" &&
    pass "log-virtio-bochs: runner says --log-virtio is ignored" ||
    fail "log-virtio-bochs: runner says --log-virtio is ignored" "see $E2E_OUT/log-virtio-bochs.runner.txt"
expect_line log-virtio-bochs "specific warning for the missing device" \
    '^log: warning: log=virtio: no virtio console on PCI'
expect_line log-virtio-bochs "verdict" '^VERTIGO-END: PASS'
