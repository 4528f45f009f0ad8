/* The command line of the profile commands (see profile_cli.h). */
#include "host-tools/profile_cli.h"

#include <string.h>

#include "host-tools/vertigo.h"

const char profile_options_help[] =
    "  --guest-root DIR    guest file tree holding the binaries named in process maps\n"
    "  --kallsyms FILE     guest kernel symbols (default: the kallsyms shipped in the log)\n"
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

/* One of the shared options at argv[i]; given last without its value, it
 * is an error of its own. */
static enum cli_step shared_option(struct cli_args *a, struct profile_options *o)
{
    static const char *const names[] = { "--guest-root", "--kallsyms", "--vertigo-elf", "--event",
                                         "--comm", "--pid", "--dso" };
    const char **slots[] = { &o->sym.guest_root, &o->sym.kallsyms_path, &o->sym.vertigo_elf,
                             &o->event, &o->comm, &o->pid, &o->dso };
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
    if (status == VERTIGO_EXIT_OK || status == VERTIGO_EXIT_DAMAGED) {
        int written = c->write(&p, input, settings);
        if (written != VERTIGO_EXIT_OK)
            status = written;
    }
    profile_free(&p);
    return status;
}
