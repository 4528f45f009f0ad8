/* vertigo-ctl: the guest's command-line handle on Vertigo's hypercalls
 * (ABI: include/vertigo/hypercall.h).
 *
 *   vertigo-ctl detect                 exit 0 if running under Vertigo
 *   vertigo-ctl version                print the hypercall interface version
 *   vertigo-ctl verdict pass|fail [REASON]
 *                                      report the guest's test verdict
 *   vertigo-ctl start --event LIST --period N [--hz H] [--depth D] [--call-graph fp|dwarf]
 *   vertigo-ctl start --event LIST --freq F [--depth D] [--call-graph fp|dwarf]
 *   vertigo-ctl start --hz H [--event LIST] [--depth D]
 *                                      start a sampling session (like
 *                                      opcontrol --start): every LIST event
 *                                      samples each N events, or F times a
 *                                      guest second with adapting periods
 *                                      (perf record -F), or a timer
 *                                      samples H times per guest second
 *   vertigo-ctl stop                   stop it; prints the samples logged
 *   vertigo-ctl record [-e LIST] [-c N | -F H] [-g] -- CMD [ARG...]
 *                                      a session around one command, of its
 *                                      process only (like perf record CMD):
 *                                      guestlib/vertigo_ctl_record.c
 *   vertigo-ctl stat [-e LIST] -- CMD [ARG...]
 *                                      per-thread counters around one
 *                                      command (like perf stat CMD):
 *                                      guestlib/vertigo_ctl_stat.c
 *   vertigo-ctl mux -e LIST -I N [-S S] [-C CPU] [-- CMD [ARG...]]
 *   vertigo-ctl mux --stop [-C CPU]
 *                                      an interval multiplexing session of
 *                                      one VCPU (as pmu.interval=):
 *                                      guestlib/vertigo_ctl_mux.c
 * start/stop are kernel-only hypercalls: they go through /dev/vertigo
 * (guestlib/kmod/vertigo.ko), which only root opens. Arguments are checked
 * here first (event names, period 128..2^48, rate 1..100000 Hz, depth
 * 0..VERTIGO_STACK_MAX), and Vertigo checks them again.
 * Exit status: 0 done, 1 Vertigo (or /dev/vertigo) refused the call,
 * 2 usage error, 3 not running under Vertigo (nothing was attempted);
 * record: the command's own status once it ran. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestlib/vertigo_ctl_mux.h"
#include "guestlib/vertigo_ctl_record.h"
#include "guestlib/vertigo_ctl_stat.h"
#include "guestlib/vertigo_guest.h"
#include "pmu/backend/pmu_events.h"

#define PERIOD_MAX   (1ull << 48)   /* HC_SESSION_START's bound */
#define TIMER_HZ_MAX 100000u
#define FREQ_OR_PERIOD "--freq and --period exclude each other (adapting periods or one " \
                       "fixed period)"
#define RECORD_DEPTH "16"           /* record -g: return addresses per sample */
#define RECORD_HZ    "1000"         /* record without -c or -F: timer samples */
#define RECORD_ARGS  8              /* start options record translates to */

static const char *command = "start";   /* in messages: start or record */

static int usage(void)
{
    fprintf(stderr, "usage: vertigo-ctl detect | version | verdict pass|fail [REASON]\n"
                    "       vertigo-ctl start --event LIST --period N [--hz H] [--depth D]\n"
                    "                         [--call-graph fp|dwarf]\n"
                    "       vertigo-ctl start --event LIST --freq F [--depth D] [--call-graph fp|dwarf]\n"
                    "       vertigo-ctl start --hz H [--event LIST] [--depth D] | stop\n"
                    "       vertigo-ctl record [-e LIST] [-c N | -F H] [-g] -- CMD [ARG...]\n"
                    "       vertigo-ctl stat [-e LIST] -- CMD [ARG...]\n"
                    "       vertigo-ctl mux -e LIST -I N [-S S] [-C CPU] [-- CMD [ARG...]]\n"
                    "       vertigo-ctl mux --stop [-C CPU]\n");
    return 2;
}

