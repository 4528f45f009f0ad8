/* The hypervisor's profiling log (vmm/log/log_hv.h): rings in .bss (part of
 * Vertigo's image, so never mapped into a guest), the stream header, and
 * one drain that stages a block at a time and feeds it to the device.
 *
 * Drain state (the staged bytes, the round-robin position) is shared by
 * every CPU and guarded by drain_lock, which is only ever tried: a poll
 * that finds it taken simply returns, so no CPU ever waits for the log on
 * the VM-exit path.
 *
 * Polls batch: once the rings are empty the drain rests for
 * 1/LOG_HV_DRAIN_HZ s of TSC time, or until the polling CPU's ring holds
 * LOG_HV_BATCH_BYTES, so a block carries many records and its header,
 * checksums and ring scan are paid once for them, not once per sample. */
#include "vmm/log/log_hv.h"

#include "lib/cpu.h"
#include "boot/run_end.h"
#include "lib/smp.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "vmm/log/log_emit.h"
#include "vmm/domain/domain_config.h"
#include "vmm/log/log_encode.h"
#include "vmm/log/log_quota.h"
#include "vmm/log/log_varint.h"
#include "lib/mem.h"
#include "lib/spinlock.h"
#include "vmm/version.h"
#include "vmm/log/virtio_console.h"

#define LOG_HV_BLOCK_BYTES 4096u        /* one staged block, >= LOG_RING_READ_MIN */
#define FLUSH_SPIN_LIMIT   100000000u   /* give up waiting for another CPU's drain */
#define LOG_OPTION_MAX     32u
#define LOG_HV_DRAIN_HZ    10u          /* rested drains per second of TSC time */
#define LOG_HV_BATCH_BYTES 2048u        /* ring bytes that end a rest early */

/* Record types this build of the hypervisor emits (stream header). PMU
 * features add theirs here. */
#define LOG_HV_RECORD_TYPES ((1u << LOG_REC_CONSOLE) | (1u << LOG_REC_SAMPLE) | (1u << LOG_REC_INTERVAL) | \
                             (1u << LOG_REC_SWCOUNTERS) | \
                             (1u << LOG_REC_LIFECYCLE) | (1u << LOG_REC_SYMBOLS) | \
                             (1u << LOG_REC_CONFIG) | (1u << LOG_REC_LOSS) | \
                             (1u << LOG_REC_PMU_TOTALS) | (1u << LOG_REC_EVENT_DESC) | \
                             (1u << LOG_REC_EVENT_PERIOD) | (1u << LOG_REC_USER_STACK) | \
                             (1u << LOG_REC_GUEST_PMU_PROG) | (1u << LOG_REC_GUEST_PMI) | \
                             (1u << LOG_REC_VCPU_STATS) | (1u << LOG_REC_INTERVAL_EVENTS))

_Static_assert(LOG_HV_BLOCK_BYTES >= LOG_RING_READ_MIN, "staging holds a block");
_Static_assert(LOG_HV_BLOCK_BYTES >= LOG_STREAM_HEADER_SIZE, "staging holds the header");
_Static_assert(MAX_CPUS <= LOG_MAX_CPUS, "CPU numbers fit the block header");
_Static_assert(LOG_HV_BATCH_BYTES <= LOG_HV_RING_BYTES / 4, "a batch leaves room to spare");

static struct log_drain drain = { LOG_DRAIN_NONE, 0 };
static bool active;
static uint64_t tsc_hz;                 /* 0 until log_hv_set_tsc_hz */
static struct log_pmu_desc header_pmu;  /* zero (backend none) until log_hv_set_pmu */
static struct log_ring rings[MAX_CPUS];
static uint8_t ring_storage[MAX_CPUS][LOG_HV_RING_BYTES] __attribute__((aligned(4096)));

/* Drain side, guarded by drain_lock. A CPU marks itself in drain_inside
 * before it tries the lock and clears the mark once it has released it
 * (or failed to take it), so a flush from an NMI or exception on a CPU
 * that is inside a drain sees the mark and does not wait for itself. */
static struct spinlock drain_lock = SPINLOCK_INIT;
static bool drain_inside[MAX_CPUS];     /* written by its own CPU only */
static bool header_sent;
static uint8_t staged[LOG_HV_BLOCK_BYTES];
static size_t staged_len, staged_pos;
static unsigned int next_ring;
static uint64_t rest_until_tsc;     /* written by the drain owner only */

void log_hv_set_tsc_hz(uint64_t hz)
{
    __atomic_store_n(&tsc_hz, hz, __ATOMIC_RELAXED);
}

