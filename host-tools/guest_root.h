/* Opening the guest's files under --guest-root by the paths a log names
 * (process maps). The log is the guest's to write, so a path is resolved
 * inside the root the way the guest's own kernel resolves it, and never
 * leaves it: ".." at the root stays at the root, a symbolic link is read
 * and followed inside the root (an absolute target starts again at the
 * root, never at the host's /), at most GUEST_ROOT_LINKS_MAX links per
 * path. Only a regular file is opened: a FIFO, device or socket the path
 * names is refused without being opened (opening or reading one could
 * block, or never end). */
#ifndef HOST_TOOLS_GUEST_ROOT_H
#define HOST_TOOLS_GUEST_ROOT_H

#define GUEST_ROOT_LINKS_MAX 40      /* symbolic links per path, as Linux's limit */
#define GUEST_ROOT_DEPTH_MAX 64      /* directories deep below the root */
#define GUEST_ROOT_PATH_MAX  4096    /* bytes of a path, and of it with a link's target */

/* Why a path was refused. */
enum guest_root_error {
    GUEST_ROOT_NOT_FOUND,            /* a component does not exist (or cannot be read) */
    GUEST_ROOT_NOT_REGULAR,          /* names a directory, FIFO, device or socket */
    GUEST_ROOT_NOT_DIRECTORY,        /* a component before the last is a file */
    GUEST_ROOT_TOO_MANY_LINKS,       /* more than GUEST_ROOT_LINKS_MAX links */
    GUEST_ROOT_TOO_LONG,             /* longer than GUEST_ROOT_PATH_MAX or too deep */
};

/* Opens path (as the guest names it, absolute or not) read-only below the
 * directory open at root_fd. Returns a file descriptor of a regular file
 * inside the root, or -1 with *error set. root_fd stays open. */
int guest_root_open(int root_fd, const char *path, enum guest_root_error *error);

/* A short phrase for error: "not a regular file", ... */
const char *guest_root_error_text(enum guest_root_error error);

#endif
