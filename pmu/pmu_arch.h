/* The arch interface of the PMU policy: what pmu/ needs from the
 * virtualization hardware and the CPU (the guest state of a VCPU's last
 * exit, the shared VM-exit timer, the VM-entry PMU controls, NMIs,
 * single-stepping Vertigo, LVTPC and the PMU MSRs), as one set of hook
 * functions, pmu_arch_*. pmu/ decides; the implementation only carries
 * the decision out, with no policy of its own.
 *
 * The implementation is chosen when linking, like Jailhouse's arch_*
 * hooks: vmx/vmx_pmu_arch.c (VT-x) and pmu/backend/pmu_arch_cpu.c (the CPU) in the
 * hypervisor, a fake in the unit tests (tests/unit/fake_pmu_arch.c). Plain functions rather than a table
 * of pointers: the link-time optimiser inlines them into the exit and NMI
 * paths (through a constant table it made direct calls but inlined none,
 * a few instructions more per hook on every VM exit).
 *
 * Unless an operation says otherwise, `v` is the VCPU that runs on the
 * calling CPU, and the call happens between one of its exits and its next
 * entry, where the guest state is the state of that exit. */
#ifndef PMU_PMU_ARCH_H
#define PMU_PMU_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/percpu_step.h"
#include "pmu/backend/pmu.h"
#include "vertigo/log_format.h"
#include "vmm/guest/guest_pt.h"

struct vcpu;

/* The two PMU users of the shared VM-exit timer. */
enum pmu_timer {
    PMU_TIMER_STEP,             /* software PMU: step end or overflow point */
    PMU_TIMER_SAMPLE,           /* timer sampling: the next sample */
};

/* ---- The guest state of v's last exit ---- */
unsigned int pmu_arch_guest_cpl(const struct vcpu *v);
uint64_t pmu_arch_guest_rip(const struct vcpu *v);
uint64_t pmu_arch_guest_cr3(const struct vcpu *v);        /* the page-table root, bits 51:12 */
bool pmu_arch_guest_halted(const struct vcpu *v);         /* the next entry resumes a HLT */
/* Where the guest's SYSCALL instruction jumps (its IA32_LSTAR). */
uint64_t pmu_arch_guest_syscall_entry(const struct vcpu *v);
/* The guest's call stack at the last exit (vmm/guest/guest_stack.h:
 * guest_stack_sample): the frame-pointer chain from rbp in user mode; in
 * kernel mode the unwinder the domain declared (its ORC tables, then the
 * user stack of the interrupted process; or frame pointers; nothing if
 * none declared). rip and cr3 are the exit's, as pmu_arch_guest_rip and
 * pmu_arch_guest_cr3 gave them (the caller has read them already: the
 * walk does not read them again). Every read checked against the guest's
 * page tables and the domain's memory: at most depth entries into out,
 * returns how many. NMI-safe. */
unsigned int pmu_arch_guest_stack(struct vcpu *v, uint64_t rip, uint64_t cr3, uint64_t rbp,
                                  bool kernel, unsigned int depth, uint64_t *out);
/* How often CPU cpu's guest stack walks found a new stack page's
 * translation in their cache (vmm/guest/guest_tlb.h) and how often they walked
 * the guest's page tables, since boot. */
void pmu_arch_guest_stack_cache(unsigned int cpu, uint64_t *hits, uint64_t *misses);
/* With a guest user-mode sample: the user registers of the last exit
 * (RIP, RSP, RBP, RBX, R12-R15) into us->regs and up to max bytes of the
 * user stack from RSP into buf, read with user-mode rights and stopping
 * at the first unreadable page (us->data = buf, us->len), its pages
 * looked up in the CPU's stack translation cache first. NMI-safe. */
void pmu_arch_guest_user_stack(struct vcpu *v, struct log_user_stack *us, uint8_t *buf,
                               uint32_t max);
/* TSC at v's last VM exit, and at the VM entry before it. */
uint64_t pmu_arch_exit_tsc(const struct vcpu *v);
uint64_t pmu_arch_entry_tsc(const struct vcpu *v);
/* The basic reason of v's last VM exit (SDM Vol. 3D, appendix C). */
uint32_t pmu_arch_exit_reason(const struct vcpu *v);

/* ---- The shared VM-exit timer (guest TSC ticks) ---- */
void pmu_arch_timer_request(struct vcpu *v, enum pmu_timer t, uint64_t ticks);
void pmu_arch_timer_cancel(struct vcpu *v, enum pmu_timer t);
bool pmu_arch_timer_expired(const struct vcpu *v, enum pmu_timer t);
/* Ticks the VM entry instruction takes off the timer before the first
 * guest instruction (1 in Bochs, 0 on hardware). Called only where a TSC
 * tick is one instruction: the timer may then measure runs by the TSC. */
void pmu_arch_timer_entry_ticks(unsigned int ticks);

/* The privilege level the next run starts at: 0 when an event is being
 * injected (its handler runs in the kernel), else the guest's CPL. */
unsigned int pmu_arch_entry_cpl(const struct vcpu *v);

/* ---- Exact modes: every change of privilege level exits ---- */
/* True if the hardware can trap every change of the guest's privilege
 * level (SYSCALL/SYSRET, exceptions, interrupts, IRET, HLT). */
