/* Runner for host unit tests: runs each registered test, reports failed
 * checks with file and line, prints the summary line tests/run-tests reads. */
#include "tests/unit/unit.h"

#include <stdarg.h>
#include <stdlib.h>

#define MAX_TESTS 512

struct unit_case {
    const char *name;
    unit_fn fn;
};

static struct unit_case cases[MAX_TESTS];
static int case_count;
static int current_failures;

void unit_register(const char *name, unit_fn fn)
{
    if (case_count == MAX_TESTS) {
        fprintf(stderr, "unit: more than %d tests\n", MAX_TESTS);
        exit(2);
    }
    cases[case_count].name = name;
    cases[case_count].fn = fn;
    case_count++;
}

bool unit_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "    %s:%d: check failed: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    current_failures++;
    return false;
}

void *unit_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "unit: cannot open fixture %s (run from the source tree)\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "unit: cannot read fixture %s\n", path);
        exit(2);
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static const char *program_name(const char *argv0)
{
    const char *slash = strrchr(argv0, '/');
    return slash ? slash + 1 : argv0;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;

    for (int i = 0; i < case_count; i++) {
        if (filter && !strstr(cases[i].name, filter))
            continue;
        current_failures = 0;
        cases[i].fn();
        printf("  %s %s\n", current_failures ? "FAIL" : "ok  ", cases[i].name);
        if (current_failures)
            failed++;
        else
            passed++;
    }
    printf("%s: %d passed, %d failed\n", program_name(argv[0]), passed, failed);
    return failed ? 1 : 0;
}
