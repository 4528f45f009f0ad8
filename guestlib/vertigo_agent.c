/* vertigo-agent: the guest's symbol shipper. Loads vertigo.ko,
 * then hands Vertigo, through /dev/vertigo, what the host needs to name a
 * sample: the kernel's text symbols (/proc/kallsyms, kind 1), each user
 * process's /proc/PID/maps (kind 2) and identity "PID CR3 COMM" (kind 4),
 * at start and whenever a process appears or execs (a new CR3; the kernel
 * module ships each new program's executable mappings at its exec or fork
 * already, the agent's scan adds what it maps later), and JIT
 * maps /tmp/perf-PID.map (kind 3), the whole file again under a new epoch
 * each time its text changes (looked at when its size or mtime does). Text is cut into chunks of at most
 * VERTIGO_SYMBOLS_CHUNK_MAX bytes at line boundaries. At start it also
 * ships the kernel's GNU build id (/sys/kernel/notes, kind 5) and
 * declares where the kernel's ORC unwind tables lie (VERTIGO_IOC_KERNEL_ORC),
 * so Vertigo walks kernel call stacks with them.
 *
 * The agent runs as root and /tmp is anyone's: a perf-PID.map is read
 * only as perf reads one, a regular file owned by the process's user or
 * by root (jit_open), and never through a link, so no user can ship
 * /etc/shadow into the log or hang the agent on a FIFO.
 *
 *   vertigo-agent [--daemon] [--module KO] [--log FILE] [--pidfile FILE]
 *       load the module, ship kallsyms and the first scan, print "ready";
 *       with --daemon go on in the background (processes polled every
 *       SCAN_INTERVAL_MS, JIT maps on inotify), else stop there. SIGTERM:
 *       one last scan, then exit.
 *   vertigo-agent --ship-pid PID    ship PID's maps and identity now
 *   vertigo-agent --stop [--pidfile FILE]
 *       SIGTERM the daemon and wait until it has done its last scan.
 * Exit status: 0 done, 1 failure, 2 usage error, 3 not under Vertigo (no
 * output: the agent is harmless in a bare guest), 4 Vertigo takes no
 * symbols (HC_SYMBOLS unknown). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guestlib/kernel_build_id.h"
#include "guestlib/vertigo_guest.h"
#include "vertigo/log_format.h"

#define DEFAULT_MODULE    "/lib/vertigo.ko"
#define DEFAULT_LOG       "/tmp/vertigo-agent.log"
#define DEFAULT_PIDFILE   "/tmp/vertigo-agent.pid"
#define JIT_DIR           "/tmp"
#define SCAN_INTERVAL_MS  100
#define SHIPS_PER_SCAN    32          /* processes shipped per scan at most */
#define JIT_MAPS_MAX      64          /* perf-PID.map files tracked */
#define JIT_PID_MAX       4194304u    /* PID_MAX_LIMIT: larger is no PID */
#define TEXT_MAX          (8u << 20)  /* largest text set shipped */
#define STOP_WAIT_MS      30000

struct text {
    char *buf;
    size_t len, cap;
};

struct ship_stats {
    uint64_t chunks, bytes, failures;
};

struct process_seen {
    uint32_t pid;
    uint64_t cr3;
};

struct jit_map {
    uint32_t pid;
    off_t size;
    struct timespec mtime;
    uint64_t epoch;
    uint64_t shipped_hash;          /* the text of the last epoch shipped (FNV-1a) */
    const char *refused;            /* why the file was last refused (logged once), or NULL */
};

struct agent {
    int dev;
    FILE *log;
    struct ship_stats stats;
    struct process_seen *procs;     /* VERTIGO_PROCESS_MAX */
    unsigned proc_count;
    struct vertigo_process_entry *list;
    struct jit_map jits[JIT_MAPS_MAX];
    unsigned jit_count;
    uint64_t processes_shipped, jit_epochs_shipped;
    int last_error;                 /* errno of the last refused chunk */
};

static volatile sig_atomic_t stop_requested;

__attribute__((format(printf, 2, 3)))
static void agent_log(struct agent *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("vertigo-agent: ", a->log);
    vfprintf(a->log, fmt, ap);
    fputc('\n', a->log);
    fflush(a->log);
    va_end(ap);
}

/* ---- text buffers ---------------------------------------------------- */

