/* hostile-log KIND N OUT: writes one of the hostile logs of
 * tests/fuzz/hostile_logs.h, scaled by N, to OUT (for tests/e2e/report.sh,
 * which runs the tools on them within time and memory bounds). */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/hostile_logs.h"

int main(int argc, char **argv)
{
    struct log_test_stream s = { 0 };
    if (argc != 4 || !hostile_log_write(argv[1], (uint32_t)strtoul(argv[2], NULL, 0), &s)) {
        fprintf(stderr, "usage: hostile-log KIND N OUT; kinds:");
        for (const char *const *k = hostile_log_kinds; *k; k++)
            fprintf(stderr, " %s", *k);
        fprintf(stderr, "\n");
        return 1;
    }
    FILE *out = fopen(argv[3], "wb");
    if (!out || fwrite(s.data, 1, s.len, out) != s.len || fclose(out) != 0) {
        perror(argv[3]);
        return 1;
    }
    log_test_stream_free(&s);
    return 0;
}
