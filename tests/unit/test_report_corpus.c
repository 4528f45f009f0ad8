/* The report fuzzer's regression corpus (tests/fixtures/report-corpus/,
 * described in its README.md): every input that once crashed, hung or
 * broke an invariant of the report/export path, replayed through the
 * fuzzer's own harness (tests/fuzz/fuzz_report.c) under the sanitizers.
 * A failure aborts (the harness's invariants) or is a sanitizer report. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/fixtures/profile/gen_profile.h"
#include "tests/fuzz/fuzz_report.h"
#include "tests/unit/unit.h"

#define CORPUS "tests/fixtures/report-corpus"
#define BUILD_LEN 256u
#define HANG_SECONDS 120u            /* an input that blocks (a FIFO read) fails, not hangs */

TEST(every_corpus_input_runs_clean)
{
    char build[BUILD_LEN];
    if (!CHECK(gen_build_dir(build, sizeof(build))) || !CHECK(fuzz_report_setup(build)))
        return;
    DIR *d = opendir(CORPUS);
    if (!CHECK(d != NULL))
        return;
    unsigned inputs = 0;
    alarm(HANG_SECONDS);
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".bin"))
            continue;
        char path[BUILD_LEN + 64];
        snprintf(path, sizeof(path), CORPUS "/%s", e->d_name);
        size_t size;
        uint8_t *data = unit_read_file(path, &size);
        fuzz_report_run(data, size);
        free(data);
        inputs++;
    }
    alarm(0);
    closedir(d);
    CHECK(inputs > 0);
}
