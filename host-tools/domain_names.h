/* The names of a log's domains. Vertigo echoes its command line into the
 * log as config records (key=value words); a word dom.N.name=NAME names
 * domain N. A domain without one is called "domN" (domain 0: "dom0"), as
 * Vertigo itself calls it. Names come from the log, so they are cleaned:
 * at most DOMAIN_NAME_MAX - 1 bytes, every byte but letters, digits and
 * "_.-+:@" replaced by '?'. Also the domains a log mentions (samples, symbols, life-cycle
 * records, names), for options that name one (`--kallsyms DOM=FILE`),
 * and which of them shipped symbols: a domain that did not is passive (no
 * agent runs in it; its samples keep raw addresses unless the user gives
 * its files). */
#ifndef HOST_TOOLS_DOMAIN_NAMES_H
#define HOST_TOOLS_DOMAIN_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DOMAIN_IDS_MAX  256u     /* domains with a name or a mention kept */
#define DOMAIN_NAME_MAX 32u

struct domain_names {
    char name[DOMAIN_IDS_MAX][DOMAIN_NAME_MAX];     /* "" when none was given */
    bool seen[DOMAIN_IDS_MAX];                      /* the log mentions it */
    bool shipped[DOMAIN_IDS_MAX];                   /* it shipped symbols (an agent
                                                     * runs): not passive */
    bool seen_beyond;                               /* ... or one >= DOMAIN_IDS_MAX */
};

/* Takes the words of one config record's text (len bytes, no NUL). */
void domain_names_config(struct domain_names *dn, const char *text, size_t len);

/* Notes that the log mentions domain. */
void domain_names_seen(struct domain_names *dn, uint32_t domain);

/* Notes that domain shipped symbols (and so is mentioned). */
void domain_names_shipped(struct domain_names *dn, uint32_t domain);

/* True if the log mentions domain and it shipped no symbols. */
bool domain_passive(const struct domain_names *dn, uint32_t domain);

/* The name of domain: its dom.N.name, else "domN" written into buf. */
const char *domain_name(const struct domain_names *dn, uint32_t domain,
                        char buf[DOMAIN_NAME_MAX]);

/* The domains `key` designates among those the log mentions: a decimal
 * domain number (any 32-bit id), or a name the log gave, or "domN".
 * Returns how many (a name may be given to several domains), the first
 * max of them in ids. */
unsigned int domain_names_matches(const struct domain_names *dn, const char *key, uint32_t *ids,
                                  unsigned int max);

/* The first domain `key` designates (domain_names_matches); false if none. */
bool domain_names_find(const struct domain_names *dn, const char *key, uint32_t *domain);

/* The domains the log mentions as "NAME (N), ..." into buf, for errors. */
void domain_names_list(const struct domain_names *dn, char *buf, size_t len);

#endif
