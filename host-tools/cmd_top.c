/* vertigo top [OPTIONS] FILE: a live view of a log while it is written,
 * as perf top shows a running system: every refresh (--delay) it reads
 * the log as far as it goes (a last block still being written is read
 * at the next refresh), symbolizes it as vertigo report does and
 * redraws the hottest functions, with their share of the samples, the
 * samples, mode and domain. On a terminal the screen is redrawn in place
 * (ANSI: cursor home, clear); elsewhere each refresh is printed after the
 * last. It stops, after a last refresh, when the process --until-pid
 * names has ended (`vertigo run --top` gives the emulator's), on SIGINT
 * or SIGTERM, or after --iterations refreshes; the exit status is 0.
 * The log is read again whole at each refresh: symbols that arrive after
 * a sample (a process's maps, kallsyms) name it from then on. */
#define _GNU_SOURCE   /* qsort_r */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host-tools/log_input.h"
#include "host-tools/out_of_memory.h"
#include "host-tools/profile_cli.h"
#include "host-tools/text_quote.h"
#include "host-tools/vertigo.h"

#define ROWS_DEFAULT 20u
#define PERCENT_SCALE 100.0
#define ERR_MAX 256u

struct top_args {
    double delay;                /* seconds between refreshes */
    long until_pid;              /* stop when it ends; 0: never */
    unsigned long iterations;    /* stop after so many; 0: never */
    unsigned int rows;           /* 0: the terminal's height less the header */
};

/* One line of the view: a function in a mode and domain. */
struct top_row {
    uint32_t function, domain;
    uint8_t mode;
    uint64_t samples;
};

static volatile sig_atomic_t stop_asked;

static void on_signal(int sig)
{
    (void)sig;
    stop_asked = 1;
}

/* The rows of p: its samples by leaf function, mode and domain, largest
 * first. Returns how many, in *out (malloc'd). */
static size_t top_rows(const struct profile *p, struct top_row **out)
{
    struct top_row *rows = malloc((p->sample_count + 1) * sizeof(*rows));
    if (!rows)
        vertigo_out_of_memory();
    size_t n = 0;
    for (uint64_t i = 0; i < p->sample_count; i++) {
        const struct profile_sample *s = &p->samples[i];
        if (!s->depth)
            continue;
        uint32_t fn = sym_frame(p->sym, s->frames[0])->function;
        size_t k = 0;
        while (k < n && !(rows[k].function == fn && rows[k].mode == s->mode &&
                          rows[k].domain == s->domain))
            k++;
        if (k == n)
            rows[n++] = (struct top_row){ fn, s->domain, s->mode, 0 };
        rows[k].samples += s->count;
    }
    *out = rows;
    return n;
}

static int row_cmp(const void *a, const void *b, void *profile)
{
    const struct top_row *x = a, *y = b;
    const struct profile *p = profile;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return strcmp(sym_function(p->sym, x->function)->name, sym_function(p->sym, y->function)->name);
}

static unsigned int screen_rows(const struct top_args *a)
{
    struct winsize ws;
    if (a->rows)
        return a->rows;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 8)
        return ws.ws_row - 7u;
    return ROWS_DEFAULT;
}

static void draw(const struct profile *p, const char *input, const struct top_args *a,
                 unsigned long refresh, const char *problem, bool last)
{
    static const char *const tags[LOG_MODE_COUNT] = { "[h]", "[k]", "[.]" };
    bool tty = isatty(STDOUT_FILENO);
    struct top_row *rows;
    size_t n = p ? top_rows(p, &rows) : 0;
    if (n)
        qsort_r(rows, n, sizeof(*rows), row_cmp, (void *)p);
    if (tty)
        fputs("\033[H\033[2J", stdout);
    printf("vertigo top: %s, refresh %lu%s: %" PRIu64 " samples%s%s\n", input, refresh,
           last ? " (the run ended)" : "", p ? p->total : 0, problem ? " - " : "",
           problem ? problem : "");
    printf("%9s %9s  %-4s %-10s %s\n", "Overhead", "Samples", "Mode", "Domain", "Symbol");
    unsigned int shown = screen_rows(a);
    char domain[DOMAIN_NAME_MAX];
    for (size_t i = 0; i < n && i < shown; i++) {
        const struct sym_function *fn = sym_function(p->sym, rows[i].function);
        printf("%8.2f%% %9" PRIu64 "  %-4s %-10s ",
               PERCENT_SCALE * (double)rows[i].samples / (double)p->total, rows[i].samples,
               rows[i].mode < LOG_MODE_COUNT ? tags[rows[i].mode] : "[?]",
               profile_domain_name(p, rows[i].domain, domain));
        text_put(stdout, fn->name);
        printf("  (");
        text_put(stdout, sym_image(p->sym, fn->image)->name);
        printf(")\n");
    }
    if (!tty)
        putchar('\n');
    fflush(stdout);
    if (n)
        free(rows);
}

