/* The fake arch hooks and services of tests/unit/fake_pmu_arch.h. */
#include "tests/unit/fake_pmu_arch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boot/platform.h"
#include "pmu/run/pmu_config.h"
#include "pmu/run/pmu_cpu.h"
#include "pmu/run/pmu_log_ids.h"
#include "pmu/soft/pmu_soft.h"
#include "pmu/soft/pmu_step.h"
#include "lib/console.h"
#include "vmm/log/log_emit.h"
#include "vmm/log/log_hv.h"
#include "vmm/vcpu.h"

struct fake_arch fake;

static void trace(const char *word)
{
    size_t n = strlen(fake.trace);
    snprintf(fake.trace + n, sizeof(fake.trace) - n, "%s%s", n ? " " : "", word);
}

void fake_arch_reset(void)
{
    memset(&fake, 0, sizeof(fake));
    fake.timer[0] = fake.timer[1] = UINT64_MAX;
    fake.apic_id = 0x10;
    fake.log_on = true;
    log_ring_init(&fake.ring, 0, fake.ring_storage, sizeof(fake.ring_storage));
    memset(&pmu_config, 0, sizeof(pmu_config));
    memset(pmu_cpus, 0, sizeof(pmu_cpus));
    memset(pmu_soft_cpus, 0, sizeof(pmu_soft_cpus));
    memset(pmu_step_states, 0, sizeof(pmu_step_states));
    pmu_log_ids_reset();        /* a new run names its events anew */
}

bool fake_console_has(const char *text)
{
    return strstr(fake.console, text) != NULL;
}

/* ---- pmu/pmu_arch.h ------------------------------------------------------ */

unsigned int pmu_arch_guest_cpl(const struct vcpu *v) { (void)v; return fake.cpl; }
unsigned int pmu_arch_entry_cpl(const struct vcpu *v) { (void)v; return fake.cpl; }
bool pmu_arch_has_mode_traps(void) { return fake.mode_traps_available; }

void pmu_arch_mode_traps(struct vcpu *v, bool on)
{
    (void)v;
    fake.mode_traps = on;
}

void pmu_arch_halt_traps(struct vcpu *v, bool on)
{
    (void)v;
    fake.halt_traps = on;
}

void pmu_arch_mode_traps_report(const struct vcpu *v) { (void)v; }
uint64_t pmu_arch_guest_rip(const struct vcpu *v) { (void)v; return fake.rip; }
uint64_t pmu_arch_guest_cr3(const struct vcpu *v) { (void)v; return fake.cr3; }
bool pmu_arch_guest_halted(const struct vcpu *v) { (void)v; return fake.halted; }
uint64_t pmu_arch_guest_syscall_entry(const struct vcpu *v) { (void)v; return fake.lstar; }
uint64_t pmu_arch_exit_tsc(const struct vcpu *v) { (void)v; return fake.exit_tsc; }
uint32_t pmu_arch_exit_reason(const struct vcpu *v) { (void)v; return fake.exit_reason; }
uint64_t pmu_arch_entry_tsc(const struct vcpu *v) { (void)v; return fake.entry_tsc; }

unsigned int pmu_arch_guest_stack(struct vcpu *v, uint64_t rip, uint64_t cr3, uint64_t rbp,
                                  bool kernel, unsigned int depth, uint64_t *out)
{
    (void)v, (void)rbp, (void)kernel;
    fake.stack_rip = rip;
    fake.stack_cr3 = cr3;
    unsigned int n = depth < fake.guest_stack_len ? depth : fake.guest_stack_len;
    memcpy(out, fake.guest_stack, n * sizeof(*out));
    return n;
}

void pmu_arch_guest_stack_cache(unsigned int cpu, uint64_t *hits, uint64_t *misses)
{
    (void)cpu;
    *hits = *misses = 0;
}

/* A user stack of max bytes, each its offset from RSP. */
void pmu_arch_guest_user_stack(struct vcpu *v, struct log_user_stack *us, uint8_t *buf,
                               uint32_t max)
{
    (void)v;
    memset(us->regs, 0, sizeof(us->regs));
    us->regs[LOG_UREG_RIP] = fake.rip;
    for (uint32_t i = 0; i < max; i++)
        buf[i] = (uint8_t)i;
    us->data = buf;
    us->len = max;
}

