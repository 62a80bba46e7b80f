// volatile_global.cpp - volatile accesses outside the block's shared memory
// (global, managed, mapped host memory, __device__ variables), which legacy
// warp-synchronous code uses as it uses volatile shared memory: the classic
// "unrolled last warp" reduction done in place on the input in global memory.
//
// Such an access is a lockstep point, like a volatile shared access
// (race_detector.cpp): the lanes of a warp take it together, as the GPUs this
// code was written for did, so the program gets their answer. A volatile
// variable on the CUDA thread's own stack is private to the thread and is not.
//
// Under the race check, two lanes of one warp meeting on such a word (one of
// them writing) with no warp function and no __syncthreads() between them is
// the code relying on implicit warp synchrony: a note says so, once, and the
// program goes on (the race check covers shared memory only; the lockstep
// gives the answer the code was written for). The same note serves volatile
// shared memory under the default race check (race_detector.cpp).
// Non-volatile accesses never come here.
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

#include "block_state.h"
#include "diagnostics.h"
#include "race_detector.h"

namespace cuemu::detail {
namespace {

struct volatile_record {
    std::uint32_t epoch = 0;
    std::uint32_t warp_sync = 0;
    std::uint16_t thread = 0;
    bool is_write = false;
    const void* pc = nullptr;
};

struct word_history {
    bool has_write = false, has_read = false;
    volatile_record write, read;
};

// One worker's volatile words of the block it runs (keyed by address / 4).
struct worker_history {
    std::uint32_t generation = 0;
    std::unordered_map<std::uintptr_t, word_history> words;
};

__thread worker_history* tls_history = nullptr;

bool on_own_stack(std::uintptr_t address) {
    const fiber_slot* s = tls_slot;
    return s && address >= reinterpret_cast<std::uintptr_t>(s->stack_low) &&
           address < reinterpret_cast<std::uintptr_t>(s->stack_high);
}

std::string line_of(const void* pc) {
    // pc is the return address of the hook's call: the call itself is before it.
    std::string text = source_line_of(static_cast<const char*>(pc) - 1);
    if (text.empty()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "address %p (no line information)", pc);
        return buf;
    }
    return text.substr(0, text.find(" in "));  // file:line (see report_race)
}

}  // namespace

void note_warp_synchronous(const char* space, unsigned thread_a, bool a_writes, const void* pc_a,
                           unsigned thread_b, bool b_writes, const void* pc_b, std::uintptr_t address) {
    static std::once_flag once;
    std::call_once(once, [&] {
        const fiber_slot* s = tls_slot;
        const char* kernel = s && s->block && s->block->job ? s->block->job->site->kernel : "?";
        const uint3 b = ::cuemu::tls_block_idx;
        const bool shared = std::string(space) == "shared";
        std::fprintf(stderr,
                     "cuemu: note (race check): warp-synchronous code on volatile %s memory\n"
                     "  in kernel %s, block (%u,%u,%u), warp %u, at address %p:\n"
                     "    %s by lane %u at %s\n"
                     "    %s by lane %u at %s\n"
                     "  with no __syncwarp() or other warp function between them.\n"
                     "  It counts on the lanes of a warp running in lockstep: GPUs since Volta (compute\n"
                     "  capability 7.0) schedule lanes independently, and volatile orders nothing.\n"
                     "  The emulator runs volatile accesses in lockstep, as the GPUs this code was\n"
                     "  written for did, and goes on; %s.\n"
                     "  hint: read into a register, __syncwarp(), then write, and __syncwarp() again:\n"
                     "        v += p[tid + 16]; __syncwarp(); p[tid] = v; __syncwarp();\n",
                     space, kernel, b.x, b.y, b.z, thread_b / 32, reinterpret_cast<void*>(address),
                     a_writes ? "write" : "read ", thread_a % 32, line_of(pc_a).c_str(),
                     b_writes ? "write" : "read ", thread_b % 32, line_of(pc_b).c_str(),
                     shared ? "CUEMU_CHECK=race stops the kernel here, reporting it as a race"
                            : "the race check itself covers shared memory only");
    });
}

namespace {

// Same barrier interval, same warp, another lane, and no warp function since.
bool unordered_in_warp(const volatile_record& earlier, const volatile_record& now) {
    return earlier.epoch == now.epoch && earlier.thread != now.thread &&
           earlier.thread / 32 == now.thread / 32 && earlier.warp_sync == now.warp_sync;
}

void remember(const volatile_race_clock& clock, std::uintptr_t address, bool is_write, const void* pc) {
    if (!tls_history) tls_history = new worker_history;  // lives as long as its worker
    worker_history& h = *tls_history;
    if (h.generation != clock.generation) {
        h.words.clear();
        h.generation = clock.generation;
    }
    volatile_record now{clock.epoch, clock.warp_sync, clock.thread, is_write, pc};
    word_history& word = h.words[address / 4];
    auto note = [&](const volatile_record& earlier) {
        note_warp_synchronous("global", earlier.thread, earlier.is_write, earlier.pc, now.thread, now.is_write,
                              now.pc, address);
    };
    if (word.has_write && unordered_in_warp(word.write, now)) note(word.write);
    if (is_write && word.has_read && unordered_in_warp(word.read, now)) note(word.read);
    if (is_write) {
        word.write = now;
        word.has_write = true;
        word.has_read = false;
    } else {
        word.read = now;
        word.has_read = true;
    }
}

}  // namespace

__attribute__((section("cuemu_access_hooks"))) void volatile_access_outside_shared(
    const void* addr, bool is_write, const void* pc, const volatile_race_clock* clock) {
    const auto address = reinterpret_cast<std::uintptr_t>(addr);
    if (on_own_stack(address)) return;
    warp_lockstep_point();
    if (clock) remember(*clock, address, is_write, pc);
}

}  // namespace cuemu::detail
