// undefined_shuffle.cpp - the note for a warp shuffle that reads a lane which
// does not take part in it: a lane outside the call's mask, a lane that has
// returned from the kernel, or a lane the block's last warp does not have.
// PTX leaves that value undefined; the emulator gives all one bits
// (warp_group.h, split_block.h), which a sum only shifts a little: NVIDIA's
// reduction sample (its final warp shuffles down from lane 16 with a mask of
// 8 lanes) printed "Test failed!" with nothing to say why. So the first such
// read of a program is named, with its kernel, thread, call and line.
#include <cstdint>
#include <cstdio>
#include <mutex>

#include "block_state.h"
#include "warp_group.h"

namespace cuemu::detail {
namespace {

const char* shuffle_name(int op) {
    switch (op) {
        case warp_shfl_idx: return "__shfl_sync";
        case warp_shfl_up: return "__shfl_up_sync";
        case warp_shfl_down: return "__shfl_down_sync";
        default: return "__shfl_xor_sync";
    }
}

void print_note(const char* kernel, uint3 block, uint3 thread, unsigned lane, int op, const char* file, int line,
                unsigned source, const char* why) {
    std::fprintf(stderr,
                 "cuemu: note: a warp shuffle read a lane that does not take part in it\n"
                 "  in kernel %s, block (%u,%u,%u), thread (%u,%u,%u) (lane %u of its warp):\n"
                 "    %s at %s:%d read lane %u,\n"
                 "    %s.\n"
                 "  On a GPU such a read gives an undefined value: harmless if this lane's result is\n"
                 "  never used, a bug if it is (it may look right on one GPU and not on another).\n"
                 "  The emulator gives all one bits (-1 as an int, NaN as a float) and goes on; this\n"
                 "  note is shown once.\n"
                 "  hint: read only lanes that take part: with the first N lanes (N a power of two)\n"
                 "        in the mask, pass N as the width (a source past them is then the lane's\n"
                 "        own value), or call it with the whole warp (0xffffffff) and let the extra\n"
                 "        lanes pass 0.\n",
                 kernel, block.x, block.y, block.z, thread.x, thread.y, thread.z, lane, shuffle_name(op), file,
                 line, source, why);
    std::fflush(stderr);
}

const char* running_kernel() {
    const fiber_slot* s = tls_slot;
    return s && s->block && s->block->job ? s->block->job->site->kernel : "?";
}

std::once_flag noted;

}  // namespace

void note_undefined_shuffle(const warp_state& w, unsigned lane, unsigned source) {
    std::call_once(noted, [&] {
        const warp_request& r = w.request[lane];
        const fiber_slot* reader = w.lane[lane];
        const unsigned threads = tls_thread_cursor.count;
        const unsigned source_linear = (reader->linear & ~31u) + source;
        char why[160];
        if (!(r.mask >> source & 1u))
            std::snprintf(why, sizeof why, "which is not in the call's mask (0x%08x)", r.mask);
        else if (source_linear >= threads)
            std::snprintf(why, sizeof why, "which this warp does not have (the block has %u threads)", threads);
        else
            std::snprintf(why, sizeof why, "which has already returned from the kernel");
        print_note(running_kernel(), ::cuemu::tls_block_idx, reader->thread_idx, lane, r.op, r.file, r.line,
                   source, why);
    });
}

void note_undefined_shuffle_in_split(int op, unsigned linear, dim3 dim, unsigned source, const char* file,
                                     int line) {
    std::call_once(noted, [&] {
        print_note(running_kernel(), ::cuemu::tls_block_idx, unflatten(linear, dim), linear & 31u, op, file, line, source,
                   "which has already returned from the kernel");
    });
}

}  // namespace cuemu::detail
