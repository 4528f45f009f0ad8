/* The machine's CMOS clock, read once at start-up (before any domain owns
 * ports 0x70/0x71): the wall-clock time Linux domains' own clocks start
 * from (vmm/vhw/vrtc.h). The MC146818's rules: registers 0x00-0x09 and
 * the century at 0x32, in BCD unless register B's DM bit (2) is set, the
 * hour in 12-hour form with bit 7 for p.m. unless B's 24/12 bit (1) is
 * set; they are not to be read while register A's UIP bit (7) is set,
 * and a read is taken only when two in a row agree. */
#include "boot/platform.h"
#include "lib/console.h"
#include "lib/cpu.h"
#include "lib/rtc_calendar.h"

#define CMOS_INDEX       0x70
#define CMOS_DATA        0x71
#define REG_A            0x0a
#define REG_A_UIP        0x80
#define REG_B            0x0b
#define REG_B_24H        0x02
#define REG_B_BINARY     0x04
#define REG_CENTURY      0x32
#define HOUR_PM          0x80
#define UIP_POLLS        1000000u   /* an update lasts under 2 ms */
#define READ_TRIES       10u

static uint64_t clock_unix, clock_tsc;
static bool clock_read;

static uint8_t cmos_read(uint8_t reg)
{
    outb(CMOS_INDEX, reg);         /* bit 7 clear: the NMI mask stays as it is */
    return inb(CMOS_DATA);
}

static bool field(uint8_t raw, uint8_t b, uint8_t *out)
{
    if (b & REG_B_BINARY) {
        *out = raw;
        return true;
    }
    return rtc_from_bcd(raw, out);
}

/* The clock's registers as a calendar, or false if a field is not a
 * number in the form register B gives. */
static bool read_calendar(struct rtc_calendar *c)
{
    uint8_t b = cmos_read(REG_B), hour = cmos_read(0x04), century = cmos_read(REG_CENTURY);
    bool pm = !(b & REG_B_24H) && (hour & HOUR_PM);
    if (!field(cmos_read(0x00), b, &c->second) || !field(cmos_read(0x02), b, &c->minute) ||
        !field((uint8_t)(b & REG_B_24H ? hour : hour & ~HOUR_PM), b, &c->hour) ||
        !field(cmos_read(0x07), b, &c->day) || !field(cmos_read(0x08), b, &c->month) ||
        !field(cmos_read(0x09), b, &c->year))
        return false;
    if (!(b & REG_B_24H))           /* 12 a.m. is 0, 12 p.m. is 12 */
        c->hour = (uint8_t)(c->hour % 12 + (pm ? 12 : 0));
    /* A century register in the clock's form between 19 and 20 is taken;
     * else (no such register) years 70-99 are 19xx, the rest 20xx. */
    if (!field(century, b, &c->century) || c->century < 19 || c->century > 20)
        c->century = c->year >= 70 ? 19 : 20;
    return true;
}

static bool update_done(void)
{
    for (uint32_t i = 0; i < UIP_POLLS; i++)
        if (!(cmos_read(REG_A) & REG_A_UIP))
            return true;
    return false;
}

static const char *try_read(uint64_t *unix_seconds)
{
    struct rtc_calendar c = { 0 }, again = { 0 };   /* the weekday is not read */
    for (unsigned int t = 0; t < READ_TRIES; t++) {
        if (!update_done())
            return "its update never ends (UIP stays set)";
        if (!read_calendar(&c))
            return "its registers hold no date";
        if (read_calendar(&again) && !__builtin_memcmp(&c, &again, sizeof(c))) {
            if (!rtc_calendar_to_unix(&c, unix_seconds))
                return "its date is out of range";
            return NULL;
        }
    }
    return "two reads in a row never agreed";
}

void cmos_clock_read(void)
{
    uint64_t seconds = 0;
    const char *why = try_read(&seconds);
    clock_tsc = rdtsc();
    if (why) {
        printk("clock: the CMOS clock cannot be read: %s; domains' clocks start at "
               "1970-01-01 00:00:00 UTC\n", why);
        return;
    }
    struct rtc_calendar c;
    rtc_calendar_from_unix(seconds, &c);
    printk("clock: %02u%02u-%02u-%02u %02u:%02u:%02u (the CMOS clock, taken as UTC)\n",
           c.century, c.year, c.month, c.day, c.hour, c.minute, c.second);
    clock_unix = seconds;
    clock_read = true;
}

bool platform_wall_clock(uint64_t *unix_seconds, uint64_t *at_tsc)
{
    *unix_seconds = clock_unix;
    *at_tsc = clock_tsc;
    return clock_read;
}
