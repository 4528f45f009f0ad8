/* Unit tests: the CMOS clock's calendar against Unix time
 * (lib/rtc_calendar.c): known dates both ways, leap days and centuries,
 * weekdays, every day of 1970-2400 round trip, refused fields, BCD. */
#include "lib/rtc_calendar.h"

#include "tests/unit/unit.h"

static struct rtc_calendar at(uint64_t unix_seconds)
{
    struct rtc_calendar c;
    rtc_calendar_from_unix(unix_seconds, &c);
    return c;
}

static void check_date(uint64_t unix_seconds, unsigned int year, unsigned int month,
                       unsigned int day, unsigned int weekday)
{
    struct rtc_calendar c = at(unix_seconds);
    CHECK_EQ(c.century * 100u + c.year, year);
    CHECK_EQ(c.month, month);
    CHECK_EQ(c.day, day);
    CHECK_EQ(c.weekday, weekday);
}

/* Dates from `date -u -d @N` (GNU coreutils). */
TEST(known_dates)
{
    check_date(0, 1970, 1, 1, 5);                   /* a Thursday */
    check_date(951782400, 2000, 2, 29, 3);          /* a leap day of a 400th year, Tuesday */
    check_date(951868800, 2000, 3, 1, 4);
    check_date(1709164800, 2024, 2, 29, 5);         /* Thursday */
    check_date(4107542400, 2100, 3, 1, 2);          /* 2100 is no leap year: Monday */
    check_date(4107456000, 2100, 2, 28, 1);         /* Sunday */
    struct rtc_calendar c = at(1796006130);         /* 2026-11-30 02:35:30 UTC, a Monday */
    CHECK_EQ(c.hour, 2);
    CHECK_EQ(c.minute, 35);
    CHECK_EQ(c.second, 30);
    check_date(1796006130, 2026, 11, 30, 2);
    c = at(RTC_UNIX_MAX);
    CHECK_EQ(c.century, 99);
    CHECK_EQ(c.year, 99);
    CHECK_EQ(c.month, 12);
    CHECK_EQ(c.day, 31);
    CHECK_EQ(c.hour, 23);
}

TEST(past_9999_shows_its_last_second)
{
    struct rtc_calendar a = at(RTC_UNIX_MAX), b = at(UINT64_MAX);
    CHECK(!memcmp(&a, &b, sizeof(a)));
}

TEST(every_day_round_trips)
{
    uint64_t last = 0;
    unsigned int weekday = 5;
    for (uint64_t s = 12345; s < 13569465600ull; s += 86400) {   /* 1970 .. 2400-01-01 */
        struct rtc_calendar c = at(s);
        uint64_t back = 0;
        CHECK(rtc_calendar_to_unix(&c, &back));
        if (back != s) {
            CHECK_EQ(back, s);
            return;
        }
        CHECK_EQ(c.weekday, weekday);
        weekday = weekday % 7 + 1;
        last = s;
    }
    CHECK(last > 0);
}

TEST(refuses_fields_out_of_range)
{
    struct rtc_calendar good = at(951782400), c;   /* 2000-02-29 */
    uint64_t s;
    CHECK(rtc_calendar_to_unix(&good, &s));
    CHECK_EQ(s, 951782400);
    c = good; c.day = 30;
    CHECK(!rtc_calendar_to_unix(&c, &s));           /* no February 30 */
    c = good; c.year = 1; c.day = 29;
    CHECK(!rtc_calendar_to_unix(&c, &s));           /* 2001 has no February 29 */
    c = good; c.century = 19; c.year = 69;
    CHECK(!rtc_calendar_to_unix(&c, &s));           /* before 1970 */
    c = good; c.month = 13;
    CHECK(!rtc_calendar_to_unix(&c, &s));
    c = good; c.month = 0;
    CHECK(!rtc_calendar_to_unix(&c, &s));
    c = good; c.hour = 24;
    CHECK(!rtc_calendar_to_unix(&c, &s));
    c = good; c.minute = 60;
    CHECK(!rtc_calendar_to_unix(&c, &s));
    c = good; c.second = 60;                        /* no leap seconds */
    CHECK(!rtc_calendar_to_unix(&c, &s));
    c = good; c.year = 100;
    CHECK(!rtc_calendar_to_unix(&c, &s));
}

TEST(bcd)
{
    uint8_t v = 0;
    CHECK_EQ(rtc_bcd(0), 0x00);
    CHECK_EQ(rtc_bcd(59), 0x59);
    CHECK_EQ(rtc_bcd(99), 0x99);
    CHECK(rtc_from_bcd(0x47, &v));
    CHECK_EQ(v, 47);
    CHECK(!rtc_from_bcd(0x4a, &v));
    CHECK(!rtc_from_bcd(0xa1, &v));
    CHECK(!rtc_from_bcd(0xff, &v));                 /* an absent clock's bytes */
}
