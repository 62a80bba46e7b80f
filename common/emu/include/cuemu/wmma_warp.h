// cuemu/wmma_warp.h - what makes the wmma functions warp-wide on the emulator:
// the meeting of a warp's 32 lanes at each load_matrix_sync, store_matrix_sync
// and mma_sync (built on the warp functions of builtins.h), the per-warp
// board through which one lane of an mma_sync reaches every lane's fragments,
// and the reports of a warp that does not call them together.
#ifndef CUEMU_WMMA_WARP_H
#define CUEMU_WMMA_WARP_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "builtins.h"

// What the race check (CUEMU_CHECK=race) must not be told of: the warp's
// scratch area, fragments and this header's own thread-locals are not device
// memory. (The check takes a program's thread-locals for __shared__
// variables, and a guard variable of a function's static is one of them.)
// Helpers of such a function carry it too, or they are not inlined into it.
#define CUEMU_WMMA_UNWATCHED __attribute__((no_sanitize("thread")))

namespace cuemu {
namespace wmma_detail {

constexpr unsigned whole_warp = 0xffffffffu;

// The caller's place in its block: thread index within the block, x fastest
// (from the emulator's thread-locals, which the race check is not told of).
CUEMU_WMMA_UNWATCHED __attribute__((always_inline)) inline unsigned linear_thread_index() {
    const uint3 t = ::cuemu::tls_thread_idx;
    const dim3 b = ::cuemu::tls_block_dim;
    return t.x + b.x * (t.y + b.y * t.z);
}
CUEMU_WMMA_UNWATCHED __attribute__((always_inline)) inline unsigned lane_index() { return linear_thread_index() & 31u; }
CUEMU_WMMA_UNWATCHED __attribute__((always_inline)) inline unsigned warp_index() { return linear_thread_index() >> 5; }

// Per warp, what the lanes of one mma_sync leave for the lane that computes
// the whole warp's product: where each lane's A and B fragments, its share of
// C and the place for its share of D are, and the number of products this
// warp has computed. A block runs on one OS thread from start to end, so one
// board per OS thread, indexed by the warp, is the block's own.
struct mma_board {
    std::uint64_t products;  // how many mma_sync this warp's board has served
    const void* a[32];
    const void* b[32];
    const void* c[32];
    void* d[32];
};
CUEMU_WMMA_UNWATCHED inline mma_board& warp_board(unsigned warp) {
    static thread_local mma_board boards[32];
    return boards[warp];
}

// The report's text lives past the call: the scheduler reads it after the
// lane's fiber has stopped.
CUEMU_WMMA_UNWATCHED inline std::string& report_text() {
    static thread_local std::string text;
    return text;
}

// A hash of what the lanes must agree on (the function, the fragment's type,
// pointer, ldm, layout); lanes that passed different ones do not match.
inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

// Waits until every lane of the warp has called `function` here with the same
// `agreement`; stops the launch with a report if the warp is not whole, or if
// some lane exited, waits in another warp function or passed other arguments.
inline void meet_whole_warp(const char* function, std::uint64_t agreement, const char* file, int line) {
    const std::uint64_t same = ::cuemu::warp_collective(::cuemu::warp_match_any, whole_warp,
                                                        agreement | 1u, 0, 32, file, line);
    // All 32 lanes agreeing means the warp is whole: the common case asks no more.
    if (static_cast<unsigned>(same) == whole_warp) return;
    if (::cuemu::warp_active_mask() != whole_warp) {
        report_text() = std::string("  nvcuda::wmma::") + function +
                        " is done by a whole warp of 32 threads; this warp has only " +
                        std::to_string(__builtin_popcount(::cuemu::warp_active_mask())) +
                        " (the block's thread count is not a multiple of 32)";
        ::cuemu::kernel_cannot_go_on("a wmma function called by a partial warp", report_text().c_str(),
                                     "give the block a multiple of 32 threads, and let whole warps\n"
                                     "        call the wmma functions",
                                     "the result is undefined", file, line);
    }
    const unsigned agreeing = static_cast<unsigned>(same);
    char lanes[16];
    std::snprintf(lanes, sizeof lanes, "0x%08x", agreeing);
    report_text() = std::string("  nvcuda::wmma::") + function +
                    " is warp-wide: all 32 lanes must call it together, with the same\n"
                    "  arguments (pointer, ldm, layout, fragment types), but only lanes " + lanes + " of warp " +
                    std::to_string(warp_index()) + "\n  did so here; the others exited, wait in another warp "
                    "function, or passed other arguments";
    ::cuemu::kernel_cannot_go_on("a wmma function not called by the whole warp together",
                                 report_text().c_str(),
                                 "call load_matrix_sync, store_matrix_sync and mma_sync from every lane\n"
                                 "        of the warp, outside branches that split the warp, with arguments\n"
                                 "        that are the same in every lane",
                                 "the result is undefined: the warp may hang or compute garbage", file, line);
}

// load_matrix_sync and store_matrix_sync need an ldm that is a multiple of 16
// bytes (CUDA C++ Programming Guide). They also need a 256-bit aligned pointer,
// which is not checked: the emulator's cudaMalloc buffers end at a guard page,
// so a buffer whose size is not a multiple of 32 bytes starts less aligned
// than a GPU's would, and a correct program must not be stopped for it.
[[gnu::cold, gnu::noinline]] inline void refuse_ldm(const char* function, unsigned ldm, unsigned element_bytes,
                                                    const char* file, int line) {
    report_text() = std::string("  nvcuda::wmma::") + function + " was given ldm " + std::to_string(ldm) +
                    ": the stride between rows (row major) or columns (column major) must be\n"
                    "  a nonzero multiple of 16 bytes, " + std::to_string(16 / element_bytes) +
                    " elements of this type";
    ::cuemu::kernel_cannot_go_on("a wmma load or store with an ldm that is not a multiple of 16 bytes",
                                 report_text().c_str(),
                                 "pad the matrix's leading dimension to a multiple of 16 chars, 8 halves,\n"
                                 "        4 floats or ints, or 2 doubles",
                                 "the result is undefined", file, line);
}
inline void check_ldm(const char* function, unsigned ldm, unsigned element_bytes, const char* file, int line) {
    if (__builtin_expect(ldm * element_bytes % 16 != 0 || ldm == 0, 0))
        refuse_ldm(function, ldm, element_bytes, file, line);
}

}  // namespace wmma_detail
}  // namespace cuemu

#endif
