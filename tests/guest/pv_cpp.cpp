// pv_cpp: the guest counter library from C++, built with g++ against the
// installed SDK (pkg-config vertigo_counters), as a C++ program outside
// this repository would be: a RAII owner of a set, the events the library
// lists, and its own instructions:u counted exactly (spin(N) then
// spin(2N), each between two reads: the second difference less the first
// is 2N instructions). Prints "pv_cpp: PASS: ..." / "pv_cpp: FAIL: ..."
// lines; exits 1 if any check failed.
#include <vertigo_counters.h>

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

namespace {

int failures = 0;

void result(bool ok, const std::string &what, const std::string &detail = "")
{
    std::printf("pv_cpp: %s: %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(),
                detail.empty() ? "" : ": ", detail.c_str());
    failures += !ok;
}

void spin(std::uint64_t n)
{
    __asm__ volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n));
}

// A counter set owned by this thread for the object's life.
class Counters {
public:
    explicit Counters(const char *events) : err_(vertigo_counters_open(events, &set_)) {}
    ~Counters() { vertigo_counters_free(set_); }
    Counters(const Counters &) = delete;
    Counters &operator=(const Counters &) = delete;
    int error() const { return err_; }
    int start() { return vertigo_counters_start(set_); }
    std::uint64_t read(unsigned int i) const
    {
        std::uint64_t v = 0;
        return vertigo_counters_read(set_, i, &v) == 0 ? v : UINT64_MAX;
    }

private:
    struct vertigo_counters *set_ = nullptr;
    int err_;
};

template <typename Work>
std::uint64_t delta(const Counters &c, Work work)
{
    std::uint64_t before = c.read(0);
    work();
    return c.read(0) - before;
}

}  // namespace

int main()
{
    std::vector<std::string> events;
    for (unsigned int i = 0; const char *name = vertigo_counters_event(i); i++)
        events.emplace_back(name);
    std::string list;
    for (const auto &e : events)
        list += (list.empty() ? "" : ",") + e;
    result(!events.empty() && events[0] == "instructions", "the library lists its events", list);

    const std::uint64_t n = 100000;
    Counters c("instructions:u");
    result(c.error() == 0, "a C++ program opens instructions:u",
           c.error() ? vertigo_counters_strerror(c.error()) : "");
    if (c.error())
        return 1;
    result(c.start() == 0, "and starts it");
    std::uint64_t turns = n;                    // one lambda, the same code both times
    auto work = [&turns] { spin(turns); };
    std::uint64_t one = delta(c, work);
    turns = 2 * n;
    std::uint64_t two = delta(c, work);
    char detail[128];
    std::snprintf(detail, sizeof(detail), "%" PRIu64 " - %" PRIu64 " = %" PRIu64 " (want %" PRIu64 ")",
                  two, one, two - one, 2 * n);
    result(two - one == 2 * n, "it counts its own instructions:u exactly", detail);
    return failures ? 1 : 0;
}
