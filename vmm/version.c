/* Build identity, filled in by the Makefile (VERTIGO_BUILD_ID). */
#include "vmm/version.h"

#ifndef VERTIGO_BUILD_ID
#define VERTIGO_BUILD_ID "unknown"
#endif

const char vertigo_build_id[] = VERTIGO_BUILD_ID;
