/* The program's argv: see uk_args.h. */
#include <stddef.h>

#include "guestlib/unikernel/uk_args.h"

int uk_split_args(char *line, char **argv, int first, int max)
{
    int argc = first;
    char *p = line;

    while (*p && argc < max) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        argv[argc++] = p;
        while (*p && *p != ' ')
            p++;
        if (*p)
            *p++ = 0;       /* the word ends here */
    }
    argv[argc] = NULL;
    return argc;
}
