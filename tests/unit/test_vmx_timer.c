/* Unit tests: the shared VMX-preemption timer (vmx/vmx_timer.c) against a
 * model of Bochs' timer and TSC. The model: a VM entry loads the timer from
 * the VMCS field and its own retirement is the timer's first tick; the
 * guest then runs until it exits by itself or the timer reaches 0, which
 * Bochs may notice a few instructions late; the exit writes the timer's
 * value back to the field only with "save VMX-preemption timer value";
 * the TSC difference from the entry's read to the exit's is the guest's
 * instructions plus a fixed path. Checked: the guest clock the file keeps
 * equals the instructions the model ran, measured or lazy; a run never
 * passes the nearest deadline unless Bochs' lateness carried it; once
 * lazy, no exit reads the timer and an entry writes it only when the
 * deadline comes closer than the value it holds; stepped paths, several
 * CPUs and hardware stay measured. */
#include <stdbool.h>
#include <stdint.h>

#include "tests/unit/unit.h"

/* vmx_timer.c's VMX instructions and per-CPU area come from the model. */
#define VMX_VMX_OPS_H
#define BOOT_PERCPU_H
#include "boot/percpu_step.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx_defs.h"

struct percpu {
    struct percpu *self;
    struct percpu_step step;
};
static struct percpu cpu0;

static inline struct percpu *this_cpu(void)
{
    return &cpu0;
}

static struct {
    uint64_t pin, exit, value;      /* the controls and the timer's field */
    unsigned int value_reads, value_writes;
} vmcs;

static inline uint64_t vmcs_read(uint64_t field)
{
    switch (field) {
    case VMCS_PIN_BASED_CONTROLS: return vmcs.pin;
    case VMCS_EXIT_CONTROLS: return vmcs.exit;
    case VMCS_PREEMPTION_TIMER_VALUE: vmcs.value_reads++; return vmcs.value;
    default: return 0;
    }
}

static inline void vmcs_write(uint64_t field, uint64_t value)
{
    switch (field) {
    case VMCS_PIN_BASED_CONTROLS: vmcs.pin = value; break;
    case VMCS_EXIT_CONTROLS: vmcs.exit = value; break;
    case VMCS_PREEMPTION_TIMER_VALUE: vmcs.value_writes++; vmcs.value = value; break;
    default: break;
    }
}

#include "vmx/vmx_timer.c"

struct vmx_config vmx_config;

static unsigned int cpus_online = 1;

unsigned int smp_cpus_online(void)
{
    return cpus_online;
}

#define PATH_TICKS 61u      /* the entry/exit path between the two TSC reads */

static struct vcpu v;
static uint64_t seed;
static uint64_t guest_total;    /* instructions the model's guest ran */

static void setup(bool tsc_counts)
{
    memset(&v, 0, sizeof(v));
    memset(&vmcs, 0, sizeof(vmcs));
    vmx_config.pin_available = PIN_PREEMPTION_TIMER;
    vmx_config.exit_available = EXIT_SAVE_PREEMPTION_TIMER;
    tsc_is_instructions = false;
    entry_ticks = 0;
    if (tsc_counts)
        vmx_timer_set_entry_ticks(1);
    vmx_timer_init(&v);
    seed = 0x9e3779b97f4a7c15ull;
    guest_total = 0;
}

/* The exit's TSC reads after a run of `ran`: the C one (vmx/vmx_run.c),
 * and with stepping armed the stub's, 10 ticks before it (the step
 * area's exit_read). Single-stepped on both sides the path takes 2400
 * more; armed, what comes after the stub's read varies (the exit path
 * stepped, 2000; the exit reason read, 5) and the measure must not. */
static void exit_reads(uint64_t ran)
{
    uint64_t tsc = v.vmx.entry_tsc + PATH_TICKS + ran;
    if (cpu0.step.step_exits) {
        tsc += 2400;
    } else if (cpu0.step.armed) {
        cpu0.step.exit_read = tsc - 10;
        tsc += (cpu0.step.exit_stepped ? 2000 : 0) + (ran & 1 ? 5 : 0);
    }
    v.vmx.exit_tsc = tsc;
}

