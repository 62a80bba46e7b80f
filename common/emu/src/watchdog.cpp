// watchdog.cpp - when a launch that runs long is stopped. A GPU has no such
// rule of its own (only a GPU that drives a display has a watchdog), but an
// emulated kernel that never ends would hang a learner's program and its
// tests, so the emulator stops one that is stuck, and says what it saw.
//
// Progress is anything the emulator sees a kernel do: a CUDA thread
// finishing, a __syncthreads releasing its block, a warp function
// completing. A kernel that makes progress is never stopped, however long it
// runs. Without progress, the watchdog looks at the registers of the running
// CUDA threads (a signal samples them once per look): a thread spinning on a
// flag nobody sets goes round the same few register states, and is stopped
// once a whole CUEMU_WATCHDOG_SECONDS has shown no state it had not shown before; a thread computing in a long loop changes them, and
// is stopped only after busy_limit_factor times that, with a message that
// says it was still running (not that it hung) and how to raise the limit.
#include "watchdog.h"

#include <ucontext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "diagnostics.h"
#include "race_detector.h"

namespace cuemu::detail {

double seconds_setting(const char* name, double fallback) {
    const char* text = std::getenv(name);
    if (!text || !*text) return fallback;
    char* end = nullptr;
    double seconds = std::strtod(text, &end);
    if (*end != '\0' || !(seconds >= 0) || seconds > 1e6) {
        std::fprintf(stderr, "cuemu: %s must be a number of seconds from 0 (off) to 1000000, got '%s'\n",
                     name, text);
        std::exit(2);
    }
    return seconds;
}

double configured_watchdog_seconds() {
    return seconds_setting("CUEMU_WATCHDOG_SECONDS", default_watchdog_seconds);
}

namespace {
// FNV-1a over raw bytes: cheap, and enough to tell "changed" from "the same".
std::uint64_t mix_bytes(std::uint64_t h, const void* data, std::size_t n) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
}  // namespace

std::uint64_t register_fingerprint(const void* signal_context, const char* stack_top) {
    if (!signal_context) return 0;
    std::uint64_t h = 0xcbf29ce484222325ull;
#if defined(__linux__) && defined(__x86_64__)
    const auto* uc = static_cast<const ucontext_t*>(signal_context);
    const void* pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
    if (kernel_pc_of(pc) != pc) return fingerprint_in_access_hook;
    for (int r = REG_R8; r <= REG_RCX; ++r)  // r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx
        h = mix_bytes(h, &uc->uc_mcontext.gregs[r], sizeof(greg_t));
    const greg_t depth = uc->uc_mcontext.gregs[REG_RSP] - reinterpret_cast<greg_t>(stack_top);
    h = mix_bytes(h, &depth, sizeof depth);
    if (uc->uc_mcontext.fpregs)
        h = mix_bytes(h, uc->uc_mcontext.fpregs->_xmm, sizeof uc->uc_mcontext.fpregs->_xmm);
#elif defined(__linux__) && defined(__aarch64__)
    const auto* uc = static_cast<const ucontext_t*>(signal_context);
    h = mix_bytes(h, uc->uc_mcontext.regs, sizeof uc->uc_mcontext.regs);
    const auto depth = uc->uc_mcontext.sp - reinterpret_cast<std::uintptr_t>(stack_top);
    h = mix_bytes(h, &depth, sizeof depth);
#else
    return 0;
#endif
    return h ? h : 1;
}

watchdog_judge::watchdog_judge(double limit_seconds, clock::time_point start)
    : limit_(std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(limit_seconds))),
      last_progress_(start),
      last_change_(start) {}

watchdog_verdict watchdog_judge::look(clock::time_point now, std::uint64_t progress,
                                      const std::vector<worker_sample>& samples) {
    if (progress != progress_) {
        progress_ = progress;
        last_progress_ = last_change_ = now;
        seen_.clear();
    }
    seen_.resize(samples.size());
    // Every worker must have answered since the last look: one the machine
    // did not run tells nothing.
    bool all_answered = samples.size() == samples_.size();
    for (std::size_t i = 0; all_answered && i < samples.size(); ++i)
        all_answered = samples[i].answered != samples_[i].answered;
    // A register state not seen since the last progress is a change. Inside
    // an access hook the registers are the hook's, not the loop's: no news.
    bool new_state = false;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const std::uint64_t fingerprint = samples[i].fingerprint;
        if (fingerprint == fingerprint_in_access_hook) continue;
        std::vector<std::uint64_t>& seen = seen_[i];
        if (std::find(seen.begin(), seen.end(), fingerprint) != seen.end()) continue;
        new_state = true;
        if (seen.size() < max_spin_states) seen.push_back(fingerprint);
        // Once full, every further new state is a change: the thread computes.
    }
    if (!all_answered || new_state) last_change_ = now;
    samples_ = samples;
    if (now - last_change_ >= limit_) return watchdog_verdict::stuck;
    if (now - last_progress_ >= limit_ * busy_limit_factor) return watchdog_verdict::too_long;
    return watchdog_verdict::running;
}

double watchdog_judge::seconds_without_progress(clock::time_point now) const {
    return std::chrono::duration<double>(now - last_progress_).count();
}

}  // namespace cuemu::detail
