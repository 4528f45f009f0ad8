/* mbtest: the project's multiboot test kernel (32-bit, freestanding). It
 * checks what a multiboot domain gives it, prints one line per check on
 * the 16550 at 0x3f8 ("mbtest: PASS: ..." / "mbtest: FAIL: ...") and ends
 * through the test-exit port 0xf4: with the code its command line asks
 * for (exit=N, default 0) when every check passed, else 1.
 *
 * Checks: the boot magic (multiboot or multiboot2, whichever header the
 * image carries: mbtest.elf or mbtest2.elf), the boot loader's name, the
 * memory map (RAM from 1 MiB holding the kernel), the modules (count as
 * modules=N asks; each one's string and first line are printed), the
 * command line (printed), fw_cfg's signature, CPU count and RAM size (the
 * top of the map), the ACPI RSDP in the BIOS area with valid checksums,
 * and the local APIC: its version through the xAPIC page, then the same
 * through the x2APIC MSR after switching modes. With singlestep=1 on its
 * command line, also single-stepping (RFLAGS.TF) over CPUID and HLT, which
 * exit to the hypervisor: each must still be followed by its single-step
 * #DB, at the next instruction. With pmtimer=1, also the ACPI PM timer
 * its FADT names: its rate against the TSC, a byte read and a write
 * refused. With testdev=1, also QEMU's pc-testdev: its data port at 0xe0
 * reads back what was written (at each width, and through REP OUTSB and
 * REP INSB), and its 64 KiB of test memory at 0xff000000 start zeroed and
 * read back what was written. With sleeps=N, it sleeps N times on a
 * one-shot APIC timer of sleep_ticks=T ticks (default 1,000,000) before it
 * ends. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COM1            0x3f8
#define LSR_THRE        0x20
#define TEST_EXIT_PORT  0xf4
#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA     0x511
#define MB1_BOOT_MAGIC  0x2badb002u
#define MB2_BOOT_MAGIC  0x36d76289u
#define APIC_MMIO       0xfee00000u
#define APIC_VERSION    0x30
#define MSR_APIC_BASE   0x1b
#define MSR_X2APIC_VERSION 0x803
#define APIC_BASE_EN    (1u << 11)
#define APIC_BASE_EXTD  (1u << 10)
#define MAX_MODULES     8
#define MSR_X2APIC_EOI  0x80b
#define MSR_X2APIC_LVTT 0x832
#define MSR_X2APIC_TMICT 0x838
#define MSR_X2APIC_TDCR 0x83e
#define MSR_X2APIC_SVR  0x80f
#define SVR_APIC_ENABLE (1u << 8)       /* software enable: LVT entries can deliver */
#define TIMER_VECTOR    0x40
#define DR6_BS          (1u << 14)
#define DR6_RESET       0xffff0ff0u
#define EFLAGS_TF       (1u << 8)
#define TESTDEV_PORT    0xe0
#define TESTDEV_MEMORY  0xff000000u
#define TESTDEV_BYTES   0x10000u

void mbtest_main(uint32_t magic, uint32_t info);
void mbtest_debug(uint32_t *frame);
void mbtest_timer(void);
extern char mbtest_debug_entry[], mbtest_timer_entry[];
extern char step_cpuid_after[], step_hlt_at[], step_hlt_after[];

/* ---- ports, MSRs, the console ---- */

