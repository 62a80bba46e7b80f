// stuck_block_report.cpp - the reports of a block that cannot go on: threads
// that skip a __syncthreads (they exited, or wait at another one) or a call
// of a multi-warp tile (thread_block_tile<64> and up), warp lanes
// waiting for lanes held at a block barrier (block_loop.cpp's barrier_is_sound
// finds them), and a CUDA thread that stops its launch itself
// (stop_kernel_with, kernel_cannot_go_on: a device-side assert, a misaligned
// access, a race, grid.sync() without a cooperative launch). Each names the
// block and threads, says what to fix and what a GPU would do, and fails the
// launch.
#include <setjmp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "block_state.h"
#include "cuemu/split_block.h"
#include "diagnostics.h"
#include "internal.h"
#include "launch_job.h"

namespace cuemu::detail {

// "(3,0,0)": a thread index as CUDA writes it.
std::string xyz(uint3 v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

// Reports a synchronization bug in the current block (one report per launch)
// and fails the launch with cudaErrorLaunchFailure.
void report_block_problem(worker_state& w, launch_job& job, const std::string& headline,
                          const std::string& body, const char* hint, const char* on_a_gpu,
                          cudaError_t error) {
    {
        std::lock_guard<std::mutex> lock(job.report_mutex);
        std::string text = "  block " + xyz(tls_block_idx) + " of grid " + xyz(job.config->grid) +
                           ", block size " + xyz(job.config->block) + "\n" + body;
        const launch_site* site = job.site;
        keep_report(job, /*stops=*/true, [site, headline, text, hint, on_a_gpu, error] {
            return report_kernel_problem(*site, headline, text, hint, on_a_gpu, error);
        });
    }
    discard_all_fibers(w);
}

// The running CUDA thread, told why the launch must stop (for resume()'s
// report); outside a kernel there is nothing to stop, and the program ends.
fiber_slot* refusing_slot(cudaError_t error, const char* headline, const char* what,
                          const char* hint, const char* on_a_gpu, const char* file, int line) {
    fiber_slot* s = tls_slot;
    if (!s) {
        std::fflush(stdout);  // the program's own output before the report (abort drops it)
        std::fprintf(stderr, "cuemu: %s (%s:%d), outside a kernel\n", headline, file, line);
        std::abort();
    }
    note_current_thread_out_of_line(s);
    s->refusal_headline = headline;
    s->refusal_what = what;
    s->refusal_hint = hint;
    s->refusal_on_a_gpu = on_a_gpu;
    s->refusal_file = file;
    s->refusal_line = line;
    s->refusal_error = error;
    return s;
}

namespace {
// "40 threads: (0,0,0) to (39,0,0)" for a set of linear thread indices,
// as runs of consecutive indices, the first few only.
std::string describe_threads(std::vector<unsigned> linear, dim3 dim) {
    std::sort(linear.begin(), linear.end());
    std::string text = std::to_string(linear.size()) + (linear.size() == 1 ? " thread: " : " threads: ");
    std::size_t runs = 0, i = 0;
    while (i < linear.size()) {
        std::size_t j = i;
        while (j + 1 < linear.size() && linear[j + 1] == linear[j] + 1) ++j;
        if (runs == 4) {
            text += ", ...";
            break;
        }
        if (runs) text += ", ";
        text += xyz(unflatten(linear[i], dim));
        if (j > i) text += " to " + xyz(unflatten(linear[j], dim));
        ++runs;
        i = j + 1;
    }
    return text;
}

const char* const divergent_barrier_hint =
    "every thread of a block must reach the same __syncthreads() the same number of times:\n"
    "        do not return early before a barrier, and do not put a barrier inside an if or\n"
    "        a loop that only some threads of the block take (guard the work, not the barrier)";
const char* const divergent_barrier_on_gpu =
    "this is undefined behaviour: the kernel may hang, or go on with a barrier that did\n"
    "  not wait for every thread and read data that is not there yet";

}  // namespace

// A lane of `warp` waits in a warp function for lanes of its mask that wait
// at the __syncthreads, which waits for the lane: neither can go on.
void report_warp_waits_for_barrier(worker_state& w, block_state& block, unsigned warp) {
    launch_job& job = *block.job;
    std::vector<fiber_slot*>& waiting = w.at_barrier;
    const warp_state& ws = block.warps[warp];
    const unsigned first = static_cast<unsigned>(__builtin_ctz(ws.arrived));
    fiber_slot* lane = ws.lane[first];
    const warp_request& request = ws.request[first];
    std::uint32_t missing = request.mask & ~(ws.arrived | ws.gone);
    fiber_slot* held = nullptr;
    for (fiber_slot* b : waiting)
        if (b->linear >> 5 == warp && (missing >> (b->linear & 31) & 1u) &&
            (!held || b->linear < held->linear))
            held = b;
    std::string body = "  thread " + xyz(lane->thread_idx) + " (lane " +
                       std::to_string(lane->linear & 31) + " of warp " + std::to_string(warp) +
                       ") waits in a warp function at " + request.file + ":" +
                       std::to_string(request.line) + " for the lanes of its mask\n";
    if (held)
        body += "  but thread " + xyz(held->thread_idx) + " (lane " +
                std::to_string(held->linear & 31) + ") waits at the __syncthreads() at " +
                held->barrier_file + ":" + std::to_string(held->barrier_line) +
                ", which waits for every thread\n";
    report_block_problem(w, job, "deadlock between a warp function and __syncthreads()", body,
                         "the lanes named in a warp function's mask must all reach it; do not let\n"
                         "        some of them go on to a __syncthreads() first",
                         "the kernel hangs");
}

// Threads wait at a __syncthreads that others of the block have exited without reaching.
void report_barrier_after_exit(worker_state& w, block_state& block) {
    launch_job& job = *block.job;
    const dim3 dim = block.dim;
    std::vector<fiber_slot*>& waiting = w.at_barrier;
    fiber_slot* first = waiting.front();
    std::vector<unsigned> at, gone;
    std::vector<bool> is_waiting(block.cursor.count, false);
    for (fiber_slot* b : waiting) {
        at.push_back(b->linear);
        is_waiting[b->linear] = true;
        if (b->linear < first->linear) first = b;
    }
    for (unsigned t = 0; t < block.cursor.count; ++t)
        if (!is_waiting[t]) gone.push_back(t);
    std::string body = "  thread " + xyz(first->thread_idx) + " waits at the __syncthreads() at " +
                       first->barrier_file + ":" + std::to_string(first->barrier_line) +
                       ", but thread " + xyz(unflatten(gone.front(), dim)) +
                       " has exited without reaching it\n"
                       "  waiting there: " + describe_threads(at, dim) + "\n" +
                       "  exited:        " + describe_threads(gone, dim) + "\n";
    report_block_problem(w, job, "__syncthreads() not reached by every thread of the block", body,
                         divergent_barrier_hint, divergent_barrier_on_gpu);
}

// Threads first and b wait at different __syncthreads.
void report_different_barriers(worker_state& w, block_state& block, fiber_slot* first, fiber_slot* b) {
    launch_job& job = *block.job;
    const dim3 dim = block.dim;
    std::vector<fiber_slot*>& waiting = w.at_barrier;
    std::vector<unsigned> here, there;
    for (fiber_slot* c : waiting)
        (same_barrier(c, first) ? here : there).push_back(c->linear);
    std::string body = "  thread " + xyz(first->thread_idx) + " waits at the __syncthreads() at " +
                       first->barrier_file + ":" + std::to_string(first->barrier_line) +
                       ", thread " + xyz(b->thread_idx) + " at the one at " + b->barrier_file +
                       ":" + std::to_string(b->barrier_line) + "\n" +
                       "  at line " + std::to_string(first->barrier_line) + ": " + describe_threads(here, dim) + "\n" +
                       "  elsewhere:   " + describe_threads(there, dim) + "\n";
    report_block_problem(w, job, "threads of one block wait at different __syncthreads()", body,
                         divergent_barrier_hint, divergent_barrier_on_gpu);
}

// Threads wait in a call of a multi-warp tile (thread_block_tile<64> and up)
// that another thread of the tile has not reached: it has exited, or waits
// elsewhere (at a __syncthreads, in a warp function, in another tile's call),
// and no thread of the block can run.
// "thread_block_tile<64>::sync()", "cg::reduce() on a thread_block_tile<64>":
// the multi-warp tile call s waits in.
static std::string tile_call_name(const fiber_slot& s) {
    const std::string tile = "thread_block_tile<" + std::to_string(s.tile_size) + ">";
    const std::string call = s.tile_call;
    return call.rfind("cg::", 0) == 0 ? call + " on a " + tile : tile + "::" + call;
}

void report_tile_call_not_reached(worker_state& w, block_state& block) {
    launch_job& job = *block.job;
    const dim3 dim = block.dim;
    const tile_wait* tile = block.tiles;
    while (tile->waiting.empty()) ++tile;  // the caller knows one waits
    fiber_slot* first = tile->waiting.front();
    for (fiber_slot* b : tile->waiting)
        if (b->linear < first->linear) first = b;
    const unsigned size = first->tile_size, begin = first->linear & ~(size - 1);
    // The block's last tile may lack lanes of its last warp.
    const unsigned end = std::min(begin + size, block.cursor.count);
    std::vector<bool> is_waiting(size, false);
    std::vector<unsigned> at, exited, elsewhere;
    for (fiber_slot* b : tile->waiting) {
        at.push_back(b->linear);
        is_waiting[b->linear - begin] = true;
    }
    // Where each thread of the block that waits is (the ones not found have exited).
    std::vector<const fiber_slot*> where(block.cursor.count, nullptr);
    for (fiber_slot* b : w.at_barrier) where[b->linear] = b;
    for (const tile_wait& t : w.tiles)
        for (fiber_slot* b : t.waiting) where[b->linear] = b;
    for (unsigned warp = 0; warp * 32 < block.cursor.count; ++warp)
        for (std::uint32_t lanes = block.warps[warp].arrived; lanes; lanes &= lanes - 1)
            where[warp * 32 + static_cast<unsigned>(__builtin_ctz(lanes))] =
                block.warps[warp].lane[__builtin_ctz(lanes)];
    for (unsigned t = begin; t < end; ++t)
        if (!is_waiting[t - begin]) (where[t] ? elsewhere : exited).push_back(t);
    std::string body = "  thread " + xyz(first->thread_idx) + " waits in " + tile_call_name(*first) + " at " + first->barrier_file + ":" + std::to_string(first->barrier_line) +
                       " (its tile: threads " + xyz(unflatten(begin, dim)) + " to " +
                       xyz(unflatten(end - 1, dim)) + "), but thread ";
    if (!exited.empty()) {
        body += xyz(unflatten(exited.front(), dim)) + " has exited without reaching it\n";
    } else {
        const fiber_slot* other = where[elsewhere.front()];
        body += xyz(other->thread_idx);
        if (other->state == fiber_state::at_barrier) {
            body += " waits at the __syncthreads() at " + std::string(other->barrier_file) + ":" +
                    std::to_string(other->barrier_line) + "\n";
        } else if (other->state == fiber_state::at_tile) {
            body += " waits in " + tile_call_name(*other) + " at " + other->barrier_file + ":" + std::to_string(other->barrier_line) + "\n";
        } else {
            const warp_request& request = block.warps[other->linear >> 5].request[other->linear & 31];
            body += " waits in a warp function at " + std::string(request.file) + ":" +
                    std::to_string(request.line) + "\n";
        }
    }
    body += "  waiting there: " + describe_threads(at, dim) + "\n";
    if (!exited.empty()) body += "  exited:        " + describe_threads(exited, dim) + "\n";
    if (!elsewhere.empty()) body += "  elsewhere:     " + describe_threads(elsewhere, dim) + "\n";
    report_block_problem(w, job, tile_call_name(*first) + " not reached by every thread of the tile",
                         body,
                         "every thread of a tile must make the same calls on it (sync(), shfl(), any(),\n"
                         "        all(), cg::reduce) the same number of times: do not return early before\n"
                         "        one, and do not make one inside a branch only some threads of the tile take",
                         divergent_barrier_on_gpu);
}

// The same report from a kernel's split version (cuemu/split_block.h): the
// running threads (state 0) reach the __syncthreads() at file:line, others
// have exited (state 255) or wait to go on after a loop whose condition was
// false for them (any other state).
void split_barrier_not_reached(const unsigned char* state, unsigned count, dim3 dim, const char* file, int line) {
    std::vector<unsigned> at, gone, parked;
    for (unsigned t = 0; t < count; ++t)
        (state[t] == 0 ? at : state[t] == split_block::exited_state ? gone : parked).push_back(t);
    const bool exited = !gone.empty();
    const unsigned other = exited ? gone.front() : parked.front();
    const std::string what =
        "  thread " + xyz(unflatten(at.front(), dim)) + " waits at the __syncthreads() at " + file + ":" +
        std::to_string(line) + ", but thread " + xyz(unflatten(other, dim)) +
        (exited ? " has exited without reaching it\n" : " left the loop around it without reaching it\n") +
        "  waiting there: " + describe_threads(at, dim) + "\n" +
        (exited ? "  exited:        " + describe_threads(gone, dim) + "\n" : "") +
        (parked.empty() ? "" : "  left the loop: " + describe_threads(parked, dim) + "\n");
    tls_in_split_block = false;
    stop_kernel_with(cudaErrorLaunchFailure, "__syncthreads() not reached by every thread of the block", what.c_str(),
                     divergent_barrier_hint, divergent_barrier_on_gpu, "", 0);
}

}  // namespace cuemu::detail

namespace cuemu {

// Leaves the CUDA thread by a jump, as the fault handler does, not by
// unwinding: the caller may be a noexcept function (__assert_fail), which an
// unwind may not cross. `what` is copied: the jump abandons the caller's frame.
void detail::stop_kernel_with(cudaError_t error, const char* headline, const char* what,
                              const char* hint, const char* on_a_gpu, const char* file, int line) {
    using namespace detail;
    fiber_slot* s = refusing_slot(error, headline, what, hint, on_a_gpu, file, line);
    s->refusal_text = what;
    s->refusal_what = s->refusal_text.c_str();
    siglongjmp(s->fault_jump, 3);
}

}  // namespace cuemu
