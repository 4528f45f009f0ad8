/* The names of a log's domains (see domain_names.h). */
#include "host-tools/domain_names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_KEY_PREFIX "dom."
#define NAME_KEY_SUFFIX ".name="

/* A name is shown in reports, CSV, JSON and flame graphs: letters,
 * digits and "_.-+:@" pass, any other byte becomes '?'. */
static char name_byte(char c)
{
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 (c && strchr("_.-+:@", c));
    return plain ? c : '?';
}

/* One word "dom.N.name=NAME" of len bytes: stores NAME for N. */
static void take_word(struct domain_names *dn, const char *w, size_t len)
{
    size_t pre = sizeof(NAME_KEY_PREFIX) - 1, suf = sizeof(NAME_KEY_SUFFIX) - 1;
    if (len <= pre || memcmp(w, NAME_KEY_PREFIX, pre))
        return;
    size_t digits = 0;
    unsigned long n = 0;
    while (pre + digits < len && w[pre + digits] >= '0' && w[pre + digits] <= '9' && digits < 4)
        n = n * 10 + (unsigned long)(w[pre + digits++] - '0');
    size_t at = pre + digits;
    if (!digits || n >= DOMAIN_IDS_MAX || len - at <= suf || memcmp(w + at, NAME_KEY_SUFFIX, suf))
        return;
    const char *name = w + at + suf;
    size_t k = 0, name_len = len - at - suf;
    for (; k < name_len && k + 1 < DOMAIN_NAME_MAX; k++)
        dn->name[n][k] = name_byte(name[k]);
    dn->name[n][k] = '\0';
    dn->seen[n] = true;
}

void domain_names_config(struct domain_names *dn, const char *text, size_t len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && text[i] == ' ')
            i++;
        size_t start = i;
        while (i < len && text[i] != ' ')
            i++;
        if (i > start)
            take_word(dn, text + start, i - start);
    }
}

void domain_names_seen(struct domain_names *dn, uint32_t domain)
{
    if (domain < DOMAIN_IDS_MAX)
        dn->seen[domain] = true;
    else
        dn->seen_beyond = true;
}

void domain_names_shipped(struct domain_names *dn, uint32_t domain)
{
    domain_names_seen(dn, domain);
    if (domain < DOMAIN_IDS_MAX)
        dn->shipped[domain] = true;
}

bool domain_passive(const struct domain_names *dn, uint32_t domain)
{
    return domain < DOMAIN_IDS_MAX && dn->seen[domain] && !dn->shipped[domain];
}

const char *domain_name(const struct domain_names *dn, uint32_t domain, char buf[DOMAIN_NAME_MAX])
{
    if (domain < DOMAIN_IDS_MAX && dn->name[domain][0])
        return dn->name[domain];
    snprintf(buf, DOMAIN_NAME_MAX, "dom%u", domain);
    return buf;
}

/* The domain number of key "N" or "domN" (any 32-bit id), if it is one. */
static bool number_of(const char *key, uint32_t *domain)
{
    const char *digits = strncmp(key, "dom", 3) ? key : key + 3;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(digits, &end, 10);
    if (*digits < '0' || *digits > '9' || *end || errno || n > UINT32_MAX)
        return false;
    *domain = (uint32_t)n;
    return true;
}

static bool mentioned(const struct domain_names *dn, uint32_t d)
{
    return d < DOMAIN_IDS_MAX ? dn->seen[d] : dn->seen_beyond;
}

unsigned int domain_names_matches(const struct domain_names *dn, const char *key, uint32_t *ids,
                                  unsigned int max)
{
    unsigned int n = 0;
    uint32_t d;
    char buf[DOMAIN_NAME_MAX];
    bool numeric = key[0] >= '0' && key[0] <= '9';
    if (numeric || (number_of(key, &d) && (d >= DOMAIN_IDS_MAX || !dn->name[d][0]))) {
        if (number_of(key, &d) && mentioned(dn, d) && max)  /* "N", or "domN" of an unnamed one */
            ids[n++] = d;
        if (numeric)
            return n;
    }
    for (d = 0; d < DOMAIN_IDS_MAX; d++)         /* a name the log gave, or "domN" again */
        if (dn->seen[d] && !strcmp(domain_name(dn, d, buf), key) && (!n || ids[0] != d)) {
            if (n < max)
                ids[n] = d;
            n++;
        }
    return n;
}

bool domain_names_find(const struct domain_names *dn, const char *key, uint32_t *domain)
{
    return domain_names_matches(dn, key, domain, 1) > 0;
}

void domain_names_list(const struct domain_names *dn, char *buf, size_t len)
{
    size_t used = 0;
    char name[DOMAIN_NAME_MAX];
    buf[0] = '\0';
    for (uint32_t d = 0; d < DOMAIN_IDS_MAX && used < len; d++) {
        if (!dn->seen[d])
            continue;
        int n = snprintf(buf + used, len - used, "%s%s (%u)", used ? ", " : "",
                         domain_name(dn, d, name), d);
        used += n > 0 ? (size_t)n : 0;
    }
    if (!used)
        snprintf(buf, len, "none");
}
