/* Instruction starts through objdump (see insn_starts.h). */
#include "host-tools/insn_starts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host-tools/keymap.h"
#include "host-tools/objdump_run.h"

#define WINDOW_MIN 4096u             /* bytes decoded past an entry at least */
#define INSN_MAX 15u                 /* the longest x86 instruction */

struct decoded {
    uint64_t *starts;                /* sorted */
    size_t count;
    uint64_t end;                    /* decoded up to here */
};

struct insn_starts {
    struct keymap map;               /* (bytes, entry) -> decoded */
    struct decoded *runs;
    size_t count, cap;
    bool broken;                     /* objdump could not be run */
};

struct insn_starts *insn_starts_new(void)
{
    return calloc(1, sizeof(struct insn_starts));
}

void insn_starts_free(struct insn_starts *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->count; i++)
        free(c->runs[i].starts);
    free(c->runs);
    keymap_free(&c->map);
    free(c);
}

static bool push(struct decoded *d, size_t *cap, uint64_t addr)
{
    if (d->count == *cap) {
        size_t n = *cap ? *cap * 2 : 256;
        uint64_t *p = realloc(d->starts, n * sizeof(*p));
        if (!p)
            return false;
        d->starts = p;
        *cap = n;
    }
    d->starts[d->count++] = addr;
    return true;
}

struct collect {
    struct decoded *d;
    size_t cap;
};

static bool collect_start(void *ctx, uint64_t addr, const char *text)
{
    (void)text;
    struct collect *c = ctx;
    return push(c->d, &c->cap, addr);
}

/* objdump's instruction addresses for bytes at address at, into d. */
static bool run_objdump(const uint8_t *bytes, size_t len, uint64_t at, struct decoded *d)
{
    struct collect c = { d, 0 };
    return objdump_code(bytes, len, at, collect_start, &c);
}

static int search(const struct decoded *d, uint64_t addr)
{
    size_t lo = 0, hi = d->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->starts[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->count && d->starts[lo] == addr;
}

int insn_starts_at(struct insn_starts *c, const uint8_t *bytes, uint64_t start, uint64_t size,
                   uint64_t entry, uint64_t addr)
{
    if (entry < start || addr < entry || addr - start >= size)
        return 0;
    uint32_t i = keymap_get(&c->map, (uintptr_t)bytes, entry, 0, (uint32_t)c->count);
    if (i == c->count) {
        if (c->count == c->cap) {
            size_t n = c->cap ? c->cap * 2 : 64;
            struct decoded *r = realloc(c->runs, n * sizeof(*r));
            if (!r)
                return -1;
            c->runs = r;
            c->cap = n;
        }
        c->runs[c->count++] = (struct decoded){ .end = entry };
    }
    struct decoded *d = &c->runs[i];
    if (addr + INSN_MAX >= d->end && d->end < start + size) {
        uint64_t want = addr - entry + INSN_MAX + 1;
        uint64_t len = want > 2 * (d->end - entry) ? want : 2 * (d->end - entry);
        len = len < WINDOW_MIN ? WINDOW_MIN : len;
        if (len > start + size - entry)
            len = start + size - entry;
        free(d->starts);
        *d = (struct decoded){ .end = entry };
        if (c->broken || !run_objdump(bytes + (entry - start), (size_t)len, entry, d)) {
            c->broken = true;
            return -1;
        }
        d->end = entry + len;
    }
    return search(d, addr);
}
