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

/* argv[0] is "unikernel", then the words of the module's arguments (its
 * GRUB line after the module's name), separated by spaces; at most
 * UK_ARGV_MAX words in all (the rest is dropped). */
static int split_args(void)
{
    int argc = 0;
    char *p = args;

    for (size_t i = 0; i < sizeof(args); i++)
        args[i] = uk_boot_info.cmdline[i];
    argv[argc++] = "unikernel";
    while (*p && argc < UK_ARGV_MAX) {
        while (*p == ' ')
            *p++ = 0;
        if (!*p)
            break;
        argv[argc++] = p;
        while (*p && *p != ' ')
            p++;
    }
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