void log_hv_set_pmu(const struct log_pmu_desc *pmu)
{
    header_pmu = *pmu;
}

bool log_hv_active(void)
{
    return active;
}

struct log_drain log_hv_drain(void)
{
    return drain;
}

struct log_ring *log_hv_ring(void)
{
    unsigned int cpu = smp_cpu_index();
    return active && cpu < MAX_CPUS ? &rings[cpu] : NULL;
}

/* ---- Producers ------------------------------------------------------- */

void log_hv_console(const char *text, size_t len)
{
    log_hv_domain_console(LOG_CONSOLE_HYPERVISOR, text, len);
}

/* Each domain's share of each CPU's ring for what its guest asks to log
 * (vmm/log/log_quota.h); touched on the owning CPU only. */
static struct log_quota quotas[MAX_CPUS][DOMAIN_MAX];
#define GUEST_RECORD_OVERHEAD 64u   /* entry header and fields around the text, at most */

static struct log_quota *quota_of(uint32_t domain)
{
    return &quotas[smp_cpu_index() % MAX_CPUS][domain % DOMAIN_MAX];
}

void log_hv_domain_console(uint32_t source, const char *text, size_t len)
{
    struct log_ring *ring = log_hv_ring();
    bool guest = source != LOG_CONSOLE_HYPERVISOR;
    if (!ring || !len)
        return;
    struct log_console c = {
        .source = source,
        .text = text,
        .len = (uint32_t)(len > LOG_TEXT_MAX ? LOG_TEXT_MAX : len),
    };
    if (guest && !log_quota_admit(quota_of(source), ring, c.len + GUEST_RECORD_OVERHEAD))
        return;
    uint64_t before = ring->head;
    log_emit_console(ring, rdtsc(), &c);
    if (guest)
        log_quota_charge(quota_of(source), before, ring->head);
}

bool log_hv_domain_symbols(const struct log_symbols *rec)
{
    struct log_ring *ring = log_hv_ring();
    if (!ring || !log_quota_admit(quota_of(rec->domain), ring,
                                  rec->len + GUEST_RECORD_OVERHEAD))
        return false;
    uint64_t before = ring->head;
    bool ok = log_emit_symbols(ring, rdtsc(), rec);
    log_quota_charge(quota_of(rec->domain), before, ring->head);
    return ok;
}

uint64_t log_hv_domain_refused(uint32_t domain)
{
    uint64_t n = 0;
    for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
        n += __atomic_load_n(&quotas[cpu][domain % DOMAIN_MAX].refused, __ATOMIC_RELAXED);
    return n;
}

void log_hv_lifecycle(uint32_t domain, uint32_t vcpu, enum log_lifecycle_event event,
                      uint64_t arg)
{
    struct log_ring *ring = log_hv_ring();
    if (!ring)
        return;
    struct log_lifecycle lc = { .domain = domain, .vcpu = vcpu, .event = (uint8_t)event,
                                .arg = arg };
    log_emit_lifecycle(ring, rdtsc(), &lc);
}

void log_hv_event_desc(const struct log_event_desc *ed)
{
    struct log_ring *ring = log_hv_ring();
    if (ring)
        log_emit_event_desc(ring, rdtsc(), ed);
}

void log_hv_event_period(const struct log_event_period *ep)
{
    struct log_ring *ring = log_hv_ring();
    if (ring)
        log_emit_event_period(ring, rdtsc(), ep);
}

void log_hv_pmu_totals(const struct log_pmu_totals *pt)
{
    struct log_ring *ring = log_hv_ring();
    if (ring)
        log_emit_pmu_totals(ring, rdtsc(), pt);
}

void log_hv_interval(const struct log_interval *iv)
{
    struct log_ring *ring = log_hv_ring();
    if (ring)
        log_emit_interval(ring, rdtsc(), iv);
}

void log_hv_vcpu_stats(const struct log_vcpu_stats *vs)
{
    struct log_ring *ring = log_hv_ring();
    if (ring)
        log_emit_vcpu_stats(ring, rdtsc(), vs);
}

void log_hv_interval_events(const struct log_interval_events *ie)
{
    struct log_ring *ring = log_hv_ring();
    if (ring)
        log_emit_interval_events(ring, rdtsc(), ie);
}

void log_hv_swcounters(const struct log_swcounters *sw)
{
    struct log_ring *ring = log_hv_ring();
    if (ring)
        log_emit_swcounters(ring, rdtsc(), sw);
}

