/* The program's start (CPL 3): runs the constructors, splits the module's
 * arguments into argv (argv[0] is "unikernel", then the words of the
 * module's arguments), calls main() and exits with its status (newlib's
 * exit flushes stdio, then _exit reports the verdict: PASS iff 0). */
#include <stdlib.h>

#include "guestlib/unikernel/uk_abi.h"
#include "guestlib/unikernel/uk_args.h"
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

void uk_user_start(void)
{
    for (void (**f)(void) = __init_array_start; f < __init_array_end; f++)
        (*f)();
    for (size_t i = 0; i < sizeof(args); i++)
        args[i] = uk_boot_info.cmdline[i];
    argv[0] = "unikernel";
    int argc = uk_split_args(args, argv, 1, UK_ARGV_MAX);
    exit(main(argc, argv));
}