/* One entry and exit: the guest would exit by itself after `own`
 * instructions; Bochs notices an expired timer up to `lateness` late.
 * Returns the ticks vmx_timer_settle measured. */
static uint64_t run(uint64_t own, uint64_t lateness)
{
    vmx_timer_arm(&v);
    uint64_t ran = own;
    bool fired = false;
    if (vmcs.pin & PIN_PREEMPTION_TIMER) {
        uint64_t left = vmcs.value - entry_ticks;      /* VMRESUME's own tick */
        if (left <= own) {
            ran = left + (lateness < own - left ? lateness : own - left);
            fired = true;
        }
        if (vmcs.exit & EXIT_SAVE_PREEMPTION_TIMER)
            vmcs.value = fired ? 0 : left - ran;
    }
    v.vmx.entry_tsc = 1000000;
    exit_reads(ran);
    guest_total += ran;
    return vmx_timer_settle(&v);
}

/* The guest's clock stays exact through the measured start and the lazy
 * runs, whether the guest or the timer ends a run and however late Bochs
 * notices the timer; no lazy exit reads the timer back. (Before the path's
 * length is first measured, a late expiry cannot be measured: the timer
 * saved 0, and the TSC difference has the path's unknown ticks in it. The
 * first runs here expire on time.) */
TEST(lazy_runs_count_every_instruction)
{
    setup(true);
    for (unsigned int i = 0; i < 5000; i++) {
        uint64_t r = unit_rand(&seed);
        vmx_timer_request(&v, VMX_TIMER_PMU, 1 + r % 3000);
        uint64_t late = i < 8 ? 0 : (r >> 32) % 8;
        uint64_t ticks = run(1 + (r >> 16) % 4000, late);
        if (!CHECK_EQ(v.vmx.timer.clock, guest_total))
            return;
        CHECK(ticks <= 4000 + 8);
    }
    CHECK(v.vmx.timer.lazy);                            /* the path was learnt */
    CHECK_EQ(v.vmx.timer.root_ticks[0], PATH_TICKS);
    unsigned int reads = vmcs.value_reads;
    for (unsigned int i = 0; i < 1000; i++) {
        uint64_t r = unit_rand(&seed);
        vmx_timer_request(&v, VMX_TIMER_PMU, 1 + r % 3000);
        run(1 + (r >> 16) % 4000, (r >> 32) % 8);
    }
    CHECK_EQ(v.vmx.timer.clock, guest_total);
    CHECK_EQ(vmcs.value_reads, reads);
    CHECK_EQ(vmcs.exit & EXIT_SAVE_PREEMPTION_TIMER, 0);
}

/* A deadline is met exactly, lazily too: with Bochs noticing the timer at
 * once, the run that reaches it ends on it, never past it. */
TEST(lazy_exit_lands_on_the_deadline)
{
    setup(true);
    for (unsigned int point = 0; point < 400; point++) {
        uint64_t r = unit_rand(&seed);
        uint64_t deadline = v.vmx.timer.clock + 1 + r % 100000;
        vmx_timer_request(&v, VMX_TIMER_PMU, deadline - v.vmx.timer.clock);
        while (!vmx_timer_expired(&v, VMX_TIMER_PMU)) {
            uint64_t before = v.vmx.timer.clock;
            /* the owner asks again at each entry, as the PMU does */
            vmx_timer_request(&v, VMX_TIMER_PMU, deadline - before);
            run(1 + unit_rand(&seed) % 30000, 0);
            if (!CHECK(v.vmx.timer.clock <= deadline))
                return;
        }
        if (!CHECK_EQ(v.vmx.timer.clock, deadline))
            return;
    }
    CHECK(v.vmx.timer.lazy);
    CHECK_EQ(v.vmx.timer.clock, guest_total);
}

