/* PNG plots through gnuplot (the gnuplot-nox package): a scratch
 * directory for the data and the script, quoting for gnuplot strings, and
 * running it with a clear error when it is missing or fails. */
#ifndef HOST_TOOLS_PLOT_H
#define HOST_TOOLS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PLOT_PATH_MAX 256u

struct plot {
    const char *cmd;                /* "timeline": messages start "vertigo timeline: " */
    char dir[PLOT_PATH_MAX - 16];   /* scratch directory (room for the names below) */
    char data[PLOT_PATH_MAX];       /* dir/data, or SCRIPT.dat */
    char script[PLOT_PATH_MAX];     /* dir/plot.gp, or the script kept */
    bool keep;                      /* the script and data stay (--gnuplot-script) */
};

/* Makes the scratch directory; false after a message. With keep_script
 * (a path, or NULL), the script is written there and its data to
 * KEEP_SCRIPT.dat instead, and both stay after the plot. */
bool plot_open(struct plot *p, const char *cmd, const char *keep_script);

/* The platform a log was captured on, for axis labels: "Bochs", "QEMU
 * TCG", "QEMU/KVM" from the run-info file `vertigo run` writes next to
 * the capture (platform=...), else what the stream header's PMU backend
 * (enum log_pmu_backend) says: "an emulator (software PMU)", "hardware".
 * Into out; returns out. */
const char *plot_platform(const char *source, unsigned int pmu_backend, char *out, size_t len);

/* The number n with thousands separators ("2,000,000"), into out. */
const char *plot_thousands(unsigned long long n, char *out, size_t len);

/* Writes s as a gnuplot single-quoted string ('' for a quote). */
void plot_quote(FILE *out, const char *s);

/* Writes s as a gnuplot double-quoted string, its line breaks as \n
 * (titles and labels of several lines), '"' and '\' escaped, other
 * control characters left out. */
void plot_quote_lines(FILE *out, const char *s);

/* The PNG terminal and the output file: "set terminal pngcairo size W,H
 * ...; set output 'PATH'". */
void plot_png_header(FILE *script, unsigned int width, unsigned int height, const char *png);

/* Runs gnuplot on the script; returns an enum vertigo_exit (USAGE after a
 * message when gnuplot is missing or fails). Removes the scratch files. */
int plot_run(struct plot *p);

/* Gives the plot up: prints "vertigo CMD: why (DIR)", removes the
 * scratch files; returns VERTIGO_EXIT_USAGE. */
int plot_fail(struct plot *p, const char *why);

#endif
