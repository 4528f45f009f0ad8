/* A Linux domain's read-only CMOS clock (see vmm/vhw/vrtc.h). */
#include "vmm/vhw/vrtc.h"

#include "lib/rtc_calendar.h"

#define ALL_ONES     0xffffffffu
#define REG_A_VALUE  0x26u      /* DV = 010 (32.768 kHz), RS = 0110 (1.024 kHz), UIP clear */
#define REG_B_VALUE  0x02u      /* 24-hour, BCD, no interrupts, no daylight saving */
#define REG_D_VALUE  0x80u      /* VRT: the clock's battery and data are good */
#define REG_INDEX_MASK 0x7fu    /* bit 7 of an OUT to 0x70 is the PC's NMI mask */
#define FIRST_NVRAM    0x0eu

enum { REG_SECONDS = 0x00, REG_MINUTES = 0x02, REG_HOURS = 0x04, REG_WEEKDAY = 0x06,
       REG_DAY = 0x07, REG_MONTH = 0x08, REG_YEAR = 0x09, REG_A = 0x0a, REG_B = 0x0b,
       REG_C = 0x0c, REG_D = 0x0d, REG_CENTURY = 0x32 };

bool vrtc_init(struct vrtc *c, uint64_t unix_seconds, uint64_t base_tsc, uint64_t tsc_hz)
{
    *c = (struct vrtc){ 0 };
    if (!tsc_hz)
        return false;
    *c = (struct vrtc){ .present = true, .unix_seconds = unix_seconds, .base_tsc = base_tsc,
                        .tsc_hz = tsc_hz };
    return true;
}

bool vrtc_owns_port(const struct vrtc *c, uint16_t port)
{
    return c->present && (port == VRTC_INDEX_PORT || port == VRTC_DATA_PORT);
}

/* The wall clock at now_tsc; a TSC before the base (it does not run
 * backwards on one machine) shows the base. The sum saturates. */
static uint64_t seconds_at(const struct vrtc *c, uint64_t now_tsc)
{
    uint64_t elapsed = now_tsc > c->base_tsc ? (now_tsc - c->base_tsc) / c->tsc_hz : 0;
    return elapsed > UINT64_MAX - c->unix_seconds ? UINT64_MAX : c->unix_seconds + elapsed;
}

/* A register of the time and date (0x00-0x09, the century) in BCD. */
static uint8_t time_register(const struct vrtc *c, uint8_t reg, uint64_t now_tsc)
{
    struct rtc_calendar t;
    rtc_calendar_from_unix(seconds_at(c, now_tsc), &t);
    switch (reg) {
    case REG_SECONDS: return rtc_bcd(t.second);
    case REG_MINUTES: return rtc_bcd(t.minute);
    case REG_HOURS: return rtc_bcd(t.hour);
    case REG_WEEKDAY: return rtc_bcd(t.weekday);
    case REG_DAY: return rtc_bcd(t.day);
    case REG_MONTH: return rtc_bcd(t.month);
    case REG_YEAR: return rtc_bcd(t.year);
    case REG_CENTURY: return rtc_bcd(t.century);
    default: return 0;          /* the alarms */
    }
}

/* Only a time register reads the calendar: the status registers Linux
 * polls before it reads the time cost no date arithmetic. */
uint8_t vrtc_register(const struct vrtc *c, uint8_t reg, uint64_t now_tsc)
{
    switch (reg) {
    case REG_A: return REG_A_VALUE;
    case REG_B: return REG_B_VALUE;
    case REG_C: return 0;       /* no interrupt flags */
    case REG_D: return REG_D_VALUE;
    case REG_CENTURY: return time_register(c, reg, now_tsc);
    default:
        if (reg >= FIRST_NVRAM)
            return c->nvram[reg % VRTC_REGISTERS];
        return time_register(c, reg, now_tsc);
    }
}

static bool is_nvram(uint8_t reg)
{
    return reg >= FIRST_NVRAM && reg != REG_CENTURY;
}

enum vrtc_status vrtc_io(struct vrtc *c, uint16_t port, unsigned int size, bool in,
                         uint64_t now_tsc, uint32_t *value)
{
    uint32_t mask = size >= 4 ? ALL_ONES : (1u << (size * 8)) - 1, written = *value;
    *value = ALL_ONES & mask;
    if (size != 1)
        return VRTC_BAD_SIZE;
    if (port == VRTC_INDEX_PORT) {
        if (in)
            return VRTC_INDEX_READ;
        c->index = (uint8_t)(written & REG_INDEX_MASK);
        return VRTC_DONE;
    }
    if (!in) {
        if (!is_nvram(c->index))
            return VRTC_WRITE;
        c->nvram[c->index % VRTC_REGISTERS] = (uint8_t)written;
        return VRTC_DONE;
    }
    *value = vrtc_register(c, c->index, now_tsc);
    return VRTC_DONE;
}

const char *vrtc_refusal(enum vrtc_status st)
{
    switch (st) {
    case VRTC_WRITE:
        return "a write to a register of the read-only clock (dropped)";
    case VRTC_INDEX_READ:
        return "a read of the index port (reads 0xff)";
    case VRTC_BAD_SIZE:
        return "an access wider than a byte (reads all ones, or dropped)";
    default:
        return "not refused";
    }
}
