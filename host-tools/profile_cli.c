/* The command line of the profile commands (see profile_cli.h). */
#include "host-tools/profile_cli.h"

#include <string.h>

#include "host-tools/vertigo.h"

const char profile_options_help[] =
    "  --guest-root [DOM=]DIR  guest file tree holding the binaries named in process maps,\n"
    "                      of domain DOM (a number or the log's name for it; default 0)\n"
    "  --kallsyms [DOM=]FILE  guest kernel symbols of domain DOM (default 0), instead of\n"
    "                      the kallsyms it shipped; a passive domain shipped none\n"
    "  --domain-elf DOM=FILE  the one static image domain DOM runs (a unikernel): its\n"
    "                      samples' addresses, any mode, are looked up in FILE\n"
    "  --vertigo-elf FILE  Vertigo's ELF, for hypervisor samples\n"
    "  --event E           only samples of event E (name or id)\n"
    "  --comm C            only samples of these processes (a comma list of names)\n"
    "  --pid P             only samples of these processes (a comma list of PIDs)\n"
    "  --dso D             only samples whose address is in these images (a comma list)\n";

/* Arguments being parsed: argv[i] is the next one. */
struct cli_args {
    const struct profile_cli_command *cmd;
    int argc, i;
    char **argv;
};

enum cli_step {
    CLI_NEXT,                    /* the argument was taken: go on */
    CLI_NOT_MINE,                /* not an option of this kind */
    CLI_HELP,                    /* --help: usage printed */
    CLI_BAD,                     /* a message was printed */
};

/* Whether argv[i] is option name: a flag, or with its value (stored in
 * *value) as "NAME VALUE" or, for a long option, "NAME=VALUE"; if so,
 * advances past it. */
static bool take_option(struct cli_args *a, const char *name, bool takes_value, const char **value)
{
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (!strcmp(arg, name) && (!takes_value || a->i + 1 < a->argc)) {
        *value = takes_value ? a->argv[a->i + 1] : NULL;
        a->i += takes_value ? 2 : 1;
        return true;
    }
    if (takes_value && !strncmp(name, "--", 2) && !strncmp(arg, name, n) && arg[n] == '=') {
        *value = arg + n + 1;
        a->i++;
        return true;
    }
    return false;
}

/* VALUE of --kallsyms, --guest-root or --domain-elf: "DOM=PATH" when text
 * before the first '=' has no '/' (a path with '=' in its first component
 * is written ./PATH), then a file of domain DOM; else PATH, domain 0's
 * (plain NULL: the option has no plain form, DOM= is required). */
static bool domain_file(const char *cmd, const char *option, const char *value,
                        const char **plain, struct sym_domain_file *files, unsigned int *count,
                        char (*keys)[DOMAIN_NAME_MAX])
{
    const char *eq = strchr(value, '=');
    size_t dom_len = eq ? (size_t)(eq - value) : 0;
    if (plain && (!eq || memchr(value, '/', dom_len))) {
        *plain = value;
        return true;
    }
    if (!eq || memchr(value, '/', dom_len) || !dom_len || !eq[1]) {
        fprintf(stderr, "vertigo %s: %s %s: expected DOM=%s with a domain and a path\n", cmd,
                option, value, strcmp(option, "--guest-root") ? "FILE" : "DIR");
        return false;
    }
    if (*count == SYM_DOMAIN_FILES_MAX) {
        fprintf(stderr, "vertigo %s: %s %s: at most %u domains get their own %s\n", cmd, option,
                value, SYM_DOMAIN_FILES_MAX, option);
        return false;
    }
    if (dom_len >= DOMAIN_NAME_MAX) {
        fprintf(stderr, "vertigo %s: %s %s: the domain is longer than %u bytes\n", cmd, option,
                value, DOMAIN_NAME_MAX - 1);
        return false;
    }
    memcpy(keys[*count], value, dom_len);
    keys[*count][dom_len] = '\0';
    files[*count] = (struct sym_domain_file){ keys[*count], eq + 1 };
    ++*count;
    return true;
}

/* --kallsyms or --guest-root at argv[i], plain or per domain, or
 * --domain-elf (per domain only). */
static enum cli_step domain_file_option(struct cli_args *a, struct profile_options *o)
{
    static const char *const names[] = { "--kallsyms", "--guest-root", "--domain-elf" };
    const char **plain[] = { &o->sym.kallsyms_path, &o->sym.guest_root, NULL };
    struct sym_domain_file *files[] = { o->sym.kallsyms, o->sym.roots, o->sym.elves };
    unsigned int *counts[] = { &o->sym.kallsyms_count, &o->sym.root_count, &o->sym.elf_count };
    for (size_t k = 0; k < 3; k++) {
        const char *value;
        if (take_option(a, names[k], true, &value))
            return domain_file(a->cmd->name, names[k], value, plain[k], files[k], counts[k],
                               o->domain_keys[k]) ? CLI_NEXT : CLI_BAD;
        if (!strcmp(a->argv[a->i], names[k])) {
            fprintf(stderr, "vertigo %s: %s needs a value\n", a->cmd->name, names[k]);
            return CLI_BAD;
        }
    }
    return CLI_NOT_MINE;
}

