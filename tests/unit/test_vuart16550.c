/* The virtual 16550A against the register accesses Linux's 8250 driver
 * makes (drivers/tty/serial/8250/8250_port.c: autoconfig,
 * autoconfig_16550a, size_fifo, startup's THRE test, the console's
 * polled write), and the registers one by one. */
#include "tests/unit/unit.h"
#include "vmm/vhw/vuart16550.h"

#define BASE VUART_COM1_BASE

struct capture {
    char text[512];
    unsigned int len;
};

static int64_t capture_byte(void *ctx, const char *text, size_t len)
{
    struct capture *c = ctx;

    CHECK_EQ(len, 1);
    if (c->len < sizeof c->text - 1)
        c->text[c->len++] = text[0];
    return (int64_t)len;
}

static uint8_t in(struct vuart16550 *u, enum vuart_reg r)
{
    return vuart16550_read(u, (uint16_t)(BASE + r));
}

static void out(struct vuart16550 *u, enum vuart_reg r, uint8_t v)
{
    vuart16550_write(u, (uint16_t)(BASE + r), v);
}

/* The driver's existence test: IER keeps its four low bits. */
static bool probe_ier_scratch(struct vuart16550 *u)
{
    uint8_t saved = in(u, VUART_IER_DLM), cleared, set;

    out(u, VUART_IER_DLM, 0);
    cleared = in(u, VUART_IER_DLM) & 0x0f;
    out(u, VUART_IER_DLM, 0x0f);
    set = in(u, VUART_IER_DLM) & 0x0f;
    out(u, VUART_IER_DLM, saved);
    return cleared == 0 && set == 0x0f;
}

/* Loopback with RTS and OUT2: CTS and DCD must come back (0x90). */
static uint8_t probe_loopback(struct vuart16550 *u)
{
    uint8_t saved = in(u, VUART_MCR), status;

    out(u, VUART_MCR, VUART_MCR_LOOP | 0x0a);
    status = in(u, VUART_MSR) & 0xf0;
    out(u, VUART_MCR, saved);
    return status;
}

/* The FIFO size test: 256 bytes sent in loopback at divisor 1, then
 * counted out of the receiver. */
static unsigned int probe_fifo_size(struct vuart16550 *u)
{
    uint8_t lcr = in(u, VUART_LCR), mcr, fcr_guess, dll, dlm;
    unsigned int count;

    out(u, VUART_LCR, 0);
    fcr_guess = in(u, VUART_IIR_FCR);
    mcr = in(u, VUART_MCR);
    out(u, VUART_IIR_FCR, 0x07);
    out(u, VUART_MCR, VUART_MCR_LOOP);
    out(u, VUART_LCR, VUART_LCR_DLAB);
    dll = in(u, VUART_RBR_THR_DLL);
    dlm = in(u, VUART_IER_DLM);
    out(u, VUART_RBR_THR_DLL, 1);
    out(u, VUART_IER_DLM, 0);
    out(u, VUART_LCR, 0x03);
    for (count = 0; count < 256; count++)
        out(u, VUART_RBR_THR_DLL, (uint8_t)count);
    for (count = 0; (in(u, VUART_LSR) & VUART_LSR_DR) && count < 512; count++)
        in(u, VUART_RBR_THR_DLL);
    out(u, VUART_IIR_FCR, fcr_guess);
    out(u, VUART_MCR, mcr);
    out(u, VUART_LCR, VUART_LCR_DLAB);
    out(u, VUART_RBR_THR_DLL, dll);
    out(u, VUART_IER_DLM, dlm);
    out(u, VUART_LCR, lcr);
    return count;
}

