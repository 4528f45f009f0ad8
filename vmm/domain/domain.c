/* The end of a domain: report, statistics, verdict. */
#include "vmm/domain/domain.h"

#include "boot/run_end.h"
#include "lib/cpu.h"
#include "boot/platform.h"
#include "lib/console.h"
#include "vmm/console/console_drain.h"
#include "vmm/domain/domain_config.h"
#include "vmm/domain/domain_private.h"
#include "lib/format.h"
#include "vmm/log/log_hv.h"
#include "vmm/log/log_quota.h"
#include "lib/mem.h"
#include "vmm/pmu_hooks.h"
#include "lib/spinlock.h"
#include "vmm/vmx_hooks.h"

/* A domain's VCPUs may write at once; one lock per domain, so a domain's
 * console never waits behind another's. */
static struct spinlock console_locks[DOMAIN_MAX];

static struct spinlock *console_lock_of(const struct domain *d)
{
    return &console_locks[d->id % DOMAIN_MAX];
}

static const char *const end_names[] = {
    [GUEST_END_POWER_OFF] = "powered off",
    [GUEST_END_RESET] = "reset",
    [GUEST_END_TRIPLE_FAULT] = "triple-faulted",
    [GUEST_END_ERROR] = "was stopped by Vertigo",
    [GUEST_END_ISOLATION] = "violated isolation",
    [GUEST_END_TEST_EXIT] = "exited through the test-exit port",
};

/* Life-cycle records of the end: every VCPU goes offline, then the domain
 * stops with arg = enum guest_end (docs/log-format.md, "Drains"). */
static void log_domain_stop(const struct domain *d, enum guest_end how)
{
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        log_hv_lifecycle(d->id, i, LOG_LC_VCPU_OFFLINE, d->vcpus[i].cpu);
    log_hv_lifecycle(d->id, 0, LOG_LC_DOMAIN_STOP, how);
}

/* A line on the text console with the domain's name in front (queued:
 * vmm/console/console_drain.h writes it as the UART takes it), and in the log as
 * the domain's own record. False, nothing shown or logged, if the
 * domain's console queue is full. */
static bool show_line(struct domain *d, const char *line, size_t len)
{
    char prefix[sizeof(d->name) + 3];
    char record[DOMAIN_CONSOLE_LINE + 1];

    fmt_snprintf(prefix, sizeof(prefix), "[%s] ", d->name);
    if (!console_drain_put(d->id, &d->console.queue, prefix, line, len))
        return false;
    memcpy(record, line, len);
    record[len] = '\n';
    log_hv_domain_console(d->id, record, len + 1);
    return true;
}

/* Lines dropped since the last note, said in the domain's own console
 * before the next line it may print (vmm/domain/domain_console.h): over its rate
 * (full false) or with Vertigo's console queue full. False if the note
 * found the queue full (it stays unreported). */
static bool note_dropped(struct domain *d, bool full)
{
    struct domain_console_drops *drops = full ? &d->console.full : &d->console.rate.dropped;
    char note[DOMAIN_CONSOLE_LINE];
    if (!drops->unreported_lines)
        return true;
    int n = full ? fmt_snprintf(note, sizeof(note), "(vertigo: %lu lines, %lu bytes of this "
                                "console dropped: Vertigo's console queue of %u bytes full)",
                                drops->unreported_lines, drops->unreported_bytes,
                                LINE_QUEUE_BYTES)
                 : fmt_snprintf(note, sizeof(note), "(vertigo: %lu lines, %lu bytes of this "
                                "console dropped: over its rate of %u bytes/s)",
                                drops->unreported_lines, drops->unreported_bytes,
                                DOMAIN_CONSOLE_RATE);
    if (!show_line(d, note, n > 0 && (size_t)n < sizeof(note) ? (size_t)n : sizeof(note) - 1))
        return false;
    drops->unreported_lines = drops->unreported_bytes = 0;
    return true;
}

/* One line of a domain's console output, if its rate allows and its
 * console queue has room (the notes first). */
static void console_line(void *ctx, const char *line, size_t len)
{
    struct domain *d = ctx;
    if (!domain_console_admit(&d->console.rate, len, rdtsc(), platform_tsc_hz()))
        return;
    if (!note_dropped(d, true) || !note_dropped(d, false) || !show_line(d, line, len))
        domain_console_count_drop(&d->console.full, len);
}

