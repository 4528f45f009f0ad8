/* Reading a log for the vertigo subcommands (see log_input.h). */
#include "host-tools/log_input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "host-tools/vertigo.h"

#define READ_CHUNK 65536

int log_input_feed(const char *cmd, const char *path, FILE *in, struct logdec *dec)
{
    static uint8_t chunk[READ_CHUNK];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
        logdec_feed(dec, chunk, n);
    if (ferror(in)) {
        fprintf(stderr, "vertigo %s: %s: read error\n", cmd, path);
        return VERTIGO_EXIT_USAGE;
    }
    logdec_finish(dec);
    return VERTIGO_EXIT_OK;
}

int log_input_decode(const char *cmd, const char *path, struct logdec *dec)
{
    bool is_stdin = !strcmp(path, "-");
    FILE *in = is_stdin ? stdin : fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "vertigo %s: %s: %s\n", cmd, path, strerror(errno));
        return VERTIGO_EXIT_USAGE;
    }
    int status = log_input_feed(cmd, path, in, dec);
    if (!is_stdin)
        fclose(in);
    return status;
}

/* src (named name in messages) copied whole into a temporary file
 * (deleted when closed), so that it can be read twice. */
static FILE *spool(const char *cmd, const char *name, FILE *src)
{
    FILE *tmp = tmpfile();
    if (!tmp) {
        fprintf(stderr, "vertigo %s: %s: no temporary file to hold it: %s\n", cmd, name,
                strerror(errno));
        return NULL;
    }
    static uint8_t chunk[READ_CHUNK];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), src)) > 0)
        if (fwrite(chunk, 1, n, tmp) != n) {
            fprintf(stderr, "vertigo %s: %s: writing its temporary copy: %s\n", cmd, name,
                    strerror(errno));
            fclose(tmp);
            return NULL;
        }
    if (ferror(src) || fflush(tmp) || fseek(tmp, 0, SEEK_SET)) {
        fprintf(stderr, "vertigo %s: %s: read error\n", cmd, name);
        fclose(tmp);
        return NULL;
    }
    return tmp;
}

FILE *log_input_open_twice(const char *cmd, const char *path)
{
    if (!strcmp(path, "-"))
        return spool(cmd, "standard input", stdin);
    FILE *in = fopen(path, "rb");
    struct stat st;
    if (!in) {
        fprintf(stderr, "vertigo %s: %s: %s\n", cmd, path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode))
        return in;
    FILE *copy = spool(cmd, path, in);      /* a pipe or a device: read once */
    fclose(in);
    return copy;
}

int log_input_exit_status(const char *cmd, const char *path, const struct logdec *dec)
{
    const struct logdec_totals *t = &dec->totals;
    switch (logdec_verdict(dec)) {
    case LOGDEC_NO_LOG:
        fprintf(stderr, "vertigo %s: %s: no Vertigo log stream header or block found in %"
                PRIu64 " bytes\n", cmd, path, t->bytes);
        return VERTIGO_EXIT_NO_LOG;
    case LOGDEC_DAMAGED: {
        char blocks[LOGDEC_COUNT_TEXT], records[LOGDEC_COUNT_TEXT], dropped[LOGDEC_COUNT_TEXT];
        fprintf(stderr, "vertigo %s: %s: damaged stream: %s blocks and %s records lost to "
                "corruption/gaps, %s records dropped by rings%s\n", cmd, path,
                logdec_count_text(t->blocks_lost, blocks), logdec_count_text(t->records_lost, records),
                logdec_count_text(t->ring_dropped, dropped), t->headers ? "" : ", no stream header");
        return VERTIGO_EXIT_DAMAGED;
    }
    case LOGDEC_CLEAN:
        break;
    }
    return VERTIGO_EXIT_OK;
}

int log_output_status(const char *cmd, int status)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    fprintf(stderr, "vertigo %s: standard output: %s\n", cmd,
            errno ? strerror(errno) : "write error");
    return VERTIGO_EXIT_USAGE;
}
