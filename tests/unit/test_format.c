/* Unit tests of lib/format.c: every supported conversion is compared with
 * the host C library's snprintf over a table of flags, widths, precisions,
 * length modifiers and values (edge values plus seeded random ones), and
 * the truncation rules of vsnprintf are checked for every buffer size. */
#include "tests/unit/unit.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/format.h"

#define OUT_SIZE 512

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: fixed seed, so failures reproduce. */
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* Random value with a random number of significant bits (so small values
 * are as common as huge ones), sometimes negated. */
static uint64_t rng_value(void)
{
    uint64_t v = rng_next() >> (rng_next() % 64);
    return (rng_next() & 1) ? (uint64_t)0 - v : v;
}

static int mismatches;

/* Formats with both implementations into full-size and tiny buffers and
 * reports the first differences. `fmt` takes exactly one argument after
 * optional '*' arguments, passed as (a1, a2, value). */
#define COMPARE(fmt, ...)                                                         \
    do {                                                                          \
        char ref_[OUT_SIZE], got_[OUT_SIZE];                                      \
        int rn_ = snprintf(ref_, sizeof(ref_), fmt, __VA_ARGS__);                 \
        memset(got_, 'Z', sizeof(got_));                                          \
        int gn_ = fmt_snprintf(got_, sizeof(got_), fmt, __VA_ARGS__);             \
        if ((rn_ != gn_ || strcmp(ref_, got_) != 0) && mismatches++ < 20)         \
            unit_fail(__FILE__, __LINE__, "format \"%s\": libc %d \"%s\", fmt %d \"%s\"", \
                      fmt, rn_, ref_, gn_, got_);                                 \
        char small_[8];                                                           \
        memset(small_, 'Z', sizeof(small_));                                      \
        int sn_ = fmt_snprintf(small_, 5, fmt, __VA_ARGS__);                      \
        if ((sn_ != rn_ || strncmp(small_, ref_, 4) != 0 ||                       \
             small_[rn_ < 4 ? rn_ : 4] != '\0' || small_[5] != 'Z') &&            \
            mismatches++ < 20)                                                    \
            unit_fail(__FILE__, __LINE__, "truncated format \"%s\" wrong", fmt);   \
    } while (0)

static const char *const FLAG_SETS[] = { "", "-", "0", "+", " ", "#", "-0", "+0", " 0",
                                         "-+", "#0", "#-", "+ ", "-#0+ " };
static const char *const WIDTHS[] = { "", "1", "5", "12", "30" };
static const char *const PRECISIONS[] = { "", ".", ".0", ".1", ".3", ".12", ".25" };

/* True when C leaves the flag/conversion combination defined. */
static bool flags_defined(const char *flags, char conv)
{
    bool is_signed = conv == 'd' || conv == 'i';
    bool alt_ok = conv == 'o' || conv == 'x' || conv == 'X';

    if (strchr(flags, '#') && !alt_ok)
        return false;
    if ((strchr(flags, '+') || strchr(flags, ' ')) && !is_signed)
        return false;
    return true;
}

static void build_format(char *out, size_t size, const char *flags, const char *width,
                         const char *prec, const char *length, char conv)
{
    snprintf(out, size, "[%%%s%s%s%s%c]", flags, width, prec, length, conv);
}

/* Calls COMPARE with the argument type the length modifier requires. */
static void compare_integer(const char *fmt, const char *length, char conv, uint64_t v)
{
    bool sgn = conv == 'd' || conv == 'i';

    if (!strcmp(length, "") || !strcmp(length, "hh") || !strcmp(length, "h")) {
        if (sgn)
            COMPARE(fmt, (int)v);
        else
            COMPARE(fmt, (unsigned int)v);
    } else if (!strcmp(length, "l")) {
        if (sgn)
            COMPARE(fmt, (long)v);
        else
            COMPARE(fmt, (unsigned long)v);
    } else if (!strcmp(length, "ll")) {
        if (sgn)
            COMPARE(fmt, (long long)v);
        else
            COMPARE(fmt, (unsigned long long)v);
    } else if (!strcmp(length, "z")) {
        COMPARE(fmt, (size_t)v);
    } else if (!strcmp(length, "t")) {
        COMPARE(fmt, (ptrdiff_t)v);
    } else {
        if (sgn)
            COMPARE(fmt, (intmax_t)v);
        else
            COMPARE(fmt, (uintmax_t)v);
    }
}

static const uint64_t EDGE_VALUES[] = {
    0, 1, 7, 8, 9, 10, 15, 16, 99, 100, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff,
    0x10000, 0x7fffffff, 0x80000000ull, 0xffffffffull, 0x100000000ull,
    0x7fffffffffffffffull, 0x8000000000000000ull /* INT64_MIN */, 0xffffffffffffffffull,
    (uint64_t)-1, (uint64_t)-2, (uint64_t)-100, (uint64_t)-0x80000000ll,
    0x123456789abcdefull, 1000000000000ull,
};

