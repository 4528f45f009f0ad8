/* The guest agent's perf-PID.map checks (guestlib/vertigo_agent.c, built
 * here on the host with its main renamed) and the kernel module's
 * process-name sanitizer (guestlib/kmod/vertigo_ioctl.h): a map is read
 * only when it is a regular file owned by root or by its process's user,
 * not reached through a link and with one name; a FIFO is refused without
 * blocking; only "perf-PID.map" names are taken; a name with a newline or
 * an escape sequence ships as one printable line. */
#include "tests/unit/unit.h"

#include <signal.h>
#include <sys/wait.h>

int vertigo_agent_main(int argc, char **argv);
#define main vertigo_agent_main
#include "guestlib/vertigo_agent.c"
#undef main

#define OTHER_UID 12345u
#define DIR_LEN 64u

static char dir[DIR_LEN];

static const char *at(const char *name, char *path)
{
    snprintf(path, 2 * DIR_LEN, "%s/%s", dir, name);
    return path;
}

/* "ok", or why jit_open refused name as pid's map. */
static const char *verdict(uint32_t pid, const char *name)
{
    char path[2 * DIR_LEN];
    struct stat st;
    const char *why = NULL;
    int fd = jit_open(pid, at(name, path), &st, &why);
    if (fd >= 0)
        close(fd);
    return fd >= 0 ? "ok" : why;
}

static void put(const char *name)
{
    char path[2 * DIR_LEN];
    FILE *f = fopen(at(name, path), "w");
    if (f) {
        fputs("7f0000001000 10 jit\n", f);
        fclose(f);
    }
}

/* A child running as another user until killed. */
static pid_t other_user_process(void)
{
    pid_t child = fork();
    if (child == 0) {
        if (setuid(OTHER_UID) != 0)
            _exit(1);
        for (;;)
            pause();
    }
    for (int i = 0; i < 200 && process_uid((uint32_t)child) != OTHER_UID; i++)
        usleep(10000);
    return child;
}

TEST(perf_maps_are_read_only_as_perf_reads_them)
{
    char path[2 * DIR_LEN], target[2 * DIR_LEN];
    snprintf(dir, sizeof(dir), "/tmp/vertigo-agent-test.XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    alarm(20);                                     /* a FIFO opened for reading would block */
    uint32_t self = (uint32_t)getpid();
    put("ok.map");
    CHECK_STR(verdict(self, "ok.map"), "ok");
    CHECK(symlink(at("ok.map", target), at("link.map", path)) == 0);
    CHECK_STR(verdict(self, "link.map"), "a symbolic link");
    CHECK(mkfifo(at("fifo.map", path), 0666) == 0);
    CHECK_STR(verdict(self, "fifo.map"), "not a regular file");
    CHECK(mkdir(at("dir.map", path), 0755) == 0);
    CHECK_STR(verdict(self, "dir.map"), "not a regular file");
    CHECK_STR(verdict(self, "absent.map"), "cannot be opened");
    if (geteuid() == 0) {
        put("other.map");
        CHECK(chown(at("other.map", path), OTHER_UID, OTHER_UID) == 0);
        CHECK_STR(verdict(self, "other.map"), "owned by neither the process's user nor root");
        pid_t child = other_user_process();
        CHECK_STR(verdict((uint32_t)child, "other.map"), "ok");
        CHECK_STR(verdict((uint32_t)child, "ok.map"), "ok");   /* root's is accepted */
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        CHECK_STR(verdict((uint32_t)child, "other.map"), "not owned by root, and its process is gone");
        CHECK_STR(verdict((uint32_t)child, "ok.map"), "ok");
    } else {
        CHECK_STR(verdict(1, "ok.map"), "owned by neither the process's user nor root");
    }
    CHECK(link(at("ok.map", target), at("hard.map", path)) == 0);
    CHECK_STR(verdict(self, "ok.map"), "a file with other names (hard links)");
    alarm(0);
    char cmd[3 * DIR_LEN];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

TEST(only_perf_pid_map_names_are_taken)
{
    CHECK_EQ(jit_pid_of("perf-42.map"), 42);
    CHECK_EQ(jit_pid_of("perf-4194304.map"), 4194304);
    static const char *const refused[] = {
        "perf-+42.map", "perf- 42.map", "perf-042.map", "perf-0.map", "perf-.map",
        "perf-42.map.bak", "perf-42.mapx", "perf-42.MAP", "perf-4194305.map",
        "perf-99999999999999999999.map", "xperf-42.map", "perf-42",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (jit_pid_of(refused[i]))
            unit_fail(__FILE__, __LINE__, "%s taken as a perf map", refused[i]);
}

TEST(process_names_ship_as_one_printable_line)
{
    char comm[VERTIGO_COMM_LEN] = "a\n1 c000 forged";
    vertigo_comm_sanitize(comm);
    CHECK_STR(comm, "a?1 c000 forged");
    char esc[VERTIGO_COMM_LEN] = "\033[2Jx\r\x7f\xc3\xa9 ok";
    vertigo_comm_sanitize(esc);
    CHECK_STR(esc, "?[2Jx???? ok");
    char full[VERTIGO_COMM_LEN];
    memset(full, '\n', sizeof(full));               /* no NUL: stops at the size */
    vertigo_comm_sanitize(full);
    CHECK(memchr(full, '\n', sizeof(full)) == NULL);
}