/* Prints "vertigo-ctl: start: <message>" (or record:) and returns 2 (usage error). */
__attribute__((format(printf, 1, 2)))
static int start_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vertigo-ctl: %s: ", command);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* Parses a whole unsigned number (decimal or 0x hex) into *out. */
static int parse_u64(const char *text, unsigned long long *out)
{
    char *end;
    if (!*text || *text == '-' || *text == '+')
        return -1;
    errno = 0;
    *out = strtoull(text, &end, 0);
    return errno || *end ? -1 : 0;
}

/* The backend-independent checks of one event name: would no PMU
 * Vertigo drives know it? Backend limits are Vertigo's to judge. */
static int check_event(const char *text, unsigned int len, unsigned int index)
{
    struct pmu_event_caps caps;
    struct pmu_event ev;
    pmu_event_caps_soft(&caps, true);
    enum pmu_event_err e = pmu_event_parse(text, len, &caps, &ev);
    if (e == PMU_EVERR_NONE || e == PMU_EVERR_UNAVAILABLE || e == PMU_EVERR_SOFT_CYCLES_ONLY ||
        e == PMU_EVERR_TOO_MANY)
        return 0;
    fprintf(stderr, "vertigo-ctl: %s: event %u \"%.*s\": %s\n", command, index + 1, (int)len, text,
            pmu_event_err_text(e));
    return 2;
}

static int check_event_list(const char *list)
{
    if (strlen(list) >= VERTIGO_SESSION_EVENTS_MAX)
        return start_error("event list longer than %u characters",
                           VERTIGO_SESSION_EVENTS_MAX - 1);
    unsigned int index = 0;
    for (const char *p = list;; index++) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return start_error("empty event name in list '%s'", list);
        if (index >= PMU_EVENT_LIST_MAX)
            return start_error("more than %d events", PMU_EVENT_LIST_MAX);
        if (check_event(p, (unsigned int)len, index))
            return 2;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* Parses the value of option `name` into *out within [min, max]. */
static int option_number(const char *name, const char *value, unsigned long long min,
                         unsigned long long max, unsigned long long *out)
{
    if (parse_u64(value, out))
        return start_error("%s needs a number, not '%s'", name, value);
    if (*out < min)
        return start_error("%s %s: must be at least %llu", name, value, min);
    if (*out > max)
        return start_error("%s %s is absurd: above %llu", name, value, max);
    return 0;
}

static int parse_start_option(const char *opt, const char *value, struct vertigo_session *s)
{
    unsigned long long v;
    if (!strcmp(opt, "--event")) {
        if (check_event_list(value))
            return 2;
        snprintf(s->events, sizeof(s->events), "%s", value);
        return 0;
    }
    if (!strcmp(opt, "--period")) {
        if (s->flags & VERTIGO_SESSION_FREQ)
            return start_error(FREQ_OR_PERIOD);
        if (option_number(opt, value, VERTIGO_SESSION_PERIOD_MIN, PERIOD_MAX, &v))
            return 2;
        s->period = v;
    } else if (!strcmp(opt, "--hz")) {
        if (option_number(opt, value, 1, TIMER_HZ_MAX, &v))
            return 2;
        s->timer_hz = (uint32_t)v;
        s->flags |= VERTIGO_SESSION_TIMER;
    } else if (!strcmp(opt, "--freq")) {
        if (s->period)
            return start_error(FREQ_OR_PERIOD);
        if (option_number(opt, value, 1, VERTIGO_SESSION_FREQ_MAX, &v))
            return 2;
        s->period = v;
        s->flags |= VERTIGO_SESSION_FREQ;
    } else if (!strcmp(opt, "--depth")) {
        if (option_number(opt, value, 0, VERTIGO_STACK_MAX, &v))
            return 2;
        s->stack_depth = (uint32_t)v;
    } else if (!strcmp(opt, "--call-graph")) {        /* perf's name and values */
        if (strcmp(value, "fp") && strcmp(value, "dwarf"))
            return start_error("--call-graph %s: use fp (frame pointers) or dwarf (copy "
                               "user stacks, unwind them on the host)", value);
        s->flags = (s->flags & ~VERTIGO_SESSION_USER_STACK) |
                   (!strcmp(value, "dwarf") ? VERTIGO_SESSION_USER_STACK : 0);
    }
    return 0;
}

static int is_start_option(const char *opt)
{
    return !strcmp(opt, "--event") || !strcmp(opt, "--period") || !strcmp(opt, "--hz") ||
           !strcmp(opt, "--freq") || !strcmp(opt, "--depth") || !strcmp(opt, "--call-graph");
}

/* argv = the words after "start". Fills *s; 0 or 2 (usage error). */
static int parse_start(int argc, char **argv, struct vertigo_session *s)
{
    *s = vertigo_session_new();
    for (int i = 0; i < argc; i += 2) {
        if (!is_start_option(argv[i]))
            return start_error("unknown option '%s'", argv[i]);
        if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2))
            return start_error("option %s needs a value", argv[i]);
        if (parse_start_option(argv[i], argv[i + 1], s))
            return 2;
    }
    bool freq = (s->flags & VERTIGO_SESSION_FREQ) != 0;
    if (freq && (s->flags & VERTIGO_SESSION_TIMER))
        return start_error("--freq sets the rate of event samples, --hz of timer samples: "
                           "give one");
    if (freq && !s->events[0])
        return start_error("--freq needs --event LIST");
    if (!(s->flags & VERTIGO_SESSION_TIMER) && !s->events[0])
        return start_error("need --event LIST with --period N or --freq F, or --hz H");
    if (s->events[0] && !s->period && !(s->flags & VERTIGO_SESSION_TIMER))
        return start_error("--event needs --period N (events between samples) or --freq F");
    if (s->period && !s->events[0])
        return start_error("--period needs --event LIST");
    return 0;
}