static void compare_all_specs(char conv, const char *length, uint64_t v)
{
    char fmt[64];

    for (size_t f = 0; f < sizeof(FLAG_SETS) / sizeof(FLAG_SETS[0]); f++) {
        if (!flags_defined(FLAG_SETS[f], conv))
            continue;
        for (size_t w = 0; w < sizeof(WIDTHS) / sizeof(WIDTHS[0]); w++) {
            for (size_t p = 0; p < sizeof(PRECISIONS) / sizeof(PRECISIONS[0]); p++) {
                build_format(fmt, sizeof(fmt), FLAG_SETS[f], WIDTHS[w], PRECISIONS[p], length, conv);
                compare_integer(fmt, length, conv, v);
            }
        }
    }
}

static const char INT_CONVS[] = "diuxXo";
static const char *const LENGTHS[] = { "", "hh", "h", "l", "ll", "z", "t", "j" };

TEST(integers_match_libc_on_edge_values)
{
    mismatches = 0;
    for (size_t c = 0; c < sizeof(INT_CONVS) - 1; c++)
        for (size_t l = 0; l < sizeof(LENGTHS) / sizeof(LENGTHS[0]); l++)
            for (size_t v = 0; v < sizeof(EDGE_VALUES) / sizeof(EDGE_VALUES[0]); v++)
                compare_all_specs(INT_CONVS[c], LENGTHS[l], EDGE_VALUES[v]);
    CHECK_EQ(mismatches, 0);
}

TEST(integers_match_libc_on_random_values)
{
    mismatches = 0;
    for (int i = 0; i < 400; i++) {
        uint64_t v = rng_value();
        char conv = INT_CONVS[rng_next() % (sizeof(INT_CONVS) - 1)];
        const char *length = LENGTHS[rng_next() % (sizeof(LENGTHS) / sizeof(LENGTHS[0]))];
        compare_all_specs(conv, length, v);
    }
    CHECK_EQ(mismatches, 0);
}

TEST(int64_min_and_max)
{
    char buf[64];

    CHECK_EQ(fmt_snprintf(buf, sizeof(buf), "%lld", (long long)INT64_MIN), 20);
    CHECK_STR(buf, "-9223372036854775808");
    fmt_snprintf(buf, sizeof(buf), "%jd|%ju", INTMAX_MAX, UINTMAX_MAX);
    CHECK_STR(buf, "9223372036854775807|18446744073709551615");
    fmt_snprintf(buf, sizeof(buf), "%d|%i", INT_MIN, INT_MAX);
    CHECK_STR(buf, "-2147483648|2147483647");
    char ref[64];
    fmt_snprintf(buf, sizeof(buf), "%#llo|%llX", 0xffffffffffffffffull, 0x8000000000000000ull);
    snprintf(ref, sizeof(ref), "%#llo|%llX", 0xffffffffffffffffull, 0x8000000000000000ull);
    CHECK_STR(buf, ref);
}

TEST(strings_and_chars_match_libc)
{
    static const char *const strs[] = { "", "a", "hello", "a longer string of text", "tab\there" };
    static const char *const specs[] = { "%s", "%10s", "%-10s", "%.0s", "%.3s", "%8.3s", "%-8.3s",
                                         "%.30s", "%1s", "%-1.1s", "%.s" };
    mismatches = 0;
    for (size_t s = 0; s < sizeof(strs) / sizeof(strs[0]); s++)
        for (size_t p = 0; p < sizeof(specs) / sizeof(specs[0]); p++)
            COMPARE(specs[p], strs[s]);
    static const char *const cspecs[] = { "%c", "%3c", "%-3c", "%1c", "<%c>" };
    static const int chars[] = { 'a', 'Z', ' ', '~', 0x141 /* converts to 'A' */ };
    for (size_t c = 0; c < sizeof(chars) / sizeof(chars[0]); c++)
        for (size_t p = 0; p < sizeof(cspecs) / sizeof(cspecs[0]); p++)
            COMPARE(cspecs[p], chars[c]);
    CHECK_EQ(mismatches, 0);
}

TEST(precision_never_reads_past_it)
{
    char unterminated[4] = { 'a', 'b', 'c', 'd' }; /* no NUL: ASan checks the read */
    char buf[16];

    CHECK_EQ(fmt_snprintf(buf, sizeof(buf), "%.4s|%.2s", unterminated, unterminated), 7);
    CHECK_STR(buf, "abcd|ab");
}

