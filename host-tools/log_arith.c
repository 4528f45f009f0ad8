/* The first overflow of a command's sums (see log_arith.h). */
#include "host-tools/log_arith.h"

#include <inttypes.h>
#include <stdarg.h>

void log_overflow_note(struct log_overflow *o, uint64_t offset, const char *what, ...)
{
    if (o->hit)
        return;
    o->hit = true;
    o->offset = offset;
    va_list ap;
    va_start(ap, what);
    vsnprintf(o->what, sizeof(o->what), what, ap);
    va_end(ap);
}

void log_overflow_print(FILE *err, const char *cmd, const char *path,
                        const struct log_overflow *o)
{
    if (o->hit)
        fprintf(err, "vertigo %s: %s: the record at offset %" PRIu64 ": %s (the log is corrupt)\n",
                cmd, path, o->offset, o->what);
}
