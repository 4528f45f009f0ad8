/* Resolving guest paths inside --guest-root (see guest_root.h): one
 * component at a time from a stack of directory descriptors, each opened
 * without following links; a link's target is read and put in front of
 * what is left of the path. */
#define _GNU_SOURCE   /* O_PATH */
#include "host-tools/guest_root.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where a resolution stands: the directories from the root down (dirs[0]
 * is the root, not ours to close) and the path still to resolve. */
struct walk {
    int dirs[GUEST_ROOT_DEPTH_MAX + 1];
    unsigned depth;
    char rest[GUEST_ROOT_PATH_MAX + 1];
    unsigned links;
};

static void pop_to(struct walk *w, unsigned depth)
{
    while (w->depth > depth)
        close(w->dirs[w->depth--]);
}

/* Copies the next component of w->rest into name (skipping slashes) and
 * returns true, or false at the end; *last: nothing but slashes follows. */
static bool next_component(struct walk *w, char *name, size_t *offset, bool *last)
{
    const char *p = w->rest + *offset;
    while (*p == '/')
        p++;
    if (!*p)
        return false;
    size_t n = strcspn(p, "/");
    memcpy(name, p, n);
    name[n] = '\0';
    *offset = (size_t)(p + n - w->rest);
    *last = !p[n + strspn(p + n, "/")];
    return true;
}

/* Puts the link's target in front of the rest of the path (from *offset
 * on) and resolves from its start again. */
static bool follow_link(struct walk *w, const char *name, size_t *offset,
                        enum guest_root_error *error)
{
    char target[GUEST_ROOT_PATH_MAX + 1];
    ssize_t n = readlinkat(w->dirs[w->depth], name, target, sizeof(target));
    if (++w->links > GUEST_ROOT_LINKS_MAX || n < 0 || (size_t)n >= sizeof(target)) {
        *error = n < 0 ? GUEST_ROOT_NOT_FOUND :
                 w->links > GUEST_ROOT_LINKS_MAX ? GUEST_ROOT_TOO_MANY_LINKS : GUEST_ROOT_TOO_LONG;
        return false;
    }
    size_t rest_len = strlen(w->rest + *offset);
    if ((size_t)n + 1 + rest_len > GUEST_ROOT_PATH_MAX) {
        *error = GUEST_ROOT_TOO_LONG;
        return false;
    }
    memmove(w->rest + n + 1, w->rest + *offset, rest_len + 1);
    memcpy(w->rest, target, (size_t)n);
    w->rest[n] = '/';
    *offset = 0;
    if (target[0] == '/')
        pop_to(w, 0);          /* absolute: from the guest's root */
    return true;
}

static bool enter_directory(struct walk *w, const char *name, enum guest_root_error *error)
{
    if (w->depth == GUEST_ROOT_DEPTH_MAX) {
        *error = GUEST_ROOT_TOO_LONG;
        return false;
    }
    int fd = openat(w->dirs[w->depth], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *error = GUEST_ROOT_NOT_FOUND;
        return false;
    }
    w->dirs[++w->depth] = fd;
    return true;
}

/* Opens the regular file name in the current directory; its type is
 * checked again on the open file (it may have changed since). */
static int open_regular(struct walk *w, const char *name, enum guest_root_error *error)
{
    int fd = openat(w->dirs[w->depth], name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        return fd;
    *error = fd < 0 ? GUEST_ROOT_NOT_FOUND : GUEST_ROOT_NOT_REGULAR;
    if (fd >= 0)
        close(fd);
    return -1;
}

/* One component (w->rest continues at *offset): returns 1 to go on, 0
 * with the file open in *fd, -1 on error. */
static int step(struct walk *w, const char *name, size_t *offset, bool last, int *fd,
                enum guest_root_error *error)
{
    struct stat st;
    if (!strcmp(name, "."))
        return last ? (*error = GUEST_ROOT_NOT_REGULAR, -1) : 1;
    if (!strcmp(name, "..")) {
        pop_to(w, w->depth ? w->depth - 1 : 0);
        return last ? (*error = GUEST_ROOT_NOT_REGULAR, -1) : 1;
    }
    if (fstatat(w->dirs[w->depth], name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        *error = GUEST_ROOT_NOT_FOUND;
        return -1;
    }
    if (S_ISLNK(st.st_mode))
        return follow_link(w, name, offset, error) ? 1 : -1;
    if (S_ISDIR(st.st_mode) && !last)
        return enter_directory(w, name, error) ? 1 : -1;
    if (!last) {
        *error = GUEST_ROOT_NOT_DIRECTORY;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        *error = GUEST_ROOT_NOT_REGULAR;
        return -1;
    }
    *fd = open_regular(w, name, error);
    return *fd >= 0 ? 0 : -1;
}

int guest_root_open(int root_fd, const char *path, enum guest_root_error *error)
{
    struct walk w = { .dirs = { root_fd } };
    if (strlen(path) > GUEST_ROOT_PATH_MAX) {
        *error = GUEST_ROOT_TOO_LONG;
        return -1;
    }
    strcpy(w.rest, path);
    char name[GUEST_ROOT_PATH_MAX + 1];
    size_t offset = 0;
    bool last;
    int fd = -1, status = 1;
    *error = GUEST_ROOT_NOT_REGULAR;            /* no component at all: the root itself */
    while (status > 0 && next_component(&w, name, &offset, &last))
        status = step(&w, name, &offset, last, &fd, error);
    pop_to(&w, 0);
    return status == 0 ? fd : -1;
}

const char *guest_root_error_text(enum guest_root_error error)
{
    switch (error) {
    case GUEST_ROOT_NOT_FOUND:      return "not found in the guest root";
    case GUEST_ROOT_NOT_REGULAR:    return "not a regular file";
    case GUEST_ROOT_NOT_DIRECTORY:  return "a component of the path is not a directory";
    case GUEST_ROOT_TOO_MANY_LINKS: return "too many symbolic links";
    case GUEST_ROOT_TOO_LONG:       return "path too long or too deep";
    }
    return "unreadable";
}
