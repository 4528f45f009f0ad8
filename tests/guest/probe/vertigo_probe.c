// SPDX-License-Identifier: GPL-2.0
/* vertigo_probe.ko: the guest kernel's side of the hostile-input tests.
 * Loaded with test=msrio, it tries every MSR and I/O path Vertigo guards
 * from CPL 0 (docs/architecture.md, "Owned MSRs" and "Owned I/O ports")
 * and checks each is refused, filtered or harmless: Intel PT, PEBS,
 * DS_AREA, TSC_ADJUST, SMRR and TSC writes #GP, IA32_APIC_BASE keeps its
 * base and enable bit, the MTRRs are a shadow, MISC_ENABLE keeps its PMU
 * bits, CPUID hides what those MSRs belong to, and wide port writes into
 * Vertigo's console, debug and emulator ports and A20 go nowhere.
 * Loaded with test=fuzz calls=N [seed=S], it makes N hostile hypercalls
 * from CPL 0 on every online CPU at once (tests/guest/hostile.h), with
 * pointers into device memory, Vertigo's memory, guard pages and non-
 * canonical space. Loaded with test=pvpage, it offers Vertigo pages that
 * are no page of guest RAM for the paravirtual counters
 * (VERTIGO_HC_PV_PAGE: unaligned, device memory, Vertigo's memory, beyond
 * RAM) and checks each gets its own error. Loaded with test=domain in a
 * Linux domain beside domain 0, it writes the MSRs Vertigo emulates for
 * such a domain with values WRMSR refuses (each #GP) and its own (taken
 * back), and runs its virtual APIC timer periodic with a count of 1 (at
 * most one interrupt per 200 us). Each way it prints "vertigo_probe: TEST: ..." lines
 * and "vertigo_probe: TEST: N passed, M failed" and stays loaded (rmmod
 * it before loading it again); it refuses to load (-ENODEV) only when not
 * under Vertigo. */
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/cpumask.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/asm.h>
#include <asm/apic.h>
#include <asm/fpu/api.h>
#include <asm/hardirq.h>
#include <asm/irq_vectors.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <asm/processor.h>

#include "guestlib/vertigo_vmcall.h"
#include "tests/guest/hostile.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Vertigo hostile-input tests from guest kernel mode");

static char *test = "msrio";
module_param(test, charp, 0444);
static unsigned long calls = 1000;
module_param(calls, ulong, 0444);
static unsigned long long seed = 0x5eed5eedull;
module_param(seed, ullong, 0444);

#define VGA_WINDOW     0xa0000ul        /* legacy VGA memory: device memory */
#define VERTIGO_IMAGE  0x200000ul       /* Vertigo's image (linker.ld) */
#define NONCANONICAL   0x8000000000001000ull
#define REPORT_MAX     8
#define FORGED         "VERTIGO-END: PASS (forged by the guest)\n"

static unsigned int passed, failed;

/* One check: "ok", or "FAIL" with two values that tell what went wrong. */
static void check(const char *name, bool ok, u64 a, u64 b)
{
	if (ok) {
		passed++;
		pr_info("vertigo_probe: %s: ok\n", name);
		return;
	}
	failed++;
	pr_info("vertigo_probe: %s: FAIL (%#llx, %#llx)\n", name, a, b);
}

/* ---- MSRs ---------------------------------------------------------------- */

/* MSRs a guest may neither read nor write (the CPU it sees has none). */
static const struct { u32 msr; const char *name; } refused[] = {
	{ 0x03b, "TSC_ADJUST" }, { 0x1f2, "SMRR_PHYSBASE" }, { 0x1f3, "SMRR_PHYSMASK" },
	{ 0x1a6, "OFFCORE_RSP_0" }, { 0x3f1, "PEBS_ENABLE" }, { 0x3f6, "PEBS_LD_LAT" },
	{ 0x560, "RTIT_OUTPUT_BASE" }, { 0x561, "RTIT_OUTPUT_MASK_PTRS" }, { 0x570, "RTIT_CTL" },
	{ 0x571, "RTIT_STATUS" }, { 0x580, "RTIT_ADDR0_A" }, { 0x600, "DS_AREA" },
	{ 0x14ce, "LBR_CTL" }, { 0x14cf, "LBR_DEPTH" }, { 0x1200, "LBR_INFO_0" },
	{ 0x1500, "LBR_FROM_0" }, { 0x1600, "LBR_TO_0" },
};