bool pmu_arch_has_mode_traps(void);
/* Turns the traps on or off for v; while on, a run between an entry and
 * the next exit never changes mode and never contains idle time. */
void pmu_arch_mode_traps(struct vcpu *v, bool on);
/* Turns the halt traps on or off for v (the mode traps imply them): while
 * on, a run never holds both idle time and guest work (a HLT exits, and so
 * does an interrupt that wakes the halted guest). Needs what the mode
 * traps need (pmu_arch_has_mode_traps). */
void pmu_arch_halt_traps(struct vcpu *v, bool on);
/* Prints v's trap counts at the end of the domain (if ever on). */
void pmu_arch_mode_traps_report(const struct vcpu *v);

/* ---- The next VM entry of v ---- */
/* Writes the plan's IA32_PERF_GLOBAL_CTRL values (guest and host) and
 * ORs its DEBUGCTL bits into the guest's, for the hardware backend. */
void pmu_arch_entry_plan(struct vcpu *v, const struct pmu_entry_plan *plan);

/* ---- What the hardware offers (constant for the run) ---- */
bool pmu_arch_has_global_ctrl_switch(void);   /* VM entry/exit load GLOBAL_CTRL */
bool pmu_arch_has_guest_timer(void);          /* the timer, and its value saved at exits */
uint64_t pmu_arch_perf_capabilities(void);    /* IA32_PERF_CAPABILITIES, 0 if absent */
const struct pmu_msr_ops *pmu_arch_msr(void);     /* the PMU MSRs, faults reported */

/* ---- NMIs and LVTPC ---- */
/* Sends this CPU an NMI by its APIC ID (physical destination). */
void pmu_arch_send_nmi(uint32_t apic_id);
/* NMI context: a guest NMI arrived while Vertigo ran on v's CPU; v gets
 * it as soon as it can take it. */
void pmu_arch_queue_guest_nmi(struct vcpu *v);
/* An NMI of v's own virtual hardware (an overflow of its virtual PMU or
 * paravirtual counters), NMI context or not: v gets it as soon as it can
 * take it, whatever its domain (while a domain other than 0 runs, a guest
 * NMI of the machine, pmu_arch_queue_guest_nmi, is domain 0's). */
void pmu_arch_queue_vcpu_nmi(struct vcpu *v);
/* Takes v's CPU's LVTPC for Vertigo with `value` (guest writes to it
 * go to a shadow from now on), and whether that happened. */
void pmu_arch_lvtpc_claim(struct vcpu *v, uint32_t value);
bool pmu_arch_lvtpc_owned(const struct vcpu *v);
/* The guest's own view of LVTPC (what it last wrote, or what a delivery of
 * its virtual PMU's PMI made of it), read and set. */
uint32_t pmu_arch_guest_lvtpc(const struct vcpu *v);
void pmu_arch_guest_lvtpc_write(struct vcpu *v, uint32_t value);
/* A PMI for v's LVTPC in fixed delivery mode: true if v's local APIC
 * takes its vector (a domain's virtual APIC does; domain 0's real one is
 * not written on its behalf), which then masks LVTPC. */
bool pmu_arch_guest_pmi_vector(struct vcpu *v);

/* ---- The guest's virtual PMU ---- */
/* RDPMC exits (the guest's counters are virtual), or runs natively. */
void pmu_arch_rdpmc_exiting(struct vcpu *v, bool on);
/* The guest's CR4.PCE: RDPMC allowed outside CPL 0. */
bool pmu_arch_guest_cr4_pce(const struct vcpu *v);
/* The handler of an NMI Vertigo injected into v that v has not returned
 * from yet: a number of its own (each injection gets a new one), 0 when
 * v is not in such a handler. */
uint64_t pmu_arch_guest_nmi_handler(const struct vcpu *v);
/* v's TSC reads the host's minus `behind` ticks from the next entry on
 * (false: the CPU cannot offset the guest's TSC). */
bool pmu_arch_guest_tsc_behind(struct vcpu *v, uint64_t behind);

/* ---- The guest's paravirtual counter page ---- */
/* Vertigo's pointer to the page of guest RAM at page-aligned gpa, which
 * Vertigo writes: GUEST_ACCESS_OK, or why not (device memory, not mapped
 * writable for the guest). */
enum guest_access pmu_arch_guest_ram_page(struct vcpu *v, uint64_t gpa, void **host);
const struct pmu_lvtpc_ops *pmu_arch_lvtpc(void);  /* this CPU's LVTPC register */

/* ---- This CPU ---- */
unsigned int pmu_arch_cpu_index(void);
uint32_t pmu_arch_apic_id(void);
uint64_t pmu_arch_tsc(void);
/* The single-step area (boot/percpu_step.h) of this CPU and of CPU
 * `cpu`, which the #DB fast path updates. */
struct percpu_step *pmu_arch_this_step_area(void);
struct percpu_step *pmu_arch_step_area(unsigned int cpu);
/* Sets or clears EFLAGS.TF of the running code (SDM Vol. 3B 18.3.1.4:
 * the POPF that sets it traps after the next instruction). */
void pmu_arch_single_step(bool on);
/* Walks Vertigo's own frame-pointer chain from rbp, reading only its
 * image: at most depth return addresses into out, returns how many. */
unsigned int pmu_arch_hypervisor_stack(uint64_t rbp, unsigned int depth, uint64_t *out);

#endif