/* The option of start that record's option `opt` stands for, or NULL. */
static const char *start_option_of(const char *opt)
{
    static const char *const names[][2] = {
        { "-e", "--event" }, { "-c", "--period" }, { "-F", "--hz" },
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(opt, names[i][0]))
            return names[i][1];
    return NULL;
}

/* argv = the words after "record". perf's options become start's (-e
 * --event, -c --period, -F --hz, -g --depth RECORD_DEPTH; no option but
 * -g: --hz RECORD_HZ), which checks them. Fills *s and *cmd (the words
 * after "--"); 0 or 2 (usage error). */
static int parse_record(int argc, char **argv, struct vertigo_session *s, char ***cmd)
{
    char *args[RECORD_ARGS];
    int n = 0, i = 0;
    bool rate = false, events = false, period = false;
    command = "record";
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *opt = start_option_of(argv[i]);
        if (!strcmp(argv[i], "-g") && n + 2 <= RECORD_ARGS) {
            args[n++] = "--depth";
            args[n++] = RECORD_DEPTH;
            continue;
        }
        if (!opt)
            return start_error("unknown option '%s' (-e LIST, -c N, -F H, -g, then -- CMD)", argv[i]);
        if (i + 1 >= argc || n + 2 > RECORD_ARGS)
            return start_error("option %s needs a value", argv[i]);
        rate |= strcmp(opt, "--event") != 0;
        events |= strcmp(opt, "--event") == 0;
        period |= strcmp(opt, "--period") == 0;
        args[n++] = (char *)opt;
        args[n++] = argv[++i];
    }
    if (i + 1 >= argc)
        return start_error("no command: vertigo-ctl record [OPTIONS] -- CMD [ARG...]");
    if (events && !rate)
        return start_error("-e needs -c N (events between samples) or -F H (timer samples)");
    if (period && !events)
        return start_error("-c needs -e LIST (the events to count)");
    if (!rate && n + 2 <= RECORD_ARGS) {
        args[n++] = "--hz";
        args[n++] = RECORD_HZ;
    }
    *cmd = &argv[i + 1];
    return parse_start(n, args, s);
}

/* What an errno from /dev/vertigo means for session control. */
static const char *session_errno_text(int err, int stopping)
{
    switch (err) {
    case EPERM: return "only root / kernel mode may control sessions";
    case EBUSY: return "a session already runs (vertigo-ctl stop first)";
    case EINVAL: return stopping ? "no session runs"
                                 : "Vertigo refused the arguments (event list, period, rate, "
                                   "depth or flags)";
    case ENOSYS: return "this Vertigo has no sampling sessions (hypercall unknown)";
    case EFAULT: return "Vertigo could not read the request";
    default: return strerror(err);
    }
}

