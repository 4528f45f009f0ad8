/* PNG plots through gnuplot (the gnuplot-nox package): a scratch
 * directory for the data and the script, quoting for gnuplot strings, and
 * running it with a clear error when it is missing or fails. */
#ifndef HOST_TOOLS_PLOT_H
#define HOST_TOOLS_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#define PLOT_PATH_MAX 256u

struct plot {
    const char *cmd;                /* "timeline": messages start "vertigo timeline: " */
    char dir[PLOT_PATH_MAX - 16];   /* scratch directory (room for the names below) */
    char data[PLOT_PATH_MAX];       /* dir/data */
    char script[PLOT_PATH_MAX];     /* dir/plot.gp */
};

/* Makes the scratch directory; false after a message. */
bool plot_open(struct plot *p, const char *cmd);

/* Writes s as a gnuplot single-quoted string ('' for a quote). */
void plot_quote(FILE *out, const char *s);

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