static void msr_refused(void)
{
	char name[48];
	u64 v;

	for (unsigned int i = 0; i < ARRAY_SIZE(refused); i++) {
		int r = rdmsrl_safe(refused[i].msr, &v);
		int w = wrmsrl_safe(refused[i].msr, 0);

		snprintf(name, sizeof(name), "msr %s #GP", refused[i].name);
		check(name, r && w, r, w);
	}
	rdmsrl_safe(MSR_IA32_TSC, &v);
	check("msr TSC: write #GP", wrmsrl_safe(MSR_IA32_TSC, v) != 0, 0, 0);
	check("msr TSC: read", rdmsrl_safe(MSR_IA32_TSC, &v) == 0, 0, 0);
}

/* IA32_PERF_GLOBAL_CTRL: #GP when CPUID leaf 0xA offers no PMU; with
 * Vertigo's virtual PMU (version 2 or later) it takes its own value back
 * (the guest's perf keeps counting) and refuses a reserved bit. */
static void msr_perf_global_ctrl(void)
{
	const u32 msr = 0x38f;
	unsigned int version = cpuid_eax(0xa) & 0xff;
	u64 v = 0;
	int r = rdmsrl_safe(msr, &v);

	if (version < 2) {
		check("msr PERF_GLOBAL_CTRL #GP (no PMU)", r && wrmsrl_safe(msr, 0), r, version);
		return;
	}
	check("msr PERF_GLOBAL_CTRL: virtual PMU's, read", r == 0, r, version);
	check("msr PERF_GLOBAL_CTRL: own value written back", wrmsrl_safe(msr, v) == 0, v, 0);
	check("msr PERF_GLOBAL_CTRL: reserved bit 60 #GP",
	      wrmsrl_safe(msr, v | (1ull << 60)) != 0, v, 0);
}

/* IA32_APIC_BASE: only its own value (or x2APIC mode) may be written. */
static void msr_apic_base(void)
{
	const u64 addr_mask = 0xfffffffff000ull;
	u64 base, now;

	if (rdmsrl_safe(MSR_IA32_APICBASE, &base)) {
		check("msr APIC_BASE: read", false, 0, 0);
		return;
	}
	check("msr APIC_BASE: same value", wrmsrl_safe(MSR_IA32_APICBASE, base) == 0, base, 0);
	check("msr APIC_BASE: moved over Vertigo #GP",
	      wrmsrl_safe(MSR_IA32_APICBASE, (base & ~addr_mask) | VERTIGO_IMAGE) != 0, base, 0);
	check("msr APIC_BASE: moved off its page #GP",
	      wrmsrl_safe(MSR_IA32_APICBASE, (base & ~addr_mask) | 0xfed00000ull) != 0, base, 0);
	check("msr APIC_BASE: disabled #GP",
	      wrmsrl_safe(MSR_IA32_APICBASE, base & ~(u64)MSR_IA32_APICBASE_ENABLE) != 0, base, 0);
	rdmsrl_safe(MSR_IA32_APICBASE, &now);
	check("msr APIC_BASE: unchanged", now == base, now, base);
}

/* The MTRRs: a shadow the guest reads back, SMRR hidden, bad types #GP. */
static void msr_mtrrs(void)
{
	u64 cap, def, off, back = 0;

	if (rdmsrl_safe(MSR_MTRRcap, &cap) || rdmsrl_safe(MSR_MTRRdefType, &def)) {
		check("msr MTRRs: read", false, 0, 0);
		return;
	}
	check("msr MTRRCAP: SMRR hidden", !(cap & (1ull << 11)), cap, 0);
	off = def & ~(1ull << 11);              /* every MTRR off: all uncacheable */
	check("msr MTRR_DEF_TYPE: write", wrmsrl_safe(MSR_MTRRdefType, off) == 0, off, 0);
	rdmsrl_safe(MSR_MTRRdefType, &back);
	check("msr MTRR_DEF_TYPE: reads back", back == off, back, off);
	check("msr MTRR_DEF_TYPE: reserved type #GP",
	      wrmsrl_safe(MSR_MTRRdefType, (def & ~0xffull) | 2) != 0, def, 0);
	check("msr MTRR_DEF_TYPE: restored", wrmsrl_safe(MSR_MTRRdefType, def) == 0, def, 0);
}

