/* Parsing console= (see console_option.h). */
#include "vmm/console/console_option.h"

#include "lib/cmdline.h"
#include "lib/format.h"
#include "lib/mem.h"

#define WORD_MAX 24

/* Takes one word of the list into c; false with the reason otherwise. */
static bool take_word(const char *w, struct console_choice *c, char *why, size_t why_size)
{
    uint64_t port = 0;
    if (!strcmp(w, "vga")) {
        c->vga = true;
        return true;
    }
    if (!strcmp(w, "fb")) {
        c->fb = true;
        return true;
    }
    if (!strcmp(w, "none"))
        return true;
    if (!strcmp(w, "com1"))
        port = CONSOLE_COM1;
    else if (!strcmp(w, "com2"))
        port = CONSOLE_COM2;
    else if (!cmdline_parse_u64(w, &port) || port == 0 || port >= 0xfff8) {
        fmt_snprintf(why, why_size, "unknown console '%s' (com1, com2, a UART port, vga, fb, none)", w);
        return false;
    }
    for (unsigned int i = 0; i < CONSOLE_UARTS_MAX; i++) {
        if (c->uart_ports[i] == port)
            return true;
        if (!c->uart_ports[i]) {
            c->uart_ports[i] = (uint16_t)port;
            return true;
        }
    }
    fmt_snprintf(why, why_size, "'%s' would be serial console number %u (at most %u)", w,
                 CONSOLE_UARTS_MAX + 1, CONSOLE_UARTS_MAX);
    return false;
}

bool console_option_parse(const char *value, struct console_choice *out, char *why,
                          size_t why_size)
{
    struct console_choice c = { 0 };
    const char *p = value;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char word[WORD_MAX];
        if (len == 0 || len >= sizeof(word)) {
            fmt_snprintf(why, why_size, "%s word in console=%s", len ? "too long a" : "an empty", value);
            *out = CONSOLE_DEFAULT;
            return false;
        }
        memcpy(word, p, len);
        word[len] = '\0';
        if (!take_word(word, &c, why, why_size)) {
            *out = CONSOLE_DEFAULT;
            return false;
        }
        if (!end)
            break;
        p = end + 1;
    }
    *out = c;
    return true;
}
