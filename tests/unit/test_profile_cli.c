/* Tests of the profile commands' shared command line (profile_cli.c),
 * through a command of its own: a flag, a long and a short option with a
 * value, a required option, and a writer that records what it was given.
 * Each case is an argument list and what must follow: the exit status,
 * the messages on stderr, where the usage went, the settings parsed and
 * whether the writer ran. */
#include <stdlib.h>
#include <string.h>

#include "host-tools/profile_cli.h"
#include "host-tools/vertigo.h"
#include "tests/unit/unit.h"

#define LOG_CLEAN "tests/fixtures/log/every-type.bin"
#define LOG_DAMAGED "tests/fixtures/log/corrupt-mix.bin"
#define ARGS_MAX 10

struct fake_settings {
    bool flag;
    const char *value;           /* --value; "bad" is refused, "fail" fails the writer */
    const char *short_value;     /* -s */
};

static const char *usage_went;   /* "stdout", "stderr" or NULL */
static const char *written;      /* the input the writer got, or NULL */

static void fake_usage(FILE *out)
{
    usage_went = out == stdout ? "stdout" : out == stderr ? "stderr" : "elsewhere";
}

static bool set_flag(void *settings, const char *value)
{
    ((struct fake_settings *)settings)->flag = value == NULL;
    return true;
}

static bool set_value(void *settings, const char *value)
{
    if (!strcmp(value, "bad")) {
        fprintf(stderr, "vertigo fake: bad value '%s'\n", value);
        return false;
    }
    ((struct fake_settings *)settings)->value = value;
    return true;
}

static bool set_short(void *settings, const char *value)
{
    ((struct fake_settings *)settings)->short_value = value;
    return true;
}

static bool has_value(const void *settings)
{
    if (((const struct fake_settings *)settings)->value)
        return true;
    fprintf(stderr, "vertigo fake: --value is required\n");
    return false;
}

static int fake_write(const struct profile *p, const char *input, const void *settings)
{
    (void)p;
    written = input;
    const char *value = ((const struct fake_settings *)settings)->value;
    return !strcmp(value, "fail") ? VERTIGO_EXIT_USAGE : VERTIGO_EXIT_OK;
}

static const struct profile_cli_option fake_options[] = {
    { "--flag", false, set_flag },
    { "--value|-w", true, set_value },
    { "-s", true, set_short },
};

static const struct profile_cli_command fake_command = {
    .name = "fake",
    .options = fake_options,
    .option_count = sizeof(fake_options) / sizeof(fake_options[0]),
    .usage = fake_usage,
    .complete = has_value,
    .write = fake_write,
};

struct cli_case {
    const char *argv[ARGS_MAX];  /* after the command's name, up to a NULL */
    int status;
    const char *err;             /* text stderr must hold; "" for nothing at all */
    const char *usage;           /* where the usage went, or NULL */
    struct fake_settings want;
    const char *written;         /* the writer's input, or NULL if it must not run */
};