/* The log as far as it is written, into p: 0, or 1 after a message in
 * problem (no log yet, an unknown event, an unreadable file). */
static int load(struct profile *p, const char *input, const struct profile_options *po,
                char *problem, size_t len)
{
    char err[ERR_MAX];
    if (!profile_init(p, po, err, sizeof(err))) {
        snprintf(problem, len, "%s", err);
        return 1;
    }
    struct logdec *dec = malloc(sizeof(*dec));
    if (!dec)
        vertigo_out_of_memory();
    FILE *in = fopen(input, "rb");
    if (!in) {
        snprintf(problem, len, "%s: %s", input, strerror(errno));
        free(dec);
        return 1;
    }
    int status = profile_read_log(p, "top", input, in, dec);
    fclose(in);
    if (status != VERTIGO_EXIT_OK) {
        free(dec);
        snprintf(problem, len, "%s: read error", input);
        return 1;
    }
    bool empty = logdec_verdict(dec) == LOGDEC_NO_LOG;
    free(dec);
    if (empty) {
        snprintf(problem, len, "no log yet");
        return 1;
    }
    if (!profile_finish(p, po->event, err, sizeof(err))) {
        snprintf(problem, len, "%s", err);
        return 1;
    }
    return 0;
}

static bool still_running(const struct top_args *a)
{
    return !a->until_pid || kill((pid_t)a->until_pid, 0) == 0 || errno == EPERM;
}

static void pause_for(double seconds)
{
    struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (!stop_asked && nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo top [--delay SECONDS] [--until-pid PID] [--iterations N] [--rows N]\n"
                 "                   [-e E] [-c C] [--pids P] [-d D] [-S S] [--guest-root [DOM=]DIR]\n"
                 "                   [--kallsyms [DOM=]FILE] [--vertigo-elf FILE] FILE\n"
                 "A live view of a log while a run writes it (perf top): every refresh the\n"
                 "hottest functions by mode and domain, from the samples logged so far.\n"
                 "`vertigo run --top` runs it on the run's log until the run ends.\n%s"
                 "  --delay SECONDS     between refreshes (default 1; also -D)\n"
                 "  --until-pid PID     stop after a last refresh when process PID has ended\n"
                 "  --iterations N      stop after N refreshes\n"
                 "  --rows N            functions shown (default: what the terminal holds)\n"
                 "Stops on SIGINT or SIGTERM too; the exit status is then 0.\n",
            profile_options_help);
}

static bool set_delay(void *settings, const char *v)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0.05 && d <= 3600)) {
        fprintf(stderr, "vertigo top: --delay %s: not a number of seconds from 0.05 to 3600\n", v);
        return false;
    }
    ((struct top_args *)settings)->delay = d;
    return true;
}

static bool set_count(const char *option, const char *v, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (end == v || *end || *v == '-' || errno || !n) {
        fprintf(stderr, "vertigo top: %s %s: not a positive number\n", option, v);
        return false;
    }
    *out = n;
    return true;
}

static bool set_pid(void *settings, const char *v)
{
    unsigned long pid;
    if (!set_count("--until-pid", v, &pid) || pid > INT32_MAX)
        return false;
    ((struct top_args *)settings)->until_pid = (long)pid;
    return true;
}

static bool set_iterations(void *settings, const char *v)
{
    return set_count("--iterations", v, &((struct top_args *)settings)->iterations);
}

static bool set_rows(void *settings, const char *v)
{
    unsigned long n;
    if (!set_count("--rows", v, &n) || n > 10000)
        return false;
    ((struct top_args *)settings)->rows = (unsigned int)n;
    return true;
}

static const struct profile_cli_option top_options[] = {
    { "--delay|-D", true, set_delay },
    { "--until-pid", true, set_pid },
    { "--iterations", true, set_iterations },
    { "--rows", true, set_rows },
};

const char cmd_top_help[] = "live view of the hottest functions while a run writes its log (perf top)";

int cmd_top(int argc, char **argv)
{
    static const struct profile_cli_command command = {
        .name = "top", .options = top_options,
        .option_count = sizeof(top_options) / sizeof(top_options[0]), .usage = usage,
    };
    struct top_args a = { .delay = 1.0 };
    struct profile_options po = { .quiet = true };
    const char *input;
    int parsed = profile_cli_parse(&command, &po, &a, argc, argv, &input);
    if (parsed >= 0)
        return parsed;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    for (unsigned long refresh = 1;; refresh++) {
        bool last = !still_running(&a) || stop_asked ||
                    (a.iterations && refresh == a.iterations);
        struct profile p;
        char problem[ERR_MAX] = "";
        int bad = load(&p, input, &po, problem, sizeof(problem));
        draw(bad ? NULL : &p, input, &a, refresh, bad ? problem : NULL, last && a.until_pid);
        profile_free(&p);
        if (last)
            return VERTIGO_EXIT_OK;
        pause_for(a.delay);
    }
}
