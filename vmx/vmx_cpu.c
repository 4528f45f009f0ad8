/* Entering VMX operation (SDM Vol. 3C, 24.7 "Enabling and Entering VMX
 * Operation", 24.8 "Restrictions on VMX Operation") and the one-time
 * computation of the VMCS control fields. */
#include "vmx/vmx_cpu.h"

#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/heap.h"
#include "lib/msr.h"
#include "vmx/vmx_ops.h"

struct vmx_config vmx_config;

static uint64_t read_msr_cb(void *ctx, uint32_t msr)
{
    (void)ctx;
    return rdmsr(msr);
}

/* Controls Vertigo needs (required) or uses when present (wanted). */
static void control_requests(struct vmx_ctl_request req[VMX_CTL_COUNT])
{
    req[VMX_CTL_PIN] = (struct vmx_ctl_request){
        .required = PIN_NMI_EXITING | PIN_VIRTUAL_NMIS,
        /* switched on per use: the timer, and interrupt exiting while the
         * guest's mode changes are trapped (vmx/mode_trap.c) */
        .wanted = PIN_PREEMPTION_TIMER | PIN_EXTERNAL_INTR_EXITING,
    };
    req[VMX_CTL_PROC] = (struct vmx_ctl_request){
        /* RDPMC exits from the first entry on: a guest reads only the
         * counters Vertigo gives it (its virtual PMU, its paravirtual
         * counters), never the machine's; only a run that passes its own
         * paravirtual counters through turns it off (pmu/hw/pmu_pv_hw.c). */
        .required = PROC_MSR_BITMAPS | PROC_IO_BITMAPS | PROC_SECONDARY_CONTROLS |
                    PROC_RDPMC_EXITING,
        /* per use, as above; TSC offsetting from a domain's first write
         * to its virtual IA32_TSC or TSC_ADJUST (vmx/exit_vhw_msr.c) or
         * the first NMI handler of a guest's virtual PMU whose time is
         * hidden (pmu/vpmu/pmu_guest_nmi_time.h) */
        .wanted = PROC_HLT_EXITING | PROC_INTR_WINDOW_EXITING | PROC_TSC_OFFSETTING,
        .must_clear = PROC_UNCOND_IO_EXITING,
    };
    req[VMX_CTL_PROC2] = (struct vmx_ctl_request){
        .required = PROC2_ENABLE_EPT | PROC2_UNRESTRICTED_GUEST,
        .wanted = PROC2_ENABLE_VPID | PROC2_ENABLE_RDTSCP | PROC2_ENABLE_INVPCID |
                  PROC2_ENABLE_XSAVES,
    };
    req[VMX_CTL_EXIT] = (struct vmx_ctl_request){
        /* DR7 and DEBUGCTL are each VCPU's: saved at every exit (which
         * sets DR7 to 400H, SDM Vol. 3C 28.5.1) and loaded at every entry
         * with "load debug controls", or a guest's breakpoints would be
         * disabled by its first exit and the PMU's freeze-on-PMI in the
         * guest DEBUGCTL never loaded. Default1 bits: every VT-x CPU has
         * them, but the TRUE capability MSRs let them be 0. */
        .required = EXIT_HOST_ADDR_SPACE_SIZE | EXIT_SAVE_IA32_EFER | EXIT_LOAD_IA32_EFER |
                    EXIT_SAVE_IA32_PAT | EXIT_LOAD_IA32_PAT | EXIT_SAVE_DEBUG_CONTROLS,
        /* the PMU: hardware counting off in root mode, guest time measured
         * by the preemption timer (pmu/run/pmu_run.c, vmx/vmx_timer.c) */
        .wanted = EXIT_LOAD_PERF_GLOBAL_CTRL | EXIT_SAVE_PREEMPTION_TIMER |
                  EXIT_ACK_INTR_ON_EXIT |
                  /* no Intel PT trace of the guest runs on into root mode
                   * (the guest cannot enable it: vmx/msr_guard.h) */
                  EXIT_CLEAR_IA32_RTIT_CTL |
                  /* nor an architectural-LBR recording into root mode or
                   * the next domain (the guest cannot enable it either) */
                  EXIT_CLEAR_IA32_LBR_CTL,
    };
    req[VMX_CTL_ENTRY] = (struct vmx_ctl_request){
        .required = ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_IA32_EFER | ENTRY_LOAD_IA32_PAT |
                    ENTRY_LOAD_DEBUG_CONTROLS,
        .wanted = ENTRY_LOAD_PERF_GLOBAL_CTRL,
    };
}

