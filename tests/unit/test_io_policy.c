/* Unit tests of the I/O policy (vmx/io_policy.c) against a byte-lane
 * model of the machine's ports: every access the policy makes to the
 * hardware is logged with its width, PCI configuration mechanism #1 has
 * one shared latch and two functions (one of them the hidden log device),
 * and the reset, power-off and Vertigo-only ports record any write that
 * reaches them. Wide guest accesses that overlap Vertigo's ports must be
 * split or refused as the bus would decode them, never passed whole. */
#include "tests/unit/unit.h"

#include <pthread.h>
#include <sched.h>

#include "vmx/io_policy.h"

/* ---- The machine ------------------------------------------------------------ */

#define CONSOLE_UART   0x2f8
#define PM1A_CNT       0xb004
#define HIDDEN_BAR     0xc000
#define HIDDEN_BAR_LEN 0x20
#define LOG_MAX        64

static const struct pci_bdf visible_bdf = { 0, 2, 0 }, hidden_bdf = { 0, 3, 0 };

struct logged { uint16_t port; unsigned int size; bool in; uint32_t value; };

static struct machine {
    pthread_mutex_t lock;           /* one hardware access at a time */
    uint8_t ports[65536];           /* plain latches */
    struct logged log[LOG_MAX];
    unsigned int logged;
    uint32_t config_address;        /* the hardware CONFIG_ADDRESS latch */
    uint8_t config[2][256];         /* visible, hidden */
    unsigned int hidden_touched;    /* accesses that reached the hidden function */
    unsigned int vertigo_touched;   /* accesses to Vertigo's own ports */
    bool reset, powered_off, output_port_armed;
    bool yield_on_latch;            /* widen races in the stress test */
} m = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void machine_reset(void)
{
    pthread_mutex_lock(&m.lock);
    memset(m.ports, 0x11, sizeof(m.ports));
    m.logged = 0;
    m.config_address = 0;
    for (unsigned int i = 0; i < 256; i++) {
        m.config[0][i] = (uint8_t)i;
        m.config[1][i] = (uint8_t)(0x80 | i);
    }
    m.hidden_touched = m.vertigo_touched = 0;
    m.reset = m.powered_off = m.output_port_armed = false;
    pthread_mutex_unlock(&m.lock);
}

static bool vertigos(uint16_t port)
{
    return (port >= CONSOLE_UART && port < CONSOLE_UART + 8) || port == 0xe9 ||
           (port >= 0xf4 && port <= 0xf7) || port == 0x8900 ||
           (port >= HIDDEN_BAR && port < HIDDEN_BAR + HIDDEN_BAR_LEN);
}

/* The configuration byte a data-port byte reaches, or NULL (no function). */
static uint8_t *config_byte(uint16_t port)
{
    if (!(m.config_address & PCI_CONFIG_ENABLE))
        return NULL;
    unsigned int offset = (m.config_address & 0xfc) + (port - PCI_PORT_CONFIG_DATA);
    if (pci_config_address_selects(m.config_address, visible_bdf))
        return &m.config[0][offset];
    if (pci_config_address_selects(m.config_address, hidden_bdf)) {
        m.hidden_touched++;
        return &m.config[1][offset];
    }
    return NULL;
}

/* One byte lane of an access, as the bus decodes it. */
static uint8_t lane(uint16_t port, bool in, uint8_t value)
{
    if (vertigos(port))
        m.vertigo_touched++;
    if (port >= PCI_PORT_CONFIG_DATA && port < PCI_PORT_CONFIG_DATA + 4) {
        uint8_t *b = config_byte(port);
        if (!in && b)
            *b = value;
        return b ? *b : 0xff;
    }
    if (!in) {
        if (port == 0xcf9 && (value & 4))
            m.reset = true;
        if (port == 0x64 && value >= 0xf0 && !(value & 1))
            m.reset = true;
        if (port == 0x64 && value == 0xd1)
            m.output_port_armed = true;
        if (port == PM1A_CNT + 1 && (value & 0x20))
            m.powered_off = true;
        m.ports[port] = value;
    }
    return m.ports[port];
}

static void record(uint16_t port, unsigned int size, bool in, uint32_t value)
{
    if (m.logged < LOG_MAX)
        m.log[m.logged++] = (struct logged){ port, size, in, value };
}

uint32_t io_port_read(uint16_t port, unsigned int size)
{
    pthread_mutex_lock(&m.lock);
    uint32_t v = 0;
    if (port == PCI_PORT_CONFIG_ADDRESS && size == 4)
        v = m.config_address;
    else
        for (unsigned int i = 0; i < size; i++)
            v |= (uint32_t)lane((uint16_t)(port + i), true, 0) << (8 * i);
    record(port, size, true, v);
    pthread_mutex_unlock(&m.lock);
    return v;
}

