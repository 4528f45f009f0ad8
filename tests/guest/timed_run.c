/* timed_run: runs a command and prints how much emulated time and how many
 * VM exits its run took (`make bench-vpmu`, the perf-overhead part:
 * tests/guest/scenarios/perf_overhead), by two clocks:
 *  - the guest's TSC, read before the fork and after the wait. On the
 *    software backend in Bochs one TSC tick is one emulated instruction,
 *    the guest's or Vertigo's, and outside the NMI handlers Vertigo
 *    injects (where it holds the guest's TSC back by its own time) the
 *    guest's TSC is the host's: a window of it is the window's emulated
 *    time. It needs nothing of Vertigo, so it also times a guest run
 *    without a counting session, whose per-exit work is then not in the
 *    window.
 *  - Vertigo's own counting session, if Vertigo was started with
 *    pmu.events=instructions:ukh,exits:all (that order): instructions:ukh
 *    counts every tick of the VCPU, a clock the guest cannot set, read by
 *    hypercall right after each TSC read (vertigo_pmu_read_tsc), so the
 *    two windows differ only by the ticks the second exit's path takes
 *    before its count; exits:all counts the window's VM exits. A third
 *    event, instructions:h, gives Vertigo's share of the window (its time
 *    handling the VCPU's exits).
 *
 *   timed_run LABEL CMD [ARG...]
 *
 * Prints "timed_run: LABEL: ticks T exits E hv H status S tsc C" on
 * stderr (stdout belongs to CMD; T, E and H are "-" without a session, H
 * also without the third event) and exits with CMD's status; on a
 * failure, a reason on stderr and status 125 (the session could not be
 * read), 126 (fork) or 127 (exec). With one VCPU the window holds
 * everything that ran meanwhile: CMD, a profiler reading its buffer,
 * interrupts, Vertigo's exits. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"

enum { EVENT_TICKS = 0, EVENT_EXITS = 1, EVENT_HV = 2 };

struct reading {
    uint64_t tsc;
    int64_t ticks, exits;
    int64_t hv;                 /* negative: the session has no third event */
};

/* The TSC, then the session's events if it has any. */
static int take_reading(struct reading *r, int session)
{
    r->ticks = vertigo_pmu_read_tsc(EVENT_TICKS, &r->tsc);
    if (!session)
        return 1;
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
    int64_t events = vertigo_pmu_read(VERTIGO_PMU_EVENT_COUNT);
    if (events == 1 || events < 0) {
        fprintf(stderr, "timed_run: Vertigo's counting session has %ld events: start Vertigo "
                "with pmu.events=instructions:ukh,exits:all or without pmu.events\n", (long)events);
        return 125;
    }
    int session = events >= 2;
    if (!take_reading(&before, session)) {
        fprintf(stderr, "timed_run: Vertigo's counting session cannot be read (%ld, %ld)\n",
                (long)before.ticks, (long)before.exits);
        return 125;
    }
    int status = run(argv + 2);
    if (!take_reading(&after, session)) {
        fprintf(stderr, "timed_run: Vertigo's counting session cannot be read after the run\n");
        return 125;
    }
    char ticks[24] = "-", exits[24] = "-", hv[24] = "-";
    if (session) {
        snprintf(ticks, sizeof(ticks), "%ld", (long)(after.ticks - before.ticks));
        snprintf(exits, sizeof(exits), "%ld", (long)(after.exits - before.exits));
    }
    if (session && before.hv >= 0 && after.hv >= 0)
        snprintf(hv, sizeof(hv), "%ld", (long)(after.hv - before.hv));
    fprintf(stderr, "timed_run: %s: ticks %s exits %s hv %s status %d tsc %lu\n", argv[1], ticks,
            exits, hv, status, (unsigned long)(after.tsc - before.tsc));
    return status;
}
