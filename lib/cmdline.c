/* Hypervisor command-line parsing (see lib/cmdline.h). */
#include "lib/cmdline.h"

#include "lib/mem.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Finds the next word starting at *pos; sets key/value spans. */
static bool next_word(const char **pos, const char **key, size_t *key_len,
                      const char **value, size_t *value_len)
{
    const char *p = *pos;
    while (*p && is_space(*p))
        p++;
    if (!*p)
        return false;
    *key = p;
    while (*p && !is_space(*p) && *p != '=')
        p++;
    *key_len = (size_t)(p - *key);
    *value = p;
    *value_len = 0;
    if (*p == '=') {
        *value = ++p;
        while (*p && !is_space(*p))
            p++;
        *value_len = (size_t)(p - *value);
    }
    *pos = p;
    return true;
}

static bool key_matches(const char *key, size_t key_len, const char *want)
{
    return strlen(want) == key_len && memcmp(key, want, key_len) == 0;
}

bool cmdline_get(const char *cmdline, const char *key, char *out, size_t out_size)
{
    const char *pos = cmdline ? cmdline : "", *k, *v;
    size_t kl, vl;
    bool found = false, fits = false;

    while (next_word(&pos, &k, &kl, &v, &vl)) {
        if (!key_matches(k, kl, key))
            continue;
        found = true;
        fits = vl < out_size;
        if (fits) {
            memcpy(out, v, vl);
            out[vl] = '\0';
        }
    }
    return found && fits;
}

bool cmdline_has(const char *cmdline, const char *key)
{
    const char *pos = cmdline ? cmdline : "", *k, *v;
    size_t kl, vl;
    while (next_word(&pos, &k, &kl, &v, &vl))
        if (key_matches(k, kl, key))
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
    const char *pos = cmdline ? cmdline : "", *k, *v;
    size_t kl, vl;

    while (next_word(&pos, &k, &kl, &v, &vl)) {
        bool ok = false;
        for (const char *const *w = known; *w && !ok; w++)
            ok = key_matches(k, kl, *w);
        if (!ok) {
            *len = kl;
            return k;
        }
    }
    return NULL;
}