void io_port_write(uint16_t port, unsigned int size, uint32_t value)
{
    bool yield = false;
    pthread_mutex_lock(&m.lock);
    if (port == PCI_PORT_CONFIG_ADDRESS && size == 4) {   /* only a dword latches */
        m.config_address = value;
        yield = m.yield_on_latch;
    } else {
        for (unsigned int i = 0; i < size; i++)
            lane((uint16_t)(port + i), false, (uint8_t)(value >> (8 * i)));
    }
    record(port, size, false, value);
    pthread_mutex_unlock(&m.lock);
    if (yield)
        sched_yield();
}

/* ---- Guest accesses ----------------------------------------------------------- */

static enum io_end out(uint16_t port, unsigned int size, uint32_t value)
{
    return io_policy_access(port, size, false, &value).end;
}

static uint32_t in(uint16_t port, unsigned int size)
{
    uint32_t value = 0x5a5a5a5a;
    CHECK_EQ(io_policy_access(port, size, true, &value).end, IO_CONTINUE);
    return size == 4 ? value : value & ((1u << (8 * size)) - 1);
}

static bool logged_exactly(unsigned int index, uint16_t port, unsigned int size, bool is_in)
{
    return index < m.logged && m.log[index].port == port && m.log[index].size == size &&
           m.log[index].in == is_in;
}

/* The plain machine: console on COM2, PM1a control at 0xB004. */
static void setup(void)
{
    machine_reset();
    io_policy_init(CONSOLE_UART, PM1A_CNT, 0);
}

static void setup_hiding(void)
{
    setup();
    io_policy_hide_pci(hidden_bdf, HIDDEN_BAR, HIDDEN_BAR_LEN, 0);
}

/* ---- Tests --------------------------------------------------------------------- */

static bool intercepted(const uint8_t *a, const uint8_t *b, uint32_t port)
{
    const uint8_t *bitmap = port < 0x8000 ? a : b;
    return (bitmap[(port & 0x7fff) / 8] >> (port % 8)) & 1;
}