TEST(null_string_and_pointer)
{
    char buf[64];
    const char *volatile null_str = NULL; /* hides the NULL from -Wformat */

    CHECK_EQ(fmt_snprintf(buf, sizeof(buf), "%s", null_str), 6);
    CHECK_STR(buf, "(null)");
    fmt_snprintf(buf, sizeof(buf), "[%8s][%-8s]", null_str, null_str);
    CHECK_STR(buf, "[  (null)][(null)  ]");
    fmt_snprintf(buf, sizeof(buf), "%p", (void *)NULL);
    CHECK_STR(buf, "(nil)");
}

TEST(pointers_match_libc)
{
    static const char *const specs[] = { "%p", "%20p", "%-20p", "<%p>" };
    uintptr_t values[] = { 1, 0x1000, 0xffffffff80000000ull, (uintptr_t)&rng_state };

    mismatches = 0;
    for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
        for (size_t p = 0; p < sizeof(specs) / sizeof(specs[0]); p++)
            COMPARE(specs[p], (void *)values[v]);
    CHECK_EQ(mismatches, 0);
}

TEST(star_width_and_precision_match_libc)
{
    static const int stars[] = { -20, -5, -1, 0, 1, 3, 7, 20 };
    mismatches = 0;
    for (size_t i = 0; i < sizeof(stars) / sizeof(stars[0]); i++) {
        for (size_t j = 0; j < sizeof(stars) / sizeof(stars[0]); j++) {
            static const char *const specs[] = { "%*.*d", "%-*.*x", "%0*.*u", "%+*.*i" };
            for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++)
                COMPARE(specs[k], stars[i], stars[j], -12345);
            COMPARE("%*.*s", stars[i], stars[j], "string");
            COMPARE("%0*d", stars[i], -42);
        }
    }
    CHECK_EQ(mismatches, 0);
}

TEST(percent_and_mixed)
{
    char buf[128];
    int n = fmt_snprintf(buf, sizeof(buf), "%d%% of %s at %#x: %c%5.2d|%-4u|", 50, "cpu", 0xbeef,
                         'x', 7, 3u);
    CHECK_EQ(n, (uint64_t)snprintf(NULL, 0, "%d%% of %s at %#x: %c%5.2d|%-4u|", 50, "cpu", 0xbeef,
                                   'x', 7, 3u));
    CHECK_STR(buf, "50% of cpu at 0xbeef: x   07|3   |");
}

/* Unknown conversions are copied verbatim and consume no argument. */
static int format_unchecked(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = fmt_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

TEST(unknown_conversion_copied_verbatim)
{
    char buf[64];
    const char *fmt_unknown = "a%yb%-5kc%d";
    const char *fmt_trailing = "end%";
    const char *fmt_trailing_spec = "end%-08l";

    CHECK_EQ(format_unchecked(buf, sizeof(buf), fmt_unknown, 42), 11);
    CHECK_STR(buf, "a%yb%-5kc42");
    CHECK_EQ(format_unchecked(buf, sizeof(buf), fmt_trailing), 4);
    CHECK_STR(buf, "end%");
    format_unchecked(buf, sizeof(buf), fmt_trailing_spec);
    CHECK_STR(buf, "end%-08l");
}

TEST(truncation_every_size)
{
    const char *expect = "value=-1234567890123 hex=0xdeadbeef str=abc";
    size_t full = strlen(expect);

    for (size_t size = 0; size <= full + 2; size++) {
        char buf[64];
        memset(buf, 'Z', sizeof(buf));
        int n = fmt_snprintf(buf, size, "value=%lld hex=%#x str=%s", -1234567890123ll,
                             0xdeadbeefu, "abc");
        CHECK_EQ(n, full);
        if (size == 0) {
            CHECK_EQ(buf[0], 'Z'); /* size 0 writes nothing at all */
            continue;
        }
        size_t kept = size - 1 < full ? size - 1 : full;
        CHECK(memcmp(buf, expect, kept) == 0);
        CHECK_EQ(buf[kept], '\0');
        CHECK_EQ(buf[kept + 1], 'Z'); /* nothing written past the NUL */
    }
}

TEST(size_zero_with_null_buffer)
{
    CHECK_EQ(fmt_snprintf(NULL, 0, "%s-%d", "abc", 12345), 9);
}

TEST(vsnprintf_leaves_caller_va_list_usable)
{
    char a[32], b[32];

    CHECK_EQ(format_unchecked(a, sizeof(a), "%d %s %lx", -3, "x", 0xabcUL), 8);
    CHECK_STR(a, "-3 x abc");
    snprintf(b, sizeof(b), "%d %s %lx", -3, "x", 0xabcUL);
    CHECK_STR(a, b);
}