static void msr_misc_enable(void)
{
	u64 m;

	if (rdmsrl_safe(MSR_IA32_MISC_ENABLE, &m)) {
		check("msr MISC_ENABLE: read", false, 0, 0);
		return;
	}
	check("msr MISC_ENABLE: no PMU, BTS or PEBS",
	      !(m & (1ull << 7)) && (m & (1ull << 11)) && (m & (1ull << 12)), m, 0);
	check("msr MISC_ENABLE: CPUID limit #GP",
	      wrmsrl_safe(MSR_IA32_MISC_ENABLE, m ^ (1ull << 22)) != 0, m, 0);
	check("msr MISC_ENABLE: XD disable #GP",
	      wrmsrl_safe(MSR_IA32_MISC_ENABLE, m ^ (1ull << 34)) != 0, m, 0);
	check("msr MISC_ENABLE: same value", wrmsrl_safe(MSR_IA32_MISC_ENABLE, m) == 0, m, 0);
}

/* IA32_XSS holds no supervisor component (Vertigo switches none): 0 reads
 * and writes back, Intel PT's bit 8 and every other bit #GP; CPUID 0xD.1
 * enumerates none, and an XRSTORS of a PT state #GPs (XSS lacks bit 8). */
static void msr_xss(void)
{
	const u32 msr = 0xda0;
	unsigned int a, b, c, d;
	u64 v = 1;
	int r = rdmsrl_safe(msr, &v);

	check("msr XSS: reads 0", r == 0 && v == 0, r, v);
	check("msr XSS: 0 written back", wrmsrl_safe(msr, 0) == 0, 0, 0);
	check("msr XSS: Intel PT state (bit 8) #GP", wrmsrl_safe(msr, 1ull << 8) != 0, 0, 0);
	check("msr XSS: CET state (bit 11) #GP", wrmsrl_safe(msr, 1ull << 11) != 0, 0, 0);
	rdmsrl_safe(msr, &v);
	check("msr XSS: still 0", v == 0, v, 0);
	cpuid_count(0xd, 1, &a, &b, &c, &d);
	check("cpuid 0xd.1: no supervisor component", !(c | d), c, d);
	cpuid_count(0xd, 8, &a, &b, &c, &d);
	check("cpuid 0xd.8: no Intel PT component", !(a | b | c | d), a, c);
}

/* XRSTORS of an area whose XSTATE_BV and XCOMP_BV name Intel PT's state
 * (component 8): #GP, since XSS lacks it (SDM Vol. 1 13.12). Its output
 * base would be a host-physical address past the EPT. */
static void xrstors_pt(void)
{
	static u8 area[4096] __aligned(64);
	u64 bv = 1ull << 8, comp = (1ull << 63) | bv;
	int faulted = 1;

	if (!boot_cpu_has(X86_FEATURE_XSAVES)) {
		check("xrstors of Intel PT state: no XSAVES here (skipped)", true, 0, 0);
		return;
	}
	memset(area, 0, sizeof(area));
	kernel_fpu_begin();                     /* the task's FPU state saved first */
	memcpy(area + 512, &bv, 8);             /* XSTATE_BV */
	memcpy(area + 520, &comp, 8);           /* XCOMP_BV: compacted, PT */
	asm volatile("1: xrstors64 (%[a])\n\t"
		     "movl $0, %[f]\n"
		     "2:\n"
		     _ASM_EXTABLE(1b, 2b)
		     : [f] "+r"(faulted) : [a] "r"(area), "a"(~0u), "d"(~0u) : "memory");
	kernel_fpu_end();
	check("xrstors of Intel PT state #GP", faulted, 0, 0);
}

