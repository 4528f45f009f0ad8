/* The "vmx:" capability line of the platform report. */
#ifndef VMX_VMX_REPORT_H
#define VMX_VMX_REPORT_H

/* Reads the VMX capability MSRs and prints the capabilities Vertigo uses.
 * Only called when vmx_detect() said VMX is usable. */
void vmx_report(void);

#endif
