/* Vertigo's version and build identity (printed in the banner, written in
 * the log stream header). */
#ifndef VMM_VERSION_H
#define VMM_VERSION_H

#define VERTIGO_VERSION "0.1.0"

/* Source revision the image was built from (git commit, "-dirty" if the
 * tree had changes), set by the Makefile. */
extern const char vertigo_build_id[];

#endif
