/* Golden fixtures: each tests/fixtures/log/NAME.bin decodes to exactly
 * tests/fixtures/log/NAME.txt (what `vertigo decode` prints). The streams
 * were written by tests/fixtures/log/gen_fixtures.c. */
#include "tests/unit/unit.h"
#include "tests/unit/test_log_util.h"

#include <stdlib.h>

static const char *const fixtures[] = {
    "every-type", "two-cpus-overflow", "boot-noise-prefix", "corrupt-mix",
};

static void check_fixture(const char *name)
{
    char path[256];
    size_t bin_len, txt_len;
    snprintf(path, sizeof(path), "tests/fixtures/log/%s.bin", name);
    void *bin = unit_read_file(path, &bin_len);
    snprintf(path, sizeof(path), "tests/fixtures/log/%s.txt", name);
    char *expected = unit_read_file(path, &txt_len);
    char *got = log_test_decode_text(bin, bin_len);
    size_t got_len = strlen(got);
    if (got_len != txt_len || memcmp(got, expected, txt_len) != 0) {
        size_t i = 0;
        while (i < got_len && i < txt_len && got[i] == expected[i])
            i++;
        unit_fail(__FILE__, __LINE__, "%s: decode output differs from %s at byte %zu", name,
                  path, i);
    }
    free(got);
    free(expected);
    free(bin);
}

TEST(golden_fixtures_decode_as_expected)
{
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
        check_fixture(fixtures[i]);
}
