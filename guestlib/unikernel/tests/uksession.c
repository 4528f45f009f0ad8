/* ukfault's session modes (see uksession.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "guestlib/unikernel/uk_abi.h"
#include "guestlib/unikernel/vertigo_uk.h"
#include "guestlib/unikernel/tests/uksession.h"

#define OWNER_HOLD_NS 500000000ll
#define RIVAL_WAIT_NS 10000000000ll

static int64_t kernel_call(uint64_t nr, uint64_t a)
{
    return vertigo_uk_syscall(UK_SYS_HYPERCALL, nr, a, 0);
}

static int64_t elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000000000ll + (t.tv_nsec - t0->tv_nsec);
}

void uksession_fill(struct vertigo_session *s, uint64_t period)
{
    memset(s, 0, sizeof(*s));
    s->abi_version = VERTIGO_SESSION_ABI;
    s->period = period;
    strcpy(s->events, "instructions:uk");
}

static int64_t start_session(void)
{
    static struct vertigo_session s;
    uksession_fill(&s, 100000);
    return kernel_call(VERTIGO_HC_SESSION_START, (uint64_t)&s);
}

int uksession_owner(void)
{
    int64_t started = start_session();
    printf("ukfault: owner: session started (%lld)\n", (long long)started);
    fflush(stdout);
    if (started != 0)
        return 1;
    struct timespec t0;
    volatile uint64_t sum = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (elapsed_ns(&t0) < OWNER_HOLD_NS)
        for (unsigned int i = 0; i < 10000; i++)
            sum += i;
    int64_t stopped = kernel_call(VERTIGO_HC_SESSION_STOP, 0);
    printf("ukfault: owner: session stopped by its owner (%lld)\n", (long long)stopped);
    return stopped < 0;
}

int uksession_rival(void)
{
    struct timespec t0;
    int64_t stop = -VERTIGO_EINVAL;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (stop == -VERTIGO_EINVAL && elapsed_ns(&t0) < RIVAL_WAIT_NS)
        stop = kernel_call(VERTIGO_HC_SESSION_STOP, 0);
    int64_t start = start_session();
    bool ok = stop == -VERTIGO_EPERM && start == -VERTIGO_EBUSY;
    printf("ukfault: rival: stopping another domain's session: %s (%lld)\n",
           stop == -VERTIGO_EPERM ? "refused" : "ACCEPTED", (long long)stop);
    printf("ukfault: rival: a session beside another domain's: %s (%lld)\n",
           start == -VERTIGO_EBUSY ? "refused" : "ACCEPTED", (long long)start);
    if (start == 0)
        kernel_call(VERTIGO_HC_SESSION_STOP, 0);    /* its own: do not leave it running */
    return ok ? 0 : 1;
}
