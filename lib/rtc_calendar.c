/* The CMOS clock's calendar against Unix time (see lib/rtc_calendar.h).
 * Days and civil dates convert with the era arithmetic of the proleptic
 * Gregorian calendar: 400-year eras of 146,097 days, years counted from
 * March so that February's leap day ends the year. */
#include "lib/rtc_calendar.h"

#define SECONDS_PER_DAY 86400u
#define DAYS_PER_ERA    146097u
#define UNIX_EPOCH_DAYS 719468u     /* 1970-03-01 is day 719,468 since 0000-03-01, less 59 */

static bool leap(unsigned int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned int month_days(unsigned int y, unsigned int m)
{
    static const uint8_t days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return days[m - 1] + (m == 2 && leap(y));
}

/* Days since 1970-01-01 of y-m-d (y >= 1970, the date valid). */
static uint64_t days_from_civil(unsigned int y, unsigned int m, unsigned int d)
{
    y -= m <= 2;
    unsigned int era = y / 400, yoe = y % 400;
    unsigned int doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (uint64_t)era * DAYS_PER_ERA + doe - UNIX_EPOCH_DAYS;
}

static void civil_from_days(uint64_t days, unsigned int *y, unsigned int *m, unsigned int *d)
{
    uint64_t z = days + UNIX_EPOCH_DAYS;
    unsigned int era = (unsigned int)(z / DAYS_PER_ERA), doe = (unsigned int)(z % DAYS_PER_ERA);
    unsigned int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned int mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = era * 400 + yoe + (*m <= 2);
}

void rtc_calendar_from_unix(uint64_t unix_seconds, struct rtc_calendar *c)
{
    if (unix_seconds > RTC_UNIX_MAX)
        unix_seconds = RTC_UNIX_MAX;
    uint64_t days = unix_seconds / SECONDS_PER_DAY;
    unsigned int rest = (unsigned int)(unix_seconds % SECONDS_PER_DAY), y, m, d;
    civil_from_days(days, &y, &m, &d);
    c->second = (uint8_t)(rest % 60);
    c->minute = (uint8_t)(rest / 60 % 60);
    c->hour = (uint8_t)(rest / 3600);
    c->weekday = (uint8_t)((days + 4) % 7 + 1);     /* 1970-01-01 was a Thursday (5) */
    c->day = (uint8_t)d;
    c->month = (uint8_t)m;
    c->year = (uint8_t)(y % 100);
    c->century = (uint8_t)(y / 100);
}

bool rtc_calendar_to_unix(const struct rtc_calendar *c, uint64_t *unix_seconds)
{
    unsigned int y = c->century * 100u + c->year;
    if (c->year > 99 || c->century > 99 || y < 1970 || c->month < 1 || c->month > 12 ||
        c->day < 1 || c->day > month_days(y, c->month) || c->hour > 23 || c->minute > 59 ||
        c->second > 59)
        return false;
    *unix_seconds = days_from_civil(y, c->month, c->day) * SECONDS_PER_DAY +
                    c->hour * 3600u + c->minute * 60u + c->second;
    return true;
}

uint8_t rtc_bcd(uint8_t binary)
{
    return (uint8_t)((binary / 10 % 10) << 4 | binary % 10);
}

bool rtc_from_bcd(uint8_t bcd, uint8_t *binary)
{
    if ((bcd >> 4) > 9 || (bcd & 0xf) > 9)
        return false;
    *binary = (uint8_t)((bcd >> 4) * 10 + (bcd & 0xf));
    return true;
}
