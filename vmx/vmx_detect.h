/* Is VT-x usable on this CPU? CPUID and IA32_FEATURE_CONTROL checks
 * (SDM Vol. 3C, 24.6 "Discovering Support for VMX" and 24.7). */
#ifndef VMX_VMX_DETECT_H
#define VMX_VMX_DETECT_H

enum vmx_availability {
    VMX_USABLE,
    VMX_NOT_INTEL,          /* vendor is not GenuineIntel */
    VMX_NO_CPUID_BIT,       /* CPUID.1:ECX.VMX[bit 5] = 0 */
    VMX_DISABLED_BY_FIRMWARE, /* FEATURE_CONTROL locked with VMX off */
};

/* Checks VMX support, locks IA32_FEATURE_CONTROL with VMX enabled if the
 * firmware left it unlocked, and prints the "vmx:" availability line. */
enum vmx_availability vmx_detect(void);

/* One sentence naming what is missing, for the refusal message. */
const char *vmx_availability_text(enum vmx_availability a);

#endif