/* The 16550A variant tests; returns the driver's verdict as a name. */
static const char *probe_16550a_variants(struct vuart16550 *u)
{
    uint8_t s1, s2, ier;

    out(u, VUART_LCR, 0x80);                    /* EFR with DLAB: ST16C650V1 */
    if (in(u, VUART_IIR_FCR) == 0)
        return "ST16650";
    out(u, VUART_LCR, 0xbf);                    /* EFR behind 0xbf: 16650V2 and kin */
    if (in(u, VUART_IIR_FCR) == 0)
        return "ST16650V2";
    out(u, VUART_LCR, 0);                       /* NatSemi: EXCR1 mirrors MCR.LOOP */
    s1 = in(u, VUART_MCR);
    out(u, VUART_LCR, 0xe0);
    s2 = in(u, VUART_IIR_FCR);
    if (!((s1 ^ s2) & VUART_MCR_LOOP)) {
        out(u, VUART_LCR, 0);
        out(u, VUART_MCR, s1 ^ VUART_MCR_LOOP);
        out(u, VUART_LCR, 0xe0);
        s2 = in(u, VUART_IIR_FCR);
        out(u, VUART_LCR, 0);
        out(u, VUART_MCR, s1);
        if ((s1 ^ s2) & VUART_MCR_LOOP)
            return "NS16550A";
    }
    out(u, VUART_LCR, 0);                       /* TI16750: IIR bit 5 with DLAB */
    out(u, VUART_IIR_FCR, 0x21);
    s1 = in(u, VUART_IIR_FCR) >> 5;
    out(u, VUART_IIR_FCR, 0x01);
    out(u, VUART_LCR, 0x80);
    out(u, VUART_IIR_FCR, 0x21);
    s2 = in(u, VUART_IIR_FCR) >> 5;
    out(u, VUART_IIR_FCR, 0x01);
    out(u, VUART_LCR, 0);
    if (s1 == 6 && s2 == 7)
        return "TI16750";
    ier = in(u, VUART_IER_DLM);                 /* XScale: IER bit 6 sticks */
    out(u, VUART_IER_DLM, ier | 0x40);
    if (in(u, VUART_IER_DLM) & 0x40)
        return "XScale";
    out(u, VUART_IER_DLM, ier);
    return probe_fifo_size(u) == 64 ? "U6_16550A" : "16550A";
}

/* autoconfig: existence, loopback, then the IIR's FIFO bits. */
static const char *probe_autoconfig(struct vuart16550 *u)
{
    uint8_t lcr, mcr, fifo_bits;
    const char *type;

    if (!probe_ier_scratch(u))
        return "none (IER test)";
    mcr = in(u, VUART_MCR);
    lcr = in(u, VUART_LCR);
    if (probe_loopback(u) != 0x90)
        return "none (loopback test)";
    out(u, VUART_LCR, 0xbf);
    out(u, VUART_IIR_FCR, 0);
    out(u, VUART_LCR, 0);
    out(u, VUART_IIR_FCR, VUART_FCR_ENABLE);
    fifo_bits = in(u, VUART_IIR_FCR) >> 6;
    type = fifo_bits == 3 ? probe_16550a_variants(u) :
           fifo_bits == 2 ? "16550" : fifo_bits == 0 ? "8250/16450" : "unknown";
    out(u, VUART_LCR, lcr);
    out(u, VUART_MCR, mcr);                      /* reset as the driver does */
    out(u, VUART_IIR_FCR, VUART_FCR_ENABLE);
    out(u, VUART_IIR_FCR, VUART_FCR_ENABLE | 0x06);
    out(u, VUART_IIR_FCR, 0);
    in(u, VUART_RBR_THR_DLL);
    out(u, VUART_IER_DLM, 0);
    return type;
}

static void set_baud_8n1(struct vuart16550 *u, uint16_t divisor)
{
    out(u, VUART_LCR, VUART_LCR_DLAB | 0x03);
    out(u, VUART_RBR_THR_DLL, (uint8_t)divisor);
    out(u, VUART_IER_DLM, (uint8_t)(divisor >> 8));
    out(u, VUART_LCR, 0x03);
}

/* serial8250_console_write: wait for THRE, write, then for both empty. */
static bool console_write(struct vuart16550 *u, const char *s)
{
    for (; *s; s++) {
        unsigned int tries = 0;
        while (!(in(u, VUART_LSR) & VUART_LSR_THRE))
            if (++tries > 10)
                return false;
        out(u, VUART_RBR_THR_DLL, (uint8_t)*s);
    }
    return (in(u, VUART_LSR) & (VUART_LSR_THRE | VUART_LSR_TEMT)) ==
           (VUART_LSR_THRE | VUART_LSR_TEMT);
}

