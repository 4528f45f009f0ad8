/* The calendar of the PC's CMOS clock (the MC146818's registers 0x00-0x09
 * and the century at 0x32) against Unix time: seconds since 1970-01-01
 * 00:00:00 UTC, without leap seconds, in the proleptic Gregorian calendar.
 * Binary values here; the registers' BCD and 12-hour forms are the
 * caller's (rtc_bcd, rtc_from_bcd). Freestanding: boot/cmos_clock.c
 * reads the machine's clock with it, vmm/vhw/vrtc.c shows a domain its
 * own. */
#ifndef LIB_RTC_CALENDAR_H
#define LIB_RTC_CALENDAR_H

#include <stdbool.h>
#include <stdint.h>

/* 9999-12-31 23:59:59: the last second the century register can show. */
#define RTC_UNIX_MAX 253402300799ull

struct rtc_calendar {
    uint8_t second, minute, hour;   /* 0-59, 0-59, 0-23 */
    uint8_t weekday;                /* 1-7, 1 = Sunday (the MC146818's) */
    uint8_t day, month;             /* 1-31, 1-12 */
    uint8_t year, century;          /* 0-99, 19-99: the year is century * 100 + year */
};

/* The calendar at unix_seconds, which is taken as RTC_UNIX_MAX if above. */
void rtc_calendar_from_unix(uint64_t unix_seconds, struct rtc_calendar *c);

/* Unix time of a calendar (its weekday is not read); false when a field
 * is out of range (a day past its month's end, a year before 1970). */
bool rtc_calendar_to_unix(const struct rtc_calendar *c, uint64_t *unix_seconds);

/* 0-99 as two BCD digits. */
uint8_t rtc_bcd(uint8_t binary);

/* Two BCD digits as 0-99; false when a nibble is above 9. */
bool rtc_from_bcd(uint8_t bcd, uint8_t *binary);

#endif
