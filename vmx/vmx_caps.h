/* VT-x capability MSRs: reading them, computing every VMX control field
 * from (required, wanted, must-be-clear) requests, decoding EPT/VPID and
 * miscellaneous capabilities, CR0/CR4 fixed bits, and the one-line
 * platform report. Portable: the raw MSR values come from a callback, so
 * the same code runs on hardware and in host unit tests.
 * Rules: Intel SDM Vol. 3D Appendix A (A.1-A.11). */
#ifndef VMX_VMX_CAPS_H
#define VMX_VMX_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmx/vmx_defs.h"

/* Raw values of the VMX capability MSRs (MSR_IA32_VMX_* in lib/msr.h).
 * An MSR the processor does not implement is recorded as 0:
 * the TRUE_* ones when IA32_VMX_BASIC bit 55 is 0, procbased2 when the
 * primary controls cannot activate secondary controls, ept_vpid_cap when
 * neither "enable EPT" nor "enable VPID" can be set, vmfunc when "enable
 * VM functions" cannot be set. */
struct vmx_cap_msrs {
    uint64_t basic;
    uint64_t pinbased;
    uint64_t procbased;
    uint64_t exit;
    uint64_t entry;
    uint64_t true_pinbased;
    uint64_t true_procbased;
    uint64_t true_exit;
    uint64_t true_entry;
    uint64_t procbased2;
    uint64_t ept_vpid_cap;
    uint64_t misc;
    uint64_t cr0_fixed0;
    uint64_t cr0_fixed1;
    uint64_t cr4_fixed0;
    uint64_t cr4_fixed1;
    uint64_t vmfunc;
};

/* The five VMX control fields computed from capability MSRs. */
enum vmx_ctl_kind {
    VMX_CTL_PIN,
    VMX_CTL_PROC,
    VMX_CTL_PROC2,
    VMX_CTL_EXIT,
    VMX_CTL_ENTRY,
    VMX_CTL_COUNT,
};

/* What Vertigo asks of one control field:
 *   required   bits that must end up 1 (missing support is an error),
 *   wanted     bits set only when the processor allows them,
 *   must_clear bits that must end up 0 (a processor forcing one is an error).
 * Every other named (architecturally defined) bit ends up 0 unless the
 * processor forces it to 1; unnamed reserved bits get their default
 * setting (SDM Vol. 3D A.2, "Reserved Controls and Default Settings").
 * The default1 controls "CR3-load/store exiting", "save debug controls"
 * and "load debug controls" are named, so they are 0 unless requested
 * whenever the TRUE MSRs allow 0. */
struct vmx_ctl_request {
    uint32_t required;
    uint32_t wanted;
    uint32_t must_clear;
};

struct vmx_controls {
    uint32_t pin;
    uint32_t proc;
    uint32_t proc2;
    uint32_t exit;
    uint32_t entry;
};

enum vmx_caps_status {
    VMX_CAPS_OK          = 0,
    VMX_CAPS_UNSUPPORTED = -1,  /* a required control cannot be 1 */
    VMX_CAPS_FORCED_ON   = -2,  /* a must_clear control cannot be 0 */
    VMX_CAPS_BAD_REQUEST = -3,  /* a control both required and must_clear */
    VMX_CAPS_BAD_BASIC   = -4,  /* IA32_VMX_BASIC unusable (see text) */
};

#define VMX_ERROR_TEXT_MAX 160

/* A reason the caller can print, e.g. "VMX: required feature 'enable
 * EPT' (secondary processor-based control bit 1) is not supported". */
struct vmx_error {
    char text[VMX_ERROR_TEXT_MAX];
};

/* Reads one MSR (RDMSR on hardware, a table in tests). */
typedef uint64_t (*vmx_rdmsr_fn)(void *ctx, uint32_t msr);

/* Fills caps by reading IA32_VMX_BASIC first and then only the MSRs that
 * BASIC and the control MSRs say exist (reading any other one #GPs), in
 * the order the SDM's existence rules need. The caller has checked
 * CPUID.1:ECX.VMX. */
void vmx_caps_read(struct vmx_cap_msrs *caps, vmx_rdmsr_fn rdmsr, void *ctx);

/* Checks IA32_VMX_BASIC for what Vertigo assumes: VMCS region size at
 * most 4096 bytes, no 32-bit physical-address limit, write-back VMCS
 * memory type. Returns VMX_CAPS_OK or VMX_CAPS_BAD_BASIC with err set. */
int vmx_caps_check_basic(const struct vmx_cap_msrs *caps, struct vmx_error *err);

/* Computes one control field from req following SDM Vol. 3D A.3-A.5
 * (TRUE MSRs when BASIC bit 55 says they exist). On success stores the
 * value in *out and returns VMX_CAPS_OK; otherwise returns a negative
 * vmx_caps_status, leaves *out untouched and names the lowest offending
 * control in err. */