TEST(linux_autoconfig_finds_a_16550a)
{
    struct capture c = { 0 };
    struct vuart16550 u;

    vuart16550_init(&u, BASE, capture_byte, &c);
    CHECK_STR(probe_autoconfig(&u), "16550A");
    CHECK_EQ(c.len, 0);                          /* loopback bytes never leave */
    CHECK_EQ(in(&u, VUART_IER_DLM), 0);
    CHECK_EQ(in(&u, VUART_LSR), VUART_LSR_THRE | VUART_LSR_TEMT);
}

TEST(autoconfig_after_an_early_console_set_the_line)
{
    struct capture c = { 0 };
    struct vuart16550 u;

    vuart16550_init(&u, BASE, capture_byte, &c);
    set_baud_8n1(&u, 1);
    out(&u, VUART_MCR, 0x0b);
    CHECK(console_write(&u, "early\n"));
    CHECK_STR(probe_autoconfig(&u), "16550A");
    CHECK_EQ(in(&u, VUART_LCR), 0x03);
    CHECK_EQ(in(&u, VUART_MCR), 0x0b);
    CHECK(console_write(&u, "late\n"));
    CHECK_STR(c.text, "early\nlate\n");
}

TEST(fifo_holds_sixteen_bytes_in_loopback)
{
    struct vuart16550 u;

    vuart16550_init(&u, BASE, NULL, NULL);
    CHECK_EQ(probe_fifo_size(&u), 16);
    /* the driver restored "FCR" from an IIR read: FIFOs are on (0x01) */
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_FIFOS | VUART_IIR_NO_INT);
    /* without FIFOs one byte, and the second overruns */
    out(&u, VUART_IIR_FCR, 0);
    out(&u, VUART_MCR, VUART_MCR_LOOP);
    out(&u, VUART_RBR_THR_DLL, 'a');
    out(&u, VUART_RBR_THR_DLL, 'b');
    CHECK_EQ(in(&u, VUART_LSR), VUART_LSR_THRE | VUART_LSR_TEMT | VUART_LSR_DR | VUART_LSR_OE);
    CHECK_EQ(in(&u, VUART_LSR), VUART_LSR_THRE | VUART_LSR_TEMT | VUART_LSR_DR);
    CHECK_EQ(in(&u, VUART_RBR_THR_DLL), 'a');
    CHECK_EQ(in(&u, VUART_LSR), VUART_LSR_THRE | VUART_LSR_TEMT);
    CHECK_EQ(in(&u, VUART_RBR_THR_DLL), 0);      /* empty receiver */
}

/* serial8250_do_startup: the LSR safety check and the THRE test (an
 * IIR without a pending THRE interrupt after enabling THRI would mark
 * the port UART_BUG_THRE). */
TEST(startup_checks_pass)
{
    struct vuart16550 u;
    uint8_t iir1, iir2;

    vuart16550_init(&u, BASE, NULL, NULL);
    CHECK_STR(probe_autoconfig(&u), "16550A");
    out(&u, VUART_IIR_FCR, VUART_FCR_ENABLE | 0x06);
    out(&u, VUART_IIR_FCR, 0);
    in(&u, VUART_LSR);
    in(&u, VUART_RBR_THR_DLL);
    in(&u, VUART_IIR_FCR);
    in(&u, VUART_MSR);
    CHECK(in(&u, VUART_LSR) != 0xff);
    set_baud_8n1(&u, 1);
    out(&u, VUART_IER_DLM, VUART_IER_THRI);
    iir1 = in(&u, VUART_IIR_FCR);
    out(&u, VUART_IER_DLM, 0);
    out(&u, VUART_IER_DLM, VUART_IER_THRI);
    iir2 = in(&u, VUART_IIR_FCR);
    out(&u, VUART_IER_DLM, 0);
    CHECK_EQ(iir1 & VUART_IIR_NO_INT, 0);
    CHECK_EQ(iir2 & VUART_IIR_NO_INT, 0);
}