/* One of the shared options at argv[i]; given last without its value, it
 * is an error of its own. */
static enum cli_step shared_option(struct cli_args *a, struct profile_options *o)
{
    static const char *const names[] = { "--vertigo-elf", "--event", "--comm", "--pid", "--dso" };
    const char **slots[] = { &o->sym.vertigo_elf, &o->event, &o->comm, &o->pid, &o->dso };
    enum cli_step step = domain_file_option(a, o);
    if (step != CLI_NOT_MINE)
        return step;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        if (take_option(a, names[k], true, slots[k]))
            return CLI_NEXT;
        if (!strcmp(a->argv[a->i], names[k])) {
            fprintf(stderr, "vertigo %s: %s needs a value\n", a->cmd->name, names[k]);
            return CLI_BAD;
        }
    }
    return CLI_NOT_MINE;
}

/* One of the command's own options at argv[i]; given last without its
 * value, it is an unexpected argument. */
static enum cli_step command_option(struct cli_args *a, void *settings)
{
    for (size_t k = 0; k < a->cmd->option_count; k++) {
        const struct profile_cli_option *opt = &a->cmd->options[k];
        const char *value;
        if (take_option(a, opt->name, opt->takes_value, &value))
            return opt->set(settings, value) ? CLI_NEXT : CLI_BAD;
    }
    return CLI_NOT_MINE;
}

/* --help, the input, or an unexpected argument at argv[i]. */
static enum cli_step other_argument(struct cli_args *a, const char **input)
{
    const char *arg = a->argv[a->i++];
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
        a->cmd->usage(stdout);
        return CLI_HELP;
    }
    if ((arg[0] != '-' || !arg[1]) && !*input) {
        *input = arg;
        return CLI_NEXT;
    }
    fprintf(stderr, "vertigo %s: unexpected argument '%s'\n", a->cmd->name, arg);
    return CLI_BAD;
}

static enum cli_step parse_args(struct cli_args *a, struct profile_options *po, void *settings,
                                const char **input)
{
    while (a->i < a->argc) {
        enum cli_step step = po ? shared_option(a, po) : CLI_NOT_MINE;
        if (step == CLI_NOT_MINE)
            step = command_option(a, settings);
        if (step == CLI_NOT_MINE)
            step = other_argument(a, input);
        if (step != CLI_NEXT)
            return step;
    }
    if (a->cmd->complete && !a->cmd->complete(settings))
        return CLI_BAD;
    if (!*input) {
        fprintf(stderr, "vertigo %s: no input (FILE or - for stdin)\n", a->cmd->name);
        return CLI_BAD;
    }
    return CLI_NEXT;
}

int profile_cli_choose(const char *cmd, const char *what, const char *value,
                       const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(value, names[i]))
            return (int)i;
    fprintf(stderr, "vertigo %s: unknown %s '%s' (", cmd, what, value);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
    fprintf(stderr, ")\n");
    return -1;
}

/* Parses argv into settings (and po, if not NULL); returns -1 to go on
 * with *input, else the exit status (after --help or a bad line). */
static int parse_command_line(const struct profile_cli_command *c, struct profile_options *po,
                              void *settings, int argc, char **argv, const char **input)
{
    struct cli_args a = { .cmd = c, .argc = argc, .i = 1, .argv = argv };
    *input = NULL;
    enum cli_step step = parse_args(&a, po, settings, input);
    if (step == CLI_HELP)
        return VERTIGO_EXIT_OK;
    if (step == CLI_BAD) {
        c->usage(stderr);
        return VERTIGO_EXIT_CMDLINE;
    }
    return -1;
}

int profile_cli_args(const struct profile_cli_command *c, void *settings, int argc, char **argv,
                     const char **input)
{
    return parse_command_line(c, NULL, settings, argc, argv, input);
}

int profile_cli_run(const struct profile_cli_command *c, void *settings, int argc, char **argv)
{
    struct profile_options po = { .timeline = c->timeline };
    const char *input;
    int parsed = parse_command_line(c, &po, settings, argc, argv, &input);
    if (parsed >= 0)
        return parsed;
    struct profile p;
    int status = profile_load(&p, c->name, input, &po);
    if ((status == VERTIGO_EXIT_OK || status == VERTIGO_EXIT_DAMAGED) && !p.overflow.hit) {
        int written = c->write(&p, input, settings);
        if (written != VERTIGO_EXIT_OK)
            status = written;
    }
    profile_free(&p);
    return status;
}
