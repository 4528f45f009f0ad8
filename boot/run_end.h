/* Ending a run: one call ends it on every supported platform with a
 * status the runners (host-tools/vertigo-run) turn into an exit code. */
#ifndef BOOT_RUN_END_H
#define BOOT_RUN_END_H

enum run_status {
    RUN_PASS,
    RUN_FAIL,
    RUN_NO_VMX,     /* refused: the CPU offers no usable VT-x */
};

/* Work that must finish before the machine stops (e.g. sending the log's
 * last records). Called on the CPU that ends the run, interrupts off, in
 * the order added; it may print but must not end the run itself. */
typedef void run_end_flush_fn(void);

#define RUN_END_FLUSH_MAX 4

/* Adds a flush hook for run_end. Call at start-up on the boot CPU; beyond
 * RUN_END_FLUSH_MAX hooks the call is refused with a warning. */
void run_end_add_flush(run_end_flush_fn *flush);

/* Adds a hook that runs before the verdict line, with the same rules
 * (e.g. writing out console lines still queued, so that the verdict is the
 * console's last line). One hook; a second replaces it. */
void run_end_before_verdict(run_end_flush_fn *hook);

/* Prints the verdict line "VERTIGO-END: PASS|FAIL|NO-VMX (reason)" on every
 * console channel, runs the flush hooks, then stops the machine: QEMU
 * isa-debug-exit, Bochs magic breakpoint (pass) or shutdown port (fail),
 * ACPI S5 on emulators, and a halt loop as the last resort on bare metal.
 * Never returns. */
__attribute__((noreturn)) void run_end(enum run_status status, const char *reason);

#endif
