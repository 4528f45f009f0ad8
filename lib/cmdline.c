/* Hypervisor command-line parsing (see lib/cmdline.h). */
#include "lib/cmdline.h"

#include "lib/mem.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A word may hold spaces inside double quotes, and a quoted stretch may
 * escape '"' and '\\' with a backslash: GRUB hands Vertigo an argument
 * written key="a b" as "key=a b" (the whole word quoted, inner quotes
 * escaped), other loaders as written; both read as key and value "a b". */
struct unquote {
    const char *p, *end;
    bool quoted;
};

/* The next character of the word with its quoting removed, or -1. */
static int unquote_next(struct unquote *u)
{
    while (u->p < u->end) {
        char c = *u->p++;
        if (c == '"') {
            u->quoted = !u->quoted;
            continue;
        }
        if (u->quoted && c == '\\' && u->p < u->end)
            c = *u->p++;
        return (unsigned char)c;
    }
    return -1;
}

/* One word: its raw extent, the raw length of its key (up to the first
 * '=') and a cursor at its value (after that '='; none: `has_value` false). */
struct word {
    const char *start, *end;
    size_t key_raw_len;
    struct unquote value;
    bool has_value;
};

/* Finds the next word starting at *pos. */
static bool next_word(const char **pos, struct word *w)
{
    const char *p = *pos;
    bool quoted = false;

    while (*p && is_space(*p))
        p++;
    if (!*p)
        return false;
    w->start = p;
    w->has_value = false;
    for (; *p && (quoted || !is_space(*p)); p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (quoted && *p == '\\' && p[1])
            p++;
    }
    w->end = p;
    *pos = p;

    struct unquote u = { w->start, w->end, false };
    for (int c; (c = unquote_next(&u)) >= 0;)
        if (c == '=') {
            w->has_value = true;
            w->value = u;
            break;
        }
    const char *eq = w->start;
    while (eq < w->end && *eq != '=')
        eq++;
    w->key_raw_len = (size_t)(eq - w->start);
    return true;
}

static bool key_matches(const struct word *w, const char *want)
{
    struct unquote u = { w->start, w->end, false };
    for (int c; (c = unquote_next(&u)) >= 0 && c != '='; want++)
        if (*want != (char)c)
            return false;
    return *want == '\0';
}

/* Copies the word's value (quoting removed) into out; false if it does
 * not fit. */
static bool copy_value(const struct word *w, char *out, size_t out_size)
{
    struct unquote u = w->value;
    size_t n = 0;
    if (w->has_value)
        for (int c; (c = unquote_next(&u)) >= 0;) {
            if (n + 1 >= out_size)
                return false;
            out[n++] = (char)c;
        }
    if (out_size == 0)
        return false;
    out[n] = '\0';
    return true;
}

bool cmdline_get(const char *cmdline, const char *key, char *out, size_t out_size)
{
    const char *pos = cmdline ? cmdline : "";
    struct word w;
    bool found = false, fits = false;

    while (next_word(&pos, &w)) {
        if (!key_matches(&w, key))
            continue;
        found = true;
        fits = copy_value(&w, out, out_size);
    }
    return found && fits;
}

bool cmdline_has(const char *cmdline, const char *key)
{
    const char *pos = cmdline ? cmdline : "";
    struct word w;
    while (next_word(&pos, &w))
        if (key_matches(&w, key))
            return true;
    return false;
}

static int digit_value(char c, unsigned int base)
{
    int d;
    if (c >= '0' && c <= '9')
        d = c - '0';
    else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
    else
        return -1;
    return (unsigned int)d < base ? d : -1;
}

static unsigned int suffix_shift(char c)
{
    switch (c) {
    case 'k': case 'K': return 10;
    case 'm': case 'M': return 20;
    case 'g': case 'G': return 30;
    default: return 0;
    }
}

bool cmdline_parse_u64(const char *text, uint64_t *value)
{
    unsigned int base = 10;
    uint64_t v = 0;
    const char *p = text;

    if (!p || !*p)
        return false;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (digit_value(*p, base) < 0)
        return false;
    for (int d; (d = digit_value(*p, base)) >= 0; p++) {
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        v = v * base + (uint64_t)d;
    }
    unsigned int shift = suffix_shift(*p);
    if (shift) {
        if (v > (UINT64_MAX >> shift))
            return false;
        v <<= shift;
        p++;
    }
    if (*p)
        return false;
    *value = v;
    return true;
}

const char *cmdline_first_unknown(const char *cmdline, const char *const *known, size_t *len)
{
    const char *pos = cmdline ? cmdline : "";
    struct word w;

    while (next_word(&pos, &w)) {
        bool ok = false;
        for (const char *const *k = known; *k && !ok; k++)
            ok = key_matches(&w, *k);
        if (!ok) {
            *len = w.key_raw_len;
            return w.start;
        }
    }
    return NULL;
}
