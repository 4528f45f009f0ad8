/* Unit tests for the guest frame-pointer walker (vmm/guest_stack.c) on a
 * simulated guest memory: a few readable pages at chosen guest-virtual
 * addresses, everything else unreadable. */
#include "tests/unit/unit.h"
#include "vmm/guest_stack.h"

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

static bool sim_read(void *ctx, uint64_t gva, void *buf, size_t len)
{
    struct sim_mem *m = ctx;
    m->reads++;
    for (unsigned int r = 0; r < 2; r++) {
        if (gva >= m->base[r] && gva - m->base[r] <= sizeof(m->bytes[r]) - len) {
            memcpy(buf, m->bytes[r] + (gva - m->base[r]), len);
            return true;
        }
    }
    return false;
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
    unsigned int n = guest_stack_walk(USER_STACK + 0x100, false, 8, sim_read, &mem, out);
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
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 2, sim_read, &mem, out), 2);
    CHECK_EQ(out[1], USER_TEXT + 0x20);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 0, sim_read, &mem, out), 0);
}

TEST(loops_and_downward_links_stop_the_walk)
{
    uint64_t out[32];
    sim_reset();
    put_frame(USER_STACK + 0x100, USER_STACK + 0x100, USER_TEXT);      /* points at itself */
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, sim_read, &mem, out), 1);
    put_frame(USER_STACK + 0x200, USER_STACK + 0x180, USER_TEXT);      /* goes down */
    put_frame(USER_STACK + 0x180, USER_STACK + 0x200, USER_TEXT + 1);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x200, false, 8, sim_read, &mem, out), 1);
    CHECK_EQ(mem.reads < 8, true);
}

TEST(bad_frame_pointers_are_not_followed)
{
    uint64_t out[32];
    sim_reset();
    put_frame(USER_STACK + 0x100, USER_STACK + 0x143, USER_TEXT);      /* misaligned next */
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, sim_read, &mem, out), 1);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x104, false, 8, sim_read, &mem, out), 0);
    CHECK_EQ(guest_stack_walk(0x0000900000000000ull, false, 8, sim_read, &mem, out), 0);
    CHECK_EQ(guest_stack_walk(0, false, 8, sim_read, &mem, out), 0);
    /* a jump of more than GUEST_STACK_FRAME_MAX is not a caller's frame */
    put_frame(USER_STACK + 0x100, USER_STACK + 0x100 + GUEST_STACK_FRAME_MAX + 8, USER_TEXT);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, sim_read, &mem, out), 1);
}

TEST(unreadable_frames_end_the_walk_without_faulting)
{
    uint64_t out[32];
    sim_reset();
    /* the last readable frame links to the page after the simulated stack */
    uint64_t last = USER_STACK + 2 * PAGE - 16;
    put_frame(last, USER_STACK + 2 * PAGE + 0x100, USER_TEXT + 0x40);
    CHECK_EQ(guest_stack_walk(last, false, 8, sim_read, &mem, out), 1);
    /* a frame straddling the end of readable memory */
    CHECK_EQ(guest_stack_walk(USER_STACK + 2 * PAGE - 8, false, 8, sim_read, &mem, out), 0);
    CHECK_EQ(guest_stack_walk(USER_STACK + 8 * PAGE, false, 8, sim_read, &mem, out), 0);
}

TEST(walks_stay_in_their_half_of_the_address_space)
{
    uint64_t out[32];
    sim_reset();
    put_frame(KERNEL_STACK + 0x40, KERNEL_STACK + 0x80, KERNEL_TEXT + 0x100);
    put_frame(KERNEL_STACK + 0x80, 0, KERNEL_TEXT + 0x200);
    CHECK_EQ(guest_stack_walk(KERNEL_STACK + 0x40, true, 8, sim_read, &mem, out), 2);
    CHECK_EQ(out[1], KERNEL_TEXT + 0x200);
    /* a user-mode sample never reads kernel memory, and the reverse */
    CHECK_EQ(guest_stack_walk(KERNEL_STACK + 0x40, false, 8, sim_read, &mem, out), 0);
    user_chain(2);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, true, 8, sim_read, &mem, out), 0);
    /* a user frame whose return address points into the kernel stops there */
    put_frame(USER_STACK + 0x100, USER_STACK + 0x140, KERNEL_TEXT);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, sim_read, &mem, out), 0);
    /* a zero return address ends the chain */
    put_frame(USER_STACK + 0x100, USER_STACK + 0x140, 0);
    CHECK_EQ(guest_stack_walk(USER_STACK + 0x100, false, 8, sim_read, &mem, out), 0);
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
