/* PAPI's test loops, a quarter as long. PAPI's own ctests (built from
 * Debian's papi-examples, tests/guest/perf_guest.mk) find this file before
 * PAPI's testlib/do_loops.h, which it includes unchanged; only the size of
 * the floating-point loop the tests time and count (NUM_FLOPS, 20,000,000
 * there) is set here. In Bochs that loop was most of the guest's time in
 * tests/e2e/vpmu.sh (about 8 G of the boot's 10 G emulated instructions at
 * 20,000,000); every test checks its counts against the NUM_FLOPS it was
 * built with, so the checks are PAPI's, at 5,000,000 iterations. */
#ifndef VERTIGO_PAPI_DO_LOOPS_H
#define VERTIGO_PAPI_DO_LOOPS_H

#include_next "do_loops.h"

#undef NUM_FLOPS
#define NUM_FLOPS 5000000

#endif
