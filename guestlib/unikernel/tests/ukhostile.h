/* ukfault's hostile mode: what a hostile domain kernel tries against
 * Vertigo, each from CPL 0 through the runtime's UK_SYS_PROBE and
 * UK_SYS_HYPERCALL, each of which must be refused with #GP or a specific
 * error while the other domains go on (tests/e2e/unikernel.sh):
 *  - WRMSR of TSC_AUX and SFMASK with bits 63:32 set, a reserved PAT type,
 *    non-canonical SYSENTER_ESP/EIP, LSTAR and KERNEL_GS_BASE, IA32_XSS
 *    with Intel PT's bit 8: #GP (vector 13); KERNEL_GS_BASE canonical: 0
 *    (a unikernel writes only the segment bases, so every other MSR write
 *    #GPs whatever its value);
 *  - CPUID 0xD.1 ECX:EDX (supervisor XSAVE components) 0 and 0xD.8 empty;
 *    XRSTORS of an Intel PT state: #GP where XSAVES is enabled, #UD where
 *    it is not;
 *  - a sampling session with period 1: -EINVAL; a session beside the
 *    command line's: -EBUSY; stopping the command line's: -EPERM;
 *  - 17 symbol sets opened at once: the domain's own oldest is given up
 *    (its next chunk -EINVAL) while its newest goes on (0);
 *  - a log flood (200 symbol chunks of 2048 bytes): every call answered;
 *  - last, a console flood (48 writes of 4096 bytes): the calls return,
 *    Vertigo drops what is over the domain's rate and says how much. */
#ifndef GUESTLIB_UNIKERNEL_TESTS_UKHOSTILE_H
#define GUESTLIB_UNIKERNEL_TESTS_UKHOSTILE_H

/* Tries every case above and prints "ukfault: WHAT: refused (RESULT)" or
 * "... ACCEPTED (RESULT)" for each; 0 if all were refused as they must be. */
int ukhostile_run(void);

#endif
