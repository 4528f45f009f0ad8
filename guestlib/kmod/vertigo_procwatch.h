/* vertigo.ko's process watch (vertigo_procwatch.c): each exec and fork
 * of a user process ships its new address space's executable mappings and
 * identity before it runs. */
#ifndef GUESTLIB_KMOD_VERTIGO_PROCWATCH_H
#define GUESTLIB_KMOD_VERTIGO_PROCWATCH_H

/* Hooks exec and fork (tracepoints); says on the kernel log which hooks
 * it got. A kernel without them leaves the agent's scans alone. */
void vertigo_procwatch_init(void);
void vertigo_procwatch_exit(void);

#endif
