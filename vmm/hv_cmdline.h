/* The hypervisor's command line, kept for subsystems configured after
 * start-up (the PMU session, sampling) that read their options from it. */
#ifndef VMM_HV_CMDLINE_H
#define VMM_HV_CMDLINE_H

/* Records the command line the loader passed; the string must stay valid
 * for the whole run. Called once on the boot CPU by vmm_start before any
 * reader; NULL means none. */
void hv_cmdline_set(const char *cmdline);

/* The recorded command line, "" before hv_cmdline_set (never NULL). */
const char *hv_cmdline(void);

#endif
