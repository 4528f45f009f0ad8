/* The guest library's out-of-line half (API and contracts in
 * guestlib/vertigo_guest.h): Vertigo detection from CPUID, the named
 * hypercalls that no measured window contains, error texts, session
 * requests and the /dev/vertigo ioctls. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"

int vertigo_detect(struct vertigo_info *info)
{
    memset(info, 0, sizeof(*info));
    if (!vertigo_present())
        return 0;
    info->max_leaf = vertigo_cpuid(VERTIGO_CPUID_BASE).eax;
    if (info->max_leaf >= VERTIGO_CPUID_FEATURES) {
        struct vertigo_cpuid_regs r = vertigo_cpuid(VERTIGO_CPUID_FEATURES);
        info->version = r.eax;
        info->features = r.ebx;
    }
    return 1;
}

int vertigo_has_features(uint32_t features)
{
    struct vertigo_info info;
    return vertigo_detect(&info) && (info.features & features) == features;
}

const char *vertigo_strerror(int64_t result)
{
    if (result >= 0)
        return "success";
    switch (result) {
    case -VERTIGO_ENOSYS: return "unknown hypercall";
    case -VERTIGO_EINVAL: return "invalid argument";
    case -VERTIGO_EPERM: return "not permitted from this privilege level";
    case -VERTIGO_EFAULT: return "bad guest address";
    case -VERTIGO_EBUSY: return "a session already runs";
    case -VERTIGO_EACCES: return "guest address on a supervisor-only page, caller in user mode";
    case -VERTIGO_EMMIO: return "guest address is device memory (MMIO), not RAM";
    case -VERTIGO_ENOMEM: return "Vertigo has no memory left for it";
    case -VERTIGO_E2BIG: return "more events than the call takes";
    case -VERTIGO_ERANGE: return "a length or count out of its range";
    default: return "unknown error";
    }
}

int64_t vertigo_version(void)
{
    return vertigo_hypercall0(VERTIGO_HC_VERSION);
}

int64_t vertigo_set_verdict(uint32_t failed, const char *reason)
{
    return vertigo_hypercall2(VERTIGO_HC_SET_VERDICT, failed, (uint64_t)(uintptr_t)reason);
}

int64_t vertigo_pmu_event_count(void)
{
    return vertigo_pmu_read(VERTIGO_PMU_EVENT_COUNT);
}

int64_t vertigo_pmu_set_step(uint64_t tsc_ticks)
{
    return vertigo_hypercall1(VERTIGO_HC_PMU_STEP, tsc_ticks);
}

struct vertigo_session vertigo_session_new(void)
{
    return (struct vertigo_session){ .abi_version = VERTIGO_SESSION_ABI };
}

struct vertigo_session vertigo_session_timer(uint32_t timer_hz, uint32_t stack_depth)
{
    struct vertigo_session s = vertigo_session_new();
    s.flags = VERTIGO_SESSION_TIMER;
    s.timer_hz = timer_hz;
    s.stack_depth = stack_depth;
    return s;
}

int vertigo_dev_open(void)
{
    int fd = open(VERTIGO_DEV_PATH, O_RDWR | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

/* One ioctl on /dev/vertigo: 0 or -errno. */
static int dev_request(int fd, unsigned long request, const void *arg)
{
    return ioctl(fd, request, arg) == 0 ? 0 : -errno;
}

int vertigo_dev_session_start(int fd, const struct vertigo_session *s)
{
    return dev_request(fd, VERTIGO_IOC_START, s);
}

int vertigo_dev_session_stop(int fd, uint64_t *samples)
{
    return dev_request(fd, VERTIGO_IOC_STOP, samples);
}

int vertigo_dev_mux_start(int fd, const struct vertigo_mux *m)
{
    return dev_request(fd, VERTIGO_IOC_MUX_START, m);
}

int vertigo_dev_mux_stop(int fd, uint64_t *rows)
{
    return dev_request(fd, VERTIGO_IOC_MUX_STOP, rows);
}

int vertigo_dev_symbols(int fd, const struct vertigo_symbols_chunk *chunk)
{
    return dev_request(fd, VERTIGO_IOC_SYMBOLS, chunk);
}

int vertigo_dev_process(int fd, struct vertigo_process_query *q)
{
    return dev_request(fd, VERTIGO_IOC_PROCESS, q);
}

int vertigo_dev_process_list(int fd, struct vertigo_process_list *l)
{
    return dev_request(fd, VERTIGO_IOC_LIST, l);
}

int vertigo_dev_kernel_orc(int fd, const struct vertigo_kernel_orc *orc)
{
    return dev_request(fd, VERTIGO_IOC_KERNEL_ORC, orc);
}
