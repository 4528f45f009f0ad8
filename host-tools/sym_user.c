/* User-mode addresses (see symbolize.h): the process a sample's address
 * belongs to (its identity by CR3, a CR3 bound on first sight, or the
 * processes mapping it), the JIT map set in force, and the mapping's ELF
 * file under the guest root. The maps, JIT entries and identities the log
 * shipped are indexed once after they change (struct sym_indexes), so a
 * lookup costs O(log^2 n) whatever the log holds. */
#define _GNU_SOURCE   /* qsort_r */
#include "host-tools/sym_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANON_IMAGE "[anon]"

/* ---- The newest set at a time ----------------------------------------- */

void seq_push(struct seq_stack *st, uint64_t tsc, uint32_t seq)
{
    while (st->count && st->at[st->count - 1].tsc >= tsc)
        st->count--;
    st->at = sym_grow(st->at, &st->cap, st->count + 1, sizeof(*st->at));
    st->at[st->count++] = (struct seq_at){ tsc, seq };
}

void seq_insert(struct seq_stack *st, uint64_t tsc, uint32_t seq)
{
    st->at = sym_grow(st->at, &st->cap, st->count + 1, sizeof(*st->at));
    size_t at = sym_count_upto(st->at, st->count, sizeof(*st->at), offsetof(struct seq_at, tsc),
                               sizeof(st->at->tsc), tsc);   /* after those at the same TSC */
    memmove(&st->at[at + 1], &st->at[at], (st->count - at) * sizeof(*st->at));
    st->at[at] = (struct seq_at){ tsc, seq };
    st->count++;
}

uint32_t seq_at(const struct seq_stack *st, uint64_t tsc)
{
    if (st->count && st->at[st->count - 1].tsc <= tsc)
        return st->at[st->count - 1].seq;   /* sets usually arrive in TSC order */
    size_t n = sym_count_upto(st->at, st->count, sizeof(*st->at), offsetof(struct seq_at, tsc),
                              sizeof(st->at->tsc), tsc);
    return n ? st->at[n - 1].seq : 0;
}

