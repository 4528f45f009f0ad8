/* Unit tests for the hypervisor command-line parser. */
#include "tests/unit/unit.h"
#include "lib/cmdline.h"

TEST(get_returns_last_value)
{
    char v[32];
    CHECK(cmdline_get("console=com1 log=e9 console=0x2f8", "console", v, sizeof(v)));
    CHECK_STR(v, "0x2f8");
    CHECK(cmdline_get("  log=e9\t", "log", v, sizeof(v)));
    CHECK_STR(v, "e9");
}

TEST(get_absent_and_prefix_keys)
{
    char v[8];
    CHECK(!cmdline_get("consoles=1 xconsole=2", "console", v, sizeof(v)));
    CHECK(!cmdline_get("", "console", v, sizeof(v)));
    CHECK(!cmdline_get(NULL, "console", v, sizeof(v)));
}

TEST(get_bare_word_has_empty_value)
{
    char v[8] = "x";
    CHECK(cmdline_get("verbose pmu=soft", "verbose", v, sizeof(v)));
    CHECK_STR(v, "");
    CHECK(cmdline_has("verbose pmu=soft", "verbose"));
    CHECK(cmdline_has("verbose pmu=soft", "pmu"));
    CHECK(!cmdline_has("verbose pmu=soft", "soft"));
}

TEST(get_value_too_long_fails)
{
    char v[4];
    CHECK(!cmdline_get("console=verylong", "console", v, sizeof(v)));
    CHECK(cmdline_get("console=abc", "console", v, sizeof(v)));
    CHECK_STR(v, "abc");
}

TEST(parse_numbers)
{
    uint64_t v;
    CHECK(cmdline_parse_u64("0x3f8", &v) && v == 0x3f8);
    CHECK(cmdline_parse_u64("1016", &v) && v == 1016);
    CHECK(cmdline_parse_u64("64M", &v) && v == 64ull << 20);
    CHECK(cmdline_parse_u64("2g", &v) && v == 2ull << 30);
    CHECK(cmdline_parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
    CHECK(!cmdline_parse_u64("18446744073709551616", &v));
    CHECK(!cmdline_parse_u64("17179869184G", &v));
    CHECK(cmdline_parse_u64("16777216G", &v) && v == 1ull << 54);
    CHECK(!cmdline_parse_u64("", &v));
    CHECK(!cmdline_parse_u64("0x", &v));
    CHECK(!cmdline_parse_u64("12z", &v));
    CHECK(!cmdline_parse_u64("1MM", &v));
    CHECK(!cmdline_parse_u64("-1", &v));
}

TEST(unknown_keys_are_found)
{
    static const char *const known[] = { "console", "log", "pmu", NULL };
    size_t len = 0;
    CHECK(cmdline_first_unknown("console=com1 pmu=soft", known, &len) == NULL);
    const char *line = "console=com1 bogus=1 pmu=soft";
    const char *u = cmdline_first_unknown(line, known, &len);
    CHECK(u == line + 13);
    CHECK_EQ(len, 5);
}

TEST(quoted_values_keep_their_spaces)
{
    char v[32];
    /* As written on the command line, and as GRUB passes the same word. */
    CHECK(cmdline_get("a=1 dom.1.cmdline=\"x y  z\" b=2", "dom.1.cmdline", v, sizeof(v)));
    CHECK_STR(v, "x y  z");
    CHECK(cmdline_get("a=1 \"dom.1.cmdline=x y  z\" b=2", "dom.1.cmdline", v, sizeof(v)));
    CHECK_STR(v, "x y  z");
    CHECK(cmdline_get("a=1 \"dom.1.cmdline=x y  z\" b=2", "b", v, sizeof(v)));
    CHECK_STR(v, "2");
    /* Escaped quotes and backslashes inside quotes. */
    CHECK(cmdline_get("\"k=say \\\"hi\\\" \\\\o/\"", "k", v, sizeof(v)));
    CHECK_STR(v, "say \"hi\" \\o/");
    /* Quotes in the middle of a word; an unterminated quote runs to the end. */
    CHECK(cmdline_get("k=a\"b c\"d e=1", "k", v, sizeof(v)));
    CHECK_STR(v, "ab cd");
    CHECK(cmdline_get("k=\"open ended e=1", "k", v, sizeof(v)));
    CHECK_STR(v, "open ended e=1");
    CHECK(cmdline_has("\"dom.1.cmdline=x y\"", "dom.1.cmdline"));
    CHECK(!cmdline_has("\"dom.1.cmdline=x y\"", "y"));
    /* The limit counts the value without its quotes. */
    char small[4];
    CHECK(cmdline_get("k=\"a b\"", "k", small, sizeof(small)));
    CHECK_STR(small, "a b");
    CHECK(!cmdline_get("k=\"a bc\"", "k", small, sizeof(small)));
}

TEST(unknown_quoted_word_is_named)
{
    static const char *const known[] = { "dom.1.cmdline", NULL };
    size_t len = 0;
    CHECK(cmdline_first_unknown("\"dom.1.cmdline=a b\" dom.1.cmdline=\"c d\"", known,
                                &len) == NULL);
    const char *line = "\"dom.1.cmdline=a b\" \"bad=x y\"";
    CHECK(cmdline_first_unknown(line, known, &len) == line + 20);
    CHECK_EQ(len, 4);
}
