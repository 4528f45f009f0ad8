/* vertigo-ctl record: see guestlib/vertigo_ctl_record.h. The command is
 * traced only up to its exec (PTRACE_TRACEME stops it there): the exec
 * gives it the page tables the session is scoped to, and nothing of it
 * runs before the session starts. */
#include "guestlib/vertigo_ctl_record.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"

#define AGENT_PATH     "/bin/vertigo-agent"
#define EXIT_NOT_RUN   127       /* the shell's "command not found" */
#define EXIT_SIGNALLED 128

/* Starts cmd traced: it stops at its exec. Returns its pid, or -1 after
 * a message. */
static pid_t spawn_stopped(char **cmd)
{
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "vertigo-ctl: record: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
            execvp(cmd[0], cmd);
        fprintf(stderr, "vertigo-ctl: record: %s: %s\n", cmd[0], strerror(errno));
        _exit(EXIT_NOT_RUN);
    }
    int status;
    if (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status))
        return pid;
    fprintf(stderr, "vertigo-ctl: record: %s did not start\n", cmd[0]);
    return -1;
}

/* Ships the guest agent's maps of pid, when the agent is installed (the
 * host names the command's user samples with them); quiet otherwise. */
static void ship_maps(pid_t pid)
{
    if (access(AGENT_PATH, X_OK))
        return;
    char arg[16];
    snprintf(arg, sizeof(arg), "%d", (int)pid);
    pid_t agent = fork();
    if (agent == 0) {
        execl(AGENT_PATH, AGENT_PATH, "--ship-pid", arg, (char *)NULL);
        _exit(EXIT_NOT_RUN);
    }
    if (agent > 0)
        waitpid(agent, NULL, 0);
}

/* The identity of stopped process pid goes to the log; its page-table
 * root into *cr3. 0, or 1 after a message. */
static int identify(pid_t pid, uint64_t *cr3, char comm[VERTIGO_COMM_LEN])
{
    int fd = vertigo_dev_open();
    struct vertigo_process_query q = { .pid = (uint32_t)pid };
    int rc = fd < 0 ? fd : vertigo_dev_process(fd, &q);
    if (fd >= 0)
        close(fd);
    if (rc) {
        fprintf(stderr, "vertigo-ctl: record: %s of pid %d: %s\n", VERTIGO_DEV_PATH, (int)pid,
                strerror(-rc));
        return 1;
    }
    *cr3 = q.cr3;
    memcpy(comm, q.comm, VERTIGO_COMM_LEN);
    return 0;
}

static int exit_status_of(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_SIGNALLED + WTERMSIG(status);
}

int record_run(struct vertigo_session *s, char **cmd,
               int (*start)(const struct vertigo_session *s), int (*stop)(void))
{
    char comm[VERTIGO_COMM_LEN] = "";
    pid_t pid = spawn_stopped(cmd);
    if (pid < 0)
        return 1;
    s->flags |= VERTIGO_SESSION_PROCESS;
    if (identify(pid, &s->process_cr3, comm) || (ship_maps(pid), start(s))) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return 1;
    }
    printf("vertigo-ctl: record: pid %d (%s), page-table root %#llx\n", (int)pid, comm,
           (unsigned long long)s->process_cr3);
    fflush(stdout);
    signal(SIGINT, SIG_IGN);         /* ^C ends the command, then the session */
    signal(SIGQUIT, SIG_IGN);
    int status = 0;
    ptrace(PTRACE_DETACH, pid, NULL, NULL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    int stopped_rc = stop();
    printf("vertigo-ctl: record: pid %d exited with status %d\n", (int)pid, exit_status_of(status));
    return stopped_rc ? stopped_rc : exit_status_of(status);
}