static void cpuid_hidden(void)
{
	unsigned int a, b, c, d;

	cpuid_count(7, 0, &a, &b, &c, &d);
	check("cpuid 7: no Intel PT, no TSC_ADJUST", !(b & (1u << 25)) && !(b & (1u << 1)), b, 0);
	cpuid_count(0x14, 0, &a, &b, &c, &d);
	check("cpuid 0x14: empty", !(a | b | c | d), a, b);
	cpuid_count(1, 0, &a, &b, &c, &d);
	check("cpuid 1: no debug store", !(d & (1u << 21)) && !(c & (1u << 2)), c, d);
	cpuid_count(7, 0, &a, &b, &c, &d);
	check("cpuid 7: no architectural LBRs", !(d & (1u << 19)), d, 0);
	cpuid_count(0x1c, 0, &a, &b, &c, &d);
	check("cpuid 0x1c: empty", !(a | b | c | d), a, b);
}

/* ---- I/O ports ------------------------------------------------------------ */

/* A word written one port below `port`, with `c` in the high byte: the
 * high byte lands on `port`. */
static void wide_outs(unsigned int port, const char *text)
{
	for (const char *c = text; *c; c++)
		outw((u16)((u8)*c << 8 | 'x'), port - 1);
}

static void io_paths(void)
{
	u32 before, after;

	outl(0x80000000u, 0xcf8);
	before = inl(0xcfc);
	wide_outs(0x2f8, FORGED);               /* COM2: Vertigo's console */
	wide_outs(0xe9, FORGED);                /* the debug port */
	outl(0, 0x2f6);                         /* covers 0x2f8, 0x2f9 */
	outw(0, 0x3ff);                         /* Bochs' BIOS panic port 0x400 */
	outw(0x5300, 0x88ff);                   /* Bochs' shutdown port 0x8900 */
	outb(0, 0x92);                          /* A20 off */
	outw(0, 0x91);                          /* A20 off, through a word */
	outw(0, 0xcf8);                         /* reset control 0xcf9 = 0 */
	outl(0x80000000u, 0xcf8);
	after = inl(0xcfc);
	check("io: PCI configuration still answers", before == after && before != 0xffffffffu,
	      after, before);
	check("io: A20 still on", (inb(0x92) & 2) != 0, inb(0x92), 0);
	check("io: wide writes into Vertigo's ports survived", true, 0, 0);
}

static int run_msrio(void)
{
	msr_refused();
	msr_perf_global_ctrl();
	msr_apic_base();
	msr_mtrrs();
	msr_misc_enable();
	msr_xss();
	xrstors_pt();
	cpuid_hidden();
	io_paths();
	return 0;
}

/* ---- A Linux domain's emulated MSRs and virtual APIC (test=domain) ---------- */

/* An MSR Vertigo emulates for a Linux domain beside domain 0: a value WRMSR
 * would refuse (reserved bits, a non-canonical address, a reserved memory
 * type) #GPs in the guest, never in Vertigo's root mode, and the MSR's own
 * value is taken back and reads back. */
static void domain_msr(u32 msr, const char *name, const char *what, u64 bad_or, u64 bad_mask)
{
	char label[80];
	u64 v = 0, bad, back = 0;
	int r = rdmsrl_safe(msr, &v);

	bad = (v & ~bad_mask) | bad_or;
	snprintf(label, sizeof(label), "domain msr %s: %s #GP", name, what);
	check(label, r == 0 && wrmsrl_safe(msr, bad) != 0, r, bad);
	snprintf(label, sizeof(label), "domain msr %s: its own value taken and read back", name);
	check(label, wrmsrl_safe(msr, v) == 0 && rdmsrl_safe(msr, &back) == 0 && back == v, v, back);
}

#define NONCANONICAL_BIT63 (1ull << 63)  /* the whole value: a kernel address has bit 63 set */