static void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }
static uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static void cpuid(uint32_t leaf, uint32_t r[4])
{
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static void putc(char c)
{
    while (!(inb(COM1 + 5) & LSR_THRE))
        ;
    outb(COM1, (uint8_t)c);
}

static void puts(const char *s)
{
    while (*s)
        putc(*s++);
}

static void put_hex(uint32_t v)
{
    puts("0x");
    for (int shift = 28; shift >= 0; shift -= 4)
        putc("0123456789abcdef"[(v >> shift) & 0xf]);
}

static void put_dec(uint32_t v)
{
    char buf[12];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        putc(buf[--n]);
}

/* At most `max` printable characters of s up to a newline or NUL. */
static void put_line_of(const char *s, uint32_t max)
{
    for (uint32_t i = 0; i < max && s[i] && s[i] != '\n'; i++)
        putc(s[i] >= ' ' && s[i] < 0x7f ? s[i] : '?');
}

static unsigned int passed, failed;

static void check(bool ok, const char *what)
{
    puts(ok ? "mbtest: PASS: " : "mbtest: FAIL: ");
    puts(what);
    putc('\n');
    if (ok)
        passed++;
    else
        failed++;
}

static bool same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* ---- what the boot information says, either version ---- */

struct module {
    uint32_t start, end;
    const char *string;
};

struct boot {
    unsigned int version;
    const char *cmdline, *loader;
    uint32_t mem_lower, mem_upper;      /* KiB */
    uint64_t ram_top;                   /* end of the highest usable range */
    uint64_t high_start, high_end;      /* the usable range holding 1 MiB */
    unsigned int ranges;
    struct module modules[MAX_MODULES];
    unsigned int module_count;
};

static void add_range(struct boot *b, uint64_t base, uint64_t len, uint32_t type)
{
    b->ranges++;
    if (type != 1)
        return;
    if (base + len > b->ram_top)
        b->ram_top = base + len;
    if (base <= 0x100000 && base + len > 0x100000) {
        b->high_start = base;
        b->high_end = base + len;
    }
}

static void read_v1(struct boot *b, const uint32_t *mbi)
{
    uint32_t flags = mbi[0];
    b->version = 1;
    if (flags & 1) {
        b->mem_lower = mbi[1];
        b->mem_upper = mbi[2];
    }
    if (flags & (1u << 2))
        b->cmdline = (const char *)mbi[4];
    if (flags & (1u << 3))
        for (uint32_t i = 0; i < mbi[5] && i < MAX_MODULES; i++) {
            const uint32_t *m = (const uint32_t *)(mbi[6] + 16 * i);
            b->modules[b->module_count++] = (struct module){ m[0], m[1], (const char *)m[2] };
        }
    if (flags & (1u << 6))
        for (uint32_t at = mbi[12]; at < mbi[12] + mbi[11];) {
            const uint32_t *e = (const uint32_t *)at;
            add_range(b, (uint64_t)e[2] << 32 | e[1], (uint64_t)e[4] << 32 | e[3], e[5]);
            at += e[0] + 4;
        }
    if (flags & (1u << 9))
        b->loader = (const char *)mbi[16];
}

static void read_v2(struct boot *b, const uint8_t *info)
{
    uint32_t total = *(const uint32_t *)info;
    b->version = 2;
    for (uint32_t at = 8; at + 8 <= total;) {
        const uint32_t *t = (const uint32_t *)(info + at);
        if (t[0] == 0)
            break;
        if (t[0] == 1)
            b->cmdline = (const char *)(t + 2);
        else if (t[0] == 2)
            b->loader = (const char *)(t + 2);
        else if (t[0] == 3 && b->module_count < MAX_MODULES)
            b->modules[b->module_count++] = (struct module){ t[2], t[3], (const char *)(t + 4) };
        else if (t[0] == 4) {
            b->mem_lower = t[2];
            b->mem_upper = t[3];
        } else if (t[0] == 6)
            for (uint32_t e = 16; e + t[2] <= t[1]; e += t[2]) {
                const uint32_t *r = (const uint32_t *)((const uint8_t *)t + e);
                add_range(b, (uint64_t)r[1] << 32 | r[0], (uint64_t)r[3] << 32 | r[2], r[4]);
            }
        at = (at + t[1] + 7) & ~7u;
    }
}

/* ---- the command line: exit=N, modules=N ---- */

static bool word_value(const char *line, const char *key, uint32_t *value)
{
    for (const char *p = line; p && *p;) {
        while (*p == ' ')
            p++;
        const char *k = key;
        while (*k && *p == *k)
            p++, k++;
        if (!*k && *p == '=') {
            uint32_t v = 0;
            for (p++; *p >= '0' && *p <= '9'; p++)
                v = v * 10 + (uint32_t)(*p - '0');
            *value = v;
            return true;
        }
        while (*p && *p != ' ')
            p++;
    }
    return false;
}

/* ---- the devices ---- */

static uint64_t fw_cfg(uint16_t item, unsigned int bytes)
{
    uint64_t v = 0;
    outw(FW_CFG_SELECTOR, item);
    for (unsigned int i = 0; i < bytes; i++)
        v |= (uint64_t)inb(FW_CFG_DATA) << (8 * i);
    return v;
}

static bool checksum_ok(const uint8_t *p, unsigned int n)
{
    uint8_t sum = 0;
    for (unsigned int i = 0; i < n; i++)
        sum = (uint8_t)(sum + p[i]);
    return sum == 0;
}

/* The RSDP where a PC kernel scans for it: 16-byte aligned in the BIOS
 * area [0xe0000, 1 MiB). */
static const uint8_t *find_rsdp(void)
{
    for (uint32_t a = 0xe0000; a < 0x100000; a += 16) {
        const char *p = (const char *)a;
        if (p[0] == 'R' && p[1] == 'S' && p[2] == 'D' && p[3] == ' ' && p[4] == 'P' &&
            p[5] == 'T' && p[6] == 'R' && p[7] == ' ')
            return (const uint8_t *)a;
    }
    return NULL;
}

static void check_devices(const struct boot *b)
{
    check(fw_cfg(0, 4) == 0x554d4551, "fw_cfg signature QEMU");
    check(fw_cfg(5, 2) == 1, "fw_cfg CPU count 1");
    uint64_t ram = fw_cfg(3, 8);
    puts("mbtest: fw_cfg RAM size ");
    put_dec((uint32_t)(ram >> 20));
    puts(" MiB\n");
    check(ram == b->ram_top, "fw_cfg RAM size is the top of the memory map");

    const uint8_t *rsdp = find_rsdp();
    check(rsdp && checksum_ok(rsdp, 20) && rsdp[15] == 2 && checksum_ok(rsdp, 36),
          "ACPI RSDP (revision 2) in the BIOS area, checksums valid");

    uint64_t base = rdmsr(MSR_APIC_BASE);
    check((base & ~0xfffull) == APIC_MMIO && (base & APIC_BASE_EN) && !(base & APIC_BASE_EXTD),
          "the local APIC starts enabled in xAPIC mode at 0xfee00000");
    uint32_t version = *(volatile uint32_t *)(APIC_MMIO + APIC_VERSION);
    puts("mbtest: APIC version register ");
    put_hex(version);
    putc('\n');
    check((version & 0xff) >= 0x10 && (version & 0xff) <= 0x15,
          "xAPIC MMIO: version register of an integrated APIC");
    wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
    check(rdmsr(MSR_X2APIC_VERSION) == version, "x2APIC MSR: the same version after the switch");
}

/* ---- QEMU's pc-testdev ---- */

static void check_testdev(void)
{
    outw(TESTDEV_PORT, 0x9999);
    outb(TESTDEV_PORT + 2, 0x5a);
    check(inb(TESTDEV_PORT) == 0x99 && inl(TESTDEV_PORT) == 0x5a9999,
          "pc-testdev port reads back a word, a byte at 0xe2 and the dword");
    static const char text[] = "abc";
    uint32_t si = (uint32_t)(uintptr_t)text, cx = 3;
    __asm__ volatile("cld; rep outsb" : "+S"(si), "+c"(cx) : "d"(TESTDEV_PORT) : "memory");
    check(inb(TESTDEV_PORT) == 'c' && cx == 0 && si == (uint32_t)(uintptr_t)text + 3,
          "pc-testdev port: REP OUTSB leaves the last byte, ESI past the string");
    volatile uint8_t *mem = (volatile uint8_t *)(uintptr_t)TESTDEV_MEMORY;
    bool zeroed = true;
    for (uint32_t i = 0; i < TESTDEV_BYTES; i += 512)
        zeroed = zeroed && mem[i] == 0 && mem[i + 511] == 0;
    check(zeroed, "pc-testdev memory at 0xff000000 starts zeroed");
    uint32_t di = TESTDEV_MEMORY + 0xffe;
    cx = 4;
    __asm__ volatile("cld; rep insb" : "+D"(di), "+c"(cx) : "d"(TESTDEV_PORT) : "memory");
    check(mem[0xffe] == 'c' && mem[0xfff] == 'c' && mem[0x1000] == 'c' && mem[0x1001] == 'c' &&
          mem[0x1002] == 0 && cx == 0 && di == TESTDEV_MEMORY + 0x1002,
          "pc-testdev port: REP INSB into the test memory across a page");
    *(volatile uint32_t *)(mem + TESTDEV_BYTES - 4) = 0x11223344u;
    mem[7] = 0x77;
    check(*(volatile uint32_t *)(mem + TESTDEV_BYTES - 4) == 0x11223344u && mem[7] == 0x77,
          "pc-testdev memory reads back what was written, first page to last");
}

/* ---- the ACPI PM timer ---- */

static uint32_t u32_at(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* The FADT through the RSDP's XSDT (its 64-bit entries lie below 4 GiB). */
static const uint8_t *find_fadt(const uint8_t *rsdp)
{
    const uint8_t *xsdt = (const uint8_t *)u32_at(rsdp + 24);
    for (uint32_t off = 36; off + 8 <= u32_at(xsdt + 4); off += 8) {
        const uint8_t *t = (const uint8_t *)u32_at(xsdt + off);
        if (t[0] == 'F' && t[1] == 'A' && t[2] == 'C' && t[3] == 'P' &&
            checksum_ok(t, u32_at(t + 4)))
            return t;
    }
    return NULL;
}

/* One read of the PM timer between two reads of the TSC: the timer's
 * sample was taken between them, whatever ran in between (the VM exit,
 * another domain's turn on the CPU). */
struct pm_sample {
    uint64_t before, after;
    uint32_t count;
};

static struct pm_sample pm_read(uint16_t port)
{
    struct pm_sample s;
    s.before = rdtsc();
    s.count = inl(port);
    s.after = rdtsc();
    return s;
}

/* The FADT's PM timer (PM_TMR_BLK at offset 76, PM_TMR_LEN at 91,
 * X_PM_TMR_BLK at 208, TMR_VAL_EXT in the flags at 112), then its rate
 * at 3,579,545 Hz of the TSC rate CPUID leaf 0x15 gives (crystal * EBX /
 * EAX): the ticks between two reads 2^24 TSC ticks apart lie between the
 * ticks of the shortest and of the longest TSC span the two samples can
 * be apart, within 2 ticks (each count is rounded down). Cross-multiplied:
 * no 64-bit division here. Then a byte read reads all ones and a write is
 * dropped. */
static void check_pm_timer(const uint8_t *rsdp)
{
    const uint8_t *f = rsdp ? find_fadt(rsdp) : NULL;
    uint16_t port = f ? (uint16_t)u32_at(f + 76) : 0;
    check(f && port && f[91] == 4 && f[208] == 1 && f[209] == 32 && u32_at(f + 212) == port &&
          (u32_at(f + 112) & (1u << 8)),
          "ACPI FADT names a 32-bit PM timer (PM_TMR_BLK, PM_TMR_LEN 4, X_PM_TMR_BLK)");
    if (!port)
        return;
    uint32_t r[4];
    cpuid(0x15, r);
    struct pm_sample s0 = pm_read(port);
    while (rdtsc() - s0.after < (1u << 24))
        ;
    struct pm_sample s1 = pm_read(port);
    uint32_t ticks = s1.count - s0.count;
    uint64_t hz = (uint64_t)r[2] * r[1];      /* times r[0] on the other side */
    uint64_t got = ticks * hz;
    uint64_t least = (s1.before - s0.after) * 3579545u * r[0];
    uint64_t most = (s1.after - s0.before) * 3579545u * r[0];
    puts("mbtest: PM timer at port ");
    put_hex(port);
    puts(": ");
    put_dec(ticks);
    puts(" ticks over ");
    put_dec((uint32_t)(s1.before - s0.after));
    puts(" to ");
    put_dec((uint32_t)(s1.after - s0.before));
    puts(" TSC ticks\n");
    check(r[0] && hz && got + 2 * hz >= least && got <= most + 2 * hz,
          "ACPI PM timer counts 3.579545 MHz of the TSC rate CPUID leaf 0x15 gives");
    uint8_t byte = inb(port);
    outl(port, 0);
    uint32_t p2 = inl(port);
    check(byte == 0xff && p2 - s1.count < 0x80000000u && p2 != 0,
          "ACPI PM timer: a byte read reads all ones, a write does not reset it");
}

/* ---- single-stepping over instructions that exit ---- */

struct idt_gate {
    uint16_t offset_low, selector;
    uint8_t zero, type;
    uint16_t offset_high;
} __attribute__((packed));

static struct idt_gate idt[TIMER_VECTOR + 1];
static volatile unsigned int steps, steps_wanted, timer_interrupts;
static volatile uint32_t step_eip[4], step_dr6[4];

static void set_gate(unsigned int vector, const char *handler, uint16_t cs)
{
    uint32_t a = (uint32_t)(uintptr_t)handler;
    idt[vector] = (struct idt_gate){ (uint16_t)a, cs, 0, 0x8e, (uint16_t)(a >> 16) };
}

/* #DB: the trap's EIP and DR6 (then DR6 reset, as a handler must); TF
 * cleared in the frame once the steps wanted are seen. frame: the eight
 * registers PUSHAL saved, then EIP, CS, EFLAGS. */
void mbtest_debug(uint32_t *frame)
{
    uint32_t dr6;
    __asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
    __asm__ volatile("mov %0, %%dr6" :: "r"(DR6_RESET));
    if (steps < 4) {
        step_eip[steps] = frame[8];
        step_dr6[steps] = dr6;
    }
    if (++steps >= steps_wanted)
        frame[10] &= ~EFLAGS_TF;
}

void mbtest_timer(void)
{
    timer_interrupts++;
    wrmsr(MSR_X2APIC_EOI, 0);
}

static bool stepped_to(unsigned int i, const char *eip)
{
    return step_eip[i] == (uint32_t)(uintptr_t)eip && (step_dr6[i] & DR6_BS);
}

/* The IDT: #DB (the single-step checks) and the APIC timer's vector. */
static void load_idt(void)
{
    uint16_t cs;
    struct { uint16_t limit; uint32_t base; } __attribute__((packed)) idtr = {
        sizeof(idt) - 1, (uint32_t)(uintptr_t)idt };
    __asm__ volatile("mov %%cs, %0" : "=r"(cs));
    set_gate(1, mbtest_debug_entry, cs);
    set_gate(TIMER_VECTOR, mbtest_timer_entry, cs);
    __asm__ volatile("lidt %0" :: "m"(idtr));
}

/* CPUID, then STI;HLT as kvm-unit-tests' debug test does, with the APIC
 * timer armed so that a HLT that waits for it still ends. */
static void check_single_step(void)
{
    load_idt();

    steps = 0;
    steps_wanted = 1;
    __asm__ volatile("pushf; orl %0, (%%esp); popf\n\t"
                     "cpuid\n"
                     "step_cpuid_after: nop"
                     :: "i"(EFLAGS_TF), "a"(0) : "ebx", "ecx", "edx", "memory");
    check(steps == 1 && stepped_to(0, step_cpuid_after),
          "single-step #DB after CPUID, at the next instruction");

    wrmsr(MSR_X2APIC_LVTT, TIMER_VECTOR);         /* one-shot */
    wrmsr(MSR_X2APIC_TDCR, 0xb);                  /* divide by 1 */
    wrmsr(MSR_X2APIC_TMICT, 1000000);
    steps = 0;
    steps_wanted = 2;
    __asm__ volatile("pushf; orl %0, (%%esp); popf\n\t"
                     "sti\n"
                     "step_hlt_at: hlt\n"
                     "step_hlt_after: cli"
                     :: "i"(EFLAGS_TF) : "memory");
    wrmsr(MSR_X2APIC_TMICT, 0);
    check(steps == 2 && stepped_to(0, step_hlt_at) && stepped_to(1, step_hlt_after),
          "single-step #DBs after STI and after HLT, each at the next instruction");
}

/* sleeps=N: N times a one-shot APIC timer of `ticks` and STI;HLT until it
 * fires. Each HLT puts the domain to sleep on its virtual timer and gives
 * its CPU to the other domains there (tests/e2e/multiboot.sh). */
static void sleep_on_timer(uint32_t sleeps, uint32_t ticks)
{
    load_idt();
    wrmsr(MSR_X2APIC_SVR, SVR_APIC_ENABLE | 0xff);
    wrmsr(MSR_X2APIC_LVTT, TIMER_VECTOR);         /* one-shot */
    wrmsr(MSR_X2APIC_TDCR, 0xb);                  /* divide by 1 */
    timer_interrupts = 0;
    for (uint32_t i = 0; i < sleeps; i++) {
        unsigned int before = timer_interrupts;
        wrmsr(MSR_X2APIC_TMICT, ticks);
        while (timer_interrupts == before)
            __asm__ volatile("sti; hlt; cli" ::: "memory");
    }
    check(timer_interrupts == sleeps, "slept on the APIC timer as many times as sleeps= asks");
}

/* ---- the checks ---- */

static void print_modules(const struct boot *b)
{
    for (unsigned int i = 0; i < b->module_count; i++) {
        const struct module *m = &b->modules[i];
        puts("mbtest: module ");
        put_dec(i);
        puts(": ");
        put_dec(m->end - m->start);
        puts(" bytes at ");
        put_hex(m->start);
        puts(", string '");
        put_line_of(m->string, 80);
        puts("', first line '");
        put_line_of((const char *)m->start, m->end - m->start < 80 ? m->end - m->start : 80);
        puts("'\n");
    }
}

void mbtest_main(uint32_t magic, uint32_t info)
{
    struct boot b = { 0 };
    uint32_t exit_code = 0, want_modules, single_step = 0, pm_timer = 0, testdev = 0;
    uint32_t sleeps = 0, sleep_ticks = 1000000;

    puts("mbtest: started\n");
    check(magic == MB1_BOOT_MAGIC || magic == MB2_BOOT_MAGIC, "booted with a multiboot magic");
    if (magic == MB2_BOOT_MAGIC)
        read_v2(&b, (const uint8_t *)info);
    else
        read_v1(&b, (const uint32_t *)info);
    puts(b.version == 2 ? "mbtest: multiboot2 information at " : "mbtest: multiboot information at ");
    put_hex(info);
    puts("\nmbtest: command line '");
    put_line_of(b.cmdline ? b.cmdline : "", 200);
    puts("'\n");
    check(b.loader && same(b.loader, "Vertigo"), "boot loader name Vertigo");
    check(b.mem_lower > 0 && b.mem_upper > 0, "basic memory sizes given");
    check(b.high_start <= 0x100000 && b.high_end >= (uint64_t)(uintptr_t)&b &&
          b.high_end == 0x100000 + (uint64_t)b.mem_upper * 1024,
          "memory map: RAM from 1 MiB to the top, as mem_upper says");
    print_modules(&b);
    if (word_value(b.cmdline, "modules", &want_modules))
        check(b.module_count == want_modules, "the modules the command line expects");
    check_devices(&b);
    if (word_value(b.cmdline, "pmtimer", &pm_timer) && pm_timer)
        check_pm_timer(find_rsdp());
    if (word_value(b.cmdline, "testdev", &testdev) && testdev)
        check_testdev();
    if (word_value(b.cmdline, "singlestep", &single_step) && single_step)
        check_single_step();
    word_value(b.cmdline, "sleep_ticks", &sleep_ticks);
    if (word_value(b.cmdline, "sleeps", &sleeps) && sleeps)
        sleep_on_timer(sleeps, sleep_ticks);
    word_value(b.cmdline, "exit", &exit_code);
    puts("mbtest: ");
    put_dec(passed);
    puts(" passed, ");
    put_dec(failed);
    puts(" failed\n");
    outl(TEST_EXIT_PORT, failed ? 1 : exit_code);
}
