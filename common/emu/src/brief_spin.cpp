// brief_spin.cpp - the short watch before a sleep (brief_spin.h).
#include "brief_spin.h"

#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace cuemu::detail {

double spin_microseconds() {
    static const double us = [] {
        const char* text = std::getenv("CUEMU_SPIN_US");
        if (!text || !*text) return 50.0;
        char* end = nullptr;
        const double v = std::strtod(text, &end);
        if (*end != '\0' || !(v >= 0) || v > 1e6) {
            std::fprintf(stderr,
                         "cuemu: CUEMU_SPIN_US must be a number of microseconds from 0 to "
                         "1000000, got '%s'\n",
                         text);
            std::exit(2);
        }
        return v;
    }();
    return us;
}

bool spin_until_changed(const std::atomic<std::uint64_t>& counter, std::uint64_t seen) {
    const double budget = spin_microseconds();
    if (budget <= 0) return false;
    using clock = std::chrono::steady_clock;
    const auto until = clock::now() + std::chrono::duration_cast<clock::duration>(
                                          std::chrono::duration<double, std::micro>(budget));
    for (unsigned i = 1;; ++i) {
        if (counter.load(std::memory_order_acquire) != seen) return true;
        // Let a thread that shares this CPU (the one we wait for, on a
        // machine with fewer CPUs than busy threads) run now and then.
        if (i % 64 == 0) {
            if (clock::now() >= until) return false;
            sched_yield();
        } else {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }
}

}  // namespace cuemu::detail
