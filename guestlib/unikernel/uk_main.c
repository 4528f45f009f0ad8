/* The program's start (CPL 3): runs the constructors, splits the module's
 * command line into argv, calls main() and exits with its status (newlib's
 * exit flushes stdio, then _exit reports the verdict: PASS iff 0). */
#include <stdlib.h>

#include "guestlib/unikernel/uk_abi.h"
#include "guestlib/unikernel/vertigo_uk.h"

#define UK_ARGV_MAX 32

void uk_user_start(void) __attribute__((noreturn));
int main(int argc, char **argv);

extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

static char args[VERTIGO_UK_CMDLINE_MAX];
static char *argv[UK_ARGV_MAX + 1];
static char *envp[1];
char **environ = envp;

const struct vertigo_uk_start *vertigo_uk_info(void)
{
    return &uk_boot_info;
}

/* Words separated by spaces; at most UK_ARGV_MAX (the rest is dropped).
 * The first word is the module's name on its GRUB line, as argv[0]. */
static int split_args(void)
{
    int argc = 0;
    char *p = args;

    for (size_t i = 0; i < sizeof(args); i++)
        args[i] = uk_boot_info.cmdline[i];
    while (*p && argc < UK_ARGV_MAX) {
        while (*p == ' ')
            *p++ = 0;
        if (!*p)
            break;
        argv[argc++] = p;
        while (*p && *p != ' ')
            p++;
    }
    if (argc == 0)
        argv[argc++] = "unikernel";   /* an empty command line */
    argv[argc] = 0;
    return argc;
}

void uk_user_start(void)
{
    for (void (**f)(void) = __init_array_start; f < __init_array_end; f++)
        (*f)();
    int argc = split_args();
    exit(main(argc, argv));
}
