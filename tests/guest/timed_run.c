/* timed_run: runs a command and prints how much emulated time and how many
 * VM exits its run took, by a clock the guest cannot set: Vertigo's own
 * counting session, read by hypercall before the fork and after the wait
 * (`make bench-vpmu`, the perf-overhead part: tests/guest/scenarios/
 * perf_overhead). Vertigo must be started with
 * pmu.events=instructions:ukh,exits:all (that order): on the software
 * backend instructions:ukh counts every tick of the VCPU, the guest's and
 * Vertigo's, so a window of it is the window's emulated time. A third
 * event, instructions:h, if the session has it, gives Vertigo's share of
 * the window (its time handling the VCPU's exits).
 *
 *   timed_run LABEL CMD [ARG...]
 *
 * Prints "timed_run: LABEL: ticks T exits E hv H status S" on stderr
 * (stdout belongs to CMD; H is "-" without the third event) and exits
 * with CMD's status; on a failure, a reason on
 * stderr and status 125 (a read of the session failed), 126 (fork) or 127
 * (exec). With one VCPU the window holds everything that ran meanwhile:
 * CMD, a profiler reading its buffer, interrupts, Vertigo's exits. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"

enum { EVENT_TICKS = 0, EVENT_EXITS = 1, EVENT_HV = 2 };

struct reading {
    int64_t ticks, exits;
    int64_t hv;                 /* negative: the session has no third event */
};

static int read_session(struct reading *r)
{
    r->ticks = vertigo_pmu_read(EVENT_TICKS);
    r->exits = vertigo_pmu_read(EVENT_EXITS);
    r->hv = vertigo_pmu_read(EVENT_HV);
    return r->ticks >= 0 && r->exits >= 0;
}

/* CMD's exit status, or 126/127 when it could not be started. */
static int run(char **argv)
{
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "timed_run: fork: %s\n", strerror(errno));
        return 126;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "timed_run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 126;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
    struct reading before, after;
    if (argc < 3) {
        fprintf(stderr, "timed_run: usage: timed_run LABEL CMD [ARG...]\n");
        return 2;
    }
    if (!read_session(&before)) {
        fprintf(stderr, "timed_run: Vertigo's counting session cannot be read (%ld, %ld): "
                "start Vertigo with pmu.events=instructions:ukh,exits:all\n",
                (long)before.ticks, (long)before.exits);
        return 125;
    }
    int status = run(argv + 2);
    if (!read_session(&after)) {
        fprintf(stderr, "timed_run: Vertigo's counting session cannot be read after the run\n");
        return 125;
    }
    char hv[24] = "-";
    if (before.hv >= 0 && after.hv >= 0)
        snprintf(hv, sizeof(hv), "%ld", (long)(after.hv - before.hv));
    fprintf(stderr, "timed_run: %s: ticks %ld exits %ld hv %s status %d\n", argv[1],
            (long)(after.ticks - before.ticks), (long)(after.exits - before.exits), hv, status);
    return status;
}
