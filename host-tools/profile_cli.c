/* The command line of the profile commands (see profile_cli.h). */
#include "host-tools/profile_cli.h"

#include <stddef.h>
#include <string.h>

#include "host-tools/vertigo.h"

#define INPUTS_MAX 2u

const char profile_options_help[] =
    "  -i, --input FILE    the log to read (the same as giving FILE; - for stdin)\n"
    "  --guest-root [DOM=]DIR  guest file tree holding the binaries named in process maps,\n"
    "                      of domain DOM (a number or the log's name for it; default 0)\n"
    "  --kallsyms [DOM=]FILE  guest kernel symbols of domain DOM (default 0), instead of\n"
    "                      the kallsyms it shipped; a passive domain shipped none\n"
    "  --domain-elf DOM=FILE  the one static image domain DOM runs (a unikernel): its\n"
    "                      samples' addresses, any mode, are looked up in FILE\n"
    "  --kernel-image [DOM=]FILE  domain DOM's guest kernel (vmlinux or bzImage): the\n"
    "                      bytes of its text, for check-frames and annotate\n"
    "  --vertigo-elf FILE  Vertigo's ELF, for hypervisor samples\n"
    "  -e, --event E       only samples of event E (name or id)\n"
    "  -c, --comms C       only samples of these processes (a comma list of names;\n"
    "                      also --comm)\n"
    "  --pids P            only samples of these processes (a comma list of PIDs; also --pid)\n"
    "  -d, --dsos D        only samples whose address is in these images (a comma list;\n"
    "                      also --dso)\n"
    "  -S, --symbols S     only samples whose function is one of these (a comma list)\n"
    "  --time START,STOP   only samples in this time range, in seconds as `vertigo script`\n"
    "                      prints them (either end may be left out; several ranges\n"
    "                      separated by spaces), or in percent of the log's time span:\n"
    "                      A%-B% (from A% to B%) or A%/N (the Nth slice of A%), several\n"
    "                      separated by commas\n"
    "  --no-demangle       keep C++ and Rust symbol names as the binary spells them\n"
    "  -q, --quiet         no warnings, and no header lines in the report\n"
    "  --stdio             accepted for perf's sake: output is always text on stdout\n"
    "  -h, --help          this text;  --version  the version\n";

/* Arguments being parsed: argv[i] is the next one. */
struct cli_args {
    const struct profile_cli_command *cmd;
    int argc, i;
    char **argv;
    const char **inputs;         /* the inputs found so far */
    unsigned int input_count, inputs_max;
    bool options_done;           /* after "--": only inputs */
};

enum cli_step {
    CLI_NEXT,                    /* the argument was taken: go on */
    CLI_NOT_MINE,                /* not an option of this kind */
    CLI_HELP,                    /* --help or --version: answered */
    CLI_BAD,                     /* a message was printed */
};

/* Whether argv[i] is one spelling of an option (names: "--sort|-s"): a
 * flag, or with its value (stored in *value) as "NAME VALUE" or, for a
 * long spelling, "NAME=VALUE"; if so, advances past it. The name alone as
 * the last argument of an option with a value is taken, *value NULL. */
static bool take_option(struct cli_args *a, const char *names, bool takes_value,
                        const char **value)
{
    const char *arg = a->argv[a->i];
    for (const char *name = names; name; name = strchr(name, '|') ? strchr(name, '|') + 1 : NULL) {
        size_t n = strcspn(name, "|");
        if (strncmp(arg, name, n))
            continue;
        if (!arg[n]) {
            bool have = takes_value && a->i + 1 < a->argc;
            *value = have ? a->argv[a->i + 1] : NULL;
            a->i += have ? 2 : 1;
            return true;
        }
        if (takes_value && !strncmp(name, "--", 2) && arg[n] == '=') {
            *value = arg + n + 1;
            a->i++;
            return true;
        }
    }
    return false;
}

