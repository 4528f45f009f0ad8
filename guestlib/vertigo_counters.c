/* The guest counter library (see guestlib/vertigo_counters.h). */
#include "guestlib/vertigo_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/vertigo_thread_ctr.h"
#include "guestlib/vertigo_vmcall.h"
#include "pmu/backend/pmu_events.h"

/* The page keeps perf's layout, so perf's readers find its fields. */
#define SAME_OFFSET(f) \
    _Static_assert(offsetof(struct vertigo_thread_page, f) == \
                   offsetof(struct perf_event_mmap_page, f), "perf layout: " #f)
SAME_OFFSET(lock);
SAME_OFFSET(index);
SAME_OFFSET(offset);
SAME_OFFSET(time_enabled);
SAME_OFFSET(time_running);
SAME_OFFSET(capabilities);
SAME_OFFSET(pmc_width);
SAME_OFFSET(size);
SAME_OFFSET(time_mask);
_Static_assert(offsetof(struct vertigo_thread_page, magic) ==
               offsetof(struct perf_event_mmap_page, __reserved), "Vertigo's words: reserved area");

#define SET_MAGIC 0x56435472u       /* "rTCV": a live set */

/* A set: the head the inline read uses (vertigo_counters.h), then the
 * library's own fields. */
struct vertigo_counters {
    struct vertigo_counters_head head;  /* key, count, pages[] */
    uint32_t magic;
    int fd;                         /* -1 once closed */
    pthread_t owner;
    void *map;
    const volatile void *vcpus;     /* every CPU's page, by number (vertigo_vcpu_page) */
    uint32_t vcpu_count;                            /* 0: reads take an exit */
    bool by_syscall;                /* the module maps no pages for this thread (an
                                       unprivileged one, kmod/vertigo_perm.h): every
                                       read is a CTR_READ */
    char names[VERTIGO_PV_COUNTERS_MAX][PMU_EVENT_NAME_MAX];
};

/* ---- Checking a set and its caller --------------------------------------- */

static int check_set(const struct vertigo_counters *set)
{
    if (!set || set->magic != SET_MAGIC)
        return VERTIGO_CTR_EARG;
    if (set->fd < 0)
        return VERTIGO_CTR_ECLOSED;
    return pthread_equal(set->owner, pthread_self()) ? 0 : VERTIGO_CTR_ETHREAD;
}

/* ---- Opening ------------------------------------------------------------------- */

static int event_error(enum pmu_event_err e)
{
    switch (e) {
    case PMU_EVERR_NONE:            return 0;
    case PMU_EVERR_UNKNOWN_NAME:
    case PMU_EVERR_BAD_EXIT_REASON: return VERTIGO_CTR_EUNKNOWN;
    case PMU_EVERR_TOO_MANY:        return VERTIGO_CTR_ETOOMANY;
    default:                        return VERTIGO_CTR_EMODIFIER;
    }
}

/* The library's own check of the names, with the hypervisor's parser, so
 * a mistake gets its specific code before any system call. */
static int check_events(const char *events, struct vertigo_counters *set)
{
    struct pmu_event_caps caps;
    struct pmu_event_list list;
    if (!events[0])
        return VERTIGO_CTR_EEMPTY;
    if (strlen(events) >= VERTIGO_PV_EVENTS_MAX)
        return VERTIGO_CTR_ETOOMANY;
    pmu_event_caps_soft(&caps, true);
    int e = event_error(pmu_event_list_parse(events, &caps, &list, NULL));
    if (e)
        return e;
    if (list.count > VERTIGO_PV_COUNTERS_MAX)
        return VERTIGO_CTR_ETOOMANY;
    for (unsigned int i = 0; i < list.count; i++) {
        const struct pmu_event *ev = &list.events[i];
        if (ev->source != PMU_EVENT_HW || ev->hypervisor)
            return VERTIGO_CTR_EUNSUPPORTED;
        memcpy(set->names[i], ev->name, sizeof(set->names[i]));
    }
    set->head.count = list.count;
    return 0;
}

int vertigo_counters_check(const char *events, unsigned int *count)
{
    struct vertigo_counters scratch;
    if (!events)
        return VERTIGO_CTR_EARG;
    int e = check_events(events, &scratch);
    if (!e && count)
        *count = scratch.head.count;
    return e;
}

static int ioctl_error(int err)
{
    switch (err) {
    case ENOSYS:
    case ENOTTY: return VERTIGO_CTR_ENODEV;
    case EINVAL: return VERTIGO_CTR_EBACKEND;
    case EPERM:  return VERTIGO_CTR_ETHREAD;
    case EACCES: return VERTIGO_CTR_EPARANOID;
    default:     return VERTIGO_CTR_ESYS;
    }
}

/* The CPUs' pages of Vertigo's counts, for reads without an exit; a
 * module that offers none leaves every read to VERTIGO_HC_PV_READ. */
static void map_vcpu_pages(struct vertigo_counters *set)
{
    uint32_t n = set->head.pages[0]->vcpu_pages;
    void *map = n ? mmap(NULL, (size_t)n * VERTIGO_PV_PAGE_BYTES, PROT_READ, MAP_SHARED, set->fd,
                         (off_t)VERTIGO_THREAD_VCPU_PGOFF * VERTIGO_THREAD_PAGE)
                  : MAP_FAILED;
    if (map == MAP_FAILED)
        return;
    set->vcpus = map;
    set->vcpu_count = n;
}

static void unmap_pages(struct vertigo_counters *set)
{
    if (set->map)
        munmap(set->map, (size_t)set->head.count * VERTIGO_THREAD_PAGE);
    if (set->vcpus)
        munmap((void *)set->vcpus, (size_t)set->vcpu_count * VERTIGO_PV_PAGE_BYTES);
    set->map = NULL;
    set->vcpus = NULL;
    set->vcpu_count = 0;
}

static int open_device(struct vertigo_counters *set, const char *events)
{
    struct vertigo_ctr_open req = { .flags = 0 };
    set->fd = open(VERTIGO_DEV_PATH, O_RDWR | O_CLOEXEC);
    if (set->fd < 0)
        return errno == ENOENT || errno == EACCES || errno == ENXIO ? VERTIGO_CTR_ENODEV
                                                                  : VERTIGO_CTR_ESYS;
    strncpy(req.events, events, sizeof(req.events) - 1);
    if (ioctl(set->fd, VERTIGO_IOC_CTR_OPEN, &req) < 0)
        return ioctl_error(errno);
    if (req.count != set->head.count)
        return VERTIGO_CTR_EBACKEND;
    set->map = mmap(NULL, (size_t)set->head.count * VERTIGO_THREAD_PAGE, PROT_READ, MAP_SHARED,
                    set->fd, 0);
    if (set->map == MAP_FAILED) {
        set->map = NULL;
        set->by_syscall = errno == EACCES;
        return set->by_syscall ? 0 : VERTIGO_CTR_ESYS;
    }
    for (unsigned int i = 0; i < set->head.count; i++)
        set->head.pages[i] = (const void *)((const char *)set->map + i * VERTIGO_THREAD_PAGE);
    map_vcpu_pages(set);
    return 0;
}

int vertigo_counters_open(const char *events, struct vertigo_counters **out)
{
    if (!events || !out)
        return VERTIGO_CTR_EARG;
    *out = NULL;
    struct vertigo_counters *set = calloc(1, sizeof(*set));
    if (!set)
        return VERTIGO_CTR_ESYS;
    set->fd = -1;
    int e = check_events(events, set);
    if (!e && !vertigo_present())
        e = VERTIGO_CTR_ENOVERTIGO;
    if (!e)
        e = open_device(set, events);
    if (e) {
        int saved = errno;
        unmap_pages(set);
        if (set->fd >= 0)
            close(set->fd);
        free(set);
        errno = saved;
        return e;
    }
    set->magic = SET_MAGIC;
    set->owner = pthread_self();
    /* the inline read's check; a set read by system calls never passes it */
    set->head.key = set->by_syscall ? 0 : vertigo_counters_key();
    *out = set;
    return 0;
}

/* ---- Control ---------------------------------------------------------------- */

static int request(struct vertigo_counters *set, unsigned long cmd)
{
    int e = check_set(set);
    if (e)
        return e;
    return ioctl(set->fd, cmd) < 0 ? ioctl_error(errno) : 0;
}

int vertigo_counters_start(struct vertigo_counters *set)
{
    return request(set, VERTIGO_IOC_CTR_START);
}

int vertigo_counters_stop(struct vertigo_counters *set)
{
    return request(set, VERTIGO_IOC_CTR_STOP);
}

int vertigo_counters_reset(struct vertigo_counters *set)
{
    return request(set, VERTIGO_IOC_CTR_RESET);
}

/* ---- i-mode ------------------------------------------------------------------- */

_Static_assert(VERTIGO_CTR_PERIOD_MIN == VERTIGO_THREAD_PERIOD_MIN &&
               VERTIGO_CTR_PERIOD_MAX == VERTIGO_THREAD_PERIOD_MAX, "the module's bounds");

static bool signal_ok(int signo)
{
    return signo >= 1 && signo <= 64 && signo != SIGKILL && signo != SIGSTOP;
}

int vertigo_counters_overflow_check(uint64_t period, int signo)
{
    if (!vertigo_thread_period_ok(period))
        return VERTIGO_CTR_EPERIOD;
    return period && !signal_ok(signo) ? VERTIGO_CTR_ESIGNAL : 0;
}

int vertigo_counters_overflow(struct vertigo_counters *set, unsigned int i, uint64_t period,
                              int signo)
{
    int e = check_set(set);
    if (e)
        return e;
    if (i >= set->head.count)
        return VERTIGO_CTR_EINDEX;
    e = vertigo_counters_overflow_check(period, signo);
    if (e)
        return e;
    struct vertigo_ctr_period req = { .index = i, .signo = signo, .period = period };
    if (ioctl(set->fd, VERTIGO_IOC_CTR_PERIOD, &req) == 0)
        return 0;
    return errno == ENOSYS ? VERTIGO_CTR_ENOOVERFLOW : ioctl_error(errno);
}

/* ---- Reading ------------------------------------------------------------------ */

/* Counter i through the module (a set without pages). */
static int read_by_syscall(const struct vertigo_counters *set, unsigned int i, uint64_t *value)
{
    struct vertigo_ctr_values v;
    if (ioctl(set->fd, VERTIGO_IOC_CTR_READ, &v) < 0)
        return ioctl_error(errno);
    *value = v.values[i];
    return 0;
}

/* A read's state: its set, and where the VCPU's count goes (may be NULL). */
struct read_ctx {
    const struct vertigo_counters *set;
    uint64_t *vcpu;
};

/* The TSC after every earlier load, and the calling VCPU's count of
 * paravirtual counter k by one exit: the inline read's own. */
static uint64_t tsc_now(void)
{
    return vertigo_counters_rdtsc();
}

static uint64_t rdpmc_now(uint32_t ecx)
{
    return vertigo_counters_rdpmc(ecx);
}

static int64_t exit_read(uint32_t k)
{
    return vertigo_counters_exit_read(k);
}

/* VCPU vcpu's count of paravirtual counter k, for user mode: from its
 * page where that needs no exit, else by VERTIGO_HC_PV_READ. */
static int64_t read_vcpu(void *arg, uint32_t vcpu, uint32_t k)
{
    const struct read_ctx *ctx = arg;
    uint64_t n;
    int64_t r;
    if (vcpu < ctx->set->vcpu_count &&
        vertigo_pv_count_now(vertigo_vcpu_page(ctx->set->vcpus, vcpu), k, VERTIGO_PV_USER,
                             tsc_now, &n))
        r = (int64_t)n;
    else
        r = exit_read(k);
    if (ctx->vcpu)
        *ctx->vcpu = (uint64_t)r;
    return r;
}

int vertigo_counters_read_pair(const struct vertigo_counters *set, unsigned int i,
                               uint64_t *value, uint64_t *vcpu)
{
    int e = check_set(set);
    if (e)
        return e;
    if (!value)
        return VERTIGO_CTR_EARG;
    if (i >= set->head.count)
        return VERTIGO_CTR_EINDEX;
    struct read_ctx ctx = { set, vcpu };
    if (vcpu)
        *vcpu = 0;
    if (set->by_syscall)
        return read_by_syscall(set, i, value);
    return vertigo_thread_page_read(set->head.pages[i], read_vcpu, &ctx, value, NULL) < 0
               ? VERTIGO_CTR_EBACKEND : 0;
}

/* The read every check made (vertigo_counters_read, inline in the
 * caller, comes here with anything unusual): attempts that a thread
 * switch or an exit interrupted are made again (the next one sees the new
 * pages); pages the thread did not map and a failed exit go the general
 * way. */
int vertigo_counters_read_checked(const struct vertigo_counters *set, unsigned int i,
                                  uint64_t *value)
{
    int r = 0;
    if (!check_set(set) && i < set->head.count && value && !set->by_syscall)
        while (!(r = vertigo_thread_try_read(set->head.pages[i], i, tsc_now, rdpmc_now, exit_read,
                                                 value)))
            ;
    return r > 0 ? 0 : vertigo_counters_read_pair(set, i, value, NULL);
}

/* vertigo_counters_read as library 1.0 exported it, for programs built
 * with that header (they call it out of line). In C the name is the
 * header's inline read, so this function takes it in the symbol table
 * only; nothing in this file calls the inline one. */
int vertigo_counters_read_v1(const struct vertigo_counters *set, unsigned int i, uint64_t *value)
    __asm__("vertigo_counters_read");
int vertigo_counters_read_v1(const struct vertigo_counters *set, unsigned int i, uint64_t *value)
{
    return vertigo_counters_read_checked(set, i, value);
}

int vertigo_counters_tsc(const struct vertigo_counters *set, uint64_t *ticks)
{
    int e = check_set(set);
    if (e)
        return e;
    if (!ticks)
        return VERTIGO_CTR_EARG;
    if (set->by_syscall)            /* the ticks are on the page it may not map */
        return VERTIGO_CTR_EUNSUPPORTED;
    *ticks = vertigo_thread_ticks(set->head.pages[0], tsc_now);
    return 0;
}

int vertigo_counters_read_all(const struct vertigo_counters *set, uint64_t *values)
{
    int e = check_set(set);
    for (unsigned int i = 0; !e && i < set->head.count; i++)
        e = vertigo_counters_read_checked(set, i, values ? &values[i] : NULL);
    return e;
}

int vertigo_counters_read_syscall(const struct vertigo_counters *set, uint64_t *values)
{
    struct vertigo_ctr_values v;
    int e = check_set(set);
    if (e)
        return e;
    if (!values)
        return VERTIGO_CTR_EARG;
    if (ioctl(set->fd, VERTIGO_IOC_CTR_READ, &v) < 0)
        return ioctl_error(errno);
    memcpy(values, v.values, set->head.count * sizeof(values[0]));
    return 0;
}

unsigned int vertigo_counters_count(const struct vertigo_counters *set)
{
    return set && set->magic == SET_MAGIC ? set->head.count : 0;
}

const char *vertigo_counters_name(const struct vertigo_counters *set, unsigned int i)
{
    return i < vertigo_counters_count(set) ? set->names[i] : NULL;
}

/* ---- The events there are ---------------------------------------------------- */

/* perf's names of the architectural hardware events; the library's parser
 * (the hypervisor's) decides which of them a set can count here. */
static const char *const candidates[] = {
    "instructions", "cycles", "ref-cycles", "cache-references", "cache-misses",
    "branches", "branch-misses",
};

const char *vertigo_counters_event(unsigned int i)
{
    for (size_t k = 0; k < sizeof(candidates) / sizeof(candidates[0]); k++) {
        char user[PMU_EVENT_NAME_MAX];
        snprintf(user, sizeof(user), "%s:u", candidates[k]);
        if (vertigo_counters_check(user, NULL) == 0 && i-- == 0)
            return candidates[k];
    }
    return NULL;
}

/* ---- Closing ------------------------------------------------------------------ */

int vertigo_counters_close(struct vertigo_counters *set)
{
    int e = check_set(set);
    if (e)
        return e;
    unmap_pages(set);
    close(set->fd);
    set->fd = -1;
    set->head.key = 0;              /* reads take the checked way: ECLOSED */
    return 0;
}

void vertigo_counters_free(struct vertigo_counters *set)
{
    if (!set || set->magic != SET_MAGIC)
        return;
    if (set->fd >= 0 && pthread_equal(set->owner, pthread_self()))
        vertigo_counters_close(set);
    else if (set->fd >= 0)
        close(set->fd);                 /* the module frees it when its thread exits */
    set->magic = 0;
    set->head.key = 0;
    free(set);
}

static const char *const error_texts[] = {
    [0] = "success",
    [-VERTIGO_CTR_EARG] = "invalid argument (a NULL pointer, or not a counter set)",
    [-VERTIGO_CTR_EUNKNOWN] = "unknown event name",
    [-VERTIGO_CTR_EMODIFIER] = "bad event modifier or unavailable event",
    [-VERTIGO_CTR_ETOOMANY] = "more events than per-thread counters",
    [-VERTIGO_CTR_EUNSUPPORTED] = "event not countable per thread (software events, :h)",
    [-VERTIGO_CTR_ENOVERTIGO] = "not running under Vertigo",
    [-VERTIGO_CTR_ENODEV] = "no per-thread counters (vertigo.ko not loaded, or not offered "
                            "by this Vertigo)",
    [-VERTIGO_CTR_ECLOSED] = "counter set is closed",
    [-VERTIGO_CTR_ETHREAD] = "counter set belongs to another thread",
    [-VERTIGO_CTR_EINDEX] = "counter index out of range",
    [-VERTIGO_CTR_EBACKEND] = "Vertigo refused the events or the read",
    [-VERTIGO_CTR_ESYS] = "system call failed",
    [-VERTIGO_CTR_EEMPTY] = "empty event list",
    [-VERTIGO_CTR_EPERIOD] = "overflow period out of range (1000 to 2^48 events, 0: off)",
    [-VERTIGO_CTR_ESIGNAL] = "bad overflow signal (1 to 64, not SIGKILL or SIGSTOP)",
    [-VERTIGO_CTR_ENOOVERFLOW] = "no overflow signals (not offered by this Vertigo or "
                                 "vertigo.ko)",
    [-VERTIGO_CTR_EPARANOID] = "not allowed by kernel.perf_event_paranoid (2: user-mode "
                               "events only; 3: none) without CAP_PERFMON",
};

const char *vertigo_counters_strerror(int err)
{
    unsigned int n = (unsigned int)-err;
    if (err > 0 || n >= sizeof(error_texts) / sizeof(error_texts[0]))
        return "unknown error code";
    return error_texts[n];
}
