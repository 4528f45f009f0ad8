/* vertigo-ctl stat: per-thread counters around one command, printed as
 * perf stat prints them (see guestlib/vertigo_ctl_stat.h). The counter
 * set lives on an fd of /dev/vertigo that vertigo-ctl opens and the child
 * inherits: the child opens the set on it (so the set is the child's
 * thread's), starts it and execs the command, which keeps the thread;
 * when the command exits the module folds its counts, and vertigo-ctl,
 * holding the same fd, reads the final counts. */
#define _GNU_SOURCE             /* pipe2 */
#include "guestlib/vertigo_ctl_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/vertigo_counters.h"
#include "guestlib/vertigo_guest.h"

#define STAT_DEFAULT_EVENTS "instructions,cycles"

static int stat_usage(const char *why)
{
    fprintf(stderr, "vertigo-ctl: stat: %s\n"
                    "usage: vertigo-ctl stat [-e LIST] -- CMD [ARG...]\n", why);
    return 2;
}

/* argv = the words after "stat": *events and *cmd; 0 or 2. */
static int parse_stat(int argc, char **argv, const char **events, char ***cmd)
{
    int i = 0;
    *events = STAT_DEFAULT_EVENTS;
    if (i + 1 < argc && !strcmp(argv[i], "-e")) {
        *events = argv[i + 1];
        i += 2;
    }
    if (i < argc && !strcmp(argv[i], "--"))
        i++;
    if (i >= argc)
        return stat_usage("no command");
    if (argv[i][0] == '-')
        return stat_usage("unknown option (only -e LIST)");
    unsigned int n;
    int e = vertigo_counters_check(*events, &n);
    if (e) {
        fprintf(stderr, "vertigo-ctl: stat: events \"%s\": %s\n", *events,
                vertigo_counters_strerror(e));
        return 2;
    }
    *cmd = &argv[i];
    return 0;
}

/* In the child: the set on the shared fd, started, then the command. On
 * failure the errno goes to the parent through `report` and it exits 127. */
static void run_child(int fd, int report, const char *events, char **cmd)
{
    struct vertigo_ctr_open req = { .flags = 0 };
    int err = 0;
    strncpy(req.events, events, sizeof(req.events) - 1);
    if (ioctl(fd, VERTIGO_IOC_CTR_OPEN, &req) < 0 || ioctl(fd, VERTIGO_IOC_CTR_START) < 0)
        err = errno;
    else
        execvp(cmd[0], cmd);
    if (!err)
        err = errno;
    if (write(report, &err, sizeof(err)) < 0)
        _exit(126);
    _exit(127);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* n with thousands separators, as perf stat prints counts. */
static void print_count(uint64_t n, const char *name)
{
    char digits[32], grouped[48];
    int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
    int out = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            grouped[out++] = ',';
        grouped[out++] = digits[i];
    }
    grouped[out] = '\0';
    printf("%19s      %s\n", grouped, name);
}

static void print_stat(char **cmd, const char *events, const uint64_t *values,
                       unsigned int count, double elapsed)
{
    printf("\n Performance counter stats for '");
    for (char **a = cmd; *a; a++)
        printf("%s%s", a == cmd ? "" : " ", *a);
    printf("' (its first thread, Vertigo's per-thread counters):\n\n");
    const char *p = events;
    for (unsigned int i = 0; i < count; i++) {
        size_t len = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)len, p);
        print_count(values[i], name);
        p += len + (p[len] == ',');
    }
    printf("\n%19.9f seconds time elapsed\n\n", elapsed);
}

/* The command's exit status as a shell gives it. */
static int exit_status(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Runs cmd with the set; reads and prints its counts. */
static int stat_run(int fd, const char *events, char **cmd)
{
    int report[2];
    struct timespec t0;
    if (pipe2(report, O_CLOEXEC) < 0)
        return 1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        run_child(fd, report[1], events, cmd);
    close(report[1]);
    int err = 0, status = 0;
    ssize_t got = read(report[0], &err, sizeof(err));
    close(report[0]);
    waitpid(pid, &status, 0);
    double elapsed = seconds_since(&t0);
    if (got == (ssize_t)sizeof(err)) {
        fprintf(stderr, "vertigo-ctl: stat: %s: %s\n", cmd[0], strerror(err));
        return 1;
    }
    struct vertigo_ctr_values v;
    if (ioctl(fd, VERTIGO_IOC_CTR_READ, &v) < 0) {
        fprintf(stderr, "vertigo-ctl: stat: reading the counts: %s\n", strerror(errno));
        return 1;
    }
    unsigned int count = 0;
    vertigo_counters_check(events, &count);
    print_stat(cmd, events, v.values, count, elapsed);
    return exit_status(status);
}

int stat_main(int argc, char **argv)
{
    const char *events;
    char **cmd;
    if (parse_stat(argc, argv, &events, &cmd))
        return 2;
    if (!vertigo_present()) {
        fprintf(stderr, "vertigo-ctl: not running under Vertigo\n");
        return 3;
    }
    int fd = open(VERTIGO_DEV_PATH, O_RDWR);        /* the child inherits it */
    if (fd < 0) {
        fprintf(stderr, "vertigo-ctl: stat: %s: %s\n", VERTIGO_DEV_PATH, strerror(errno));
        return 1;
    }
    fflush(stdout);
    int rc = stat_run(fd, events, cmd);
    close(fd);
    return rc;
}