TEST(bitmaps_intercept_exactly_the_owned_ports)
{
    static uint8_t a[4096], b[4096];
    static const uint16_t owned[] = { 0x64, 0x92, 0xe9, 0xf4, 0xf7, 0xcf9, 0x8900,
                                      CONSOLE_UART, CONSOLE_UART + 7, PM1A_CNT, PM1A_CNT + 1,
                                      0xcf8, 0xcfa, 0xcfb, 0xcfc, 0xcff, HIDDEN_BAR,
                                      HIDDEN_BAR + HIDDEN_BAR_LEN - 1, 0x400, 0x403 };
    static const uint16_t guests[] = { 0x60, 0x61, 0x3f8, 0x2f7, 0x300, PM1A_CNT + 2, 0xcf7,
                                       0xd00, HIDDEN_BAR + HIDDEN_BAR_LEN, 0x404, 0x1f0 };
    setup_hiding();
    io_policy_own(0x400, 4);
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    io_policy_fill_bitmaps(a, b);
    for (unsigned int i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        if (!CHECK(intercepted(a, b, owned[i])))
            printf("    port %#x\n", owned[i]);
    for (unsigned int i = 0; i < sizeof(guests) / sizeof(guests[0]); i++)
        if (!CHECK(!intercepted(a, b, guests[i])))
            printf("    port %#x\n", guests[i]);
}

/* A word at 0xCF8 is not CONFIG_ADDRESS: its high byte is the reset
 * control port 0xCF9 (PCI 3.0, 3.2.2.3.2). */
TEST(wide_access_at_0xcf8_reaches_reset_control_bytewise)
{
    setup();
    CHECK_EQ(out(0xcf8, 2, 0x0600), IO_END_RESET);
    CHECK_EQ(m.logged, 0);                      /* nothing written at all */
    CHECK(!m.reset);
    CHECK_EQ(out(0xcf8, 2, 0x0200), IO_CONTINUE);
    CHECK(logged_exactly(0, 0xcf8, 1, false) && logged_exactly(1, 0xcf9, 1, false));
    CHECK_EQ(m.ports[0xcf9], 0x02);
    CHECK_EQ(m.logged, 2);
    /* a dword is CONFIG_ADDRESS, whole, and touches no reset port */
    m.logged = 0;
    CHECK_EQ(out(0xcf8, 4, 0x80000610), IO_CONTINUE);
    CHECK(logged_exactly(0, 0xcf8, 4, false));
    CHECK_EQ(m.config_address, 0x80000610);
    CHECK_EQ(in(0xcf8, 4), 0x80000610);
    CHECK(!m.reset);
    /* a dword from 0xCF6 covers 0xCF9 too */
    CHECK_EQ(out(0xcf6, 4, 0x04000000), IO_END_RESET);
}

TEST(wide_access_cannot_write_vertigos_console_or_exit_ports)
{
    static const char forged[] = "VERTIGO-END: PASS (forged)\n";
    setup();
    for (const char *c = forged; *c; c++)
        CHECK_EQ(out(CONSOLE_UART - 1, 2, (uint32_t)*c << 8 | 'x'), IO_CONTINUE);
    CHECK_EQ(m.ports[CONSOLE_UART - 1], 'x');               /* the guest's lane */
    CHECK_EQ(out(CONSOLE_UART - 2, 4, 0x41414141), IO_CONTINUE);
    CHECK_EQ(out(CONSOLE_UART + 6, 4, 0x42424242), IO_CONTINUE);
    CHECK_EQ(out(0xe8, 2, 0x5858), IO_CONTINUE);            /* debug port 0xE9 */
    CHECK_EQ(out(0xf2, 4, 0x01010101), IO_CONTINUE);        /* QEMU exit 0xF4 */
    CHECK_EQ(out(0x88ff, 2, 0x5300), IO_CONTINUE);          /* Bochs shutdown */
    CHECK_EQ(m.vertigo_touched, 0);
    CHECK_EQ(m.ports[CONSOLE_UART - 2], 0x41);
    CHECK_EQ(m.ports[CONSOLE_UART + 8], 0x42);
    /* reads: Vertigo's lanes read as nothing, the guest's as they are */
    m.ports[CONSOLE_UART - 1] = 0x33;
    m.ports[CONSOLE_UART - 2] = 0x22;
    CHECK_EQ(in(CONSOLE_UART - 1, 2), 0xff33);
    CHECK_EQ(in(CONSOLE_UART - 2, 4), 0xffff3322);
    CHECK_EQ(m.vertigo_touched, 0);
}

TEST(keyboard_controller_resets_end_the_guest_and_its_output_port_is_vertigos)
{
    setup();
    CHECK_EQ(out(0x63, 2, 0xfe00), IO_END_RESET);           /* 0xFE through a wide OUT */
    CHECK_EQ(out(0x64, 1, 0xfe), IO_END_RESET);
    CHECK_EQ(out(0x64, 1, 0xf0), IO_END_RESET);             /* any pulse of bit 0 */
    CHECK_EQ(out(0x64, 2, 0x00fc), IO_END_RESET);
    CHECK(!m.reset);
    CHECK_EQ(out(0x64, 1, 0xd1), IO_CONTINUE);              /* write output port: dropped */
    CHECK(!m.output_port_armed);
    CHECK_EQ(out(0x64, 1, 0xff), IO_CONTINUE);              /* pulses nothing */
    CHECK_EQ(out(0x64, 1, 0x20), IO_CONTINUE);              /* read command byte */
    CHECK_EQ(m.ports[0x64], 0x20);
    m.ports[0x64] = 0x1c;
    CHECK_EQ(in(0x64, 1), 0x1c);
}

TEST(system_control_a_keeps_a20_and_resets_end_the_guest)
{
    setup();
    CHECK_EQ(in(0x92, 1), 0x02);
    CHECK_EQ(out(0x92, 1, 0x00), IO_CONTINUE);              /* A20 off: dropped */
    CHECK_EQ(out(0x91, 2, 0x0000), IO_CONTINUE);
    CHECK_EQ(m.ports[0x92], 0x11);
    CHECK_EQ(out(0x91, 2, 0x0100), IO_END_RESET);
    CHECK_EQ(out(0x92, 1, 0x03), IO_END_RESET);
    CHECK_EQ(m.ports[0x91], 0);                             /* the guest's lane only */
}

TEST(pm1_control_is_one_16_bit_register_and_slp_en_ends_the_guest)
{
    setup();
    CHECK_EQ(out(PM1A_CNT, 2, 0x2000 | 5 << 10), IO_END_POWER_OFF);
    CHECK_EQ(out(PM1A_CNT - 2, 4, 0x2000u << 16), IO_END_POWER_OFF);
    CHECK_EQ(out(PM1A_CNT + 1, 1, 0x20), IO_END_POWER_OFF);
    CHECK_EQ(out(PM1A_CNT + 1, 4, 0x20), IO_END_POWER_OFF);
    CHECK_EQ(m.logged, 0);
    CHECK(!m.powered_off);
    CHECK_EQ(out(PM1A_CNT, 2, 0x0001), IO_CONTINUE);        /* the register, whole */
    CHECK(logged_exactly(0, PM1A_CNT, 2, false));
    CHECK_EQ(m.logged, 1);
    m.logged = 0;
    CHECK_EQ(out(PM1A_CNT - 2, 4, 0x00015555), IO_CONTINUE); /* split into lanes */
    CHECK_EQ(m.logged, 4);
    CHECK(logged_exactly(2, PM1A_CNT, 1, false) && logged_exactly(3, PM1A_CNT + 1, 1, false));
    CHECK_EQ(in(PM1A_CNT, 2), 0x0001);
}

TEST(hidden_function_is_unreachable_through_any_width_or_offset)
{
    setup_hiding();
    uint32_t hidden = pci_config_address(hidden_bdf, 0);
    CHECK_EQ(out(0xcf8, 4, hidden), IO_CONTINUE);
    CHECK_EQ(in(0xcf8, 4), hidden);
    CHECK_EQ(in(0xcfc, 4), 0xffffffff);
    CHECK_EQ(in(0xcfe, 2), 0xffff);
    CHECK_EQ(out(0xcfc, 4, 0xdeadbeef), IO_CONTINUE);
    CHECK_EQ(out(0xcfd, 1, 0x01), IO_CONTINUE);
    CHECK_EQ(out(0xcfa, 4, 0x12345678), IO_CONTINUE);      /* lanes 0xCFC, 0xCFD */
    CHECK_EQ(out(0xcfe, 4, 0x12345678), IO_CONTINUE);      /* runs past 0xCFF */
    CHECK_EQ(in(0xcfb, 4), 0xffffff00 | m.ports[0xcfb]);    /* lane 0xCFB is the low byte */
    CHECK_EQ(m.hidden_touched, 0);
    /* the BAR, also from a wide access below it */
    CHECK_EQ(out(HIDDEN_BAR - 2, 4, 0x77777777), IO_CONTINUE);
    CHECK_EQ(in(HIDDEN_BAR, 4), 0xffffffff);
    CHECK_EQ(m.vertigo_touched, 0);
    /* 0xCF9 is still the reset port */
    CHECK_EQ(out(0xcf8, 2, 0x0400), IO_END_RESET);
}

TEST(other_functions_see_the_guests_address_latched_again)
{
    setup_hiding();
    uint32_t visible = pci_config_address(visible_bdf, 0x10);
    CHECK_EQ(out(0xcf8, 4, visible), IO_CONTINUE);
    m.config_address = 0x8000f000;                          /* Vertigo used the latch */
    CHECK_EQ(in(0xcfc, 4), 0x13121110);
    CHECK_EQ(m.config_address, visible);
    CHECK_EQ(out(0xcfe, 2, 0xbeef), IO_CONTINUE);
    CHECK_EQ(m.config[0][0x12], 0xef);
    CHECK_EQ(m.config[0][0x13], 0xbe);
    CHECK_EQ(in(0xcfd, 1), 0x11);
    CHECK_EQ(m.hidden_touched, 0);
}

/* Two VCPUs share the one hardware latch: one reads a visible function,
 * the other hammers the hidden one. However they interleave (the guest's
 * own accesses may then reach the visible function with either VCPU's
 * data), the hidden function's configuration is never reached. */
struct hammer { uint32_t address; bool write; unsigned int rounds; unsigned int bad; };

static void *hammer_run(void *arg)
{
    struct hammer *h = arg;
    for (unsigned int i = 0; i < h->rounds; i++) {
        uint32_t v = h->address;
        io_policy_access(0xcf8, 4, false, &v);
        if (h->write) {
            v = 0xdeadbeef;
            io_policy_access(0xcfc, 4, false, &v);
        } else {
            io_policy_access(0xcfc, 4, true, &v);
            if (v == 0x83828180)                        /* the hidden function's */
                h->bad++;
        }
    }
    return NULL;
}

TEST(two_vcpus_share_the_latch_and_never_reach_the_hidden_function)
{
    setup_hiding();
    m.yield_on_latch = true;
    struct hammer reader = { pci_config_address(visible_bdf, 0), false, 20000, 0 };
    struct hammer writer = { pci_config_address(hidden_bdf, 0), true, 20000, 0 };
    pthread_t a, b;
    pthread_create(&a, NULL, hammer_run, &reader);
    pthread_create(&b, NULL, hammer_run, &writer);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    m.yield_on_latch = false;
    CHECK_EQ(m.hidden_touched, 0);
    CHECK_EQ(reader.bad, 0);
}
