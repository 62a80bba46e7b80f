// watchdog.h - how the watchdog tells a kernel that is stuck from one that is
// working (watchdog.cpp). The worker pool (worker_pool.cpp) feeds it what it
// can see and stops the launch when it says so.
#ifndef CUEMU_WATCHDOG_H
#define CUEMU_WATCHDOG_H

#include <chrono>
#include <cstdint>
#include <vector>

namespace cuemu::detail {

// CUEMU_WATCHDOG_SECONDS (default_watchdog_seconds, diagnostics.h); 0 is off.
// A bad value stops the program with one line and exit code 2.
double configured_watchdog_seconds();
// A number of seconds from the environment variable `name`, from 0 (off) to
// 1000000; `fallback` when it is unset or empty. Any other value ends the
// program with one line naming the variable, and exit code 2.
double seconds_setting(const char* name, double fallback);

// A busy thread (its registers keep changing) that makes no other progress
// is stopped only after this many times the limit.
constexpr double busy_limit_factor = 6;

// A fingerprint of the interrupted thread's registers (general purpose and
// vector, not the instruction pointer or flags), from a signal handler's
// context. A thread spinning on a flag that never changes goes round the same
// few register states (a loop of two loads shows two: AddressSanitizer's
// shadow byte, then the flag), so its fingerprints repeat; a thread that
// computes keeps making new ones (a counter, an accumulator). Safe in a
// signal handler; 0 where unknown. The stack pointer counts relative to
// stack_top, the top of the CUDA thread's fiber stack: lanes of a warp that
// spin together, each on its own stack, then show the same states.
std::uint64_t register_fingerprint(const void* signal_context, const char* stack_top);
// What register_fingerprint gives when the thread was inside one of the race
// check's access hooks (tsan_hooks.cpp): a spin loop that reads memory calls
// one on every turn, and its registers there are not the loop's. Such a look
// counts as "unchanged".
constexpr std::uint64_t fingerprint_in_access_hook = 2;

enum class watchdog_verdict {
    running,   // keep going
    stuck,     // no progress and the same registers for the limit: a spin-wait
    too_long,  // registers change, nothing else does, for busy_limit_factor x the limit
};

// What a worker's signal handler left at the watchdog's last look: the
// fingerprint of the CUDA thread it interrupted (0 when none ran), and how
// many looks it has answered.
struct worker_sample {
    std::uint64_t fingerprint = 0;
    std::uint64_t answered = 0;
};

// Decides, at each look, from what the launch has done since the last one:
// progress (CUDA threads finished, barriers passed, warp functions completed)
// and each worker's latest sample. A worker that has not answered since the
// last look (the machine is busy and it did not run) tells nothing, so the
// launch is not taken for stuck then.
class watchdog_judge {
public:
    using clock = std::chrono::steady_clock;
    watchdog_judge(double limit_seconds, clock::time_point start);
    watchdog_verdict look(clock::time_point now, std::uint64_t progress,
                          const std::vector<worker_sample>& samples);
    // How long the launch has gone without progress, when it is stopped.
    double seconds_without_progress(clock::time_point now) const;

    // The distinct fingerprints a worker may show before its thread counts as
    // computing: far more states than any spin loop goes round.
    static constexpr std::size_t max_spin_states = 32;

private:
    clock::duration limit_;
    std::uint64_t progress_ = 0;
    std::vector<worker_sample> samples_;
    // Per worker, the fingerprints seen since the launch last made progress:
    // a look that shows one of them is "unchanged".
    std::vector<std::vector<std::uint64_t>> seen_;
    clock::time_point last_progress_, last_change_;
};

}  // namespace cuemu::detail

#endif
