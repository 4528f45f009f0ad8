/* perf_event_open(2) of one hardware event for the calling thread, as the
 * guest test programs open theirs (tests/guest/vpmu_perf.c, vpmu_cost.c):
 * disabled until PERF_EVENT_IOC_ENABLE, the hypervisor excluded, user mode
 * only (user != 0) or kernel mode only, sampling every `period` events
 * (0: counting) with a wake-up per sample. Returns the fd, or -1 (errno). */
#ifndef TESTS_GUEST_PERF_EVENT_OPEN_H
#define TESTS_GUEST_PERF_EVENT_OPEN_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int perf_open_hw(uint64_t config, int user, uint64_t period)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.disabled = 1;
    a.exclude_kernel = user != 0;
    a.exclude_user = user == 0;
    a.exclude_hv = 1;
    a.sample_period = period;
    a.wakeup_events = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

#endif
