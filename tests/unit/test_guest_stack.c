/* Unit tests for the guest frame-pointer walker (vmm/guest/guest_stack.c) on a
 * simulated guest memory: a few readable pages at chosen guest-virtual
 * addresses, everything else unreadable. */
#include "tests/unit/unit.h"
#include "vmm/guest/guest_stack.h"

#define PAGE 4096u
#define USER_STACK   0x00007ffffffde000ull      /* two user pages */
#define KERNEL_STACK 0xffffc90000010000ull      /* two kernel pages */
#define USER_TEXT    0x401000ull
#define KERNEL_TEXT  0xffffffff81000000ull

struct sim_mem {
    uint64_t base[2];
    uint8_t bytes[2][2 * PAGE];
    unsigned int reads;
};

static struct sim_mem mem;

/* The readable page at `page` (a guest_page_fn), counted. */
static const uint8_t *sim_page(void *ctx, uint64_t page)
{
    struct sim_mem *m = ctx;
    m->reads++;
    for (unsigned int r = 0; r < 2; r++)
        if (page >= m->base[r] && page - m->base[r] < sizeof(m->bytes[r]))
            return m->bytes[r] + (page - m->base[r]);
    return NULL;
}

/* A fresh reader of the simulated memory, as each sample gets. */
static struct guest_reader *reader(void)
{
    static struct guest_reader rd;
    guest_reader_init(&rd, sim_page, &mem);
    return &rd;
}

static void sim_reset(void)
{
    memset(&mem, 0, sizeof(mem));
    mem.base[0] = USER_STACK;
    mem.base[1] = KERNEL_STACK;
}

/* Writes the frame {saved fp, return address} at guest address fp. */
static void put_frame(uint64_t fp, uint64_t next, uint64_t ret)
{
    for (unsigned int r = 0; r < 2; r++) {
        if (fp >= mem.base[r] && fp + 16 <= mem.base[r] + sizeof(mem.bytes[r])) {
            memcpy(mem.bytes[r] + (fp - mem.base[r]), &next, 8);
            memcpy(mem.bytes[r] + (fp - mem.base[r]) + 8, &ret, 8);
            return;
        }
    }
}

/* main -> run -> cool -> leaf: three frames above the sampled one. */
static void user_chain(unsigned int frames)
{
    for (unsigned int i = 0; i < frames; i++) {
        uint64_t fp = USER_STACK + 0x100 + i * 0x40;
        uint64_t next = i + 1 < frames ? fp + 0x40 : 0;
        put_frame(fp, next, USER_TEXT + 0x10 * (i + 1));
    }
}

TEST(user_chain_is_walked_to_its_end)
{
    uint64_t out[32];
    sim_reset();
    user_chain(3);
    unsigned int n = guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out);
    CHECK_EQ(n, 3);
    CHECK_EQ(out[0], USER_TEXT + 0x10);
    CHECK_EQ(out[1], USER_TEXT + 0x20);
    CHECK_EQ(out[2], USER_TEXT + 0x30);
}

TEST(depth_is_bounded)
{
    uint64_t out[32];
    sim_reset();
    user_chain(6);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 2, reader(), out), 2);
    CHECK_EQ(out[1], USER_TEXT + 0x20);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 0, reader(), out), 0);
}

TEST(loops_and_downward_links_stop_the_walk)
{
    uint64_t out[32];
    sim_reset();
    put_frame(USER_STACK + 0x100, USER_STACK + 0x100, USER_TEXT);      /* points at itself */
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 1);
    put_frame(USER_STACK + 0x200, USER_STACK + 0x180, USER_TEXT);      /* goes down */
    put_frame(USER_STACK + 0x180, USER_STACK + 0x200, USER_TEXT + 1);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x200, false, 8, reader(), out), 1);
    CHECK_EQ(mem.reads < 8, true);
}