int64_t domain_console_output(void *ctx, const char *text, size_t len)
{
    struct domain *d = ctx;
    spin_lock(console_lock_of(d));
    domain_console_write(&d->console, text, len, console_line, d);
    spin_unlock(console_lock_of(d));
    return (int64_t)len;
}

__attribute__((noreturn)) void domain_power_off(void *ctx)
{
    domain_end(ctx, GUEST_END_POWER_OFF, "power-off hypercall");
}

/* The domains of the run: those domain_register adds (domain 0 first when
 * it runs) and those refused. */
static unsigned int domains_total, domains_alive;
static bool every_domain_passed = true;
static struct spinlock life_lock = SPINLOCK_INIT;

void domain_register(struct domain *d)
{
    (void)d;
    spin_lock(&life_lock);
    domains_total++;
    domains_alive++;
    spin_unlock(&life_lock);
}

unsigned int domains_running(void)
{
    spin_lock(&life_lock);
    unsigned int n = domains_alive;
    spin_unlock(&life_lock);
    return n;
}

void domain_refused(struct domain *d, const char *what, const char *why)
{
    printk("vertigo: dom.%u (%s): %s refused: %s\n", d->id, d->name, what, why);
    printk("guest: domain %u (%s) verdict FAIL: refused\n", d->id, d->name);
    spin_lock(&life_lock);
    domains_total++;
    every_domain_passed = false;
    spin_unlock(&life_lock);
}

/* Domain 0 alone: the run's lines and verdicts of a single guest. */
static bool single_guest(const struct domain *d)
{
    return d->id == 0 && domains_total == 1;
}

__attribute__((noreturn)) void domain_test_exit(struct domain *d, uint32_t code)
{
    d->verdict = code == 0 ? GUEST_VERDICT_PASS : GUEST_VERDICT_FAIL;
    fmt_snprintf(d->verdict_text, sizeof(d->verdict_text), "test-exit code %u", code);
    printk("\nguest: domain %u (%s) test-exit code %u (QEMU's exit status would be %u)\n",
           d->id, d->name, code, (code << 1) | 1);
    domain_end(d, GUEST_END_TEST_EXIT, "test-exit port");
}

/* The verdict line of one domain of several; true if it passed. */
static bool domain_verdict(const struct domain *d, enum guest_end how)
{
    if (d->verdict == GUEST_VERDICT_NONE) {
        printk("guest: domain %u (%s) verdict FAIL: no verdict reported\n", d->id, d->name);
        return false;
    }
    bool passed = d->verdict == GUEST_VERDICT_PASS &&
                  (how == GUEST_END_POWER_OFF || how == GUEST_END_TEST_EXIT);
    printk("guest: domain %u (%s) verdict %s%s%s%s\n", d->id, d->name, passed ? "PASS" : "FAIL",
           d->verdict_text[0] ? ": " : "", d->verdict_text,
           d->verdict == GUEST_VERDICT_PASS && !passed ? " (passed but did not power off)" : "");
    return passed;
}

/* One domain of several ended: the run ends with the last of them. */
__attribute__((noreturn)) static void domain_end_one(struct domain *d, enum guest_end how)
{
    bool passed = domain_verdict(d, how);
    spin_lock(&life_lock);
    every_domain_passed = every_domain_passed && passed;
    bool last = --domains_alive == 0;
    spin_unlock(&life_lock);
    if (last && every_domain_passed)
        run_end(RUN_PASS, "every domain passed and powered off");
    if (last)
        run_end(RUN_FAIL, "a domain did not pass or did not power off");
    vmx_sched_domain_ended(d);
}

/* No domain but d is left: the run ends with it. */
static bool only_one_alive(void)
{
    spin_lock(&life_lock);
    bool one = domains_alive == 1;
    spin_unlock(&life_lock);
    return one;
}

/* The end of one boot of domain d: its console flushed, how it ended, its
 * drops, its stop records, its VCPUs' exit statistics and its PMU reports
 * (run_ends: no other domain is left). */
