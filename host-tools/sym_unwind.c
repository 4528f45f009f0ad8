/* User call stacks unwound on the host from a copied user stack, as perf
 * --call-graph dwarf does: elfutils' unwinder (libdwfl's dwfl_getthread_
 * frames) runs the DWARF call-frame information (.eh_frame, .debug_frame)
 * of the process's ELF files over the registers and stack bytes Vertigo
 * copied with the sample (LOG_REC_USER_STACK). Code without frame
 * pointers, Debian's glibc included, unwinds as well as code with them.
 *
 * One Dwfl per process (rebuilt when its maps change) holds every
 * executable file mapping the agent shipped, opened under --guest-root
 * and checked like the symbolizer's ELFs (no other file is looked for);
 * memory reads are answered from the copied bytes only, so a walk never
 * goes beyond what the guest gave. */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/guest_root.h"
#include "host-tools/sym_internal.h"

/* libdwfl's x86-64 DWARF register numbers (System V psABI, figure 3.36). */
enum { DW_RBX = 3, DW_RBP = 6, DW_RSP = 7, DW_R12 = 12 };

struct sym_unwinder {
    size_t proc;                    /* the process (index: the table may move) ... */
    uint32_t generation;            /* ... and the maps set it was built for (its seq) */
    Dwfl *dwfl;                     /* NULL: nothing to unwind with */
};

/* What the callbacks of one walk read. */
struct walk {
    const struct log_user_stack *us;
    uint64_t *out;
    unsigned int max, count;
    bool first;
};

/* ---- The thread callbacks: one thread, the copied stack ---------------- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    (void)dwfl;
    if (*thread_argp)
        return 0;
    *thread_argp = arg;
    return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
    (void)dwfl, (void)tid;
    *thread_argp = arg;
    return true;
}

/* Only the copied bytes: an address outside them ends the walk there. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    const struct walk *w = *(struct walk **)arg;
    uint64_t rsp = w->us->regs[LOG_UREG_RSP];
    if (addr < rsp || addr - rsp > w->us->len || w->us->len - (addr - rsp) < sizeof(*result))
        return false;
    memcpy(result, w->us->data + (addr - rsp), sizeof(*result));
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    const struct log_user_stack *us = (*(struct walk **)arg)->us;
    Dwarf_Word bx = us->regs[LOG_UREG_RBX];
    Dwarf_Word bp_sp[2] = { us->regs[LOG_UREG_RBP], us->regs[LOG_UREG_RSP] };
    Dwarf_Word r12_15[4] = { us->regs[LOG_UREG_R12], us->regs[LOG_UREG_R13],
                             us->regs[LOG_UREG_R14], us->regs[LOG_UREG_R15] };
    if (!dwfl_thread_state_registers(thread, DW_RBX, 1, &bx) ||
        !dwfl_thread_state_registers(thread, DW_RBP, 2, bp_sp) ||
        !dwfl_thread_state_registers(thread, DW_R12, 4, r12_15))
        return false;
    dwfl_thread_state_register_pc(thread, us->regs[LOG_UREG_RIP]);
    return true;
}

/* The walk under way: the Dwfl of every process keeps a pointer to this
 * cell (its attach argument), set around each walk (the host tools are
 * single-threaded; the unwinders array may move, this cell does not). */
static struct walk *current_walk;

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* ---- One Dwfl per process ------------------------------------------------ */

/* Reports m's file (its first executable mapping gives the load bias). */
static void report_mapping(int root_fd, Dwfl *dwfl, const struct map_entry *m)
{
    enum guest_root_error error;
    char why[128];
    int fd = guest_root_open(root_fd, m->path, &error);
    if (fd < 0)
        return;
    if (!sym_elf_guest_file_ok(fd, why, sizeof(why)) ||     /* the symbolizer warns about it */
        !dwfl_report_elf(dwfl, m->path, m->path, fd, m->start - m->offset, false))
        close(fd);
}

/* True if an earlier executable mapping of p maps the same file (paths
 * are interned: one pointer per name). */
static bool reported_before(const struct maps_set *p, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (p->maps[j].exec && p->maps[j].path == p->maps[i].path)
            return true;
    return false;
}

static Dwfl *process_dwfl(struct symbolizer *s, const struct process *proc, const struct maps_set *p)
{
    Dwfl *dwfl = sym_elf_guest_dwfl();
    if (!dwfl)
        return NULL;
    dwfl_report_begin(dwfl);
    for (size_t i = 0; i < p->count; i++)
        if (p->maps[i].exec && p->maps[i].path && p->maps[i].path[0] == '/' &&
            !reported_before(p, i))
            report_mapping(sym_root_fd(s, proc->domain), dwfl, &p->maps[i]);
    dwfl_report_end(dwfl, NULL, NULL);
    if (!dwfl_attach_state(dwfl, NULL, 1, &thread_callbacks, &current_walk)) {
        dwfl_end(dwfl);
        return NULL;
    }
    return dwfl;
}

/* The unwinder of process p's maps set `set` (one per process: the set
 * of the latest sample, rebuilt when a sample names another). */
static struct sym_unwinder *unwinder_for(struct symbolizer *s, const struct process *p,
                                         const struct maps_set *set)
{
    size_t proc = (size_t)(p - s->procs);
    uint32_t generation = set->seq;
    for (size_t i = 0; i < s->unwinder_count; i++) {
        struct sym_unwinder *u = &s->unwinders[i];
        if (u->proc != proc)
            continue;
        if (u->generation != generation) {
            if (u->dwfl)
                dwfl_end(u->dwfl);
            *u = (struct sym_unwinder){ proc, generation, process_dwfl(s, p, set) };
        }
        return u;
    }
    s->unwinders = sym_grow(s->unwinders, &s->unwinder_cap, s->unwinder_count + 1,
                            sizeof(*s->unwinders));
    struct sym_unwinder *u = &s->unwinders[s->unwinder_count++];
    *u = (struct sym_unwinder){ proc, generation, process_dwfl(s, p, set) };
    return u;
}

void sym_unwinders_free(struct symbolizer *s)
{
    for (size_t i = 0; i < s->unwinder_count; i++)
        if (s->unwinders[i].dwfl)
            dwfl_end(s->unwinders[i].dwfl);
    free(s->unwinders);
    s->unwinders = NULL;
    s->unwinder_count = s->unwinder_cap = 0;
}

/* ---- The walk ------------------------------------------------------------- */

/* Every frame's PC after the sampled one: return addresses. */
static int on_frame(Dwfl_Frame *frame, void *arg)
{
    struct walk *w = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(frame, &pc, &activation))
        return DWARF_CB_ABORT;
    if (w->first) {
        w->first = false;
        return DWARF_CB_OK;
    }
    if (!pc || w->count == w->max)
        return DWARF_CB_ABORT;
    w->out[w->count++] = pc;
    return DWARF_CB_OK;
}

unsigned int sym_unwind_user(struct symbolizer *s, const struct sym_where *w,
                             const struct log_user_stack *us, uint64_t *out, unsigned int max)
{
    const struct maps_set *set;
    const struct process *p = sym_user_process(s, w, us->regs[LOG_UREG_RIP], &set);
    struct sym_unwinder *u = p && sym_root_fd(s, p->domain) >= 0 ? unwinder_for(s, p, set) : NULL;
    if (!u || !u->dwfl)
        return 0;
    struct walk walk = { .us = us, .out = out, .max = max, .first = true };
    current_walk = &walk;
    dwfl_getthread_frames(u->dwfl, 1, on_frame, &walk);   /* its end or error: the frames so far */
    current_walk = NULL;
    return walk.count;
}