TEST(bad_frame_pointers_are_not_followed)
{
    uint64_t out[32];
    sim_reset();
    put_frame(USER_STACK + 0x100, USER_STACK + 0x143, USER_TEXT);      /* misaligned next */
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 1);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x104, false, 8, reader(), out), 0);
    CHECK_EQ(guest_stack_walk(0x0000900000000000ull, false, 8, reader(), out), 0);
    CHECK_EQ(guest_stack_walk(0, false, 8, reader(), out), 0);
    /* a jump of more than GUEST_STACK_FRAME_MAX is not a caller's frame */
    put_frame(USER_STACK + 0x100, USER_STACK + 0x100 + GUEST_STACK_FRAME_MAX + 8, USER_TEXT);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 1);
}

/* Code without frame pointers keeps data in RBP: a "return address"
 * that points into the stack (within GUEST_STACK_FRAME_MAX of its frame,
 * above or below) is none, and ends the walk before it is recorded. */
TEST(a_return_address_into_the_stack_ends_the_walk)
{
    uint64_t out[32];
    sim_reset();
    put_frame(USER_STACK + 0x100, USER_STACK + 0x140, USER_TEXT + 0x10);
    put_frame(USER_STACK + 0x140, USER_STACK + 0x180, USER_STACK + 0xfa7);        /* above */
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 1);
    CHECK_EQ(out[0], USER_TEXT + 0x10);
    put_frame(USER_STACK + 0x140, USER_STACK + 0x180, USER_STACK - 0x1000);       /* below */
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 1);
    put_frame(USER_STACK + 0x140, 0, USER_STACK - GUEST_STACK_FRAME_MAX);         /* far: code */
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 2);
}

/* Vertigo's own stacks lie in its image beside its code: its walk keeps
 * a return address near its frame, where a guest's walk ends. */
TEST(vertigos_own_walk_keeps_return_addresses_near_its_frames)
{
    uint64_t out[32];
    sim_reset();
    put_frame(USER_STACK + 0x100, USER_STACK + 0x140, USER_STACK - 0x8000);
    put_frame(USER_STACK + 0x140, 0, USER_STACK - 0x7000);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 0);
    CHECK_EQ(guest_stack_walk_own(USER_STACK + 0x100, 8, reader(), out), 2);
    CHECK_EQ(out[0], USER_STACK - 0x8000);
    CHECK_EQ(out[1], USER_STACK - 0x7000);
}

TEST(unreadable_frames_end_the_walk_without_faulting)
{
    uint64_t out[32];
    sim_reset();
    /* the last readable frame links to the page after the simulated stack */
    uint64_t last = USER_STACK + 2 * PAGE - 16;
    put_frame(last, USER_STACK + 2 * PAGE + 0x100, USER_TEXT + 0x40);
    CHECK_EQ(guest_stack_walk(last, false, 8, reader(), out), 1);
    /* a frame straddling the end of readable memory */
    CHECK_EQ(guest_stack_walk(USER_STACK + 2 * PAGE - 8, false, 8, reader(), out), 0);
    CHECK_EQ(guest_stack_walk(USER_STACK + 8 * PAGE, false, 8, reader(), out), 0);
}

TEST(walks_stay_in_their_half_of_the_address_space)
{
    uint64_t out[32];
    sim_reset();
    put_frame(KERNEL_STACK + 0x40, KERNEL_STACK + 0x80, KERNEL_TEXT + 0x100);
    put_frame(KERNEL_STACK + 0x80, 0, KERNEL_TEXT + 0x200);
    CHECK_EQ(guest_stack_walk(KERNEL_STACK + 0x40, true, 8, reader(), out), 2);
    CHECK_EQ(out[1], KERNEL_TEXT + 0x200);
    /* a user-mode sample never reads kernel memory, and the reverse */
    CHECK_EQ(guest_stack_walk(KERNEL_STACK + 0x40, false, 8, reader(), out), 0);
    user_chain(2);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, true, 8, reader(), out), 0);
    /* a user frame whose return address points into the kernel stops there */
    put_frame(USER_STACK + 0x100, USER_STACK + 0x140, KERNEL_TEXT);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 0);
    /* a zero return address ends the chain */
    put_frame(USER_STACK + 0x100, USER_STACK + 0x140, 0);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, reader(), out), 0);
}