bool vmx_config_init(void)
{
    struct vmx_error err;
    struct vmx_ctl_request req[VMX_CTL_COUNT];
    struct vmx_config *c = &vmx_config;

    vmx_caps_read(&c->caps, read_msr_cb, NULL);
    if (vmx_caps_check_basic(&c->caps, &err) != VMX_CAPS_OK) {
        printk("vmx: %s\n", err.text);
        return false;
    }
    control_requests(req);
    if (vmx_caps_controls(&c->caps, req, &c->ctl, &err) != VMX_CAPS_OK) {
        printk("vmx: %s\n", err.text);
        return false;
    }
    vmx_caps_ept(&c->caps, &c->ept);
    /* Controls switched on per use start off: the guest takes its
     * interrupts and idles in HLT natively unless mode traps are on. */
    c->pin_available = c->ctl.pin;
    c->ctl.pin &= ~(uint32_t)(PIN_PREEMPTION_TIMER | PIN_EXTERNAL_INTR_EXITING);
    c->proc_available = c->ctl.proc;
    c->ctl.proc &= ~(uint32_t)(PROC_HLT_EXITING | PROC_INTR_WINDOW_EXITING |
                               PROC_TSC_OFFSETTING);
    /* "save VMX-preemption timer value" requires the timer to be active
     * (SDM Vol. 3C 27.2.1.2): vmx/vmx_timer.c sets both together. */
    c->exit_available = c->ctl.exit;
    c->ctl.exit &= ~(uint32_t)(EXIT_SAVE_PREEMPTION_TIMER | EXIT_ACK_INTR_ON_EXIT);
    if (!c->ept.walk_4level || !(c->ept.memtype_wb || c->ept.memtype_uc)) {
        printk("vmx: EPT lacks a 4-level walk or a usable memory type\n");
        return false;
    }
    /* Bits the fixed-bit MSRs do not let the guest choose are owned by
     * Vertigo and shadowed (SDM Vol. 3C, 25.6.6 "Guest/Host Masks and Read
     * Shadows for CR0 and CR4"). Unrestricted guests choose PE and PG. */
    c->cr0_guest_host_mask = (c->caps.cr0_fixed0 | ~c->caps.cr0_fixed1) & ~(CR0_PE | CR0_PG);
    c->cr4_guest_host_mask = c->caps.cr4_fixed0 | ~c->caps.cr4_fixed1;
    return true;
}

bool vmx_cpu_enable(void)
{
    uint64_t region = heap_alloc_pages(1);
    if (!region) {
        printk("vmx: no memory for the VMXON region\n");
        return false;
    }
    *(uint32_t *)region = vmx_caps_revision(&vmx_config.caps);
    uint64_t cr4 = read_cr4() | CR4_VMXE;
    /* A guest's XSETBV is executed in root mode on its behalf, which needs
     * CR4.OSXSAVE here too (SDM Vol. 2D, XSETBV: #UD if CR4.OSXSAVE = 0). */
    if (cpuid(1, 0).ecx & CPUID_1_ECX_XSAVE)
        cr4 |= CR4_OSXSAVE;
    write_cr0(vmx_caps_fix_cr0(&vmx_config.caps, read_cr0(), false));
    write_cr4(vmx_caps_fix_cr4(&vmx_config.caps, cr4));
    vmxon(region);
    return true;
}
