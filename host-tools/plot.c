/* PNG plots through gnuplot (see plot.h). */
#include "host-tools/plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host-tools/vertigo.h"
#include "vertigo/log_format.h"

bool plot_open(struct plot *p, const char *cmd, const char *keep_script)
{
    const char *tmp = getenv("TMPDIR");
    p->cmd = cmd;
    p->keep = keep_script != NULL;
    if (keep_script) {
        int n = snprintf(p->data, sizeof(p->data), "%s.dat", keep_script);
        snprintf(p->script, sizeof(p->script), "%s", keep_script);
        p->dir[0] = '\0';
        if (n < 0 || (size_t)n >= sizeof(p->data)) {
            fprintf(stderr, "vertigo %s: --gnuplot-script %s: the path is longer than %u bytes\n",
                    cmd, keep_script, PLOT_PATH_MAX - 5);
            return false;
        }
        return true;
    }
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

void plot_quote_lines(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, out);
    }
    fputc('"', out);
}

void plot_png_header(FILE *script, unsigned int width, unsigned int height, const char *png)
{
    fprintf(script, "set terminal pngcairo noenhanced size %u,%u font 'sans,9'\nset output ", width, height);
    plot_quote(script, png);
    fprintf(script, "\n");
}

static void remove_scratch(const struct plot *p)
{
    if (p->keep)
        return;
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
    fprintf(stderr, "vertigo %s: %s (%s)\n", p->cmd, why, p->keep ? p->script : p->dir);
    remove_scratch(p);
    return VERTIGO_EXIT_USAGE;
}

/* platform=NAME of the run-info file in the directory of source. */
static bool run_info_platform(const char *source, char *name, size_t len)
{
    char path[PLOT_PATH_MAX * 2];
    const char *slash = strrchr(source, '/');
    if (!strcmp(source, "-"))
        return false;
    snprintf(path, sizeof(path), "%.*srun-info", slash ? (int)(slash - source + 1) : 0, source);
    FILE *f = fopen(path, "r");
    char line[128];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f))
        if (!strncmp(line, "platform=", 9)) {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(name, len, "%.*s", (int)(len - 1), line + 9);
            found = true;
        }
    if (f)
        fclose(f);
    return found;
}

const char *plot_platform(const char *source, unsigned int pmu_backend, char *out, size_t len)
{
    static const char *const names[][2] = {
        { "bochs", "Bochs" }, { "qemu-tcg", "QEMU TCG" }, { "qemu-tcg-efi", "QEMU TCG (OVMF)" },
        { "qemu-kvm", "QEMU/KVM" },
    };
    char name[64];
    if (source && run_info_platform(source, name, sizeof(name))) {
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (!strcmp(name, names[i][0])) {
                snprintf(out, len, "%s", names[i][1]);
                return out;
            }
    }
    snprintf(out, len, "%s", pmu_backend == LOG_PMU_SOFT ? "an emulator (software PMU)"
                             : pmu_backend == LOG_PMU_HW ? "hardware (architectural PMU)"
                                                         : "a machine without a PMU");
    return out;
}

const char *plot_thousands(unsigned long long n, char *out, size_t len)
{
    char digits[32];
    int d = snprintf(digits, sizeof(digits), "%llu", n);
    size_t at = 0;
    for (int i = 0; i < d && at + 1 < len; i++) {
        if (i && (d - i) % 3 == 0 && at + 2 < len)
            out[at++] = ',';
        out[at++] = digits[i];
    }
    out[at] = '\0';
    return out;
}