void pmu_arch_timer_request(struct vcpu *v, enum pmu_timer t, uint64_t ticks)
{
    (void)v;
    fake.timer[t] = ticks;
}

void pmu_arch_timer_cancel(struct vcpu *v, enum pmu_timer t)
{
    (void)v;
    fake.timer[t] = UINT64_MAX;
}

bool pmu_arch_timer_expired(const struct vcpu *v, enum pmu_timer t)
{
    (void)v;
    return fake.timer_expired[t];
}

void pmu_arch_timer_entry_ticks(unsigned int ticks) { fake.entry_ticks = ticks; }

void pmu_arch_entry_plan(struct vcpu *v, const struct pmu_entry_plan *plan)
{
    (void)v;
    fake.plan = *plan;
    fake.plans++;
    trace("plan");
}

bool pmu_arch_has_global_ctrl_switch(void) { return fake.global_ctrl_switch; }
bool pmu_arch_has_guest_timer(void) { return fake.guest_timer; }
uint64_t pmu_arch_perf_capabilities(void) { return fake.perf_capabilities; }

static int msr_read(void *ctx, uint32_t msr, uint64_t *value)
{
    (void)ctx;
    return fake.model ? pmu_model_rdmsr(fake.model, msr, value) : -1;
}

static int msr_write(void *ctx, uint32_t msr, uint64_t value)
{
    char word[32];
    (void)ctx;
    snprintf(word, sizeof(word), "wrmsr:%#x", msr);
    trace(word);
    return fake.model ? pmu_model_wrmsr(fake.model, msr, value) : -1;
}

const struct pmu_msr_ops *pmu_arch_msr(void)
{
    static const struct pmu_msr_ops ops = { msr_read, msr_write, NULL };
    return &ops;
}

static uint32_t lvtpc_read(void *ctx)
{
    (void)ctx;
    return fake.model ? pmu_model_lvtpc_read(fake.model) : 0;
}

static void lvtpc_write(void *ctx, uint32_t value)
{
    (void)ctx;
    trace("lvtpc");
    if (fake.model)
        pmu_model_lvtpc_write(fake.model, value);
}

const struct pmu_lvtpc_ops *pmu_arch_lvtpc(void)
{
    static const struct pmu_lvtpc_ops ops = { lvtpc_read, lvtpc_write, NULL };
    return &ops;
}

void pmu_arch_send_nmi(uint32_t apic_id)
{
    fake.nmis_sent++;
    fake.last_nmi_dest = apic_id;
    trace("nmi");
}

void pmu_arch_queue_guest_nmi(struct vcpu *v)
{
    (void)v;
    fake.guest_nmis_queued++;
}

void pmu_arch_queue_vcpu_nmi(struct vcpu *v)
{
    (void)v;
    fake.guest_nmis_queued++;
    fake.vcpu_nmis_queued++;
}

void pmu_arch_lvtpc_claim(struct vcpu *v, uint32_t value)
{
    (void)v;
    fake.lvtpc_claimed = true;
    lvtpc_write(NULL, value);
}

bool pmu_arch_lvtpc_owned(const struct vcpu *v) { (void)v; return fake.lvtpc_claimed; }
uint32_t pmu_arch_guest_lvtpc(const struct vcpu *v) { (void)v; return fake.guest_lvtpc; }
void pmu_arch_guest_lvtpc_write(struct vcpu *v, uint32_t value)
{
    (void)v;
    fake.guest_lvtpc = value;
}
bool pmu_arch_guest_pmi_vector(struct vcpu *v)
{
    (void)v;
    bool fixed = (fake.guest_lvtpc & 0x700u) == 0 && !(fake.guest_lvtpc & (1u << 16));
    if (!fake.apic_takes_vectors || !fixed)
        return false;
    fake.pmi_vectors_taken++;
    fake.guest_lvtpc |= 1u << 16;
    return true;
}

void pmu_arch_rdpmc_exiting(struct vcpu *v, bool on)
{
    (void)v;
    fake.rdpmc_exiting = on;
}
bool pmu_arch_guest_cr4_pce(const struct vcpu *v) { (void)v; return fake.cr4_pce; }
uint64_t pmu_arch_guest_nmi_handler(const struct vcpu *v) { (void)v; return fake.nmi_handler; }

