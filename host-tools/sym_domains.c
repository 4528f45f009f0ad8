/* Symbol files given per domain: `--kallsyms DOM=FILE`, `--guest-root
 * DOM=DIR` and `--domain-elf DOM=FILE` (see symbolize.h). Each is opened when the symbolizer is
 * created, so a bad file is refused before the log is read; which domain
 * DOM designates (a number, or a name the log gives) is decided at each
 * lookup, since names arrive with the log. The plain forms (--kallsyms
 * FILE, --guest-root DIR) are domain 0's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-tools/domain_names.h"
#include "host-tools/sym_internal.h"

bool sym_key_designates(const struct symbolizer *s, const char *key, uint32_t domain)
{
    char *end;
    unsigned long n = strtoul(key, &end, 10);
    if (*key >= '0' && *key <= '9' && !*end)
        return n == domain;
    char buf[DOMAIN_NAME_MAX];
    return s->names && !strcmp(domain_name(s->names, domain, buf), key);
}

static bool open_kallsyms(struct symbolizer *s, unsigned int i, char *err, size_t err_len)
{
    const struct sym_domain_file *f = &s->opts.kallsyms[i];
    char option[SYM_PATH_MAX];
    size_t len;
    snprintf(option, sizeof(option), "--kallsyms %s=%s", f->domain, f->path);
    char *text = sym_read_text_file(option, f->path, &len, err, err_len);
    if (!text)
        return false;
    s->ktables = sym_grow(s->ktables, &s->ktable_cap, s->ktable_count + 1, sizeof(*s->ktables));
    s->ktables[s->ktable_count] = (struct ktable){ 0 };
    sym_load_kallsyms(s, &s->ktables[s->ktable_count], text, len);
    free(text);
    s->dom_kallsyms[i] = (struct sym_domain_src){ f->domain, (uint32_t)s->ktable_count++, -1, -1 };
    return true;
}

static bool open_root(struct symbolizer *s, unsigned int i, char *err, size_t err_len)
{
    const struct sym_domain_file *f = &s->opts.roots[i];
    char option[SYM_PATH_MAX];
    snprintf(option, sizeof(option), "--guest-root %s=%s", f->domain, f->path);
    int fd = sym_open_root(option, f->path, err, err_len);
    s->dom_roots[i] = (struct sym_domain_src){ f->domain, 0, fd, -1 };
    return fd >= 0;
}

/* The domain's one image, named after the file as Vertigo's ELF is. */
static bool open_elf(struct symbolizer *s, unsigned int i, char *err, size_t err_len)
{
    const struct sym_domain_file *f = &s->opts.elves[i];
    for (unsigned int j = 0; j < i; j++) {
        if (!strcmp(s->opts.elves[j].path, f->path)) {      /* one file, several domains */
            s->dom_elves[i] = (struct sym_domain_src){ f->domain, 0, -1, s->dom_elves[j].elf };
            return true;
        }
    }
    const char *slash = strrchr(f->path, '/');
    uint32_t image = sym_image_get(s, slash ? slash + 1 : f->path, 0, 0, 0);
    int elf = sym_elf_open_vertigo(s, f->path, image);
    s->dom_elves[i] = (struct sym_domain_src){ f->domain, 0, -1, elf };
    if (elf < 0)
        snprintf(err, err_len, "--domain-elf %s=%s: not a readable ELF file", f->domain, f->path);
    return elf >= 0;
}

bool sym_domains_open(struct symbolizer *s, char *err, size_t err_len)
{
    for (unsigned int i = 0; i < SYM_DOMAIN_FILES_MAX; i++)
        s->dom_roots[i].root_fd = -1;
    for (unsigned int i = 0; i < s->opts.kallsyms_count && i < SYM_DOMAIN_FILES_MAX; i++)
        if (!open_kallsyms(s, i, err, err_len))
            return false;
    for (unsigned int i = 0; i < s->opts.root_count && i < SYM_DOMAIN_FILES_MAX; i++)
        if (!open_root(s, i, err, err_len))
            return false;
    for (unsigned int i = 0; i < s->opts.elf_count && i < SYM_DOMAIN_FILES_MAX; i++)
        if (!open_elf(s, i, err, err_len))
            return false;
    return true;
}

void sym_domains_close(struct symbolizer *s)
{
    for (unsigned int i = 0; i < SYM_DOMAIN_FILES_MAX; i++)
        if (s->dom_roots[i].root_fd >= 0)
            close(s->dom_roots[i].root_fd);
}

const struct ktable *sym_domain_ktable(const struct symbolizer *s, uint32_t domain)
{
    for (unsigned int i = 0; i < s->opts.kallsyms_count && i < SYM_DOMAIN_FILES_MAX; i++)
        if (sym_key_designates(s, s->dom_kallsyms[i].key, domain))
            return &s->ktables[s->dom_kallsyms[i].ktable];
    return domain == 0 && s->opts.kallsyms_path ? &s->ktables[0] : NULL;
}

int sym_root_fd(const struct symbolizer *s, uint32_t domain)
{
    for (unsigned int i = 0; i < s->opts.root_count && i < SYM_DOMAIN_FILES_MAX; i++)
        if (sym_key_designates(s, s->dom_roots[i].key, domain))
            return s->dom_roots[i].root_fd;
    return domain == 0 ? s->root_fd : -1;
}

int sym_domain_elf(const struct symbolizer *s, uint32_t domain)
{
    for (unsigned int i = 0; i < s->opts.elf_count && i < SYM_DOMAIN_FILES_MAX; i++)
        if (sym_key_designates(s, s->dom_elves[i].key, domain))
            return s->dom_elves[i].elf;
    return -1;
}

void sym_set_domain_names(struct symbolizer *s, const struct domain_names *names)
{
    s->names = names;
}

static bool check_files(const struct symbolizer *s, const char *option,
                        const struct sym_domain_file *files, unsigned int count, char *err,
                        size_t err_len)
{
    static const struct domain_names none;
    const struct domain_names *names = s->names ? s->names : &none;
    for (unsigned int i = 0; i < count && i < SYM_DOMAIN_FILES_MAX; i++) {
        uint32_t ids[2];
        unsigned int n = domain_names_matches(names, files[i].domain, ids, 2);
        if (n == 1)
            continue;
        if (n > 1) {
            snprintf(err, err_len, "%s %s=%s: '%s' names %u domains of the log (%u, %u%s): give "
                     "the domain's number, %s %u=%s", option, files[i].domain, files[i].path,
                     files[i].domain, n, ids[0], ids[1], n > 2 ? ", ..." : "", option, ids[0],
                     files[i].path);
            return false;
        }
        char list[256];
        domain_names_list(names, list, sizeof(list));
        snprintf(err, err_len, "%s %s=%s: no domain '%s' in the log (its domains: %s)", option,
                 files[i].domain, files[i].path, files[i].domain, list);
        return false;
    }
    return true;
}

bool sym_check_domains(const struct symbolizer *s, char *err, size_t err_len)
{
    return check_files(s, "--kallsyms", s->opts.kallsyms, s->opts.kallsyms_count, err, err_len) &&
           check_files(s, "--guest-root", s->opts.roots, s->opts.root_count, err, err_len) &&
           check_files(s, "--domain-elf", s->opts.elves, s->opts.elf_count, err, err_len) &&
           check_files(s, "--kernel-image", s->opts.kimages, s->opts.kimage_count, err, err_len);
}