static void report_boot_end(struct domain *d, enum guest_end how, const char *detail,
                            bool run_ends)
{
    pmu_domain_stopping(d);
    spin_lock(console_lock_of(d));
    domain_console_flush(&d->console, console_line, d);
    spin_unlock(console_lock_of(d));
    printk("\nguest: domain %u %s (%s)\n", d->id, end_names[how], detail);
    if (d->console.rate.dropped.lines)
        printk("guest: domain %u (%s): %lu console lines (%lu bytes) dropped over the rate "
               "limit of %u bytes/s\n", d->id, d->name, d->console.rate.dropped.lines,
               d->console.rate.dropped.bytes, DOMAIN_CONSOLE_RATE);
    if (d->console.full.lines)
        printk("guest: domain %u (%s): %lu console lines (%lu bytes) dropped: Vertigo's "
               "console queue of %u bytes was full\n", d->id, d->name, d->console.full.lines,
               d->console.full.bytes, LINE_QUEUE_BYTES);
    uint64_t refused = log_hv_domain_refused(d->id);
    if (refused)
        printk("guest: domain %u (%s): %lu log records refused over its share of the log "
               "rings (1/%u of each)\n", d->id, d->name, refused, LOG_QUOTA_SHARE);
    log_domain_stop(d, how);
    for (unsigned int i = 0; i < d->vcpu_count; i++)
        exit_stats_print(&d->vcpus[i].stats, i, printk);
    pmu_domain_report(d, run_ends);
    log_hv_flush();     /* the statistics are the largest burst of text */
}

/* Whether a reset request of d restarts it: dom.N.on_reboot=restart, a
 * domain beside domain 0 with one VCPU, not ending already. */
static bool restarts(const struct domain *d)
{
    return d->restart_on_reboot && d->id != 0 && d->vcpu_count == 1 &&
           !__atomic_load_n(&d->ended, __ATOMIC_ACQUIRE);
}

void domain_reset(struct domain *d, enum guest_end how, const char *detail)
{
    if (!restarts(d))
        domain_end(d, how, detail);
    report_boot_end(d, how, detail, false);
    unsigned int boot = d->restarts + 1;
    printk("guest: domain %u (%s) boot %u verdict %s%s%s\n", d->id, d->name, boot,
           d->verdict == GUEST_VERDICT_PASS ? "PASS"
           : d->verdict == GUEST_VERDICT_FAIL ? "FAIL" : "none reported",
           d->verdict_text[0] ? ": " : "", d->verdict_text);
    d->verdict = GUEST_VERDICT_NONE;
    d->verdict_text[0] = '\0';
    memset(&d->kernel_unwind, 0, sizeof(d->kernel_unwind));
    d->restarts++;
    domains_reload(d);
    printk("guest: domain %u (%s) restarts from its kernel and initrd "
           "(dom.%u.on_reboot=restart): boot %u, its PMU state, sessions and exit "
           "statistics reset\n", d->id, d->name, d->id, boot + 1);
    vmx_vcpu_restart(&d->vcpus[0]);
}

__attribute__((noreturn)) void domain_end(struct domain *d, enum guest_end how,
                                          const char *detail)
{
    if (!single_guest(d) && __atomic_exchange_n(&d->ended, true, __ATOMIC_ACQ_REL))
        vmx_sched_domain_ended(d);      /* another of its VCPUs ended it */
    report_boot_end(d, how, detail, only_one_alive());

    if (!single_guest(d))
        domain_end_one(d, how);
    if (d->verdict == GUEST_VERDICT_NONE) {
        printk("guest: no verdict reported by the guest\n");
        run_end(RUN_FAIL, "guest ended without a verdict");
    }
    printk("guest: verdict %s%s%s\n", d->verdict == GUEST_VERDICT_PASS ? "PASS" : "FAIL",
           d->verdict_text[0] ? ": " : "", d->verdict_text);
    if (d->verdict == GUEST_VERDICT_PASS && how == GUEST_END_POWER_OFF)
        run_end(RUN_PASS, "guest passed and powered off");
    run_end(RUN_FAIL, d->verdict == GUEST_VERDICT_PASS ? "guest passed but did not power off"
                                                        : "guest reported failure");
}