static int open_device(const char *what)
{
    int fd = vertigo_dev_open();
    if (fd >= 0)
        return fd;
    if (fd == -ENOENT)
        fprintf(stderr, "vertigo-ctl: %s: no %s: load the module first (insmod /lib/vertigo.ko)\n",
                what, VERTIGO_DEV_PATH);
    else if (fd == -EACCES || fd == -EPERM)
        fprintf(stderr, "vertigo-ctl: %s: only root may open %s: only root / kernel mode may "
                        "control sessions\n", what, VERTIGO_DEV_PATH);
    else
        fprintf(stderr, "vertigo-ctl: %s: %s: %s\n", what, VERTIGO_DEV_PATH, strerror(-fd));
    return -1;
}

static int session_start(const struct vertigo_session *s)
{
    int fd = open_device("start");
    if (fd < 0)
        return 1;
    int rc = vertigo_dev_session_start(fd, s);
    close(fd);
    if (rc == 0) {
        printf("vertigo-ctl: session started: %s %s %" PRIu64 " hz %u depth %u\n",
               s->events[0] ? s->events : "(timer)",
               (s->flags & VERTIGO_SESSION_FREQ) ? "freq" : "period", s->period, s->timer_hz,
               s->stack_depth);
        return 0;
    }
    fprintf(stderr, "vertigo-ctl: start: %s\n", session_errno_text(-rc, 0));
    return 1;
}

static int session_stop(void)
{
    int fd = open_device("stop");
    if (fd < 0)
        return 1;
    uint64_t samples = 0;
    int rc = vertigo_dev_session_stop(fd, &samples);
    close(fd);
    if (rc == 0) {
        printf("vertigo-ctl: session stopped: %" PRIu64 " samples logged\n", samples);
        return 0;
    }
    fprintf(stderr, "vertigo-ctl: stop: %s\n", session_errno_text(-rc, 1));
    return 1;
}

static int report(int64_t r, const char *what)
{
    if (r >= 0)
        return 0;
    fprintf(stderr, "vertigo-ctl: %s: %s\n", what, vertigo_strerror(r));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    if (!strcmp(argv[1], "stat"))
        return stat_main(argc - 2, argv + 2);
    if (!strcmp(argv[1], "mux"))
        return mux_main(argc - 2, argv + 2);
    int known = !strcmp(argv[1], "detect") || !strcmp(argv[1], "version") ||
                !strcmp(argv[1], "verdict") || !strcmp(argv[1], "start") ||
                !strcmp(argv[1], "stop") || !strcmp(argv[1], "record");
    if (!known || (!strcmp(argv[1], "stop") && argc != 2))
        return usage();
    struct vertigo_session session;
    char **cmd = NULL;
    if (!strcmp(argv[1], "start") && parse_start(argc - 2, argv + 2, &session))
        return 2;
    if (!strcmp(argv[1], "record") && parse_record(argc - 2, argv + 2, &session, &cmd))
        return 2;
    if (!vertigo_present()) {
        if (strcmp(argv[1], "detect") != 0)
            fprintf(stderr, "vertigo-ctl: not running under Vertigo\n");
        return 3;
    }
    if (!strcmp(argv[1], "detect"))
        return 0;
    if (!strcmp(argv[1], "start"))
        return session_start(&session);
    if (!strcmp(argv[1], "stop"))
        return session_stop();
    if (!strcmp(argv[1], "record"))
        return record_run(&session, cmd, session_start, session_stop);
    if (!strcmp(argv[1], "version")) {
        int64_t r = vertigo_version();
        if (r >= 0)
            printf("vertigo hypercall interface %u, features %#x\n",
                   (unsigned)(r >> 32), (unsigned)r);
        return report(r, "version");
    }
    if (argc < 3 || (strcmp(argv[2], "pass") && strcmp(argv[2], "fail")))
        return usage();
    const char *reason = argc > 3 ? argv[3] : "";
    int64_t r = vertigo_set_verdict(strcmp(argv[2], "pass") ? 1 : 0, reason);
    return report(r, "verdict");
}