static int text_append(struct text *t, const char *p, size_t n)
{
    if (t->len + n > TEXT_MAX)
        return -1;
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            return -1;
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
    return 0;
}

/* Reads what is left of fd, at most TEXT_MAX bytes; 0 or -errno. */
static int text_read_fd(struct text *t, int fd)
{
    char block[4096];
    ssize_t n;
    t->len = 0;
    while ((n = read(fd, block, sizeof(block))) > 0)
        if (text_append(t, block, (size_t)n))
            return -EFBIG;
    return n < 0 ? -errno : 0;
}

/* Reads a whole (proc) file; 0 or -errno. */
static int text_read_file(struct text *t, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int err = text_read_fd(t, fd);
    close(fd);
    return err;
}

/* Drops an unfinished last line (a file being written). */
static void text_whole_lines(struct text *t)
{
    while (t->len && t->buf[t->len - 1] != '\n')
        t->len--;
}

/* ---- shipping -------------------------------------------------------- */

/* Length of the next chunk of text[0..len): whole lines up to the limit. */
static size_t chunk_length(const char *text, size_t len)
{
    if (len <= VERTIGO_SYMBOLS_CHUNK_MAX)
        return len;
    size_t cut = VERTIGO_SYMBOLS_CHUNK_MAX;
    while (cut && text[cut - 1] != '\n')
        cut--;
    return cut ? cut : VERTIGO_SYMBOLS_CHUNK_MAX;   /* one over-long line */
}

/* Ships text as one data set of (kind, pid, epoch). Returns 0 or the
 * -errno of the first refused chunk (the rest of the set is not sent). */
static int ship_text(struct agent *a, uint32_t kind, uint32_t pid, uint64_t epoch,
                     const char *text, size_t len)
{
    struct vertigo_symbols_chunk c = { .kind = kind, .pid = pid, .epoch = epoch };
    for (size_t off = 0; off < len; c.chunk++) {
        c.len = (uint32_t)chunk_length(text + off, len - off);
        c.data = (uint64_t)(uintptr_t)(text + off);
        c.last = off + c.len == len;
        int rc = vertigo_dev_symbols(a->dev, &c);
        if (rc) {
            a->stats.failures++;
            a->last_error = -rc;
            return rc;
        }
        a->stats.chunks++;
        a->stats.bytes += c.len;
        off += c.len;
    }
    return 0;
}