void log_hv_vcpu_online(uint32_t domain, uint32_t vcpu, uint32_t cpu, uint32_t vcpu_count)
{
    if (vcpu == 0) {
        log_hv_lifecycle(domain, vcpu, LOG_LC_DOMAIN_CREATE, vcpu_count);
        log_hv_lifecycle(domain, vcpu, LOG_LC_DOMAIN_START, 0);
    }
    log_hv_lifecycle(domain, vcpu, LOG_LC_VCPU_ONLINE, cpu);
}

static void emit_config(const char *cmdline)
{
    size_t len = strnlen(cmdline, LOG_TEXT_MAX);
    struct log_config cfg = { .text = cmdline, .len = (uint32_t)len };
    if (len)
        log_emit_config(log_hv_ring(), rdtsc(), &cfg);
}

/* ---- Set-up ---------------------------------------------------------- */

static bool choose_drain(const char *cmdline)
{
    char value[LOG_OPTION_MAX];

    if (!cmdline_get(cmdline, "log", value, sizeof(value)))
        return false;                       /* default: no log */
    if (!log_drain_parse(value, &drain)) {
        printk("log: warning: bad option log=%s (e9, serial[,PORT], virtio, none); no log\n",
               value);
        return false;
    }
    if (drain.kind == LOG_DRAIN_NONE)
        return false;
    if (!log_drain_open(&drain)) {
        if (drain.kind == LOG_DRAIN_SERIAL)
            printk("log: warning: no UART at port %#x; no log\n", drain.port);
        else
            printk("log: warning: log=%s: %s; no log\n", log_drain_name(drain.kind),
                   log_drain_open_error(&drain));
        return false;
    }
    return true;
}

static void print_drain(void)
{
    struct virtio_console_hw hw;

    if (drain.kind == LOG_DRAIN_VIRTIO && virtio_console_device(&hw))
        printk("log: binary log on virtio (PCI %02x:%02x.%x, I/O %#x+%#x, tx queue %u), "
               "%u KiB ring per CPU\n", hw.bdf.bus, hw.bdf.device, hw.bdf.function,
               hw.io_base, hw.io_size, hw.queue_size, LOG_HV_RING_BYTES >> 10);
    else
        printk("log: binary log on %s (port %#x), %u KiB ring per CPU\n",
               log_drain_name(drain.kind), drain.port, LOG_HV_RING_BYTES >> 10);
}

/* BMI2 (PDEP) for the log's wide varint writer: CPUID.(EAX=7,ECX=0):EBX[8]
 * (SDM Vol. 2A, CPUID, "Structured Extended Feature Flags"). */
#define CPUID_LEAF_EXTENDED_FEATURES 7u
#define CPUID_7_EBX_BMI2             (1u << 8)

static bool cpu_has_bmi2(void)
{
    return cpuid(0, 0).eax >= CPUID_LEAF_EXTENDED_FEATURES &&
           (cpuid(CPUID_LEAF_EXTENDED_FEATURES, 0).ebx & CPUID_7_EBX_BMI2);
}

void log_hv_init(const char *cmdline)
{
    log_varint_pdep = cpu_has_bmi2();
    if (!choose_drain(cmdline)) {
        drain = (struct log_drain){ LOG_DRAIN_NONE, 0 };
        return;
    }
    for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
        log_ring_init(&rings[cpu], (uint16_t)cpu, ring_storage[cpu], LOG_HV_RING_BYTES);
    con_release_port(drain.port);
    active = true;
    con_set_record_sink(log_hv_console);
    run_end_add_flush(log_hv_flush);
    print_drain();
    emit_config(cmdline);
}

/* ---- Stream header ----------------------------------------------------- */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The GNU build-id note ld put at __build_id_note (linker.ld): 4-byte
 * name and descriptor sizes and type, "GNU\0", then the 20-byte SHA-1 of
 * the image, which `vertigo report` compares with --vertigo-elf's. */
struct build_id_note {
    uint32_t namesz, descsz, type;
    char name[4];
    uint8_t desc[LOG_BUILD_ID_SIZE];
};
#define NT_GNU_BUILD_ID 3u
extern const struct build_id_note __build_id_note;

static bool note_build_id(uint8_t out[LOG_BUILD_ID_SIZE])
{
    const struct build_id_note *n = &__build_id_note;
    if (n->namesz != sizeof(n->name) || n->descsz != LOG_BUILD_ID_SIZE ||
        n->type != NT_GNU_BUILD_ID || memcmp(n->name, "GNU", sizeof(n->name)))
        return false;
    memcpy(out, n->desc, LOG_BUILD_ID_SIZE);
    return true;
}

/* The build id: the image's GNU build id, else (a link without one) the
 * git revision's leading hex digits, packed two per byte. */