/* Runs of `ticks` under a deadline `deadline` ahead, until the path has
 * been measured ROOT_AGREED_MIN times and `more`: the timer is then lazy. */
static void become_lazy(uint64_t deadline, uint64_t ticks, unsigned int more)
{
    for (unsigned int i = 0; i < ROOT_AGREED_MIN + more; i++) {
        vmx_timer_request(&v, VMX_TIMER_PMU, deadline);
        run(ticks, 0);
    }
    CHECK(v.vmx.timer.lazy);
}

/* A guest that never exits by itself, deadline after deadline (the
 * guest's PMIs, each near one followed by a farther one): each is met
 * exactly in one run, whatever the value left from the one before (a
 * value kept from a near deadline would end every run early, and a value
 * loaded for part of a far one would add exits). */
TEST(each_deadline_is_one_run)
{
    setup(true);
    become_lazy(1000, 500, 2);
    static const uint64_t periods[] = { 3, 10007, 1, 100000, 2, 4096, 4095, 1u << 20, 7 };
    for (unsigned int i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
        uint64_t deadline = v.vmx.timer.clock + periods[i];
        unsigned int exits = 0;
        do {
            vmx_timer_request(&v, VMX_TIMER_PMU, deadline - v.vmx.timer.clock);
            run(UINT64_MAX / 4, 0);
            exits++;
        } while (v.vmx.timer.clock < deadline && exits < 100);
        CHECK_EQ(v.vmx.timer.clock, deadline);
        /* one run: the value loaded for it, whatever was loaded before */
        if (!CHECK_EQ(exits, 1))
            printf("    period %" PRIu64 ": %u exits\n", periods[i], exits);
    }
    CHECK_EQ(v.vmx.timer.clock, guest_total);
}

/* A far deadline asked again at every entry (the guest's next PMI, at most
 * 2^31 ticks ahead) is written once: the value stays in the VMCS. */
TEST(far_deadline_is_loaded_once)
{
    setup(true);
    become_lazy(1u << 31, 500, 10);
    unsigned int writes = vmcs.value_writes, reads = vmcs.value_reads;
    for (unsigned int i = 0; i < 10000; i++) {
        vmx_timer_request(&v, VMX_TIMER_PMU, 1u << 31);
        run(100 + i % 900, 0);
    }
    CHECK_EQ(vmcs.value_writes, writes);
    CHECK_EQ(vmcs.value_reads, reads);
    CHECK_EQ(v.vmx.timer.clock, guest_total);
}

/* A path that single-steps Vertigo is measured by the timer always (the
 * steps' slow path may sample Vertigo inside it), and so is every run with
 * several CPUs (Bochs' TSC is then no CPU's instruction count); the clock
 * stays exact across the changes. */
TEST(stepped_path_and_several_cpus_measured)
{
    setup(true);
    become_lazy(10000, 700, 2);
    cpu0.step.armed = 1;
    cpu0.step.step_exits = 1;
    cpu0.step.exit_stepped = 1;
    for (unsigned int i = 0; i < 200; i++) {
        vmx_timer_request(&v, VMX_TIMER_PMU, 10000);
        run(300 + i, 0);
        if (!CHECK(!v.vmx.timer.lazy && v.vmx.timer.measuring))
            break;
    }
    CHECK(vmcs.exit & EXIT_SAVE_PREEMPTION_TIMER);
    cpu0.step.armed = 0;
    cpu0.step.step_exits = 0;
    cpu0.step.exit_stepped = 0;
    cpus_online = 2;
    vmx_timer_request(&v, VMX_TIMER_PMU, 10000);
    run(500, 0);
    CHECK(!v.vmx.timer.lazy && v.vmx.timer.measuring);
    cpus_online = 1;
    vmx_timer_request(&v, VMX_TIMER_PMU, 10000);
    run(500, 0);
    CHECK(v.vmx.timer.lazy);
    CHECK_EQ(vmcs.exit & EXIT_SAVE_PREEMPTION_TIMER, 0);
    CHECK_EQ(v.vmx.timer.clock, guest_total);
}

