/* libFuzzer entry points of the report fuzzer (see fuzz_report.h); the
 * fixture ELFs are found from the fuzzer's path, $(BUILD)/fuzz/fuzz-report. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char self[4096];
    (void)argc;
    snprintf(self, sizeof(self), "%s", (*argv)[0]);
    char *build = dirname(dirname(self));   /* $(BUILD)/fuzz/fuzz-report -> $(BUILD) */
    if (!fuzz_report_setup(build)) {
        fprintf(stderr, "fuzz-report: no fixture ELFs under %s/profile (make them first)\n", build);
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_report_run(data, size);
    return 0;
}