static int is_text_symbol(const char *line)
{
    const char *sp = strchr(line, ' ');
    char t = sp ? sp[1] : 0;
    return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* What the kernel's ORC declaration needs from /proc/kallsyms, noted while
 * ship_kallsyms reads it: one read, not two (the kernel formats its whole
 * symbol table for each, and a second read parsing every line took about
 * 9 s of guest time in Bochs, half of the agent's start-up). */
enum { KSYM_STEXT, KSYM_ETEXT, KSYM_ORC_IP, KSYM_ORC_IP_END, KSYM_ORC, KSYM_COUNT };
static const char *const kernel_orc_symbols[KSYM_COUNT] = {
    "_stext", "_etext", "__start_orc_unwind_ip", "__stop_orc_unwind_ip", "__start_orc_unwind",
};
struct orc_symbols {
    int read_errno;                 /* 0: /proc/kallsyms was read */
    uint64_t addr[KSYM_COUNT];      /* 0: absent */
};

/* A kallsyms line "ADDRESS TYPE NAME[\t[MODULE]]": the address of one of
 * kernel_orc_symbols goes into its slot, the first nonzero one found. */
static void note_orc_symbol(const char *line, struct orc_symbols *o)
{
    const char *sp = strchr(line, ' ');
    if (!sp || !sp[1] || sp[2] != ' ')
        return;
    const char *name = sp + 3;
    size_t len = strcspn(name, " \t\n");
    for (int i = 0; i < KSYM_COUNT; i++)
        if (!o->addr[i] && strlen(kernel_orc_symbols[i]) == len &&
            !strncmp(name, kernel_orc_symbols[i], len))
            o->addr[i] = strtoull(line, NULL, 16);
}

/* Kernel text symbols only: the host resolves nothing else. Notes the
 * ORC declaration's symbols in o on the way. */
static int ship_kallsyms(struct agent *a, struct orc_symbols *o)
{
    *o = (struct orc_symbols){ 0 };
    FILE *f = fopen("/proc/kallsyms", "re");
    if (!f) {
        o->read_errno = errno;
        agent_log(a, "kallsyms: cannot open /proc/kallsyms: %s", strerror(errno));
        return -o->read_errno;
    }
    struct text t = { 0 };
    char line[512];
    unsigned long symbols = 0;
    while (fgets(line, sizeof(line), f)) {
        note_orc_symbol(line, o);
        if (is_text_symbol(line) && strncmp(line, "0000000000000000", 16) &&
            !text_append(&t, line, strlen(line)))
            symbols++;
    }
    fclose(f);
    uint64_t chunks0 = a->stats.chunks;
    int rc = symbols ? ship_text(a, LOG_SYM_KALLSYMS, 0, 0, t.buf, t.len) : -ENODATA;
    if (rc == 0)
        agent_log(a, "kallsyms: shipped %llu chunks, %zu bytes, %lu text symbols",
                  (unsigned long long)(a->stats.chunks - chunks0), t.len, symbols);
    else
        agent_log(a, "kallsyms: not shipped (%lu text symbols): %s", symbols, strerror(-rc));
    free(t.buf);
    return rc;
}

/* The kernel's GNU build id (kind 5), so the host can name its build. */
static void ship_kernel_build_id(struct agent *a)
{
    char hex[KERNEL_BUILD_ID_HEX + 1];
    size_t n = kernel_build_id_read("/sys/kernel/notes", hex);
    if (!n) {
        agent_log(a, "kernel build id: none in /sys/kernel/notes");
        return;
    }
    size_t len = 2 * n;
    hex[len++] = '\n';
    int rc = ship_text(a, LOG_SYM_KERNEL_BUILD_ID, 0, 0, hex, len);
    agent_log(a, "kernel build id: %.*s: %s", (int)(2 * n), hex, rc ? strerror(-rc) : "shipped");
}

/* ---- the kernel's unwind tables ---------------------------------------- */

/* Tells Vertigo where the kernel's ORC tables are, so it can walk kernel
 * stacks without frame pointers; a kernel without them keeps its frame
 * pointers. Vertigo reads the tables itself. */
static int declare_kernel_orc(struct agent *a, const struct orc_symbols *o)
{
    if (o->read_errno) {
        agent_log(a, "kernel ORC: cannot read /proc/kallsyms: %s", strerror(o->read_errno));
        return -o->read_errno;
    }
    const uint64_t *addr = o->addr;
    int rc;
    struct vertigo_kernel_orc k = { .abi_version = VERTIGO_KERNEL_ORC_ABI };
    bool orc = addr[KSYM_ORC_IP] && addr[KSYM_ORC_IP_END] > addr[KSYM_ORC_IP] && addr[KSYM_ORC];
    if (orc) {
        k.format = VERTIGO_ORC_LINUX_V1;        /* the module sets the real layout */
        k.text_start = addr[KSYM_STEXT];
        k.text_end = addr[KSYM_ETEXT];
        k.ip_table = addr[KSYM_ORC_IP];
        k.orc_table = addr[KSYM_ORC];
        k.count = (uint32_t)((addr[KSYM_ORC_IP_END] - addr[KSYM_ORC_IP]) / sizeof(int32_t));
    }
    rc = vertigo_dev_kernel_orc(a->dev, &k);
    if (rc)
        agent_log(a, "kernel ORC: not declared: %s", strerror(-rc));
    else if (orc)
        agent_log(a, "kernel ORC: declared %u entries for text %#llx-%#llx", k.count,
                  (unsigned long long)k.text_start, (unsigned long long)k.text_end);
    else
        agent_log(a, "kernel ORC: none in kallsyms: kernel stacks by frame pointers");
    return rc;
}

/* Ships pid's identity (kind 4). */
static int ship_identity(struct agent *a, uint32_t pid, struct vertigo_process_query *q)
{
    *q = (struct vertigo_process_query){ .pid = pid };
    int rc = vertigo_dev_process(a->dev, q);
    if (rc && rc != -ESRCH && rc != -ENOENT) {
        a->stats.failures++;
        a->last_error = -rc;
    }
    return rc;
}

/* Whether the maps text t has an executable line ("start-end r-xp ..."):
 * a process in the middle of an exec has only its new stack mapped, and
 * a set without code would describe no program (the module ships the
 * new program's own at the end of the exec). */
static bool maps_have_code(const struct text *t)
{
    for (const char *line = t->buf; line && line < t->buf + t->len;) {
        const char *perms = memchr(line, ' ', (size_t)(t->buf + t->len - line));
        if (perms && perms + 3 < t->buf + t->len && perms[3] == 'x')
            return true;
        line = memchr(line, '\n', (size_t)(t->buf + t->len - line));
        line = line ? line + 1 : NULL;
    }
    return false;
}

/* Ships pid's maps (kind 2) between two identities (kind 4). The maps
 * are the address space's both identities name only if the process did
 * not exec in between (its page-table root would differ): then they are
 * read and shipped again, so the last set of the pid describes the
 * program it runs (the kernel module ships each new program's own at
 * its exec as well). Maps with no code are not shipped (maps_have_code). */
static int ship_process(struct agent *a, uint32_t pid)
{
    char path[64];
    struct text t = { 0 };
    struct vertigo_process_query before, after;
    snprintf(path, sizeof(path), "/proc/%u/maps", pid);
    int rc = ship_identity(a, pid, &before);
    for (int attempt = 0; rc == 0 && attempt < 3; attempt++) {
        rc = text_read_file(&t, path);
        if (rc == 0 && t.len && maps_have_code(&t))
            rc = ship_text(a, LOG_SYM_PROC_MAPS, pid, 0, t.buf, t.len);
        if (rc == 0)
            rc = ship_identity(a, pid, &after);
        if (rc || after.cr3 == before.cr3)
            break;
        before = after;
    }
    free(t.buf);
    if (rc)
        return rc;
    a->processes_shipped++;
    agent_log(a, "process: pid %u cr3 %#llx comm %s: maps %zu bytes", pid,
              (unsigned long long)after.cr3, after.comm, t.len);
    return 0;
}

/* ---- processes ------------------------------------------------------- */

static struct process_seen *process_find(struct agent *a, uint32_t pid)
{
    for (unsigned i = 0; i < a->proc_count; i++)
        if (a->procs[i].pid == pid)
            return &a->procs[i];
    return NULL;
}

/* Remembers (pid, cr3) after a ship; forgets processes gone from list. */
static void process_remember(struct agent *a, uint32_t pid, uint64_t cr3)
{
    struct process_seen *p = process_find(a, pid);
    if (!p && a->proc_count < VERTIGO_PROCESS_MAX)
        p = &a->procs[a->proc_count++];
    if (p)
        *p = (struct process_seen){ pid, cr3 };
}

static void process_forget_gone(struct agent *a, const struct vertigo_process_list *l)
{
    for (unsigned i = 0; i < a->proc_count;) {
        int alive = 0;
        for (unsigned j = 0; j < l->count && !alive; j++)
            alive = a->list[j].pid == a->procs[i].pid;
        if (alive)
            i++;
        else
            a->procs[i] = a->procs[--a->proc_count];
    }
}

/* Ships processes that are new or have exec'd since the last scan. */
static void scan_processes(struct agent *a)
{
    struct vertigo_process_list l = {
        .entries = (uint64_t)(uintptr_t)a->list, .capacity = VERTIGO_PROCESS_MAX };
    int rc = vertigo_dev_process_list(a->dev, &l);
    if (rc) {
        agent_log(a, "process list: %s", strerror(-rc));
        return;
    }
    process_forget_gone(a, &l);
    unsigned shipped = 0;
    for (unsigned i = 0; i < l.count && shipped < SHIPS_PER_SCAN; i++) {
        const struct process_seen *p = process_find(a, a->list[i].pid);
        if (p && p->cr3 == a->list[i].cr3)
            continue;
        rc = ship_process(a, a->list[i].pid);
        shipped++;
        if (rc == 0 || rc == -ESRCH || rc == -ENOENT)
            process_remember(a, a->list[i].pid, a->list[i].cr3);
    }
}

/* ---- JIT maps -------------------------------------------------------- */

/* The PID of a file named exactly "perf-PID.map" (decimal, no sign or
 * space, below 2^22: PID_MAX_LIMIT), else 0. */
static uint32_t jit_pid_of(const char *name)
{
    static const char prefix[] = "perf-", suffix[] = ".map";
    const char *p = name + sizeof(prefix) - 1;
    uint32_t pid = 0;
    if (strncmp(name, prefix, sizeof(prefix) - 1) || *p < '1' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        pid = pid * 10 + (uint32_t)(*p - '0');
        if (pid > JIT_PID_MAX)
            return 0;
    }
    return strcmp(p, suffix) ? 0 : pid;
}

/* The effective user of process pid (from /proc/PID/status), or -1 when
 * it is gone. */
static long process_uid(uint32_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%u/status", pid);
    FILE *f = fopen(path, "re");
    long uid = -1;
    unsigned long real, effective;
    while (f && uid < 0 && fgets(line, sizeof(line), f))
        if (sscanf(line, "Uid: %lu %lu", &real, &effective) == 2)
            uid = (long)effective;
    if (f)
        fclose(f);
    return uid;
}

/* Opens pid's JIT map at path read-only as perf accepts a map file: a
 * regular file, not reached through a symbolic link, owned by root or by
 * the process's user (only root's once the process is gone), and with
 * one name (a hard link could dress another file up as a map). The open
 * neither follows a link nor waits for a FIFO's writer, and the checks
 * are made on the open file. Returns its descriptor and stat, or -1 with
 * *why saying what was refused. */
static int jit_open(uint32_t pid, const char *path, struct stat *st, const char **why)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        *why = errno == ELOOP ? "a symbolic link" : "cannot be opened";
        return -1;
    }
    long uid = process_uid(pid);
    if (fstat(fd, st) != 0)
        *why = "cannot be read";
    else if (!S_ISREG(st->st_mode))
        *why = "not a regular file";
    else if (st->st_uid != 0 && (uid < 0 || st->st_uid != (uid_t)uid))
        *why = uid < 0 ? "not owned by root, and its process is gone"
                       : "owned by neither the process's user nor root";
    else if (st->st_nlink != 1)
        *why = "a file with other names (hard links)";
    else
        return fd;
    close(fd);
    return -1;
}