TEST(polled_transmit_through_the_thre_interrupt)
{
    struct capture c = { 0 };
    struct vuart16550 u;

    vuart16550_init(&u, BASE, capture_byte, &c);
    out(&u, VUART_IIR_FCR, VUART_FCR_ENABLE);
    out(&u, VUART_MCR, 0x08);                    /* OUT2 gates the IRQ line */
    CHECK(!vuart16550_irq_pending(&u));
    out(&u, VUART_IER_DLM, VUART_IER_THRI | VUART_IER_RDI);
    CHECK(vuart16550_irq_pending(&u));
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_FIFOS | VUART_IIR_THRI);
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_FIFOS | VUART_IIR_NO_INT);   /* taken */
    CHECK(!vuart16550_irq_pending(&u));
    out(&u, VUART_RBR_THR_DLL, 'o');
    out(&u, VUART_RBR_THR_DLL, 'k');
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_FIFOS | VUART_IIR_THRI);
    CHECK_STR(c.text, "ok");
    out(&u, VUART_MCR, 0);
    out(&u, VUART_RBR_THR_DLL, '!');
    CHECK(!vuart16550_irq_pending(&u));
}

TEST(interrupt_priority_line_status_then_data_then_thre)
{
    struct vuart16550 u;

    vuart16550_init(&u, BASE, NULL, NULL);
    out(&u, VUART_MCR, VUART_MCR_LOOP);
    out(&u, VUART_IER_DLM, 0x07);
    out(&u, VUART_RBR_THR_DLL, 1);
    out(&u, VUART_RBR_THR_DLL, 2);               /* overrun: no FIFO */
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_RLSI);
    in(&u, VUART_LSR);
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_RDI);
    in(&u, VUART_RBR_THR_DLL);
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_THRI);
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_NO_INT);
}

TEST(registers_divisor_scratch_and_masks)
{
    struct vuart16550 u;

    vuart16550_init(&u, BASE, NULL, NULL);
    out(&u, VUART_LCR, VUART_LCR_DLAB);
    CHECK_EQ(in(&u, VUART_RBR_THR_DLL), 12);
    CHECK_EQ(in(&u, VUART_IER_DLM), 0);
    out(&u, VUART_RBR_THR_DLL, 0x34);
    out(&u, VUART_IER_DLM, 0x12);
    CHECK_EQ(u.divisor, 0x1234);
    out(&u, VUART_LCR, 0x03);
    CHECK_EQ(in(&u, VUART_IER_DLM), 0);          /* IER untouched by the DLM write */
    out(&u, VUART_IER_DLM, 0xff);
    CHECK_EQ(in(&u, VUART_IER_DLM), 0x0f);
    out(&u, VUART_MCR, 0xff);
    CHECK_EQ(in(&u, VUART_MCR), 0x1f);
    out(&u, VUART_SCR, 0xa5);
    CHECK_EQ(in(&u, VUART_SCR), 0xa5);
    out(&u, VUART_MCR, 0x03);
    CHECK_EQ(in(&u, VUART_MSR), 0xb0);           /* CTS, DSR, DCD: a ready modem */
    out(&u, VUART_MCR, VUART_MCR_LOOP | 0x05);
    CHECK_EQ(in(&u, VUART_MSR), 0x60);           /* DTR -> DSR, OUT1 -> RI */
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_THRI);     /* from IER 0xff above */
    CHECK_EQ(in(&u, VUART_IIR_FCR), VUART_IIR_NO_INT);   /* no FIFO bits when off */
    CHECK(vuart16550_owns_port(&u, 0x3f8));
    CHECK(vuart16550_owns_port(&u, 0x3ff));
    CHECK(!vuart16550_owns_port(&u, 0x3f7));
    CHECK(!vuart16550_owns_port(&u, 0x400));
    CHECK(!vuart16550_owns_port(&u, 0x2f8));
}
