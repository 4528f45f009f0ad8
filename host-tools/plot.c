/* PNG plots through gnuplot (see plot.h). */
#include "host-tools/plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host-tools/vertigo.h"

bool plot_open(struct plot *p, const char *cmd)
{
    const char *tmp = getenv("TMPDIR");
    p->cmd = cmd;
    snprintf(p->dir, sizeof(p->dir), "%s/vertigo-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p->dir)) {
        fprintf(stderr, "vertigo %s: cannot make a scratch directory %s: %s\n", cmd, p->dir,
                strerror(errno));
        return false;
    }
    snprintf(p->data, sizeof(p->data), "%s/data", p->dir);
    snprintf(p->script, sizeof(p->script), "%s/plot.gp", p->dir);
    return true;
}

void plot_quote(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', out);
        if (*s != '\n')
            fputc(*s, out);
    }
    fputc('\'', out);
}

void plot_png_header(FILE *script, unsigned int width, unsigned int height, const char *png)
{
    fprintf(script, "set terminal pngcairo noenhanced size %u,%u font 'sans,9'\nset output ", width, height);
    plot_quote(script, png);
    fprintf(script, "\n");
}

static void remove_scratch(const struct plot *p)
{
    unlink(p->data);
    unlink(p->script);
    rmdir(p->dir);
}

/* gnuplot SCRIPT, its messages on our stderr; its exit status, 127 if it
 * could not be started. */
static int run_gnuplot(const char *script)
{
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int plot_run(struct plot *p)
{
    int rc = run_gnuplot(p->script);
    remove_scratch(p);
    if (rc == 127) {
        fprintf(stderr, "vertigo %s: cannot run gnuplot (install the gnuplot-nox package: "
                "host-tools/setup-deps)\n", p->cmd);
        return VERTIGO_EXIT_USAGE;
    }
    if (rc != 0) {
        fprintf(stderr, "vertigo %s: gnuplot failed (exit status %d)\n", p->cmd, rc);
        return VERTIGO_EXIT_USAGE;
    }
    return VERTIGO_EXIT_OK;
}

int plot_fail(struct plot *p, const char *why)
{
    fprintf(stderr, "vertigo %s: %s (%s)\n", p->cmd, why, p->dir);
    remove_scratch(p);
    return VERTIGO_EXIT_USAGE;
}
