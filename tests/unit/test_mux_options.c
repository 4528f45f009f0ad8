/* Unit tests of the multiplexing session's options (pmu/mux/mux_options.c):
 * the numbers and the exact flag read, and the reason for each refusal,
 * in the order the command line's session checks them. */
#include "tests/unit/unit.h"

#include "pmu/mux/mux_options.h"

static char why[96];

TEST(lengths_and_exact_are_read)
{
    struct mux_options o;
    CHECK(mux_options_read("pmu.interval=1000000 pmu.subinterval=100000", &o, why, sizeof(why)));
    CHECK_EQ(o.interval, 1000000);
    CHECK_EQ(o.subinterval, 100000);
    CHECK(!o.exact);
    CHECK(mux_options_read("pmu.interval=5000 pmu.interval.exact=on", &o, why, sizeof(why)));
    CHECK_EQ(o.interval, 5000);
    CHECK_EQ(o.subinterval, 0);                 /* absent: 0, the schedule's default */
    CHECK(o.exact);
    CHECK(mux_options_read("pmu.interval=5000 pmu.interval.exact=off", &o, why, sizeof(why)));
    CHECK(!o.exact);
}

TEST(refusals_say_why_in_order)
{
    struct mux_options o;
    CHECK(!mux_options_read("pmu.interval=lots pmu.subinterval=x", &o, why, sizeof(why)));
    CHECK_STR(why, "pmu.interval=lots is not a number of retired instructions");
    CHECK(!mux_options_read("pmu.interval=100 pmu.subinterval=x", &o, why, sizeof(why)));
    CHECK_STR(why, "pmu.subinterval=x is not a number of retired instructions");
    CHECK(!mux_options_read("pmu.interval=100 pmu.interval.exact=yes", &o, why, sizeof(why)));
    CHECK_STR(why, "pmu.interval.exact=yes is not on or off");
    CHECK(!mux_options_read("pmu.interval=100 pmu.interval.exact", &o, why, sizeof(why)));
    CHECK_STR(why, "pmu.interval.exact= is not on or off");
    CHECK(!mux_options_read("pmu.subinterval=100", &o, why, sizeof(why)));
    CHECK_STR(why, "pmu.subinterval= needs pmu.interval=");
    CHECK(!mux_options_read("pmu.interval.exact=on", &o, why, sizeof(why)));
    CHECK_STR(why, "pmu.subinterval= needs pmu.interval=");
}
