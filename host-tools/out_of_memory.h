/* The host tools' one answer to a failed allocation: a message and exit
 * status 1 (VERTIGO_EXIT_USAGE), never a silent exit. A hostile log can
 * make a tool ask for more memory than a limit allows (tests run them
 * under `ulimit -v`). */
#ifndef HOST_TOOLS_OUT_OF_MEMORY_H
#define HOST_TOOLS_OUT_OF_MEMORY_H

/* Prints "vertigo: out of memory" on stderr and exits 1. */
_Noreturn void vertigo_out_of_memory(void);

#endif