bool pmu_arch_guest_tsc_behind(struct vcpu *v, uint64_t behind)
{
    (void)v;
    if (!fake.tsc_offsetting)
        return false;
    fake.tsc_behind = behind;
    return true;
}
enum guest_access pmu_arch_guest_ram_page(struct vcpu *v, uint64_t gpa, void **host)
{
    (void)v;
    if (!fake.pv_page || gpa != fake.pv_page_gpa)
        return fake.pv_other_access ? fake.pv_other_access : GUEST_ACCESS_UNMAPPED;
    *host = fake.pv_page;
    return GUEST_ACCESS_OK;
}
unsigned int pmu_arch_cpu_index(void) { return fake.cpu; }
uint32_t pmu_arch_apic_id(void) { return fake.apic_id; }
uint64_t pmu_arch_tsc(void) { return fake.tsc; }
struct percpu_step *pmu_arch_this_step_area(void) { return &fake.steps[fake.cpu]; }
struct percpu_step *pmu_arch_step_area(unsigned int cpu) { return &fake.steps[cpu]; }

void pmu_arch_single_step(bool on)
{
    fake.tf_changes += fake.tf != on;
    fake.tf = on;
}

unsigned int pmu_arch_hypervisor_stack(uint64_t rbp, unsigned int depth, uint64_t *out)
{
    (void)rbp;
    unsigned int n = depth < 2 ? depth : 2;
    memcpy(out, fake.hv_stack, n * sizeof(*out));
    return n;
}

/* ---- The services pmu/ calls ----------------------------------------------- */

int printk(const char *fmt, ...)
{
    size_t n = strlen(fake.console);
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(fake.console + n, sizeof(fake.console) - n, fmt, ap);
    va_end(ap);
    return r;
}

bool platform_is_emulator(void) { return fake.emulator; }
uint64_t platform_tsc_hz(void) { return fake.tsc_hz; }

enum pmu_verdict pmu_probe_result(struct pmu_desc *desc)
{
    *desc = fake.desc;
    return fake.verdict;
}

struct log_ring *log_hv_ring(void)
{
    return fake.log_on ? &fake.ring : NULL;
}

/* The symbols a guest ships go to the fake ring whole (the domain's share
 * of a real ring is tests/unit/test_log_quota.c's). */
bool log_hv_domain_symbols(const struct log_symbols *rec)
{
    return fake.log_on && log_emit_symbols(&fake.ring, fake.tsc, rec);
}

void log_hv_event_desc(const struct log_event_desc *ed)
{
    if (fake.desc_count >= FAKE_DESCS_MAX)
        return;
    unsigned int i = fake.desc_count++;
    fake.descs[i] = *ed;
    snprintf(fake.desc_names[i], sizeof(fake.desc_names[i]), "%.*s", (int)ed->len, ed->name);
    fake.descs[i].name = fake.desc_names[i];
}

void log_hv_event_period(const struct log_event_period *ep)
{
    if (fake.period_count < FAKE_DESCS_MAX)
        fake.periods[fake.period_count++] = *ep;
}

void log_hv_set_pmu(const struct log_pmu_desc *pmu)
{
    fake.header_pmu = *pmu;
}

void log_hv_interval(const struct log_interval *iv)
{
    if (fake.log_on)
        log_emit_interval(&fake.ring, fake.exit_tsc, iv);
}

void log_hv_interval_events(const struct log_interval_events *ie)
{
    if (fake.log_on)
        log_emit_interval_events(&fake.ring, fake.exit_tsc, ie);
}

void log_hv_vcpu_stats(const struct log_vcpu_stats *vs)
{
    if (fake.log_on)
        log_emit_vcpu_stats(&fake.ring, fake.exit_tsc, vs);
}

void log_hv_swcounters(const struct log_swcounters *sw)
{
    if (fake.log_on)
        log_emit_swcounters(&fake.ring, fake.exit_tsc, sw);
}

void log_hv_pmu_totals(const struct log_pmu_totals *pt)
{
    (void)pt;
    fake.totals_records++;
}