int vmx_caps_control(const struct vmx_cap_msrs *caps, enum vmx_ctl_kind kind,
                     const struct vmx_ctl_request *req, uint32_t *out,
                     struct vmx_error *err);

/* Computes all five fields from req[VMX_CTL_COUNT]. "Activate secondary
 * controls" is added to the primary controls when the secondary field
 * comes out non-zero (and is required when secondary bits are required).
 * Stops at the first error (pin, secondary, primary, exit, entry order). */
int vmx_caps_controls(const struct vmx_cap_msrs *caps,
                      const struct vmx_ctl_request req[VMX_CTL_COUNT],
                      struct vmx_controls *out, struct vmx_error *err);

/* True when every bit of bits may be set to 1 in the given field. */
bool vmx_caps_can_set(const struct vmx_cap_msrs *caps, enum vmx_ctl_kind kind,
                      uint32_t bits);

/* SDM name of a control bit ("enable EPT"), or NULL for a reserved bit. */
const char *vmx_ctl_bit_name(enum vmx_ctl_kind kind, unsigned bit);

/* Name of a control field ("secondary processor-based control"). */
const char *vmx_ctl_kind_name(enum vmx_ctl_kind kind);

/* EPT and VPID capabilities (SDM Vol. 3D A.10), all false when the
 * corresponding control ("enable EPT" / "enable VPID") cannot be set. */
struct vmx_ept_caps {
    bool ept;                   /* "enable EPT" can be set */
    bool walk_4level;
    bool memtype_uc;            /* UC allowed for paging structures / EPTP */
    bool memtype_wb;            /* WB allowed for paging structures / EPTP */
    bool page_2m;
    bool page_1g;
    bool ad_flags;
    bool exec_only;
    bool advanced_exit_info;
    bool invept;
    bool invept_single;
    bool invept_all;
    bool vpid;                  /* "enable VPID" can be set */
    bool invvpid;
    bool invvpid_addr;
    bool invvpid_single;
    bool invvpid_all;
    bool invvpid_single_globals;
};

void vmx_caps_ept(const struct vmx_cap_msrs *caps, struct vmx_ept_caps *out);

/* VMCS revision identifier (BASIC bits 30:0): write it into the VMXON
 * region and every VMCS. */
uint32_t vmx_caps_revision(const struct vmx_cap_msrs *caps);

/* Bytes the processor needs for the VMXON region / a VMCS (BASIC 44:32). */
uint32_t vmx_caps_vmcs_size(const struct vmx_cap_msrs *caps);

bool vmx_caps_has_true_ctls(const struct vmx_cap_msrs *caps);

/* The VMX-preemption timer counts down by 1 every time TSC bit N changes;
 * returns N (MISC bits 4:0). Meaningful only when the pin-based control
 * "activate VMX-preemption timer" can be set. */
unsigned vmx_caps_preemption_tsc_shift(const struct vmx_cap_msrs *caps);

/* Whether a VM entry may load the given guest activity state (MISC 8:6;
 * "active" is always allowed). */
bool vmx_caps_activity_state(const struct vmx_cap_msrs *caps,
                             enum vmx_activity_state state);

/* Maximum number of MSRs in each VM-exit/entry MSR list (MISC 27:25). */
unsigned vmx_caps_max_msr_list(const struct vmx_cap_msrs *caps);

/* Returns cr0 with the bits IA32_VMX_CR0_FIXED0 forces to 1 set and the
 * bits IA32_VMX_CR0_FIXED1 forces to 0 cleared (SDM Vol. 3D A.7). For a
 * guest with "unrestricted guest" set, PE and PG are left as given
 * (SDM Vol. 3C 27.3.1.1). */
uint64_t vmx_caps_fix_cr0(const struct vmx_cap_msrs *caps, uint64_t cr0,
                          bool unrestricted_guest);

/* Same for CR4 with IA32_VMX_CR4_FIXED0/1 (SDM Vol. 3D A.8). */
uint64_t vmx_caps_fix_cr4(const struct vmx_cap_msrs *caps, uint64_t cr4);

/* Writes the one-line platform report, e.g.
 * "vmx: rev 0x2b, EPT 4-level 2M 1G A/D, VPID, unrestricted guest,
 *  preemption timer (TSC>>5), MTF no, load PERF_GLOBAL_CTRL entry+exit,
 *  NMI exiting, virtual NMIs"
 * (one line, no newline) into buf like snprintf; returns the length the
 * full text has. */
int vmx_caps_describe(const struct vmx_cap_msrs *caps, char *buf, size_t size);

#endif