/* The slot of pid's map; when all are taken, one of a refused file or of
 * a process that is gone is given up. NULL if none can be. */
static struct jit_map *jit_slot(struct agent *a, uint32_t pid)
{
    for (unsigned i = 0; i < a->jit_count; i++)
        if (a->jits[i].pid == pid)
            return &a->jits[i];
    struct jit_map *j = a->jit_count < JIT_MAPS_MAX ? &a->jits[a->jit_count++] : NULL;
    for (unsigned i = 0; !j && i < a->jit_count; i++)
        if (a->jits[i].refused || (kill((pid_t)a->jits[i].pid, 0) != 0 && errno == ESRCH))
            j = &a->jits[i];
    if (j)
        *j = (struct jit_map){ .pid = pid };
    return j;
}

/* FNV-1a over len bytes. */
static uint64_t text_hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

static int jit_changed(const struct jit_map *j, const struct stat *st)
{
    return j->size != st->st_size || j->mtime.tv_sec != st->st_mtim.tv_sec ||
           j->mtime.tv_nsec != st->st_mtim.tv_nsec;
}

/* Logs a refused map once per reason (it is looked at every scan). */
static void jit_refuse(struct agent *a, struct jit_map *j, const char *path, const char *why)
{
    if (j->refused != why)
        agent_log(a, "jit: %s refused: %s", path, why);
    j->refused = why;
}

