/* Guest paths resolved inside --guest-root (host-tools/guest_root.c): a
 * temporary tree with a file outside the root that no path or link may
 * reach ("..", relative and absolute links), links followed inside it,
 * a FIFO that must be refused without blocking, link loops, a file used
 * as a directory, and paths too long or too deep. */
#include "host-tools/guest_root.h"
#include "tests/unit/unit.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_LEN 256u

struct tree {
    char top[PATH_LEN];          /* holds root/ and secret (outside the root) */
    int root_fd;
};

static void put_file(const struct tree *t, const char *rel, const char *text)
{
    char path[2 * PATH_LEN];
    snprintf(path, sizeof(path), "%s/%s", t->top, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void put_link(const struct tree *t, const char *rel, const char *target)
{
    char path[2 * PATH_LEN];
    snprintf(path, sizeof(path), "%s/%s", t->top, rel);
    CHECK(symlink(target, path) == 0);
}

static bool make_tree(struct tree *t)
{
    snprintf(t->top, sizeof(t->top), "/tmp/vertigo-guest-root.XXXXXX");
    if (!CHECK(mkdtemp(t->top) != NULL))
        return false;
    char path[2 * PATH_LEN];
    snprintf(path, sizeof(path), "%s/root", t->top);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/root/bin", t->top);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/root/fifo", t->top);
    CHECK(mkfifo(path, 0600) == 0);
    put_file(t, "secret", "host secret\n");
    put_file(t, "root/bin/prog", "guest prog\n");
    put_file(t, "root/secret", "");                          /* removed below */
    snprintf(path, sizeof(path), "%s/root/secret", t->top);
    unlink(path);
    char secret[2 * PATH_LEN];
    snprintf(secret, sizeof(secret), "%s/secret", t->top);
    put_link(t, "root/bin/rel", "prog");
    put_link(t, "root/bin/abs", "/bin/prog");
    put_link(t, "root/bin/up", "../../../../../../../../secret");
    put_link(t, "root/bin/host", secret);
    put_link(t, "root/bin/to_fifo", "../fifo");
    put_link(t, "root/loop", "loop");
    put_link(t, "root/dev_null", "/dev/null");
    snprintf(path, sizeof(path), "%s/root", t->top);
    t->root_fd = open(path, O_RDONLY | O_DIRECTORY);
    return CHECK(t->root_fd >= 0);
}

static void remove_tree(struct tree *t)
{
    char cmd[2 * PATH_LEN];
    close(t->root_fd);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->top);
    CHECK(system(cmd) == 0);
}

/* The first line of the file path opens to, or the error's phrase. */
static const char *open_result(const struct tree *t, const char *path, char *out, size_t len)
{
    enum guest_root_error error;
    int fd = guest_root_open(t->root_fd, path, &error);
    if (fd < 0) {
        snprintf(out, len, "%s", guest_root_error_text(error));
        return out;
    }
    ssize_t n = read(fd, out, len - 1);
    close(fd);
    out[n > 0 ? n : 0] = '\0';
    return out;
}

struct path_case {
    const char *path;
    const char *result;
};

static const struct path_case cases[] = {
    { "/bin/prog", "guest prog\n" },
    { "bin/prog", "guest prog\n" },
    { "/bin/./rel", "guest prog\n" },
    { "/bin/abs", "guest prog\n" },                          /* absolute link: in the root */
    { "/../../../bin/prog", "guest prog\n" },                /* ".." stays at the root */
    { "/bin/../../../../secret", "not found in the guest root" },
    { "/bin/up", "not found in the guest root" },
    { "/bin/host", "not found in the guest root" },          /* a host path, read in the root */
    { "/dev_null", "not found in the guest root" },
    { "/fifo", "not a regular file" },
    { "/bin/to_fifo", "not a regular file" },
    { "/bin", "not a regular file" },
    { "/", "not a regular file" },
    { "", "not a regular file" },
    { "/bin/prog/x", "a component of the path is not a directory" },
    { "/loop", "too many symbolic links" },
    { "/missing", "not found in the guest root" },
};

TEST(paths_resolve_inside_the_root_to_regular_files_only)
{
    struct tree t;
    if (!make_tree(&t))
        return;
    alarm(20);                   /* a FIFO opened for reading would block */
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char got[PATH_LEN];
        open_result(&t, cases[i].path, got, sizeof(got));
        if (strcmp(got, cases[i].result))
            unit_fail(__FILE__, __LINE__, "%s: \"%s\", want \"%s\"", cases[i].path, got,
                      cases[i].result);
    }
    alarm(0);
    remove_tree(&t);
}

TEST(paths_too_long_or_too_deep_are_refused)
{
    struct tree t;
    if (!make_tree(&t))
        return;
    static char path[GUEST_ROOT_PATH_MAX + 16];
    char got[PATH_LEN];
    memset(path, 'a', sizeof(path) - 1);
    path[sizeof(path) - 1] = '\0';
    CHECK_STR(open_result(&t, path, got, sizeof(got)), "path too long or too deep");
    /* In and out of bin more often than GUEST_ROOT_DEPTH_MAX: not deep. */
    path[0] = '\0';
    for (int i = 0; i <= GUEST_ROOT_DEPTH_MAX; i++)
        strcat(path, "bin/../");
    strcat(path, "bin/prog");
    CHECK_STR(open_result(&t, path, got, sizeof(got)), "guest prog\n");
    char dir[4 * PATH_LEN];
    snprintf(dir, sizeof(dir), "%s/root", t.top);
    for (int i = 0; i <= GUEST_ROOT_DEPTH_MAX; i++) {
        strcat(dir, "/d");
        mkdir(dir, 0755);
    }
    path[0] = '\0';
    for (int i = 0; i <= GUEST_ROOT_DEPTH_MAX; i++)
        strcat(path, "d/");
    strcat(path, "f");
    CHECK_STR(open_result(&t, path, got, sizeof(got)), "path too long or too deep");
    remove_tree(&t);
}
