/* printf-style formatting into a bounded buffer (contract: lib/format.h).
 * Freestanding: no C library, no floating point. Output semantics follow
 * C11 7.21.6.1 (fprintf) for the supported conversions; a null %s prints
 * "(null)" and a null %p prints "(nil)", as glibc does. */
#include "lib/format.h"

#include <stdbool.h>
#include <stdint.h>

#include "lib/mem.h"

#define FMT_MAX_DIGITS 24 /* 64-bit value in octal: 22 digits */

/* Where characters go: the first size-1 are stored, all are counted. */
struct fmt_sink {
    char *buf;
    size_t size;
    size_t len;
};

enum fmt_length {
    LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE, LEN_PTRDIFF, LEN_INTMAX,
};

/* One parsed conversion specification. */
struct fmt_spec {
    bool left;          /* '-' */
    bool zero;          /* '0' */
    bool plus;          /* '+' */
    bool space;         /* ' ' */
    bool alt;           /* '#' */
    int width;          /* 0 when absent */
    int precision;      /* -1 when absent */
    enum fmt_length length;
    char conv;
};

static void sink_put(struct fmt_sink *s, char c)
{
    if (s->len + 1 < s->size)
        s->buf[s->len] = c;
    s->len++;
}

static void sink_repeat(struct fmt_sink *s, char c, int count)
{
    for (int i = 0; i < count; i++)
        sink_put(s, c);
}

static void sink_write(struct fmt_sink *s, const char *str, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sink_put(s, str[i]);
}

/* Writes `n` bytes of body padded to the spec's width with spaces. */
static void put_padded(struct fmt_sink *s, const struct fmt_spec *sp, const char *body, size_t n)
{
    int pad = (size_t)sp->width > n ? sp->width - (int)n : 0;

    if (!sp->left)
        sink_repeat(s, ' ', pad);
    sink_write(s, body, n);
    if (sp->left)
        sink_repeat(s, ' ', pad);
}

static void format_string(struct fmt_sink *s, const struct fmt_spec *sp, const char *str)
{
    if (!str)
        str = "(null)";
    /* With a precision, never read past it: the array may be unterminated. */
    size_t n = sp->precision >= 0 ? strnlen(str, (size_t)sp->precision) : strlen(str);
    put_padded(s, sp, str, n);
}

/* Writes the digits of v in `base` into the end of digits[]; returns the count. */
static int to_digits(uint64_t v, unsigned base, bool upper, char digits[FMT_MAX_DIGITS])
{
    const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    int n = 0;

    do {
        digits[FMT_MAX_DIGITS - 1 - n] = set[v % base];
        v /= base;
        n++;
    } while (v != 0);
    return n;
}

/* Integer layout (C11 7.21.6.1p6-8): [spaces][prefix][zeros][digits][spaces]. */
static void format_integer(struct fmt_sink *s, const struct fmt_spec *sp, uint64_t mag,
                           bool negative)
{
    char digits[FMT_MAX_DIGITS];
    char prefix[3];
    int plen = 0;
    bool upper = sp->conv == 'X';
    bool hex = sp->conv == 'x' || sp->conv == 'X' || sp->conv == 'p';
    unsigned base = sp->conv == 'o' ? 8 : hex ? 16 : 10;
    bool is_signed = sp->conv == 'd' || sp->conv == 'i';

    int ndig = (mag == 0 && sp->precision == 0) ? 0 : to_digits(mag, base, upper, digits);
    int zeros = sp->precision > ndig ? sp->precision - ndig : 0;

    if (is_signed && negative)
        prefix[plen++] = '-';
    else if (is_signed && sp->plus)
        prefix[plen++] = '+';
    else if (is_signed && sp->space)
        prefix[plen++] = ' ';
    if (base == 8 && sp->alt && zeros == 0 && (ndig == 0 || digits[FMT_MAX_DIGITS - ndig] != '0'))
        zeros = 1; /* '#' with o: the first digit is a zero */
    if (base == 16 && (sp->conv == 'p' || (sp->alt && mag != 0))) {
        prefix[plen++] = '0';
        prefix[plen++] = upper ? 'X' : 'x';
    }

    int total = plen + zeros + ndig;
    int pad = sp->width > total ? sp->width - total : 0;
    if (sp->zero && !sp->left && sp->precision < 0) {
        zeros += pad;
        pad = 0;
    }
    if (!sp->left)
        sink_repeat(s, ' ', pad);
    sink_write(s, prefix, (size_t)plen);
    sink_repeat(s, '0', zeros);
    sink_write(s, digits + FMT_MAX_DIGITS - ndig, (size_t)ndig);
    if (sp->left)
        sink_repeat(s, ' ', pad);
}

static int64_t fetch_signed(enum fmt_length len, va_list *ap)
{
    switch (len) {
    case LEN_CHAR:    return (signed char)va_arg(*ap, int);
    case LEN_SHORT:   return (short)va_arg(*ap, int);
    case LEN_LONG:    return va_arg(*ap, long);
    case LEN_LLONG:   return va_arg(*ap, long long);
    case LEN_SIZE:    return (int64_t)va_arg(*ap, size_t); /* signed size_t */
    case LEN_PTRDIFF: return va_arg(*ap, ptrdiff_t);
    case LEN_INTMAX:  return va_arg(*ap, intmax_t);
    case LEN_INT:     break;
    }
    return va_arg(*ap, int);
}