/* Ships path as pid's JIT map under the next epoch if it changed. */
static void jit_consider(struct agent *a, uint32_t pid, const char *path)
{
    struct stat st;
    const char *why;
    struct jit_map *j = jit_slot(a, pid);
    if (!j)
        return;
    int fd = jit_open(pid, path, &st, &why);
    if (fd < 0) {
        jit_refuse(a, j, path, why);
        return;
    }
    j->refused = NULL;
    struct text t = { 0 };
    int rc = jit_changed(j, &st) ? text_read_fd(&t, fd) : -EAGAIN;
    close(fd);
    text_whole_lines(&t);
    /* A write sets the file's mtime before its size grows (Linux updates
     * the time first, then copies the data): a scan between the two sees
     * a new mtime over the old text. The same text is no new epoch, and
     * its size and mtime are not recorded: the next scan reads it again. */
    uint64_t hash = t.len ? text_hash(t.buf, t.len) : 0;
    if (rc == 0 && t.len && j->epoch && hash == j->shipped_hash)
        rc = -EAGAIN;
    if (rc == 0 && t.len) {
        j->shipped_hash = hash;
        j->size = st.st_size;
        j->mtime = st.st_mtim;
        j->epoch++;
        rc = ship_text(a, LOG_SYM_JIT_MAP, pid, j->epoch, t.buf, t.len);
        a->jit_epochs_shipped += rc == 0;
        agent_log(a, "jit: pid %u epoch %llu: %zu bytes: %s", pid,
                  (unsigned long long)j->epoch, t.len, rc ? strerror(-rc) : "shipped");
    }
    free(t.buf);
}