size_t sym_count_upto(const void *elems, size_t count, size_t elem_size, size_t key_offset,
                      size_t key_size, uint64_t key)
{
    const char *base = elems;
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = 0;
        if (key_size == sizeof(uint32_t)) {
            uint32_t k32;
            memcpy(&k32, base + mid * elem_size + key_offset, sizeof(k32));
            k = k32;
        } else {
            memcpy(&k, base + mid * elem_size + key_offset, sizeof(k));
        }
        if (k <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t sym_jit_seq_at(const struct symbolizer *s, uint32_t domain, uint64_t tsc)
{
    uint32_t i = keymap_get((struct keymap *)&s->jit_stack_map, domain, 0, 0, KEYMAP_NONE);
    return i == KEYMAP_NONE ? 0 : seq_at(&s->jit_stacks[i], tsc);
}

uint32_t sym_identity_seq_at(const struct symbolizer *s, uint64_t tsc)
{
    return seq_at(&s->ident_stack, tsc);
}

uint32_t sym_maps_seq_at(const struct symbolizer *s, uint64_t tsc)
{
    return seq_at(&s->maps_stack, tsc);
}

/* ---- Indexes ---------------------------------------------------------- */

static uint64_t pid_group(uint32_t domain, uint32_t pid)
{
    return (uint64_t)domain << 32 | pid;
}

static void free_indexes(struct sym_indexes *ix)
{
    range_index_free(ix->maps_by_pid);
    range_index_free(ix->maps_by_pid_rev);
    range_index_free(ix->maps_by_domain);
    range_index_free(ix->jit_by_pid);
    range_index_free(ix->jit_by_domain);
    free(ix->map_refs);
    free(ix->set_tscs_sorted);
    free(ix->idents_sorted);
    free(ix->domain_first_tsc);
    free(ix->space_floor);
    free(ix->space_ceiling);
    *ix = (struct sym_indexes){ .stale = true };
}

static int set_by_tsc(const void *a, const void *b)
{
    const struct maps_set *x = *(struct maps_set *const *)a, *y = *(struct maps_set *const *)b;
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Each maps set's rank: its place by (TSC, arrival), from 1. */
static void rank_sets(struct symbolizer *s)
{
    struct maps_set **all = sym_calloc(s->maps_set_count, sizeof(*all));
    size_t n = 0;
    for (size_t p = 0; p < s->proc_count; p++)
        for (size_t k = 0; k < s->procs[p].set_count; k++)
            all[n++] = &s->procs[p].sets[k];
    qsort(all, n, sizeof(*all), set_by_tsc);
    s->ix.set_tscs_sorted = sym_calloc(n, sizeof(*s->ix.set_tscs_sorted));
    for (size_t i = 0; i < n; i++) {
        all[i]->rank = (uint32_t)i + 1;
        s->ix.set_tscs_sorted[i] = all[i]->tsc;
    }
    free(all);
    for (size_t p = 0; p < s->proc_count; p++) {
        s->procs[p].last_rank = 0;
        for (size_t k = 0; k < s->procs[p].set_count; k++)
            if (s->procs[p].sets[k].names_frames && s->procs[p].sets[k].rank > s->procs[p].last_rank)
                s->procs[p].last_rank = s->procs[p].sets[k].rank;
    }
}

/* How many maps sets were shipped before tsc: ranks 1 .. that many. */
static uint32_t sets_before(const struct symbolizer *s, uint64_t tsc)
{
    if (!tsc)
        return 0;
    return (uint32_t)sym_count_upto(s->ix.set_tscs_sorted, s->maps_set_count, sizeof(uint64_t), 0,
                                    sizeof(uint64_t), tsc - 1);
}

/* The rank limit of a sample's maps position (sym_maps_seq_at): every set
 * shipped at or before the TSC of the set it names, whenever it arrived. */
static uint32_t maps_rank_limit(const struct symbolizer *s, uint32_t maps_seq)
{
    if (!maps_seq || maps_seq > s->maps_set_count)
        return 0;
    return (uint32_t)sym_count_upto(s->ix.set_tscs_sorted, s->maps_set_count, sizeof(uint64_t), 0,
                                    sizeof(uint64_t), s->maps_set_tscs[maps_seq - 1]);
}

static int ident_pid_cmp(const void *a, const void *b, void *sym);

static bool set_maps_code(const struct maps_set *set)
{
    for (size_t m = 0; m < set->count; m++)
        if (set->maps[m].exec)
            return true;
    return false;
}

/* Whether the agent's scan set of process p may describe another program
 * than its process ran: the agent names the process (an identity, not
 * born) before it reads /proc/PID/maps and again after it shipped them,
 * and reads them again when the two name different CR3s. An exec in
 * between left a set that may be the old program's, shipped after the
 * exec's own set: the identities of p by TSC (by_pid[first..end)) just
 * before and after the set show it. */
static bool scan_straddles_exec(const struct symbolizer *s, const uint32_t *by_pid, size_t first,
                                size_t end, const struct maps_set *set)
{
    size_t lo = first, hi = end;          /* the first identity after the set */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->idents[by_pid[mid]].tsc <= set->tsc)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t b = lo, a = lo;
    while (b > first && s->idents[by_pid[b - 1]].born)
        b--;
    while (a < end && s->idents[by_pid[a]].born)
        a++;
    return b > first && a < end && s->idents[by_pid[b - 1]].cr3 != s->idents[by_pid[a]].cr3;
}

/* The first index in by_pid (identities by domain, pid, TSC) of an
 * identity of (domain, pid) or after it. */
static size_t first_ident_of(const struct symbolizer *s, const uint32_t *by_pid, uint32_t domain,
                             uint32_t pid)
{
    size_t lo = 0, hi = s->ident_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct identity *id = &s->idents[by_pid[mid]];
        if (id->domain < domain || (id->domain == domain && id->pid < pid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Which maps sets may name frames (struct maps_set's names_frames): not
 * one that maps no code (a scan read while an exec built the new address
 * space: only its new stack mapped; it may be shipped after the exec's
 * own set), nor a scan that straddles an exec. */
static void judge_sets(struct symbolizer *s, const uint32_t *by_pid)
{
    for (size_t p = 0; p < s->proc_count; p++) {
        const struct process *proc = &s->procs[p];
        size_t first = first_ident_of(s, by_pid, proc->domain, proc->pid), end = first;
        while (end < s->ident_count && s->idents[by_pid[end]].domain == proc->domain &&
               s->idents[by_pid[end]].pid == proc->pid)
            end++;
        s->procs[p].jit = false;
        for (size_t k = 0; k < proc->set_count; k++) {
            struct maps_set *set = &proc->sets[k];
            set->names_frames = set_maps_code(set) &&
                                !(set->scanned && scan_straddles_exec(s, by_pid, first, end, set));
            for (size_t m = 0; m < set->count; m++)
                s->procs[p].jit |= set->maps[m].exec && !set->maps[m].path;
        }
    }
    for (size_t j = 0; j < s->jit_count; j++) {
        uint32_t p = keymap_get(&s->proc_map, s->jits[j].domain, s->jits[j].pid, 0, KEYMAP_NONE);
        if (p != KEYMAP_NONE)
            s->procs[p].jit = true;
    }
}

/* Every exec mapping of every maps set that may name frames, by process
 * (newest set first and oldest first) and by domain; a range's priority
 * is its set's rank. */
static void index_maps(struct symbolizer *s, const uint32_t *idents_by_pid)
{
    judge_sets(s, idents_by_pid);
    rank_sets(s);
    size_t n = 0;
    for (size_t p = 0; p < s->proc_count; p++)
        for (size_t k = 0; k < s->procs[p].set_count; k++)
            for (size_t m = 0; m < s->procs[p].sets[k].count; m++)
                n += s->procs[p].sets[k].maps[m].exec && s->procs[p].sets[k].names_frames;
    struct range_item *by_pid = sym_calloc(n, sizeof(*by_pid)), *rev = sym_calloc(n, sizeof(*rev));
    struct range_item *by_domain = sym_calloc(n, sizeof(*by_domain));
    s->ix.map_refs = sym_calloc(n, sizeof(*s->ix.map_refs));
    size_t i = 0;
    for (size_t p = 0; p < s->proc_count; p++) {
        const struct process *proc = &s->procs[p];
        for (size_t k = 0; k < proc->set_count; k++) {
            const struct maps_set *set = &proc->sets[k];
            for (size_t m = 0; m < set->count; m++) {
                const struct map_entry *e = &set->maps[m];
                if (!e->exec || !set->names_frames)
                    continue;
                uint64_t group = pid_group(proc->domain, proc->pid);
                by_pid[i] = (struct range_item){ group, e->start, e->end, set->rank };
                rev[i] = (struct range_item){ group, e->start, e->end, UINT32_MAX - set->rank };
                by_domain[i] = (struct range_item){ proc->domain, e->start, e->end, set->rank };
                s->ix.map_refs[i++] = (struct map_ref){ (uint32_t)p, (uint32_t)k, (uint32_t)m };
            }
        }
    }
    s->ix.maps_by_pid = range_index_build(by_pid, n);
    s->ix.maps_by_pid_rev = range_index_build(rev, n);
    s->ix.maps_by_domain = range_index_build(by_domain, n);
    free(by_pid);
    free(rev);
    free(by_domain);
}

/* Every JIT entry, by process and by domain; its priority is its index
 * (sets in arrival order, lines in file order). */
static void index_jit(struct symbolizer *s)
{
    size_t n = s->jit_ent_count;
    struct range_item *by_pid = sym_calloc(n, sizeof(*by_pid)), *by_domain = sym_calloc(n, sizeof(*by_domain));
    for (size_t e = 0; e < n; e++) {
        const struct jit_entry *j = &s->jit_ents[e];
        const struct jit_set *set = &s->jits[j->set];
        by_pid[e] = (struct range_item){ pid_group(set->domain, set->pid), j->start, j->end, e };
        by_domain[e] = (struct range_item){ set->domain, j->start, j->end, e };
    }
    s->ix.jit_by_pid = range_index_build(by_pid, n);
    s->ix.jit_by_domain = range_index_build(by_domain, n);
    free(by_pid);
    free(by_domain);
}

/* Orders identity indexes by domain, then CR3 (by_pid false) or pid, then
 * TSC, then arrival. */
static int ident_order(const struct symbolizer *s, uint32_t x, uint32_t y, bool by_pid)
{
    const struct identity *p = &s->idents[x], *q = &s->idents[y];
    uint64_t pk = by_pid ? p->pid : p->cr3, qk = by_pid ? q->pid : q->cr3;
    if (p->domain != q->domain)
        return p->domain < q->domain ? -1 : 1;
    if (pk != qk)
        return pk < qk ? -1 : 1;
    if (p->tsc != q->tsc)
        return p->tsc < q->tsc ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int ident_cmp(const void *a, const void *b, void *sym)
{
    return ident_order(sym, *(const uint32_t *)a, *(const uint32_t *)b, false);
}

static int ident_pid_cmp(const void *a, const void *b, void *sym)
{
    return ident_order(sym, *(const uint32_t *)a, *(const uint32_t *)b, true);
}

/* Each identity's space floor (struct sym_indexes): walking a pid's
 * identities in TSC order, the TSC of the last one at another CR3. An
 * exec gives the pid a new address space: the maps sets shipped before
 * its old space's last identity describe the old program (the set the
 * watch ships at a fork precedes the fork's identity, so a pid's first
 * space keeps it). The new program's own set is shipped at its exec, but
 * a set can be lost (the domain's share of the log full); then no older
 * set may stand in for it. Its ceiling, the TSC of the next identity at
 * another CR3, bounds what the space's own sets are (space_maps_vouch). */
static void index_space_floors(struct symbolizer *s, const uint32_t *by_pid)
{
    s->ix.space_floor = sym_calloc(s->ident_count, sizeof(*s->ix.space_floor));
    for (size_t i = 1; i < s->ident_count; i++) {
        const struct identity *prev = &s->idents[by_pid[i - 1]], *id = &s->idents[by_pid[i]];
        if (prev->domain != id->domain || prev->pid != id->pid)
            continue;
        s->ix.space_floor[by_pid[i]] = prev->cr3 != id->cr3 ? prev->tsc : s->ix.space_floor[by_pid[i - 1]];
    }
    s->ix.space_ceiling = sym_calloc(s->ident_count + 1, sizeof(*s->ix.space_ceiling));
    for (size_t i = s->ident_count; i-- > 0;) {
        const struct identity *id = &s->idents[by_pid[i]];
        const struct identity *next = i + 1 < s->ident_count ? &s->idents[by_pid[i + 1]] : NULL;
        uint64_t *ceiling = &s->ix.space_ceiling[by_pid[i]];
        if (!next || next->domain != id->domain || next->pid != id->pid)
            *ceiling = UINT64_MAX;
        else
            *ceiling = next->cr3 != id->cr3 ? next->tsc : s->ix.space_ceiling[by_pid[i + 1]];
    }
}

static void index_identities(struct symbolizer *s, const uint32_t *by_pid)
{
    index_space_floors(s, by_pid);
    s->ix.idents_sorted = sym_calloc(s->ident_count, sizeof(*s->ix.idents_sorted));
    for (size_t i = 0; i < s->ident_count; i++)
        s->ix.idents_sorted[i] = (uint32_t)i;
    qsort_r(s->ix.idents_sorted, s->ident_count, sizeof(uint32_t), ident_cmp, s);
    /* each domain's identities are one run of the sorted array */
    s->ix.domain_first_tsc = sym_calloc(s->ident_count, sizeof(*s->ix.domain_first_tsc));
    for (size_t run = 0, end; run < s->ident_count; run = end) {
        uint32_t domain = s->idents[s->ix.idents_sorted[run]].domain;
        uint64_t first = UINT64_MAX;
        for (end = run; end < s->ident_count && s->idents[s->ix.idents_sorted[end]].domain == domain;
             end++) {
            uint64_t tsc = s->idents[s->ix.idents_sorted[end]].tsc;
            first = tsc < first ? tsc : first;
        }
        for (size_t i = run; i < end; i++)
            s->ix.domain_first_tsc[i] = first;
    }
}

/* Every identity's index, by domain, pid, TSC and arrival. */
static uint32_t *idents_by_pid(struct symbolizer *s)
{
    uint32_t *by_pid = sym_calloc(s->ident_count + 1, sizeof(*by_pid));
    for (size_t i = 0; i < s->ident_count; i++)
        by_pid[i] = (uint32_t)i;
    qsort_r(by_pid, s->ident_count, sizeof(uint32_t), ident_pid_cmp, s);
    return by_pid;
}

static void build_indexes(struct symbolizer *s)
{
    if (!s->ix.stale)
        return;
    free_indexes(&s->ix);
    uint32_t *by_pid = idents_by_pid(s);      /* shared by the maps' and identities' indexes */
    index_maps(s, by_pid);
    index_jit(s);
    index_identities(s, by_pid);
    free(by_pid);
    s->ix.stale = false;
}

void sym_user_free(struct symbolizer *s)
{
    free_indexes(&s->ix);
    free(s->bindings);
    keymap_free(&s->binding_map);
}

/* ---- Which process -------------------------------------------------------- */

/* The identity naming w's CR3 at the sample's time: the one shipped
 * last (by TSC, not by arrival: see struct identity's tsc) at or before
 * the sample's identity position (sym_identity_seq_at: the TSC of the
 * newest identity then known), else the first one after it (*later says
 * which), unless that one was shipped at its process's fork or exec: a
 * sample before it is of another process that had the same page-table
 * root before (freed and reused), never of this one. Nor does a later one
 * name a sample from before the domain's first identity: the process
 * watch was not running yet, so whatever ran then (a program that has
 * exited since, whose page-table root the later process reuses) was
 * never shipped. */
static const struct identity *identity_at(const struct symbolizer *s, const struct sym_where *w,
                                          bool *later)
{
    uint64_t cr3 = w->cr3 & SYM_CR3_SPACE_MASK;
    bool known = w->identity_seq && w->identity_seq <= s->ident_count;
    uint64_t upto = known ? s->idents[w->identity_seq - 1].tsc : 0;
    const uint32_t *sorted = s->ix.idents_sorted;
    size_t lo = 0, hi = s->ident_count;
    while (lo < hi) {               /* the first after (domain, cr3, upto) */
        size_t mid = lo + (hi - lo) / 2;
        const struct identity *m = &s->idents[sorted[mid]];
        bool before = m->domain != w->domain ? m->domain < w->domain :
                      m->cr3 != cr3 ? m->cr3 < cr3 : known && m->tsc <= upto;
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct identity *before = lo ? &s->idents[sorted[lo - 1]] : NULL;
    const struct identity *after = lo < s->ident_count ? &s->idents[sorted[lo]] : NULL;
    *later = false;
    if (before && before->domain == w->domain && before->cr3 == cr3)
        return before;
    *later = true;
    if (after && after->domain == w->domain && after->cr3 == cr3 && !after->born && known &&
        s->ix.domain_first_tsc[lo] <= upto)
        return after;
    return NULL;
}

static const struct identity *identity_for(const struct symbolizer *s, const struct sym_where *w)
{
    bool later;
    return identity_at(s, w, &later);
}

bool sym_process_guessed(struct symbolizer *s, const struct sym_where *w)
{
    bool later = false;
    if (w->mode == LOG_MODE_HYPERVISOR || !w->has_cr3)
        return false;
    build_indexes(s);
    return identity_at(s, w, &later) && later;
}

/* The index in p's sets of the one ranked last in (floor, limit] (in
 * force at the sample's time) of those that may name frames (judge_sets),
 * or p->set_count if none is. */
static size_t set_in_force(const struct process *p, uint32_t floor, uint32_t limit)
{
    size_t found = p->set_count;
    for (size_t k = 0; k < p->set_count; k++)
        if (p->sets[k].names_frames && p->sets[k].rank > floor && p->sets[k].rank <= limit &&
            (found == p->set_count || p->sets[k].rank > p->sets[found].rank))
            found = k;
    return found;
}

/* The exec mapping holding addr of process pid of domain at maps_seq: in
 * the maps set in force then, else in the first later set that maps it (a
 * sample before the set that describes its program, or in a library
 * mapped after that set); never in an earlier set, which may describe the
 * program the process ran before an exec, nor in a set shipped before
 * floor_tsc (the sample's address space's floor: struct sym_indexes).
 * "Earlier" and "later" go by the TSC the guest shipped the sets at, not
 * by their arrival. NULL if none. */
static const struct map_ref *pid_mapping(const struct symbolizer *s, uint32_t domain, uint32_t pid,
                                         uint64_t addr, uint32_t maps_seq, uint64_t floor_tsc)
{
    size_t low, high;
    uint64_t group = pid_group(domain, pid);
    uint32_t limit = maps_rank_limit(s, maps_seq), floor = sets_before(s, floor_tsc);
    if (limit > floor &&
        range_index_stab(s->ix.maps_by_pid, group, addr, (uint64_t)limit + 1, &low, &high)) {
        const struct map_ref *ref = &s->ix.map_refs[high];
        if (ref->set == set_in_force(&s->procs[ref->proc], floor, limit))
            return ref;
    }
    uint32_t after = limit > floor ? limit : floor;
    if (!range_index_stab(s->ix.maps_by_pid_rev, group, addr, UINT32_MAX - (uint64_t)after,
                          &low, &high))
        return NULL;
    return &s->ix.map_refs[high];
}

/* Whether no maps set describes the address space of identity id at all:
 * its pid has none that maps code shipped after the space's floor (its
 * program's set was lost, or never shipped). */
static bool space_has_no_maps(const struct symbolizer *s, const struct identity *id)
{
    uint32_t p = keymap_get((struct keymap *)&s->proc_map, id->domain, id->pid, 0, KEYMAP_NONE);
    return p == KEYMAP_NONE ||
           s->procs[p].last_rank <= sets_before(s, s->ix.space_floor[id - s->idents]);
}

/* Whether set describes a dynamically linked program: its executable
 * mappings come from more than one file (the program and its ELF
 * interpreter at least; [vdso] is no file). */
static bool set_is_dynamic(const struct maps_set *set)
{
    const char *file = NULL;
    for (size_t m = 0; m < set->count; m++) {
        const char *path = set->maps[m].path;
        if (!set->maps[m].exec || !path || path[0] == '[')
            continue;
        if (file && strcmp(file, path))
            return true;
        file = path;
    }
    return false;
}

/* Whether the maps sets of identity id's address space (shipped after its
 * floor and before its ceiling, struct sym_indexes) can tell that an
 * address none of them maps was unmapped: not when the process runs
 * generated code, nor when only the module's watch described the space
 * and its program is dynamically linked (the watch ships the maps at the
 * exec, before the interpreter maps the libraries; the agent's scans,
 * when it runs, list them). */
static bool space_maps_vouch(const struct symbolizer *s, const struct identity *id)
{
    uint32_t p = keymap_get((struct keymap *)&s->proc_map, id->domain, id->pid, 0, KEYMAP_NONE);
    if (p == KEYMAP_NONE)
        return true;
    const struct process *proc = &s->procs[p];
    if (proc->jit)
        return false;
    uint32_t floor = sets_before(s, s->ix.space_floor[id - s->idents]);
    uint64_t ceiling = s->ix.space_ceiling[id - s->idents];
    const struct maps_set *newest = NULL;
    for (size_t k = 0; k < proc->set_count; k++) {
        const struct maps_set *set = &proc->sets[k];
        if (!set->names_frames || set->rank <= floor || set->tsc >= ceiling)
            continue;
        if (set->scanned)
            return true;
        if (!newest || set->rank > newest->rank)
            newest = set;
    }
    return !newest || !set_is_dynamic(newest);
}

static uint32_t binding_for(struct symbolizer *s, const struct sym_where *w)
{
    return keymap_get(&s->binding_map, w->domain, w->cr3 & SYM_CR3_SPACE_MASK, 0, KEYMAP_NONE);
}

static void bind_cr3(struct symbolizer *s, const struct sym_where *w, uint32_t pid)
{
    s->bindings = sym_grow(s->bindings, &s->binding_cap, s->binding_count + 1, sizeof(*s->bindings));
    s->bindings[s->binding_count] = (struct cr3_binding){ w->domain, pid };
    keymap_set(&s->binding_map, w->domain, w->cr3 & SYM_CR3_SPACE_MASK, 0, (uint32_t)s->binding_count++);
}

/* The process (and its mapping) an address belongs to. Samples carry CR3,
 * maps carry PID: process-identity records ("PID CR3 COMM", from the
 * guest's kernel module) bind the two; failing that, an address that one
 * process alone maps binds its CR3 to that process. A process named by
 * its identity is never traded for another whose maps hold the address,
 * and nothing is guessed when several processes map it (static programs
 * share their addresses): NULL then, and when none maps it (*no_maps:
 * because no maps set describes the identity's address space; *partial:
 * its sets cannot tell the address is unmapped, space_maps_vouch). */
static const struct map_ref *pick_process(struct symbolizer *s, const struct sym_where *w,
                                          uint64_t addr, bool *no_maps, bool *partial)
{
    const struct identity *id = w->has_cr3 ? identity_for(s, w) : NULL;
    *no_maps = *partial = false;
    if (id) {
        const struct map_ref *ref = pid_mapping(s, w->domain, id->pid, addr, w->maps_seq,
                                                s->ix.space_floor[id - s->idents]);
        *no_maps = !ref && space_has_no_maps(s, id);
        *partial = !ref && !*no_maps && !space_maps_vouch(s, id);
        return ref;
    }
    uint32_t b = w->has_cr3 ? binding_for(s, w) : KEYMAP_NONE;
    if (b != KEYMAP_NONE)
        return pid_mapping(s, w->domain, s->bindings[b].pid, addr, w->maps_seq, 0);
    size_t low, high;
    if (!range_index_stab(s->ix.maps_by_domain, w->domain, addr, UINT64_MAX, &low, &high) ||
        s->ix.map_refs[low].proc != s->ix.map_refs[high].proc)
        return NULL;
    const struct process *found = &s->procs[s->ix.map_refs[high].proc];
    if (w->has_cr3)
        bind_cr3(s, w, found->pid);
    return pid_mapping(s, w->domain, found->pid, addr, w->maps_seq, 0);
}

struct sym_process sym_process_of(struct symbolizer *s, const struct sym_where *w)
{
    if (w->mode == LOG_MODE_HYPERVISOR)
        return (struct sym_process){ 0, SYM_COMM_VERTIGO };
    if (!w->has_cr3)
        return (struct sym_process){ 0, SYM_COMM_UNKNOWN };
    build_indexes(s);
    const struct identity *id = identity_for(s, w);
    if (id)
        return (struct sym_process){ id->pid, id->comm };
    uint32_t b = binding_for(s, w);
    if (b == KEYMAP_NONE)
        return (struct sym_process){ 0, SYM_COMM_UNKNOWN };
    uint32_t pid = s->bindings[b].pid;   /* its maps hold an address of this CR3 */
    uint32_t named = keymap_get(&s->ident_of_pid, w->domain, pid, 0, KEYMAP_NONE);
    return (struct sym_process){ pid, named == KEYMAP_NONE ? SYM_COMM_UNKNOWN : s->idents[named].comm };
}

/* ---- JIT maps and mappings ------------------------------------------------ */

/* The JIT symbol for f->addr: the newest map set at w's JIT position (of
 * process proc when it is known) holding it, its last line if several
 * do. Newest first serves both ways an agent may ship a perf-PID.map:
 * whole again at each epoch, or only the new lines. */
static bool resolve_jit(struct symbolizer *s, const struct sym_where *w, const struct process *proc,
                        struct sym_frame *f)
{
    uint64_t limit = w->jit_seq < s->jit_count ? s->jits[w->jit_seq].first : s->jit_ent_count;
    size_t low, high;
    bool found = proc ? range_index_stab(s->ix.jit_by_pid, pid_group(w->domain, proc->pid), f->addr,
                                         limit, &low, &high)
                      : range_index_stab(s->ix.jit_by_domain, w->domain, f->addr, limit, &low, &high);
    if (!found)
        return false;
    const struct jit_entry *e = &s->jit_ents[high];
    char image[SYM_NAME_MAX];
    snprintf(image, sizeof(image), "perf-%u.map", s->jits[e->set].pid);
    f->image = sym_image_get(s, image, 0, 0, 0);
    f->function = sym_function_get(s, f->image, e->name, NULL, 0, true);
    f->offset = f->addr - e->start;
    return true;
}

const struct process *sym_user_process(struct symbolizer *s, const struct sym_where *w,
                                       uint64_t addr, const struct maps_set **set)
{
    build_indexes(s);
    bool no_maps, partial;
    const struct map_ref *ref = pick_process(s, w, addr, &no_maps, &partial);
    *set = ref ? &s->procs[ref->proc].sets[ref->set] : NULL;
    return ref ? &s->procs[ref->proc] : NULL;
}

void sym_resolve_user(struct symbolizer *s, const struct sym_where *w, struct sym_frame *f)
{
    build_indexes(s);
    bool no_maps, partial;
    const struct map_ref *ref = pick_process(s, w, f->addr, &no_maps, &partial);
    const struct process *p = ref ? &s->procs[ref->proc] : NULL;
    if (resolve_jit(s, w, p, f))
        return;
    if (!p) {
        f->unmapped = !no_maps;     /* nothing says what the space maps: not known unmapped */
        f->maps_partial = partial;
        f->image = sym_image_get(s, no_maps ? SYM_NO_MAPS_IMAGE : ANON_IMAGE, 0, 0, 0);
        f->function = sym_unknown_function(s, f->image, false, f->addr, 0);
        return;
    }
    const struct map_entry *m = &p->sets[ref->set].maps[ref->map];
    uint64_t image_off = f->addr - m->start + m->offset;
    f->image = sym_image_get(s, m->path ? m->path : ANON_IMAGE, m->start, m->end, m->offset);
    int root_fd = sym_root_fd(s, p->domain);
    int idx = m->path && root_fd >= 0 ?
              sym_elf_open_guest(s, root_fd, m->path, m->start - m->offset, f->image) : -1;
    if (idx >= 0)
        sym_elf_lookup(s, idx, f->addr, image_off, f);
    else
        f->function = sym_unknown_function(s, f->image, true, f->addr, image_off);
}
