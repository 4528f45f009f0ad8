/* A failed allocation in the host tools (see out_of_memory.h). */
#include "host-tools/out_of_memory.h"

#include <stdio.h>
#include <stdlib.h>

#include "host-tools/vertigo.h"

void vertigo_out_of_memory(void)
{
    fputs("vertigo: out of memory\n", stderr);
    exit(VERTIGO_EXIT_USAGE);
}