static void domain_msrs(void)
{
	domain_msr(MSR_TSC_AUX, "TSC_AUX", "bit 32 (reserved)", 1ull << 32, 0);
	domain_msr(MSR_SYSCALL_MASK, "SFMASK", "bit 32 (reserved)", 1ull << 32, 0);
	domain_msr(MSR_IA32_CR_PAT, "PAT", "entry 0 of type 2 (reserved)", 2, 0xff);
	domain_msr(MSR_IA32_CR_PAT, "PAT", "entry 7 with bit 3 set (reserved)", 0x08ull << 56,
		   0xffull << 56);
	domain_msr(MSR_IA32_SYSENTER_ESP, "SYSENTER_ESP", "a non-canonical address",
		   NONCANONICAL_BIT63, ~0ull);
	domain_msr(MSR_IA32_SYSENTER_EIP, "SYSENTER_EIP", "a non-canonical address",
		   NONCANONICAL_BIT63, ~0ull);
	domain_msr(MSR_LSTAR, "LSTAR", "a non-canonical address", NONCANONICAL_BIT63, ~0ull);
	domain_msr(MSR_CSTAR, "CSTAR", "a non-canonical address", NONCANONICAL_BIT63, ~0ull);
	domain_msr(MSR_KERNEL_GS_BASE, "KERNEL_GS_BASE", "a non-canonical address",
		   NONCANONICAL_BIT63, ~0ull);
	domain_msr(MSR_MTRRdefType, "MTRR_DEF_TYPE", "type 2 (reserved)", 2, 0xff);
	domain_msr(MSR_MTRRdefType, "MTRR_DEF_TYPE", "bit 12 (reserved)", 1ull << 12, 0);
	domain_msr(0xda0, "XSS", "Intel PT's bit 8", 1ull << 8, 0);
}

#define X2APIC_LVTT        0x832
#define X2APIC_TMICT       0x838
#define X2APIC_TDCR        0x83e
#define LVT_TIMER_MODE     (3u << 17)
#define LVT_PERIODIC       (1u << 17)
#define LVT_TSC_DEADLINE   (2u << 17)
#define TDCR_DIVIDE_BY_1   0xbu
#define FLOOR_US           200u         /* Vertigo's least periodic period */
#define WINDOW_MS          20u

/* The window's end, run from Linux's timer interrupt itself (a hard
 * hrtimer: hrtimer_interrupt runs it at the first periodic interrupt past
 * 20 ms). The loop that waits for it may get no instruction in at all: in
 * Bochs one timer interrupt costs a Linux domain about as much as the
 * floor's 200 us (the handler, its EOI and deadline writes, the IRET, each
 * an exit), so the interrupts can take the whole CPU until the window
 * ends, and a window ended by that loop ran for as long as the interrupts
 * left it none (a count of 490 in a "20 ms" that was 100 ms). */
struct floor_window {
	struct hrtimer end;
	u64 t0, t1;
	unsigned int before, after;
	bool over;
};

static void floor_window_close(struct floor_window *w)
{
	wrmsrl(X2APIC_TMICT, 0);
	w->t1 = rdtsc();
	w->after = this_cpu_read(irq_stat.apic_timer_irqs);
	WRITE_ONCE(w->over, true);
}

static enum hrtimer_restart floor_window_end(struct hrtimer *t)
{
	struct floor_window *w = container_of(t, struct floor_window, end);

	if (!w->over)
		floor_window_close(w);
	return HRTIMER_NORESTART;
}

/* The domain's virtual APIC timer, periodic with an initial count of 1 at
 * divide-by-1 (one tick of the bus clock) on Linux's own timer vector, for
 * about 20 ms: Vertigo floors the period at 200 us of the TSC, so over the
 * window's measured TSC span S at most S / 200 us + 1 interrupts arrive
 * (fewer while the domain waits for its slice); without the floor they
 * would come as fast as Vertigo can inject them. Linux's timer is then
 * given back and re-armed. */