/* An option's first spelling, for messages. */
static const char *first_name(const char *names, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(names, "|"), names);
    return buf;
}

static enum cli_step missing_value(const struct cli_args *a, const char *name)
{
    fprintf(stderr, "vertigo %s: %s needs a value\n", a->cmd->name, name);
    return CLI_BAD;
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

/* --kallsyms, --guest-root or --kernel-image at argv[i], plain or per
 * domain, or --domain-elf (per domain only). */
static enum cli_step domain_file_option(struct cli_args *a, struct profile_options *o)
{
    static const char *const names[] = { "--kallsyms", "--guest-root", "--domain-elf",
                                         "--kernel-image" };
    const char **plain[] = { &o->sym.kallsyms_path, &o->sym.guest_root, NULL, &o->sym.kernel_image };
    struct sym_domain_file *files[] = { o->sym.kallsyms, o->sym.roots, o->sym.elves, o->sym.kimages };
    unsigned int *counts[] = { &o->sym.kallsyms_count, &o->sym.root_count, &o->sym.elf_count,
                               &o->sym.kimage_count };
    for (size_t k = 0; k < 4; k++) {
        const char *value;
        if (!take_option(a, names[k], true, &value))
            continue;
        if (!value)
            return missing_value(a, names[k]);
        return domain_file(a->cmd->name, names[k], value, plain[k], files[k], counts[k],
                           o->domain_keys[k]) ? CLI_NEXT : CLI_BAD;
    }
    return CLI_NOT_MINE;
}

/* The input (an argument, or -i's value). */
static enum cli_step add_input(struct cli_args *a, const char *input)
{
    if (a->input_count < a->inputs_max) {
        a->inputs[a->input_count++] = input;
        return CLI_NEXT;
    }
    if (a->inputs_max == 1)
        fprintf(stderr, "vertigo %s: a second input '%s' (one log at a time)\n", a->cmd->name,
                input);
    else
        fprintf(stderr, "vertigo %s: unexpected argument '%s' (%u inputs expected)\n",
                a->cmd->name, input, a->inputs_max);
    return CLI_BAD;
}

#define OPT_FIELD(f) offsetof(struct profile_options, f)

/* The shared options whose value is stored as it is: perf's name, the
 * older Vertigo spelling, perf's short form. */
static const struct shared_option {
    const char *names;
    size_t field;                /* a const char * in struct profile_options */
} shared_options[] = {
    { "--vertigo-elf", OPT_FIELD(sym.vertigo_elf) },
    { "--event|-e", OPT_FIELD(event) },
    { "--comms|--comm|-c", OPT_FIELD(comm) },
    { "--pids|--pid", OPT_FIELD(pid) },
    { "--dsos|--dso|-d", OPT_FIELD(dso) },
    { "--symbols|-S", OPT_FIELD(symbols) },
    { "--time", OPT_FIELD(time) },
};

/* A shared flag at argv[i]. */
static enum cli_step shared_flag(struct cli_args *a, struct profile_options *o)
{
    const char *unused;
    if (take_option(a, "--quiet|-q", false, &unused))
        o->quiet = true;
    else if (take_option(a, "--no-demangle", false, &unused))
        o->sym.no_demangle = true;
    else if (take_option(a, "--demangle", false, &unused))
        o->sym.no_demangle = false;
    else if (!take_option(a, "--stdio", false, &unused))
        return CLI_NOT_MINE;
    return CLI_NEXT;
}

/* One of the shared options at argv[i]. */
static enum cli_step shared_option(struct cli_args *a, struct profile_options *o)
{
    enum cli_step step = domain_file_option(a, o);
    if (step == CLI_NOT_MINE)
        step = shared_flag(a, o);
    if (step != CLI_NOT_MINE)
        return step;
    for (size_t k = 0; k < sizeof(shared_options) / sizeof(shared_options[0]); k++) {
        const struct shared_option *s = &shared_options[k];
        const char *value;
        char name[32];
        if (!take_option(a, s->names, true, &value))
            continue;
        if (!value)
            return missing_value(a, first_name(s->names, name, sizeof(name)));
        *(const char **)((char *)o + s->field) = value;
        return CLI_NEXT;
    }
    return CLI_NOT_MINE;
}

/* One of the command's own options at argv[i]. */
static enum cli_step command_option(struct cli_args *a, void *settings)
{
    for (size_t k = 0; k < a->cmd->option_count; k++) {
        const struct profile_cli_option *opt = &a->cmd->options[k];
        const char *value;
        char name[32];
        if (!take_option(a, opt->name, opt->takes_value, &value))
            continue;
        if (opt->takes_value && !value)
            return missing_value(a, first_name(opt->name, name, sizeof(name)));
        return opt->set(settings, value) ? CLI_NEXT : CLI_BAD;
    }
    return CLI_NOT_MINE;
}

/* --help, --version, "--", the input, or an unknown option at argv[i]. */
static enum cli_step other_argument(struct cli_args *a)
{
    const char *arg = a->argv[a->i++];
    if (a->options_done || arg[0] != '-' || !arg[1])
        return add_input(a, arg);
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
        a->cmd->usage(stdout);
        return CLI_HELP;
    }
    if (!strcmp(arg, "--version")) {
        vertigo_print_version(stdout);
        return CLI_HELP;
    }
    if (!strcmp(arg, "--")) {
        a->options_done = true;
        return CLI_NEXT;
    }
    fprintf(stderr, "vertigo %s: unknown option '%s'\n", a->cmd->name, arg);
    return CLI_BAD;
}