/* While stepping is armed every run is measured (the stub decides at the
 * exit whether to step its path), up to the stub's own TSC read, so what
 * the stub chose after it never reaches the guest's clock; each path keeps
 * its own length, and the plain path's, learnt only where stepping is
 * off, serves the lazy runs after the session exactly. */
TEST(armed_paths_learnt_apart)
{
    setup(true);
    cpu0.step.armed = 1;
    for (unsigned int i = 0; i < 3 * ROOT_AGREED_MIN; i++) {
        cpu0.step.step_exits = i % 5 == 1;
        cpu0.step.exit_stepped = i % 7 == 3 || cpu0.step.step_exits;
        vmx_timer_request(&v, VMX_TIMER_PMU, 5000);
        run(100 + i * 13 % 6000, 0);
        if (!CHECK(!v.vmx.timer.lazy && v.vmx.timer.measuring))
            break;
    }
    CHECK_EQ(v.vmx.timer.root_ticks[1], PATH_TICKS + 2400);
    CHECK_EQ(v.vmx.timer.root_ticks[2], PATH_TICKS - 10);
    CHECK_EQ(v.vmx.timer.root_ticks[0], UINT64_MAX);    /* never ran unarmed */
    CHECK_EQ(v.vmx.timer.clock, guest_total);
    cpu0.step.armed = 0;
    cpu0.step.step_exits = 0;
    cpu0.step.exit_stepped = 0;
    for (unsigned int i = 0; i < 2 * ROOT_AGREED_MIN; i++) {
        vmx_timer_request(&v, VMX_TIMER_PMU, 5000);
        run(100 + i * 29 % 6000, i < 8 ? 0 : (i >> 3) % 4);
    }
    CHECK(v.vmx.timer.lazy);
    CHECK_EQ(v.vmx.timer.root_ticks[0], PATH_TICKS);
    CHECK_EQ(v.vmx.timer.clock, guest_total);
}

/* Where a TSC tick is not an instruction (no entry ticks set: hardware),
 * every run is measured by the timer. */
TEST(measured_where_tsc_is_not_instructions)
{
    setup(false);
    for (unsigned int i = 0; i < 2000; i++) {
        vmx_timer_request(&v, VMX_TIMER_PMU, 1000);
        run(1 + i % 1500, 0);
        if (!CHECK(!v.vmx.timer.lazy && v.vmx.timer.measuring))
            return;
    }
    CHECK_EQ(vmcs.value_reads, 2000);
    CHECK_EQ(v.vmx.timer.clock, guest_total);
}

/* The nearest deadline the timer is loaded with is the nearest of every
 * owner's, though the owners other than the PMU are searched only when
 * their nearest moved later: random requests and cancels of random
 * owners, between runs, against a search of all of them each time. */
TEST(nearest_deadline_follows_every_owner)
{
    setup(true);
    for (unsigned int i = 0; i < 20000; i++) {
        uint64_t r = unit_rand(&seed);
        enum vmx_timer_owner owner = (enum vmx_timer_owner)(r % VMX_TIMER_OWNERS);
        if ((r >> 8) % 4 == 0)
            vmx_timer_cancel(&v, owner);
        else
            vmx_timer_request(&v, owner, 1 + (r >> 16) % 50000);
        uint64_t want = VMX_TIMER_NONE;
        for (unsigned int o = 0; o < VMX_TIMER_OWNERS; o++)
            if (v.vmx.timer.deadline[o] < want)
                want = v.vmx.timer.deadline[o];
        if (want != VMX_TIMER_NONE)
            want = want > v.vmx.timer.clock ? want - v.vmx.timer.clock : 0;
        if (!CHECK_EQ(nearest_deadline(&v.vmx.timer), want))
            return;
        if ((r >> 40) % 3 == 0)
            run(1 + (r >> 44) % 20000, 0);
    }
}