static void vlapic_periodic_floor(void)
{
	u64 lvt, tdcr, hz = (u64)tsc_khz * 1000, floor = hz / (1000000 / FLOOR_US), span;
	unsigned int count, most;
	struct floor_window w = { .over = false };
	unsigned long flags;

	if (!x2apic_mode || !hz) {
		check("vlapic: x2APIC mode and a TSC rate", false, x2apic_mode, hz);
		return;
	}
	hrtimer_init(&w.end, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	w.end.function = floor_window_end;
	preempt_disable();
	rdmsrl(X2APIC_LVTT, lvt);
	rdmsrl(X2APIC_TDCR, tdcr);
	w.before = this_cpu_read(irq_stat.apic_timer_irqs);
	wrmsrl(X2APIC_TDCR, TDCR_DIVIDE_BY_1);
	wrmsrl(X2APIC_LVTT, LVT_PERIODIC | LOCAL_TIMER_VECTOR);
	w.t0 = rdtsc();
	wrmsrl(X2APIC_TMICT, 1);
	hrtimer_start(&w.end, ms_to_ktime(WINDOW_MS), HRTIMER_MODE_REL_PINNED_HARD);
	while (!READ_ONCE(w.over) && rdtsc() - w.t0 < 50 * WINDOW_MS * (hz / 1000))
		cpu_relax();    /* the bound: an hrtimer that never ran (1 s) */
	local_irq_save(flags);
	if (!w.over)
		floor_window_close(&w);
	wrmsrl(X2APIC_TDCR, tdcr);
	wrmsrl(X2APIC_LVTT, lvt);
	if ((lvt & LVT_TIMER_MODE) == LVT_TSC_DEADLINE)
		wrmsrl(MSR_IA32_TSC_DEADLINE, rdtsc() + hz / 1000);  /* its handler re-arms */
	else
		wrmsrl(X2APIC_TMICT, 1000);
	local_irq_restore(flags);
	preempt_enable();
	hrtimer_cancel(&w.end);
	count = w.after - w.before;
	span = w.t1 - w.t0;
	most = (unsigned int)(span / floor) + 1;
	pr_info("vertigo_probe: domain: vlapic: %u timer interrupts in %llu us of a periodic count of 1 (at most %u)\n",
		count, span * 1000 / (hz / 1000), most);
	check("vlapic: a periodic timer of 1 tick fires at most once per 200 us",
	      count != 0 && count <= most, count, most);
}

static int run_domain(void)
{
	domain_msrs();
	vlapic_periodic_floor();
	return 0;
}

/* ---- Hostile hypercalls from CPL 0 ------------------------------------------- */

struct fuzzer {
	const struct hostile_target *t;
	unsigned int cpu;
	unsigned long calls;
	u64 rng;
	unsigned long bad;
	struct vertigo_symbols_chunk *chunk;
	struct completion done;
};

static atomic_t reports = ATOMIC_INIT(0);

static int fuzz_thread(void *arg)
{
	struct fuzzer *f = arg;

	for (unsigned long i = 0; i < f->calls; i++) {
		struct hostile_call c;

		hostile_draw(f->t, &f->rng, &c, f->chunk, (u64)(uintptr_t)f->chunk);
		c.got = hostile_vmcall(&c);
		if (c.got != c.want) {
			f->bad++;
			if (atomic_inc_return(&reports) <= REPORT_MAX)
				pr_info("vertigo_probe: fuzz: cpu %u: call %#llx(%#llx, %#llx) returned %lld, want %lld\n",
					f->cpu, c.nr, c.arg[0], c.arg[1], c.got, c.want);
		}
		if (i % 64 == 63)
			cond_resched();
	}
	complete(&f->done);
	return 0;
}

static int run_fuzz(void)
{
	struct hostile_target t = { .user = 0 };
	u8 *readable = kmalloc(HOSTILE_READABLE_BYTES, GFP_KERNEL);
	u8 *guarded = vmalloc(PAGE_SIZE);       /* a guard page follows it */
	void __iomem *vga = ioremap(VGA_WINDOW, PAGE_SIZE);
	void __iomem *vertigo = ioremap(VERTIGO_IMAGE, PAGE_SIZE);
	unsigned int n = 0, cpus = num_online_cpus();
	struct fuzzer *f = kcalloc(cpus, sizeof(*f), GFP_KERNEL);
	unsigned long bad = 0;
	struct task_struct *k;
	int ret = 0, cpu;

	if (!readable || !guarded || !vga || !vertigo || !f) {
		check("fuzz: set-up", false, (u64)(uintptr_t)vga, (u64)(uintptr_t)vertigo);
		ret = -ENOMEM;
		goto out;
	}
	memset(readable, 0xa5, HOSTILE_READABLE_BYTES);
	readable[HOSTILE_READABLE_BYTES - 1] = 0;
	memset(guarded, 'x', PAGE_SIZE);
	t.ptr[HOSTILE_NULL] = 0;
	t.ptr[HOSTILE_NONCANONICAL] = NONCANONICAL;
	t.ptr[HOSTILE_UNMAPPED] = (u64)(uintptr_t)(guarded + PAGE_SIZE);
	t.ptr[HOSTILE_SUPERVISOR] = (u64)(uintptr_t)readable;
	t.ptr[HOSTILE_MMIO] = (u64)(uintptr_t)vga;
	t.ptr[HOSTILE_VERTIGO] = (u64)(uintptr_t)vertigo;
	t.ptr[HOSTILE_READABLE] = (u64)(uintptr_t)readable;
	t.ptr[HOSTILE_RUNS_OFF] = (u64)(uintptr_t)(guarded + PAGE_SIZE - HOSTILE_RUNS_OFF_BYTES);
	for_each_online_cpu(cpu) {
		struct fuzzer *z = &f[n];

		*z = (struct fuzzer){ .t = &t, .cpu = cpu, .calls = calls / cpus + (n < calls % cpus),
				      .rng = seed + n * 7919 + 1 };
		z->chunk = kmalloc(sizeof(*z->chunk), GFP_KERNEL);
		init_completion(&z->done);
		k = z->chunk ? kthread_create(fuzz_thread, z, "vprobe/%d", cpu) : ERR_PTR(-ENOMEM);
		if (IS_ERR(k)) {
			check("fuzz: thread", false, cpu, 0);
			complete(&z->done);
		} else {
			kthread_bind(k, cpu);
			wake_up_process(k);
		}
		n++;
	}
	for (unsigned int i = 0; i < n; i++) {
		wait_for_completion(&f[i].done);
		bad += f[i].bad;
		kfree(f[i].chunk);
	}
	pr_info("vertigo_probe: fuzz: %lu calls on %u CPUs, %lu unexpected results\n", calls, n, bad);
	check("fuzz: every hostile hypercall got its documented result", bad == 0, bad, calls);
out:
	kfree(f);
	if (vga)
		iounmap(vga);
	if (vertigo)
		iounmap(vertigo);
	vfree(guarded);
	kfree(readable);
	return ret;
}

/* VERTIGO_HC_PV_PAGE with pages Vertigo must not write: nothing changes. */
static int run_pvpage(void)
{
	static const struct { const char *name; u64 gpa; s64 want; } bad[] = {
		{ "pvpage: unaligned", 0x100001ull, -VERTIGO_EINVAL },
		{ "pvpage: inside a page", 0x100800ull, -VERTIGO_EINVAL },
		{ "pvpage: VGA memory (MMIO)", VGA_WINDOW, -VERTIGO_EMMIO },
		{ "pvpage: the local APIC (MMIO)", 0xfee00000ull, -VERTIGO_EMMIO },
		{ "pvpage: Vertigo's image", VERTIGO_IMAGE, -VERTIGO_EFAULT },
		{ "pvpage: beyond RAM", 1ull << 40, -VERTIGO_EFAULT },
		{ "pvpage: beyond the physical address width", NONCANONICAL, -VERTIGO_EFAULT },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		s64 r = vertigo_hypercall1(VERTIGO_HC_PV_PAGE, bad[i].gpa);

		check(bad[i].name, r == bad[i].want, (u64)r, (u64)bad[i].want);
	}
	return 0;
}

static int __init vertigo_probe_init(void)
{
	int ret;

	if (!vertigo_present()) {
		pr_info("vertigo_probe: not under Vertigo\n");
		return -ENODEV;
	}
	if (strcmp(test, "pvpage") == 0)
		ret = run_pvpage();
	else if (strcmp(test, "domain") == 0)
		ret = run_domain();
	else
		ret = strcmp(test, "fuzz") == 0 ? run_fuzz() : run_msrio();
	if (ret)
		failed++;
	pr_info("vertigo_probe: %s: %u passed, %u failed\n", test, passed, failed);
	return 0;   /* loaded either way: an error would make insmod run it again */
}

static void __exit vertigo_probe_exit(void)
{
}

module_init(vertigo_probe_init);
module_exit(vertigo_probe_exit);
