// brief_spin.h - waiting a few microseconds by watching a counter before
// sleeping on a condition variable (queue.cpp). A launch and its synchronize
// pass work between the host's thread and a device engine's thread twice;
// when each side sleeps on a futex, each pass is a wake-up of a sleeping
// thread, tens of microseconds on a virtual machine, far more than an empty
// kernel takes. A thread that has just finished (or just issued) work watches
// for the other side's answer for a short while first, as CUDA's own runtime
// spins before it yields or blocks (cudaDeviceScheduleAuto). CUEMU_SPIN_US
// sets how long (0 turns spinning off).
#ifndef CUEMU_BRIEF_SPIN_H
#define CUEMU_BRIEF_SPIN_H

#include <atomic>
#include <cstdint>

namespace cuemu::detail {

// CUEMU_SPIN_US, read once (a bad value ends the program with one line).
double spin_microseconds();

// Returns true as soon as `counter` differs from `seen`, false when the
// spin time has passed without a change (or spinning is off).
bool spin_until_changed(const std::atomic<std::uint64_t>& counter, std::uint64_t seen);

// The same from the counter's value now, with `lock` (a std::unique_lock,
// held) let go while spinning and taken again after: whether the counter moved.
template <class Lock>
bool spin_unlocked(Lock& lock, const std::atomic<std::uint64_t>& counter) {
    const std::uint64_t seen = counter.load(std::memory_order_acquire);
    lock.unlock();
    const bool changed = spin_until_changed(counter, seen);
    lock.lock();
    return changed;
}

}  // namespace cuemu::detail

#endif
