/* What `vertigo --version` and every `vertigo COMMAND --version` print. */
#include "host-tools/vertigo.h"

#include "vertigo/log_format.h"
#include "vmm/version.h"

void vertigo_print_version(FILE *out)
{
    fprintf(out, "vertigo %s\nlog format version %u (the version of the logs this command reads)\n",
            VERTIGO_VERSION, LOG_FORMAT_VERSION);
}