static uint64_t fetch_unsigned(enum fmt_length len, va_list *ap)
{
    switch (len) {
    case LEN_CHAR:    return (unsigned char)va_arg(*ap, unsigned int);
    case LEN_SHORT:   return (unsigned short)va_arg(*ap, unsigned int);
    case LEN_LONG:    return va_arg(*ap, unsigned long);
    case LEN_LLONG:   return va_arg(*ap, unsigned long long);
    case LEN_SIZE:    return va_arg(*ap, size_t);
    case LEN_PTRDIFF: return (uint64_t)va_arg(*ap, ptrdiff_t);
    case LEN_INTMAX:  return va_arg(*ap, uintmax_t);
    case LEN_INT:     break;
    }
    return va_arg(*ap, unsigned int);
}

static const char *parse_flags(const char *f, struct fmt_spec *sp)
{
    for (;; f++) {
        switch (*f) {
        case '-': sp->left = true; break;
        case '0': sp->zero = true; break;
        case '+': sp->plus = true; break;
        case ' ': sp->space = true; break;
        case '#': sp->alt = true; break;
        default:  return f;
        }
    }
}

/* Reads a decimal number, saturating instead of overflowing. */
static const char *parse_number(const char *f, int *out)
{
    int v = 0;

    while (*f >= '0' && *f <= '9') {
        int d = *f++ - '0';
        v = v > (INT32_MAX - d) / 10 ? INT32_MAX : v * 10 + d;
    }
    *out = v;
    return f;
}

static const char *parse_width_precision(const char *f, struct fmt_spec *sp, va_list *ap)
{
    if (*f == '*') {
        int w = va_arg(*ap, int);
        f++;
        /* A negative '*' width means '-' flag plus its magnitude. */
        if (w < 0) {
            sp->left = true;
            w = w == INT32_MIN ? INT32_MAX : -w;
        }
        sp->width = w;
    } else {
        f = parse_number(f, &sp->width);
    }
    if (*f != '.')
        return f;
    f++;
    if (*f == '*') {
        int p = va_arg(*ap, int);
        sp->precision = p < 0 ? -1 : p; /* negative: as if omitted */
        return f + 1;
    }
    return parse_number(f, &sp->precision);
}

static const char *parse_length(const char *f, struct fmt_spec *sp)
{
    switch (*f) {
    case 'h':
        if (f[1] == 'h') {
            sp->length = LEN_CHAR;
            return f + 2;
        }
        sp->length = LEN_SHORT;
        return f + 1;
    case 'l':
        if (f[1] == 'l') {
            sp->length = LEN_LLONG;
            return f + 2;
        }
        sp->length = LEN_LONG;
        return f + 1;
    case 'z': sp->length = LEN_SIZE; return f + 1;
    case 't': sp->length = LEN_PTRDIFF; return f + 1;
    case 'j': sp->length = LEN_INTMAX; return f + 1;
    default:  return f;
    }
}

/* Formats one conversion; returns false if `conv` is not supported. */
static bool format_one(struct fmt_sink *s, struct fmt_spec *sp, va_list *ap)
{
    char c;

    switch (sp->conv) {
    case 'd':
    case 'i': {
        int64_t v = fetch_signed(sp->length, ap);
        uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        format_integer(s, sp, mag, v < 0);
        return true;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o':
        format_integer(s, sp, fetch_unsigned(sp->length, ap), false);
        return true;
    case 'p': {
        const void *p = va_arg(*ap, const void *);
        if (!p) {
            sp->precision = -1;
            format_string(s, sp, "(nil)");
        } else {
            format_integer(s, sp, (uint64_t)(uintptr_t)p, false);
        }
        return true;
    }
    case 'c':
        c = (char)va_arg(*ap, int);
        put_padded(s, sp, &c, 1);
        return true;
    case 's':
        format_string(s, sp, va_arg(*ap, const char *));
        return true;
    case '%':
        sink_put(s, '%');
        return true;
    default:
        return false;
    }
}

/* Handles the specification starting just after a '%'; returns where
 * parsing continues. An unsupported conversion is copied verbatim. */
static const char *format_spec(struct fmt_sink *s, const char *start, va_list *ap)
{
    struct fmt_spec sp = { .precision = -1, .length = LEN_INT };
    const char *f = parse_flags(start, &sp);

    f = parse_width_precision(f, &sp, ap);
    f = parse_length(f, &sp);
    sp.conv = *f;
    if (sp.conv != '\0' && format_one(s, &sp, ap))
        return f + 1;
    /* Unknown (or truncated) specification: emit it as written. */
    sink_put(s, '%');
    sink_write(s, start, (size_t)(f - start));
    if (*f == '\0')
        return f;
    sink_put(s, *f);
    return f + 1;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct fmt_sink s = { .buf = buf, .size = size, .len = 0 };
    va_list args;

    va_copy(args, ap);
    while (*fmt != '\0') {
        if (*fmt != '%') {
            sink_put(&s, *fmt++);
            continue;
        }
        fmt = format_spec(&s, fmt + 1, &args);
    }
    va_end(args);
    if (size > 0)
        buf[s.len < size ? s.len : size - 1] = '\0';
    return s.len > INT32_MAX ? INT32_MAX : (int)s.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = fmt_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
