/* ukfault's session modes: one domain's sampling session against another
 * domain's calls (tests/e2e/multiboot.sh runs both beside its multiboot
 * domain, with no session of the command line):
 *  - owner: starts a session of its own (instructions:uk) from CPL 0, keeps
 *    it for half a second of its guest time while it computes, then
 *    stops it: the start must give 0 and the stop the samples logged
 *    (0 or more), never -EINVAL (which would mean another domain stopped
 *    it);
 *  - rival: calls HC_SESSION_STOP until it answers other than -EINVAL
 *    (no session yet; at most ten seconds of its guest time): stopping
 *    another domain's session must give -EPERM, and starting one beside it
 *    -EBUSY. */
#ifndef GUESTLIB_UNIKERNEL_TESTS_UKSESSION_H
#define GUESTLIB_UNIKERNEL_TESTS_UKSESSION_H

#include <stdint.h>

#include "vertigo/hypercall.h"

/* A session of instructions:uk every `period` events, nothing else set. */
void uksession_fill(struct vertigo_session *s, uint64_t period);

/* Each prints what it tried and got; 0 when all went as it must. */
int uksession_owner(void);
int uksession_rival(void);

#endif
