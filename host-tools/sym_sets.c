/* Symbols records (see symbolize.h, sym_internal.h): chunks reassembled
 * into sets per (domain, kind, pid, epoch), with every set that does not
 * take effect counted (broken, restarted, abandoned, unfinished); a finished set's
 * lines parsed into kallsyms tables, process maps, JIT map sets and
 * process identities. Names from the guest are cleaned of control bytes
 * before anyone prints them. */
#include "host-tools/sym_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KSYM_MODULE_PAGE 4096u

/* ---- Lines ------------------------------------------------------------ */

static bool is_text_type(char t)
{
    return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* "ADDR TYPE NAME [\t[MODULE]]". Returns false if malformed. */
static bool kallsyms_line(struct symbolizer *s, void *table, char *line)
{
    struct ktable *k = table;
    char type, name[SYM_NAME_MAX], module[SYM_NAME_MAX] = "";
    uint64_t addr;
    int n = sscanf(line, "%" SCNx64 " %c %511s [%511[^]]]", &addr, &type, name, module);
    if (n < 3)
        return false;
    if (!is_text_type(type) || !addr)
        return true;
    sym_clean(name);
    sym_clean(module);
    char image[SYM_NAME_MAX + 2];
    snprintf(image, sizeof(image), "[%s]", module);
    k->syms = sym_grow(k->syms, &k->cap, k->count + 1, sizeof(*k->syms));
    k->syms[k->count++] = (struct ksym){
        addr, UINT64_MAX, sym_intern(s, name),
        sym_image_get(s, module[0] ? image : SYM_KERNEL_IMAGE, 0, 0, 0) };
    return true;
}

/* "START-END PERMS OFFSET DEV INODE [PATH]" */
static bool maps_line(struct symbolizer *s, void *table, char *line)
{
    struct maps_set *p = table;
    struct map_entry m = { 0 };
    char perms[8], path[SYM_NAME_MAX] = "";
    unsigned long long inode;
    int n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %llu %511[^\n]",
                   &m.start, &m.end, perms, &m.offset, &inode, path);
    if (n < 5 || m.end <= m.start)
        return false;
    sym_clean(path);
    m.exec = strchr(perms, 'x') != NULL;
    m.path = path[0] ? sym_intern(s, path) : NULL;
    p->maps = sym_grow(p->maps, &p->cap, p->count + 1, sizeof(*p->maps));
    p->maps[p->count++] = m;
    return true;
}

/* "START SIZE NAME" (hex, hex, rest of line) */
static bool jit_line(struct symbolizer *s, void *table, char *line)
{
    struct jit_set *j = table;
    uint64_t start, size;
    int used = 0;
    if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size, &used) < 2 || !line[used])
        return false;
    sym_clean(line + used);
    s->jit_ents = sym_grow(s->jit_ents, &s->jit_ent_cap, s->jit_ent_count + 1, sizeof(*s->jit_ents));
    s->jit_ents[s->jit_ent_count++] = (struct jit_entry){
        start, start + size >= start ? start + size : UINT64_MAX, sym_intern(s, line + used),
        (uint32_t)(j - s->jits) };
    j->count++;
    return true;
}

/* One "PID CR3 COMM" line of the identity of the set's process (hex
 * CR3): a line naming another PID is malformed, so a process name that
 * carried a newline cannot speak for another process. */
static bool identity_line(struct symbolizer *s, void *table, char *line)
{
    const struct log_symbols *set = table;
    unsigned int pid;
    unsigned long long cr3;
    int used = 0;
    if (sscanf(line, "%u %llx %n", &pid, &cr3, &used) != 2 || !pid || !cr3 || pid != set->pid)
        return false;
    char comm[SYM_NAME_MAX];
    snprintf(comm, sizeof(comm), "%s", used && line[used] ? line + used : SYM_COMM_UNKNOWN);
    sym_clean(comm);
    s->idents = sym_grow(s->idents, &s->ident_cap, s->ident_count + 1, sizeof(*s->idents));
    s->idents[s->ident_count++] = (struct identity){ set->domain, pid, cr3 & SYM_CR3_SPACE_MASK,
                                                     sym_intern(s, comm), set->epoch == SYM_EPOCH_WATCH,
                                                     s->ident_tsc };
    keymap_set(&s->ident_of_pid, set->domain, pid, 0, (uint32_t)s->ident_count - 1);
    seq_insert(&s->ident_stack, s->ident_tsc, (uint32_t)s->ident_count);
    return true;
}

/* The kernel's build id: 2 to 40 hex digits, an even count. */
static bool build_id_line(struct symbolizer *s, void *unused, char *line)
{
    (void)unused;
    size_t n = strspn(line, "0123456789abcdef");
    if (line[n] || n < 2 || n > 2 * LOG_BUILD_ID_SIZE || n % 2)
        return false;
    s->kernel_build_id = sym_intern(s, line);
    return true;
}

typedef bool (*line_fn)(struct symbolizer *s, void *table, char *line);

