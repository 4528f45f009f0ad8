/* Ending a run: one call ends it on every supported platform with a
 * status the runners (host-tools/vertigo-run) turn into an exit code. */
#ifndef VMM_RUN_END_H
#define VMM_RUN_END_H

enum run_status {
    RUN_PASS,
    RUN_FAIL,
    RUN_NO_VMX,     /* refused: the CPU offers no usable VT-x */
};

/* Prints the verdict line "VERTIGO-END: PASS|FAIL|NO-VMX (reason)" on every
 * console channel, then stops the machine: QEMU isa-debug-exit, Bochs magic
 * breakpoint (pass) or shutdown port (fail), ACPI S5 on emulators, and a
 * halt loop as the last resort on bare metal. Never returns. */
__attribute__((noreturn)) void run_end(enum run_status status, const char *reason);

#endif
