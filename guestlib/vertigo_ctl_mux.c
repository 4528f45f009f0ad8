/* vertigo-ctl mux (see guestlib/vertigo_ctl_mux.h). A session belongs to
 * one VCPU, and Vertigo starts it on the VCPU that makes the hypercall:
 * vertigo-ctl pins itself to CPU -C (default 0) before it starts or stops
 * one, and a command it runs inherits the pinning, so the rows count the
 * command's CPU. The numbers are checked here for their form; the event
 * list, the lengths against the schedule and the counters are Vertigo's
 * to judge (the same rules as pmu.events=, pmu.interval=,
 * pmu.subinterval=), which prints why it refused on its console. */
#define _GNU_SOURCE             /* sched_setaffinity */
#include "guestlib/vertigo_ctl_mux.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"

#define EXIT_NOT_RUN   127
#define EXIT_SIGNALLED 128

struct mux_request {
    struct vertigo_mux m;
    unsigned long long cpu;
    bool stop;
    char **cmd;                 /* NULL: start only */
};

__attribute__((format(printf, 1, 2)))
static int mux_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vertigo-ctl: mux: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: vertigo-ctl mux -e LIST -I N [-S S] [-C CPU] [-- CMD [ARG...]]\n"
                    "       vertigo-ctl mux --stop [-C CPU]\n");
    return 2;
}

/* A whole decimal or 0x number into *out; 0 or 2. */
static int number(const char *opt, const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!text || !*text || *text == '-' || *text == '+')
        return mux_usage("%s needs a number", opt);
    *out = strtoull(text, &end, 0);
    return errno || *end ? mux_usage("%s needs a number", opt) : 0;
}

static int option(struct mux_request *r, const char *opt, const char *value)
{
    unsigned long long v = 0;
    if (!strcmp(opt, "-e")) {
        if (!value || !*value || strlen(value) >= sizeof(r->m.events))
            return mux_usage("-e needs a list of 1 to %zu characters", sizeof(r->m.events) - 1);
        snprintf(r->m.events, sizeof(r->m.events), "%s", value);
        return 0;
    }
    if (strcmp(opt, "-I") && strcmp(opt, "-S") && strcmp(opt, "-C"))
        return mux_usage("unknown option '%s'", opt);
    if (number(opt, value, &v))
        return 2;
    if (!strcmp(opt, "-I"))
        r->m.interval = v;
    else if (!strcmp(opt, "-S"))
        r->m.subinterval = v;
    else
        r->cpu = v;
    return 0;
}

/* argv = the words after "mux": *r; 0 or 2. */
static int parse_mux(int argc, char **argv, struct mux_request *r)
{
    *r = (struct mux_request){ .m = { .abi_version = VERTIGO_MUX_ABI } };
    int i = 0;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--stop")) {
            r->stop = true;
            continue;
        }
        if (option(r, argv[i], i + 1 < argc ? argv[i + 1] : NULL))
            return 2;
        i++;
    }
    if (i < argc && i + 1 >= argc)
        return mux_usage("no command after --");
    r->cmd = i + 1 < argc ? &argv[i + 1] : NULL;
    if (r->stop)
        return r->cmd || r->m.events[0] || r->m.interval || r->m.subinterval
                   ? mux_usage("--stop takes only -C CPU") : 0;
    if (!r->m.events[0])
        return mux_usage("need -e LIST (the events, as pmu.events=)");
    if (!r->m.interval)
        return mux_usage("need -I N: at least 1 retired instruction per interval");
    if (r->m.subinterval > r->m.interval)
        return mux_usage("-S %llu is longer than -I %llu", (unsigned long long)r->m.subinterval,
                         (unsigned long long)r->m.interval);
    return 0;
}

/* What an errno from /dev/vertigo means for a multiplexing session. */
static const char *mux_errno_text(int err, bool stopping)
{
    switch (err) {
    case EBUSY: return "a counting session already runs (the command line's pmu.events=, or "
                       "a multiplexing session: vertigo-ctl mux --stop first), or on the "
                       "hardware PMU no counter is left to count the turns (Vertigo's console "
                       "says which)";
    case E2BIG: return "more events than a multiplexing session takes (32)";
    case ERANGE: return "the interval (-I) or sub-interval (-S) is out of range: each event set "
                        "needs a turn of S instructions in every interval of N, and on the "
                        "hardware PMU a turn must fit its counter (Vertigo's console says which)";
    case EINVAL: return stopping ? "no multiplexing session runs on this CPU"
                                 : "Vertigo refused the event list (its console says why)";
    case ENOSYS: return "interval multiplexing needs a PMU backend in Vertigo (not pmu=off)";
    case EPERM: return "only root / kernel mode may control sessions";
    default: return strerror(err);
    }
}

static int pin(unsigned long long cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= CPU_SETSIZE)
        return mux_usage("-C %llu: no such CPU", cpu);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) == 0)
        return 0;
    fprintf(stderr, "vertigo-ctl: mux: CPU %llu: %s\n", cpu, strerror(errno));
    return 1;
}

/* Starts (stop false) or stops the session on this CPU; 0 or 1. */
static int control(const struct mux_request *r, bool stop)
{
    int fd = vertigo_dev_open();
    uint64_t rows = 0;
    if (fd < 0) {
        fprintf(stderr, "vertigo-ctl: mux: %s: %s\n", VERTIGO_DEV_PATH, strerror(-fd));
        return 1;
    }
    int rc = stop ? vertigo_dev_mux_stop(fd, &rows) : vertigo_dev_mux_start(fd, &r->m);
    close(fd);
    if (rc) {
        fprintf(stderr, "vertigo-ctl: mux: %s\n", mux_errno_text(-rc, stop));
        return 1;
    }
    if (stop)
        printf("vertigo-ctl: mux: session stopped on CPU %llu: %" PRIu64 " rows\n", r->cpu, rows);
    else
        printf("vertigo-ctl: mux: session started on CPU %llu: %s interval %" PRIu64
               " sub-interval %" PRIu64 "\n", r->cpu, r->m.events, r->m.interval,
               r->m.subinterval);
    fflush(stdout);
    return 0;
}

/* Runs cmd (pinned as vertigo-ctl is) to its end: its exit status. */
static int run(char **cmd)
{
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "vertigo-ctl: mux: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        execvp(cmd[0], cmd);
        fprintf(stderr, "vertigo-ctl: mux: %s: %s\n", cmd[0], strerror(errno));
        _exit(EXIT_NOT_RUN);
    }
    signal(SIGINT, SIG_IGN);         /* ^C ends the command, then the session */
    signal(SIGQUIT, SIG_IGN);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_SIGNALLED + WTERMSIG(status);
}

int mux_main(int argc, char **argv)
{
    struct mux_request r;
    if (parse_mux(argc, argv, &r))
        return 2;
    if (!vertigo_present()) {
        fprintf(stderr, "vertigo-ctl: not running under Vertigo\n");
        return 3;
    }
    int rc = pin(r.cpu);
    if (rc)
        return rc;
    if (r.stop || !r.cmd)
        return control(&r, r.stop);
    rc = control(&r, false);
    if (rc)
        return rc;
    int status = run(r.cmd);
    rc = control(&r, true);
    return rc ? rc : status;
}