TEST(canonical_halves)
{
    CHECK(guest_stack_addr_in_mode(0x00007fffffffffffull, false));
    CHECK(!guest_stack_addr_in_mode(0x0000800000000000ull, false));
    CHECK(!guest_stack_addr_in_mode(0x0000800000000000ull, true));
    CHECK(guest_stack_addr_in_mode(0xffff800000000000ull, true));
    CHECK(!guest_stack_addr_in_mode(0xfff0800000000000ull, true));
    CHECK(!guest_stack_addr_in_mode(0xffff800000000000ull, false));
}

/* The reader under the walks (vmm/guest/guest_reader.h): one page request per
 * page while reads stay in it, reads across two pages copied whole, and
 * nothing from an unreadable page or across the top of the address space. */
TEST(the_reader_asks_for_each_page_once_and_checks_both_halves_of_a_split_read)
{
    sim_reset();
    put_frame(USER_STACK + PAGE - 8, 0x1111, 0x2222);       /* across the two user pages */
    struct guest_reader *rd = reader();
    const uint8_t *p = guest_reader_at(rd, USER_STACK + 0x10, 16);
    CHECK(p == mem.bytes[0] + 0x10);
    CHECK(guest_reader_at(rd, USER_STACK + PAGE - 16, 16) == mem.bytes[0] + PAGE - 16);
    CHECK_EQ(mem.reads, 1u);
    p = guest_reader_at(rd, USER_STACK + PAGE - 8, 16);
    uint64_t w[2];
    CHECK(p != NULL);
    memcpy(w, p, 16);
    CHECK_EQ(w[0], 0x1111u);
    CHECK_EQ(w[1], 0x2222u);
    CHECK_EQ(mem.reads, 2u);
    /* the second page of a split read unreadable: refused */
    CHECK(guest_reader_at(rd, USER_STACK + 2 * PAGE - 8, 16) == NULL);
    CHECK(guest_reader_at(rd, USER_STACK - 8, 16) == NULL);
    CHECK(guest_reader_at(rd, 0xfffffffffffffff8ull, 16) == NULL);
    CHECK(guest_reader_at(rd, USER_STACK, GUEST_READER_MAX + 1) == NULL);
    /* an empty reader never reads through its NULL window */
    CHECK(guest_reader_at(reader(), 8, 8) == NULL);
}

/* The page a sample's walk opens first: RSP's for a kernel walk, RBP's for
 * a user walk whose chain is followed, none for one whose chain is not. */
TEST(first_page_of_a_sample)
{
    uint64_t page = 0;
    struct guest_unwind_regs k = { .ip = 0xffffffff81000000ull, .sp = 0xffffc90000013f28ull,
                                   .bp = 0xffffc90000015ff0ull };
    CHECK(guest_stack_first_page(&k, true, &page));
    CHECK_EQ(page, 0xffffc90000013000ull);
    struct guest_unwind_regs u = { .ip = 0x401000, .sp = 0x7ffc0000a010ull, .bp = 0x7ffc0000b020ull };
    page = 0;
    CHECK(guest_stack_first_page(&u, false, &page));
    CHECK_EQ(page, 0x7ffc0000b000ull);
    struct guest_unwind_regs below = u;
    below.bp = u.sp - 8;                       /* RBP below RSP: not a frame pointer */
    page = 0;
    CHECK(!guest_stack_first_page(&below, false, &page));
    CHECK_EQ(page, 0);
    struct guest_unwind_regs far = u;
    far.bp = u.sp + GUEST_STACK_FRAME_MAX;     /* too far above RSP */
    CHECK(!guest_stack_first_page(&far, false, &page));
}
