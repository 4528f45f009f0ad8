/* vertigo decode FILE|-: prints every stream header, record and problem
 * of a log in stream order, one per line (format: host-tools/log_text.h). */
#include <stdio.h>
#include <stdlib.h>

#include "host-tools/log_input.h"
#include "host-tools/log_text.h"
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

int cmd_decode(int argc, char **argv)
{
    switch (log_input_args(argc, argv, cmd_decode_help)) {
    case LOG_ARGS_HELP: return VERTIGO_EXIT_OK;
    case LOG_ARGS_BAD: return VERTIGO_EXIT_CMDLINE;
    case LOG_ARGS_OK: break;
    }
    static const struct logdec_callbacks cb = {
        .header = on_header, .record = on_record, .problem = on_problem,
    };
    struct logdec *dec = malloc(sizeof(*dec));
    if (!dec) {
        fprintf(stderr, "vertigo decode: out of memory\n");
        return VERTIGO_EXIT_USAGE;
    }
    logdec_init(dec, &cb, stdout);
    int status = log_input_decode(argv[0], argv[1], dec);
    if (status == VERTIGO_EXIT_OK)
        status = log_input_exit_status(argv[0], argv[1], dec);
    status = log_output_status(argv[0], status);
    free(dec);
    return status;
}