/* Calls fn on each non-empty line of text[0..len) (modified in place); a
 * line holding a NUL byte is malformed. */
static void each_line(struct symbolizer *s, char *text, size_t len, void *table, line_fn fn)
{
    char *end = text + len;
    for (char *line = text, *next; line < end; line = next) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        char *stop = nl ? nl : end;
        next = nl ? nl + 1 : end;
        *stop = '\0';
        if (stop == line)
            continue;
        if (memchr(line, '\0', (size_t)(stop - line)) || !fn(s, table, line))
            s->problems.bad_lines++;
    }
}

static int ksym_cmp(const void *a, const void *b)
{
    const struct ksym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Where the text of a module's symbol ends when no later symbol of the
 * module bounds it. kallsyms gives no sizes, and a module's text is
 * allocated in whole pages, so its last function ends by the end of the
 * page it starts in (one crossing into the next page is cut there). A
 * kernel symbol keeps the floor rule: the next symbol bounds it. */
static void bound_module_symbols(struct symbolizer *s, struct ktable *k)
{
    uint32_t kernel = sym_image_get(s, SYM_KERNEL_IMAGE, 0, 0, 0);
    for (size_t i = 0; i < k->count; i++) {
        struct ksym *sym = &k->syms[i];
        bool bounded_by_next = i + 1 < k->count && k->syms[i + 1].image == sym->image;
        if (sym->image != kernel && !bounded_by_next)
            sym->limit = (sym->addr | (KSYM_MODULE_PAGE - 1)) + 1;
    }
}

void sym_load_kallsyms(struct symbolizer *s, struct ktable *k, char *text, size_t len)
{
    k->count = 0;
    each_line(s, text, len, k, kallsyms_line);
    if (k->count)
        qsort(k->syms, k->count, sizeof(*k->syms), ksym_cmp);
    bound_module_symbols(s, k);
}

/* ---- Committing a finished set ---------------------------------------- */

static struct ktable *shipped_ktable(struct symbolizer *s, uint32_t domain)
{
    uint32_t i = keymap_get(&s->ktable_map, domain, 0, 0, (uint32_t)s->ktable_count);
    if (i == s->ktable_count) {
        s->ktables = sym_grow(s->ktables, &s->ktable_cap, s->ktable_count + 1, sizeof(*s->ktables));
        s->ktables[s->ktable_count++] = (struct ktable){ 0 };
    }
    return &s->ktables[i];
}

static struct process *process_for(struct symbolizer *s, uint32_t domain, uint32_t pid)
{
    uint32_t i = keymap_get(&s->proc_map, domain, pid, 0, (uint32_t)s->proc_count);
    if (i == s->proc_count) {
        s->procs = sym_grow(s->procs, &s->proc_cap, s->proc_count + 1, sizeof(*s->procs));
        s->procs[s->proc_count++] = (struct process){ .domain = domain, .pid = pid };
    }
    return &s->procs[i];
}

static struct seq_stack *jit_stack(struct symbolizer *s, uint32_t domain)
{
    uint32_t i = keymap_get(&s->jit_stack_map, domain, 0, 0, (uint32_t)s->jit_stack_count);
    if (i == s->jit_stack_count) {
        s->jit_stacks = sym_grow(s->jit_stacks, &s->jit_stack_cap, i + 1, sizeof(*s->jit_stacks));
        s->jit_stacks[s->jit_stack_count++] = (struct seq_stack){ 0 };
    }
    return &s->jit_stacks[i];
}

static void commit_jit(struct symbolizer *s, struct set_asm *a)
{
    s->jits = sym_grow(s->jits, &s->jit_cap, s->jit_count + 1, sizeof(*s->jits));
    struct jit_set *j = &s->jits[s->jit_count++];
    *j = (struct jit_set){ .domain = a->key.domain, .pid = a->key.pid, .tsc = a->tsc,
                           .first = s->jit_ent_count };
    each_line(s, a->text, a->len, j, jit_line);
    seq_push(jit_stack(s, j->domain), j->tsc, (uint32_t)s->jit_count);
}

static void commit_set(struct symbolizer *s, struct set_asm *a)
{
    s->ix.stale = true;
    if (a->key.kind != LOG_SYM_KALLSYMS && a->key.kind != LOG_SYM_KERNEL_BUILD_ID &&
        a->tsc < s->oldest_commit)
        s->oldest_commit = a->tsc;
    switch (a->key.kind) {
    case LOG_SYM_KALLSYMS:
        sym_load_kallsyms(s, shipped_ktable(s, a->key.domain), a->text, a->len);
        break;
    case LOG_SYM_PROC_MAPS: {
        struct process *p = process_for(s, a->key.domain, a->key.pid);
        p->sets = sym_grow(p->sets, &p->set_cap, p->set_count + 1, sizeof(*p->sets));
        struct maps_set *set = &p->sets[p->set_count++];
        *set = (struct maps_set){ .seq = ++s->maps_set_count, .tsc = a->tsc,
                                  .scanned = a->key.epoch != SYM_EPOCH_WATCH };
        s->maps_set_tscs = sym_grow(s->maps_set_tscs, &s->maps_set_tsc_cap, s->maps_set_count,
                                    sizeof(*s->maps_set_tscs));
        s->maps_set_tscs[set->seq - 1] = a->tsc;
        each_line(s, a->text, a->len, set, maps_line);
        seq_insert(&s->maps_stack, a->tsc, set->seq);
        break;
    }
    case LOG_SYM_JIT_MAP:
        commit_jit(s, a);
        break;
    case LOG_SYM_PROCESS:
        s->ident_tsc = a->tsc;
        each_line(s, a->text, a->len, &a->key, identity_line);
        break;
    case LOG_SYM_KERNEL_BUILD_ID:
        each_line(s, a->text, a->len, NULL, build_id_line);
        break;
    }
}

/* ---- Reassembly -------------------------------------------------------- */

static struct set_asm *set_for(struct symbolizer *s, const struct log_symbols *r)
{
    uint32_t i = keymap_get(&s->set_map, (uint64_t)r->domain << 32 | r->pid, r->epoch, r->kind,
                            (uint32_t)s->set_count);
    if (i == s->set_count) {
        s->sets = sym_grow(s->sets, &s->set_cap, s->set_count + 1, sizeof(*s->sets));
        s->sets[s->set_count++] = (struct set_asm){ .key = *r, .state = SET_IDLE };
        s->sets[i].key.data = NULL;
    }
    return &s->sets[i];
}

/* Ends a's pending chunks (its text is freed; buffers are per set). */
static void set_close(struct symbolizer *s, struct set_asm *a, enum set_state state)
{
    if (a->state == SET_OPEN)
        s->open_sets--;
    a->state = state;
    free(a->text);
    a->text = NULL;
    a->len = a->cap = 0;
}

/* A chunk that does not continue the set: counted once per broken set. */
static bool refuse_chunk(struct symbolizer *s, struct set_asm *a, const struct log_symbols *r)
{
    if (a->state != SET_BROKEN)
        s->problems.broken_sets++;
    set_close(s, a, r->last ? SET_IDLE : SET_BROKEN);
    return false;
}

/* Vertigo gave the set up unfinished: its chunks so far are void. */
static bool abandon_set(struct symbolizer *s, struct set_asm *a)
{
    s->problems.abandoned_sets++;
    set_close(s, a, SET_IDLE);
    return false;
}

uint64_t sym_take_oldest_commit(struct symbolizer *s)
{
    uint64_t oldest = s->oldest_commit;
    s->oldest_commit = UINT64_MAX;
    return oldest;
}

bool sym_add_record(struct symbolizer *s, const struct log_symbols *rec, uint64_t tsc)
{
    struct set_asm *a = set_for(s, rec);
    bool fresh = true;
    if (rec->abandoned) {
        return abandon_set(s, a);
    } else if (rec->chunk == 0) {
        if (a->state == SET_OPEN) {
            s->problems.restarted_sets++;
            fresh = false;
        }
        set_close(s, a, SET_OPEN);
        s->open_sets++;
        a->next_chunk = 0;
        a->tsc = tsc;
    } else if (a->state != SET_OPEN || rec->chunk != a->next_chunk) {
        return refuse_chunk(s, a, rec);
    }
    a->text = sym_grow(a->text, &a->cap, a->len + rec->len + 1, 1);
    if (rec->len)
        memcpy(a->text + a->len, rec->data, rec->len);
    a->len += rec->len;
    a->next_chunk++;
    if (!rec->last)
        return fresh;
    uint64_t before = s->problems.bad_lines;
    commit_set(s, a);
    set_close(s, a, SET_IDLE);
    return fresh && before == s->problems.bad_lines;
}

void sym_get_problems(const struct symbolizer *s, struct sym_problems *out)
{
    *out = s->problems;
    out->unfinished_sets = s->open_sets;
}

void sym_sets_free(struct symbolizer *s)
{
    for (size_t i = 0; i < s->set_count; i++)
        free(s->sets[i].text);
    free(s->sets);
    keymap_free(&s->set_map);
    for (size_t i = 0; i < s->proc_count; i++) {
        for (size_t k = 0; k < s->procs[i].set_count; k++)
            free(s->procs[i].sets[k].maps);
        free(s->procs[i].sets);
    }
    free(s->procs);
    free(s->maps_stack.at);
    free(s->maps_set_tscs);
    keymap_free(&s->proc_map);
    free(s->jits);
    free(s->jit_ents);
    for (size_t i = 0; i < s->jit_stack_count; i++)
        free(s->jit_stacks[i].at);
    free(s->jit_stacks);
    keymap_free(&s->jit_stack_map);
    free(s->idents);
    free(s->ident_stack.at);
    keymap_free(&s->ident_of_pid);
}