static const struct cli_case cases[] = {
    { { "--flag", "--value", "a", "-s", "b", LOG_CLEAN }, VERTIGO_EXIT_OK, "", NULL,
      { true, "a", "b" }, LOG_CLEAN },
    { { "--value=c", "--guest-root=tests", "--event", "0", LOG_CLEAN }, VERTIGO_EXIT_OK, "", NULL,
      { false, "c", NULL }, LOG_CLEAN },
    { { LOG_CLEAN, "--value", "a" }, VERTIGO_EXIT_OK, "", NULL, { false, "a", NULL }, LOG_CLEAN },
    { { "--value", "a", LOG_DAMAGED }, VERTIGO_EXIT_DAMAGED, ": damaged stream: ", NULL,
      { false, "a", NULL }, LOG_DAMAGED },
    { { "--value", "fail", LOG_CLEAN }, VERTIGO_EXIT_USAGE, "", NULL,
      { false, "fail", NULL }, LOG_CLEAN },
    /* Shared options: both forms, their values checked by the load. */
    { { "--value", "a", "--kallsyms=/nonexistent", LOG_CLEAN }, VERTIGO_EXIT_USAGE,
      "vertigo fake: --kallsyms /nonexistent: No such file or directory\n", NULL,
      { false, "a", NULL }, NULL },
    { { "--value", "a", "--guest-root", "/nonexistent", LOG_CLEAN }, VERTIGO_EXIT_USAGE,
      "vertigo fake: --guest-root /nonexistent: No such file or directory\n", NULL,
      { false, "a", NULL }, NULL },
    { { "--value", "a", LOG_CLEAN, "--event" }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: --event needs a value\n", "stderr", { false, "a", NULL }, NULL },
    { { "--value", "a", "/nonexistent" }, VERTIGO_EXIT_USAGE,
      "vertigo fake: /nonexistent: No such file or directory\n", NULL, { false, "a", NULL }, NULL },
    /* The command's own options. */
    { { LOG_CLEAN, "--value" }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: --value needs a value\n", "stderr", { 0 }, NULL },
    { { "--value", "a", "-s=b", LOG_CLEAN }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: unknown option '-s=b'\n", "stderr", { false, "a", NULL }, NULL },
    { { "--value", "a", "--flag=1", LOG_CLEAN }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: unknown option '--flag=1'\n", "stderr", { false, "a", NULL }, NULL },
    /* Spellings: the short form of an option (-w of --value|-w). */
    { { "-w", "x", LOG_CLEAN }, VERTIGO_EXIT_OK, "", NULL, { false, "x", NULL }, LOG_CLEAN },
    { { LOG_CLEAN, "-w" }, VERTIGO_EXIT_CMDLINE, "vertigo fake: --value needs a value\n",
      "stderr", { 0 }, NULL },
    { { "--value=bad", LOG_CLEAN }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: bad value 'bad'\n", "stderr", { 0 }, NULL },
    /* "--" ends the options: what follows is the input. */
    { { "--value", "a", "--", LOG_CLEAN }, VERTIGO_EXIT_OK, "", NULL, { false, "a", NULL },
      LOG_CLEAN },
    { { "--value", "a", "--", "--flag" }, VERTIGO_EXIT_USAGE,
      "vertigo fake: --flag: No such file or directory\n", NULL, { false, "a", NULL }, NULL },
    /* perf's shared options: -i for the input, the filters' short and
     * plural spellings, -q, --stdio; their values checked by the load. */
    { { "--value", "a", "-i", LOG_CLEAN }, VERTIGO_EXIT_OK, "", NULL, { false, "a", NULL },
      LOG_CLEAN },
    { { "--value", "a", "--input=" LOG_CLEAN, "-q", "--stdio" }, VERTIGO_EXIT_OK, "", NULL,
      { false, "a", NULL }, LOG_CLEAN },
    { { "--value", "a", "-c", "x", "-d", "y", "-S", "z", LOG_CLEAN }, VERTIGO_EXIT_OK, "", NULL,
      { false, "a", NULL }, LOG_CLEAN },
    { { "--value", "a", "--pids", "1,x", LOG_CLEAN }, VERTIGO_EXIT_USAGE,
      "vertigo fake: --pid 1,x: not a list of process numbers\n", NULL, { false, "a", NULL },
      NULL },
    { { "--value", "a", "--time", "5,3", LOG_CLEAN }, VERTIGO_EXIT_USAGE,
      "vertigo fake: --time '5,3': a range starts after its stop\n", NULL,
      { false, "a", NULL }, NULL },
    { { "--value", "a", "--time=10%/11", LOG_CLEAN }, VERTIGO_EXIT_USAGE,
      "vertigo fake: --time '10%/11': expected A%-B%", NULL, { false, "a", NULL }, NULL },
    { { "--value", "a", "-i", LOG_CLEAN, LOG_CLEAN }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: a second input '" LOG_CLEAN "' (one log at a time)\n", "stderr",
      { false, "a", NULL }, NULL },
    { { "--value", "a", "--version" }, VERTIGO_EXIT_OK, "", NULL, { false, "a", NULL }, NULL },
    { { "--bogus", LOG_CLEAN }, VERTIGO_EXIT_CMDLINE, "vertigo fake: unknown option '--bogus'\n",
      "stderr", { 0 }, NULL },
    /* Help, the input, the required option. */
    { { "--flag", "--help", LOG_CLEAN }, VERTIGO_EXIT_OK, "", "stdout",
      { true, NULL, NULL }, NULL },
    { { "-h" }, VERTIGO_EXIT_OK, "", "stdout", { 0 }, NULL },
    { { "--value", "a", LOG_CLEAN, LOG_DAMAGED }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: a second input '" LOG_DAMAGED "' (one log at a time)\n", "stderr",
      { false, "a", NULL }, NULL },
    { { "--value", "a" }, VERTIGO_EXIT_CMDLINE,
      "vertigo fake: no input (FILE or - for stdin)\n", "stderr", { false, "a", NULL }, NULL },
    { { LOG_CLEAN }, VERTIGO_EXIT_CMDLINE, "vertigo fake: --value is required\n", "stderr",
      { 0 }, NULL },
    { { 0 }, VERTIGO_EXIT_CMDLINE, "vertigo fake: --value is required\n", "stderr", { 0 }, NULL },
};

#define CASE_COUNT (sizeof(cases) / sizeof(cases[0]))

/* Runs the fake command on c's arguments with stderr captured into *err. */
static int run(const struct cli_case *c, struct fake_settings *got, char **err)
{
    char *argv[ARGS_MAX + 2] = { "fake" };
    int argc = 1;
    for (int i = 0; i < ARGS_MAX && c->argv[i]; i++)
        argv[argc++] = (char *)c->argv[i];
    size_t len = 0;
    FILE *saved = stderr;
    stderr = open_memstream(err, &len);
    usage_went = written = NULL;
    int status = profile_cli_run(&fake_command, got, argc, argv);
    fclose(stderr);
    stderr = saved;
    return status;
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static const char *or_none(const char *s)
{
    return s ? s : "(none)";
}

static void check_case(size_t i, const struct cli_case *c)
{
    struct fake_settings got = { 0 };
    char *err = NULL, who[128];
    int status = run(c, &got, &err);
    snprintf(who, sizeof(who), "case %zu (%s ...)", i, c->argv[0] ? c->argv[0] : "no arguments");
    if (status != c->status)
        unit_fail(__FILE__, __LINE__, "%s: status %d, want %d", who, status, c->status);
    if (*c->err ? !strstr(err, c->err) : *err != '\0')
        unit_fail(__FILE__, __LINE__, "%s: stderr \"%s\", want \"%s\"", who, err, c->err);
    if (!same_str(usage_went, c->usage))
        unit_fail(__FILE__, __LINE__, "%s: usage on %s, want %s", who, or_none(usage_went),
                  or_none(c->usage));
    if (got.flag != c->want.flag || !same_str(got.value, c->want.value) ||
        !same_str(got.short_value, c->want.short_value))
        unit_fail(__FILE__, __LINE__, "%s: settings flag=%d value=%s -s=%s", who, got.flag,
                  or_none(got.value), or_none(got.short_value));
    if (!same_str(written, c->written))
        unit_fail(__FILE__, __LINE__, "%s: the writer got %s, want %s", who, or_none(written),
                  or_none(c->written));
    free(err);
}

TEST(profile_command_lines)
{
    for (size_t i = 0; i < CASE_COUNT; i++)
        check_case(i, &cases[i]);
}