static void scan_jit_maps(struct agent *a)
{
    DIR *d = opendir(JIT_DIR);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        uint32_t pid = jit_pid_of(e->d_name);
        if (!pid)
            continue;
        char path[300];
        snprintf(path, sizeof(path), "%s/%s", JIT_DIR, e->d_name);
        jit_consider(a, pid, path);
    }
    closedir(d);
}

/* ---- module, daemon, commands ---------------------------------------- */

/* Loads the module unless /dev/vertigo exists; 0 or -errno. */
static int load_module(const char *path)
{
    if (access(VERTIGO_DEV_PATH, F_OK) == 0)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    long r = syscall(SYS_finit_module, fd, "", 0);
    int err = r ? errno : 0;
    close(fd);
    return err == EEXIST ? 0 : -err;
}

static int open_device(const char *module)
{
    int rc = load_module(module);
    if (rc == -ENODEV) {
        fprintf(stderr, "vertigo-agent: %s refused to load: no Vertigo (ENODEV)\n", module);
        return -1;
    }
    if (rc) {
        fprintf(stderr, "vertigo-agent: cannot load %s: %s\n", module, strerror(-rc));
        return -1;
    }
    int fd = vertigo_dev_open();
    if (fd < 0)
        fprintf(stderr, "vertigo-agent: %s: %s\n", VERTIGO_DEV_PATH, strerror(-fd));
    return fd;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void on_sigterm(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void drain_inotify(int fd)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
}

/* The daemon: JIT maps on inotify (or the poll), processes each interval. */
static void agent_loop(struct agent *a)
{
    int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ino >= 0 && inotify_add_watch(ino, JIT_DIR, IN_CLOSE_WRITE | IN_MODIFY |
                                      IN_CREATE | IN_MOVED_TO) < 0) {
        close(ino);
        ino = -1;
    }
    uint64_t next_scan = now_ms() + SCAN_INTERVAL_MS;
    while (!stop_requested) {
        uint64_t t = now_ms();
        int wait_ms = t >= next_scan ? 0 : (int)(next_scan - t);
        struct pollfd p = { .fd = ino, .events = POLLIN };
        int ready = poll(&p, ino >= 0 ? 1 : 0, wait_ms);
        if (ready > 0) {
            drain_inotify(ino);
            scan_jit_maps(a);
        }
        if (now_ms() >= next_scan) {
            scan_processes(a);
            scan_jit_maps(a);
            next_scan = now_ms() + SCAN_INTERVAL_MS;
        }
    }
    if (ino >= 0)
        close(ino);
}

static void log_totals(struct agent *a, const char *what)
{
    agent_log(a, "%s: %llu processes, %llu jit epochs, %llu chunks, %llu bytes, %llu refused",
              what, (unsigned long long)a->processes_shipped,
              (unsigned long long)a->jit_epochs_shipped, (unsigned long long)a->stats.chunks,
              (unsigned long long)a->stats.bytes, (unsigned long long)a->stats.failures);
}

static int write_pidfile(const char *path, pid_t pid)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    fprintf(f, "%d\n", (int)pid);
    return fclose(f);
}

/* Forks the daemon; the parent records its pid and returns. */
static int daemonize(struct agent *a, const char *pidfile)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid > 0)
        return write_pidfile(pidfile, pid) ? -1 : 1;
    setsid();
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        close(null);
    }
    signal(SIGTERM, on_sigterm);
    agent_loop(a);
    scan_processes(a);      /* last look: processes that appeared late */
    scan_jit_maps(a);
    log_totals(a, "stopped");
    unlink(pidfile);
    return 0;
}

struct options {
    int daemon;
    const char *module, *log, *pidfile;
};