static void pack_build_id(uint8_t out[LOG_BUILD_ID_SIZE])
{
    memset(out, 0, LOG_BUILD_ID_SIZE);
    if (note_build_id(out))
        return;
    for (unsigned int i = 0; i < 2 * LOG_BUILD_ID_SIZE; i++) {
        int v = hex_value(vertigo_build_id[i]);
        if (v < 0)
            break;
        out[i / 2] |= (uint8_t)(i % 2 ? v : v << 4);
    }
}

/* Built when first sent, so the TSC rate and the PMU description set
 * after log_hv_init are in it. */
static void stage_stream_header(void)
{
    struct log_stream_info info = {
        .cpu_count = smp_cpus_online(),
        .tsc_hz = __atomic_load_n(&tsc_hz, __ATOMIC_RELAXED),
        .pmu = header_pmu,
        .record_types = LOG_HV_RECORD_TYPES,
    };
    pack_build_id(info.build_id);
    log_encode_stream_header(staged, &info);
    staged_len = LOG_STREAM_HEADER_SIZE;
    staged_pos = 0;
    header_sent = true;
}

/* ---- Drain --------------------------------------------------------------- */

static void drain_mark(bool inside)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&drain_inside[smp_cpu_index()], inside, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static bool drain_trylock(void)
{
    drain_mark(true);
    if (spin_trylock(&drain_lock))
        return true;
    drain_mark(false);
    return false;
}

static void drain_unlock(void)
{
    spin_unlock(&drain_lock);
    drain_mark(false);
}

/* Stages the next thing to send: the header, then one block of the next
 * ring among the first `cpus` (round robin) that has records or loss to
 * report. Work bounded by LOG_HV_BLOCK_BYTES. Returns false when everything
 * is sent. */
static bool stage_next(unsigned int cpus)
{
    if (!header_sent) {
        stage_stream_header();
        return true;
    }
    for (unsigned int i = 0; i < cpus; i++) {
        unsigned int cpu = (next_ring + i) % cpus;
        if (!log_ring_pending(&rings[cpu]))
            continue;
        size_t len = log_ring_read(&rings[cpu], staged, sizeof(staged));
        if (!len)
            continue;
        staged_len = len;
        staged_pos = 0;
        next_ring = (cpu + 1) % MAX_CPUS;
        return true;
    }
    return false;
}

/* Sends up to budget bytes of the first `cpus` rings; waits for the device
 * only if wait is set. Returns true when everything is sent. */
static bool drain_bytes(size_t budget, bool wait, unsigned int cpus)
{
    while (budget) {
        if (staged_pos == staged_len && !stage_next(cpus))
            return true;
        size_t n = staged_len - staged_pos;
        if (n > budget)
            n = budget;
        if (wait)
            log_drain_write_all(&drain, staged + staged_pos, n);
        else
            n = log_drain_write_some(&drain, staged + staged_pos, n);
        if (!n)
            return false;   /* device busy: try again at the next poll */
        staged_pos += n;
        budget -= n;
    }
    return false;
}

/* A poll drains once the rest is over (an unknown TSC rate means no
 * rest) or when this CPU's ring fills up; otherwise it costs a
 * comparison with the caller's TSC reading and a look at one ring. */
static bool drain_due(uint64_t now_tsc)
{
    if (now_tsc >= __atomic_load_n(&rest_until_tsc, __ATOMIC_RELAXED))
        return true;
    struct log_ring *own = log_hv_ring();
    return own && LOG_HV_RING_BYTES - log_ring_free(own) >= LOG_HV_BATCH_BYTES;
}

void log_hv_poll(uint64_t now_tsc)
{
    if (!active || !drain_due(now_tsc) || !drain_trylock())
        return;
    /* Polls scan the rings of the CPUs online (numbered from 0); the final
     * flush scans every ring. */
    if (drain_bytes(LOG_HV_POLL_BYTES, false, smp_cpus_online()))
        __atomic_store_n(&rest_until_tsc, rdtsc() + __atomic_load_n(&tsc_hz, __ATOMIC_RELAXED) / LOG_HV_DRAIN_HZ,
                         __ATOMIC_RELAXED);
    drain_unlock();
}

void log_hv_flush(void)
{
    if (!active || __atomic_load_n(&drain_inside[smp_cpu_index()], __ATOMIC_RELAXED))
        return;     /* re-entered inside a drain: its block is half sent */
    for (uint32_t spin = 0; !drain_trylock(); spin++) {
        if (spin == FLUSH_SPIN_LIMIT)
            return;
        cpu_relax();
    }
    drain_bytes(SIZE_MAX, true, MAX_CPUS);
    drain_unlock();
}
