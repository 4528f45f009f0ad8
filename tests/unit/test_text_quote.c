/* Log text into each output format (host-tools/text_quote.c) and the
 * checked sums (host-tools/log_arith.h): valid UTF-8 passes everywhere;
 * invalid bytes are replaced; control characters (C0, DEL, C1) never
 * reach a terminal or split a row; each format keeps its own quoting. */
#include <stdlib.h>

#include "host-tools/log_arith.h"
#include "host-tools/text_quote.h"
#include "tests/unit/unit.h"

/* A hostile name: UTF-8 (é, €, 😀), ESC [31m, CR, LF, TAB, a quote, a
 * comma, a backslash, DEL, C1 CSI (U+009B), a stray continuation byte, an
 * overlong '/', a surrogate, a truncated sequence at the end. */
static const char hostile[] = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \x1b[31m\r\n\t\",\\\x7f"
                              "\xc2\x9b" "\x80" "\xc0\xaf" "\xed\xa0\x80" "\xe2\x82";

typedef void (*putter)(FILE *out, const char *s);

static char *render(putter put, const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    put(out, s);
    fclose(out);
    return text;
}

static void put_csv(FILE *out, const char *s) { csv_put_field(out, s, ','); }
static void put_text(FILE *out, const char *s) { text_put(out, s); }

TEST(utf8_sequences_valid_and_invalid)
{
    uint32_t cp;
    CHECK_EQ(utf8_sequence((const unsigned char *)"A", &cp), 1);
    CHECK_EQ(cp, 'A');
    CHECK_EQ(utf8_sequence((const unsigned char *)"\xe2\x82\xac", &cp), 3);
    CHECK_EQ(cp, 0x20ac);
    CHECK_EQ(utf8_sequence((const unsigned char *)"\xf4\x8f\xbf\xbf", &cp), 4);
    CHECK_EQ(cp, 0x10ffff);
    CHECK_EQ(utf8_sequence((const unsigned char *)"\xf4\x90\x80\x80", &cp), 0);   /* > U+10FFFF */
    CHECK_EQ(utf8_sequence((const unsigned char *)"\xc0\xaf", &cp), 0);           /* overlong */
    CHECK_EQ(utf8_sequence((const unsigned char *)"\xe0\x80\xaf", &cp), 0);       /* overlong */
    CHECK_EQ(utf8_sequence((const unsigned char *)"\xed\xa0\x80", &cp), 0);       /* surrogate */
    CHECK_EQ(utf8_sequence((const unsigned char *)"\x80", &cp), 0);
    CHECK_EQ(utf8_sequence((const unsigned char *)"\xe2\x82", &cp), 0);           /* cut short */
    CHECK(text_is_control(0x1b) && text_is_control(0x7f) && text_is_control(0x9b));
    CHECK(!text_is_control(0xa0) && !text_is_control(' '));
}

TEST(json_passes_utf8_escapes_controls_replaces_invalid)
{
    char *j = render(json_put_string, hostile);
    CHECK_STR(j, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\u001b[31m\\r\\n\\t\\\",\\\\\\u007f"
                 "\\u009b\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
    free(j);
}

TEST(csv_quotes_and_replaces_what_no_reader_wants)
{
    char *c = render(put_csv, hostile);
    CHECK_STR(c, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 " TEXT_REPLACEMENT "[31m\r\n\t\"\",\\"
                 TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT
                 TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT
                 TEXT_REPLACEMENT TEXT_REPLACEMENT "\"");
    free(c);
    c = render(put_csv, "plain name");
    CHECK_STR(c, "plain name");
    free(c);
}

TEST(tsv_and_text_never_hold_tab_newline_cr_or_escape)
{
    char *t = render(tsv_put_field, hostile);
    CHECK_STR(t, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\x1b[31m\\r\\n\\t\",\\\\\\x7f\\x9b"
                 TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT
                 TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT TEXT_REPLACEMENT);
    free(t);
    char *x = render(put_text, hostile);
    CHECK(!strpbrk(x, "\t\r\n\x1b\x7f"));
    CHECK(strstr(x, "\",\\\\x7f") != NULL);           /* a backslash stays one in text */
    CHECK_EQ(text_width(hostile), strlen(x));
    free(x);
}

TEST(utf8_copy_and_clean)
{
    size_t len;
    char *u = text_utf8_copy(hostile, &len);
    CHECK_EQ(len, strlen(u));
    const unsigned char *p = (const unsigned char *)u;
    uint32_t cp;
    size_t n;
    bool valid = true;
    for (; *p; p += n)
        if (!(n = utf8_sequence(p, &cp)) || text_is_control(cp)) {
            valid = false;
            break;
        }
    CHECK(valid);
    free(u);
    char clean[sizeof(hostile)];
    memcpy(clean, hostile, sizeof(hostile));
    text_clean(clean);
    CHECK_STR(clean, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 ?[31m???\",\\??????????");
}

TEST(checked_sums_refuse_to_wrap_and_name_the_record)
{
    uint64_t sum = 1ull << 63, product = 7;
    CHECK(log_add(&sum, (1ull << 63) - 1));
    CHECK_EQ(sum, UINT64_MAX);
    CHECK(!log_add(&sum, 1));
    CHECK_EQ(sum, UINT64_MAX);
    CHECK(!log_mul(1ull << 32, 1ull << 32, &product));
    CHECK_EQ(product, 7);
    CHECK(log_mul(3, 1ull << 62, &product));
    CHECK_EQ(product, 3ull << 62);
    struct log_overflow o = { 0 };
    log_overflow_note(&o, 123, "the exits of domain %u add up past 2^64 - 1", 3u);
    log_overflow_note(&o, 456, "a later one");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    log_overflow_print(out, "stats", "log.bin", &o);
    fclose(out);
    CHECK_STR(text, "vertigo stats: log.bin: the record at offset 123: the exits of domain 3 add "
                    "up past 2^64 - 1 (the log is corrupt)\n");
    free(text);
}