static int agent_run(const struct options *o)
{
    if (!vertigo_present())
        return 3;
    struct agent a = { .procs = calloc(VERTIGO_PROCESS_MAX, sizeof(*a.procs)),
                       .list = calloc(VERTIGO_PROCESS_MAX, sizeof(*a.list)) };
    a.log = strcmp(o->log, "-") ? fopen(o->log, "ae") : stdout;
    if (!a.log || !a.procs || !a.list) {
        fprintf(stderr, "vertigo-agent: %s: %s\n", o->log, strerror(errno));
        return 1;
    }
    a.dev = open_device(o->module);
    if (a.dev < 0)
        return 1;
    /* Its own maps and identity first: reading and shipping the kernel's
     * symbols takes the agent seconds of user time in Bochs, which a
     * session sampling since boot could not name otherwise. */
    ship_process(&a, (uint32_t)getpid());
    struct orc_symbols orc;
    if (ship_kallsyms(&a, &orc) != 0 && a.last_error == ENOSYS) {
        printf("vertigo-agent: Vertigo takes no symbols (HC_SYMBOLS unknown: ENOSYS); "
               "module loaded, agent not started\n");
        return 4;
    }
    ship_kernel_build_id(&a);   /* refused by an older Vertigo: logged */
    declare_kernel_orc(&a, &orc); /* refused (an older Vertigo, declared before): logged */
    scan_processes(&a);
    scan_jit_maps(&a);
    log_totals(&a, "ready");
    printf("vertigo-agent: ready: %llu chunks, %llu bytes shipped, %llu refused\n",
           (unsigned long long)a.stats.chunks, (unsigned long long)a.stats.bytes,
           (unsigned long long)a.stats.failures);
    if (!o->daemon)
        return 0;
    int rc = daemonize(&a, o->pidfile);
    if (rc < 0)
        fprintf(stderr, "vertigo-agent: cannot start the daemon: %s\n", strerror(errno));
    return rc < 0 ? 1 : 0;
}

static int ship_pid_command(const char *pid_text, const char *module)
{
    char *end;
    unsigned long pid = strtoul(pid_text, &end, 10);
    if (*end || !pid || pid > 0x3fffffff) {
        fprintf(stderr, "vertigo-agent: --ship-pid needs a process id, not '%s'\n", pid_text);
        return 2;
    }
    if (!vertigo_present())
        return 3;
    struct agent a = { .log = stdout };
    a.dev = open_device(module);
    if (a.dev < 0)
        return 1;
    int rc = ship_process(&a, (uint32_t)pid);
    if (rc)
        fprintf(stderr, "vertigo-agent: pid %lu not shipped: %s\n", pid, strerror(-rc));
    return rc ? 1 : 0;
}

static int stop_command(const char *pidfile)
{
    FILE *f = fopen(pidfile, "re");
    int pid = 0;
    if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 1) {
        if (f)
            fclose(f);
        return 0;               /* no daemon runs: nothing to stop */
    }
    fclose(f);
    if (kill(pid, SIGTERM) != 0) {
        unlink(pidfile);
        return 0;
    }
    for (int waited = 0; waited < STOP_WAIT_MS; waited += 20) {
        if (access(pidfile, F_OK) != 0)
            return 0;
        usleep(20000);
    }
    fprintf(stderr, "vertigo-agent: the daemon (pid %d) did not stop\n", pid);
    return 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: vertigo-agent [--daemon] [--module KO] [--log FILE] [--pidfile FILE]\n"
                    "       vertigo-agent --ship-pid PID [--module KO]\n"
                    "       vertigo-agent --stop [--pidfile FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct options o = { 0, DEFAULT_MODULE, DEFAULT_LOG, DEFAULT_PIDFILE };
    const char *ship_pid = NULL;
    int stop = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(opt, "--daemon"))
            o.daemon = 1;
        else if (!strcmp(opt, "--stop"))
            stop = 1;
        else if (has_value && !strcmp(opt, "--module"))
            o.module = argv[++i];
        else if (has_value && !strcmp(opt, "--log"))
            o.log = argv[++i];
        else if (has_value && !strcmp(opt, "--pidfile"))
            o.pidfile = argv[++i];
        else if (has_value && !strcmp(opt, "--ship-pid"))
            ship_pid = argv[++i];
        else
            return usage();
    }
    if (stop)
        return stop_command(o.pidfile);
    if (ship_pid)
        return ship_pid_command(ship_pid, o.module);
    return agent_run(&o);
}
