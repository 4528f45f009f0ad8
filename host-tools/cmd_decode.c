/* vertigo decode FILE|-: prints every stream header, record and problem
 * of a log in stream order, one per line (format: host-tools/log_text.h). */
#include <stdio.h>
#include <stdlib.h>

#include "host-tools/log_input.h"
#include "host-tools/log_text.h"
#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"

static void on_header(void *user, const struct log_stream_header *h, uint64_t offset)
{
    log_text_header(user, h, offset);
}

static void on_record(void *user, const struct logdec_record *r)
{
    log_text_record(user, r);
}

static void on_problem(void *user, const struct logdec_problem *p)
{
    log_text_problem(user, p);
}

const char cmd_decode_help[] = "print a profiling log, one record per line";

static void usage(FILE *out)
{
    fprintf(out, "usage: vertigo decode [-i] FILE|-\n"
                 "Prints every stream header, record and problem of a profiling log in stream\n"
                 "order, one per line.\n"
                 "  -i, --input FILE    the log (the same as giving FILE; - for stdin)\n"
                 "  -h, --help          this text;  --version  the version\n");
}

int cmd_decode(int argc, char **argv)
{
    static const struct profile_cli_command command = { .name = "decode", .usage = usage };
    const char *input;
    int parsed = profile_cli_args(&command, NULL, argc, argv, &input);
    if (parsed >= 0)
        return parsed;
    static const struct logdec_callbacks cb = {
        .header = on_header, .record = on_record, .problem = on_problem,
    };
    struct logdec *dec = malloc(sizeof(*dec));
    if (!dec) {
        fprintf(stderr, "vertigo decode: out of memory\n");
        return VERTIGO_EXIT_USAGE;
    }
    logdec_init(dec, &cb, stdout);
    int status = log_input_decode("decode", input, dec);
    if (status == VERTIGO_EXIT_OK)
        status = log_input_exit_status("decode", input, dec);
    status = log_output_status("decode", status);
    free(dec);
    return status;
}
