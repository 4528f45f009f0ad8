/* The shared part of `vertigo timeline` and `vertigo correlate` (see
 * cmd_intervals.h). */
#include "host-tools/cmd_intervals.h"

#include <errno.h>
#include <string.h>

#include "host-tools/vertigo.h"

int intervals_run(const struct profile_cli_command *c, void *settings, int argc, char **argv,
                  const char *const *events, intervals_writer write)
{
    const char *input;
    int parsed = profile_cli_args(c, settings, argc, argv, &input);
    if (parsed >= 0)
        return parsed;
    static struct iv_set s;
    int status = iv_load(&s, c->name, input);
    if ((status == VERTIGO_EXIT_OK || status == VERTIGO_EXIT_DAMAGED) && !s.overflow.hit) {
        unsigned int ev[IV_EVENTS_MAX];
        int n = s.count ? iv_pick_events(&s, c->name, *events, ev) : -1;
        if (!s.count)
            fprintf(stderr, "vertigo %s: %s: no interval rows (the run had no interval "
                    "multiplexing session: pmu.interval=)\n", c->name, input);
        int written = n < 0 ? VERTIGO_EXIT_USAGE : write(&s, ev, (unsigned int)n, settings);
        if (written != VERTIGO_EXIT_OK)
            status = written;
    }
    iv_free(&s);
    return status;
}

int intervals_write_file(const char *cmd, const char *path, const struct iv_set *s,
                         const unsigned int *ev, unsigned int n, const void *settings,
                         bool (*fn)(FILE *out, const struct iv_set *s, const unsigned int *ev,
                                    unsigned int n, const void *settings))
{
    FILE *out = path ? fopen(path, "w") : stdout;
    if (!out) {
        fprintf(stderr, "vertigo %s: %s: %s\n", cmd, path, strerror(errno));
        return VERTIGO_EXIT_USAGE;
    }
    bool ok = fn(out, s, ev, n, settings);
    ok &= out == stdout ? fflush(out) == 0 : fclose(out) == 0;
    if (!ok) {
        fprintf(stderr, "vertigo %s: %s: write error\n", cmd, path ? path : "stdout");
        return VERTIGO_EXIT_USAGE;
    }
    return VERTIGO_EXIT_OK;
}