static enum cli_step parse_args(struct cli_args *a, struct profile_options *po, void *settings)
{
    while (a->i < a->argc) {
        enum cli_step step = CLI_NOT_MINE;
        const char *value;
        if (!a->options_done && take_option(a, "--input|-i", true, &value))
            step = value ? add_input(a, value) : missing_value(a, "--input");
        if (step == CLI_NOT_MINE && !a->options_done && po)
            step = shared_option(a, po);
        if (step == CLI_NOT_MINE && !a->options_done)
            step = command_option(a, settings);
        if (step == CLI_NOT_MINE)
            step = other_argument(a);
        if (step != CLI_NEXT)
            return step;
    }
    if (a->cmd->complete && !a->cmd->complete(settings))
        return CLI_BAD;
    if (a->input_count < a->inputs_max) {
        if (a->inputs_max == 1)
            fprintf(stderr, "vertigo %s: no input (FILE or - for stdin)\n", a->cmd->name);
        else
            fprintf(stderr, "vertigo %s: %u inputs expected, %u given\n", a->cmd->name,
                    a->inputs_max, a->input_count);
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

int profile_cli_parse(const struct profile_cli_command *c, struct profile_options *po,
                      void *settings, int argc, char **argv, const char **inputs)
{
    unsigned int n = c->inputs ? c->inputs : 1;
    struct cli_args a = { .cmd = c, .argc = argc, .i = 1, .argv = argv, .inputs = inputs,
                          .inputs_max = n < INPUTS_MAX ? n : INPUTS_MAX };
    enum cli_step step = parse_args(&a, po, settings);
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
    struct profile_cli_command one = *c;
    one.inputs = 1;
    return profile_cli_parse(&one, NULL, settings, argc, argv, input);
}

int profile_cli_run(const struct profile_cli_command *c, void *settings, int argc, char **argv)
{
    struct profile_options po = { .timeline = c->timeline };
    const char *input;
    struct profile_cli_command one = *c;
    one.inputs = 1;
    int parsed = profile_cli_parse(&one, &po, settings, argc, argv, &input);
    if (parsed >= 0)
        return parsed;
    if (c->needs_timeline)
        po.timeline = c->needs_timeline(settings);
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
