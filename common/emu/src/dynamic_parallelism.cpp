// dynamic_parallelism.cpp - kernels launched from kernels (CUDA Dynamic
// Parallelism as CUDA 12 and later define it), and the device runtime's
// streams. See common/emu/README.md, "Kernels launched from kernels".
//
// A launch made by a CUDA thread is checked as the device runtime checks it
// (configuration, stream, nesting depth) and kept in its grid's launch_job.
// When every block of that grid is done, the device thread runs the kept
// grids one after another, each to the end with its own descendants, before
// the launching grid counts as complete for the host (run_launch). That is
// one of the orders a GPU may choose: since CUDA 12 a parent cannot wait for
// its child in device code, children may start at any time after their
// launch, and a grid completes only when all its children have; launches
// into one stream run in order; the cudaStreamTailLaunch ones run after the
// grid and all its other children. The order here is fixed, (launching
// block, launch within that block), so a program behaves the same on every
// run and with any number of workers.
#include "dynamic_parallelism.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "block_state.h"
#include "device_queue.h"
#include "internal.h"
#include "launch_job.h"
#include "shared_variables.h"

namespace cuemu::detail {

// A grid made from a grid of depth d has depth d + 1 (a host launch: 0).
// CUDA's Programming Guide gives 24 generations as the hardware's limit; a
// launch past it fails with cudaErrorLaunchMaxDepthExceeded. Which depth
// exactly a GPU refuses first was not measured.
constexpr int deepest_grid = 24;

struct child_grid {
    launch_site site;
    launch_config config;
    void (*run_thread)(void*);
    std::shared_ptr<void> ctx, aliases;
    std::uint64_t block;     // the launching block, numbered in launch order
    std::uint64_t sequence;  // the launch's place among the grid's launches
    bool tail;
};

struct child_grids {
    std::vector<child_grid> grids;
    std::uint64_t launches = 0;
};

namespace {

// Streams made in device code: only their handles matter (every device
// launch runs after its grid, in order), so they are kept apart from the
// device queue's, which host calls would take them for.
std::mutex device_streams_mutex;
std::set<cudaStream_t> device_streams;

bool is_device_stream(cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(device_streams_mutex);
    return device_streams.count(stream) != 0;
}

[[gnu::cold]] void say_host_stream_in_kernel(const launch_site& site) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "cuemu: kernel %s launched from a kernel (%s:%d) into a stream that is not one of "
                 "the device runtime's: CUDA leaves a host-made stream in device code undefined; "
                 "use 0, cudaStreamTailLaunch, cudaStreamFireAndForget or a stream made in the "
                 "kernel with cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)\n",
                 site.kernel, site.file, site.line);
}

}  // namespace

void launch_from_device(const launch_site& site, const launch_config& config,
                        void (*run_thread)(void*), std::shared_ptr<void> ctx,
                        std::shared_ptr<void> aliases) {
    if (device_status() != cudaSuccess) return;  // a sticky error: nothing runs
    launch_job* parent = tls_job;
    std::string why;
    if (cudaError_t e = launch_configuration_error(config, why)) {
        record(e);  // for the launching thread's cudaGetLastError
        return;
    }
    const cudaStream_t stream = config.stream;
    const bool tail = stream == cudaStreamTailLaunch;
    if (stream != nullptr && !tail && stream != cudaStreamFireAndForget && !is_device_stream(stream)) {
        say_host_stream_in_kernel(site);
        record(cudaErrorInvalidResourceHandle);
        return;
    }
    if (!parent || parent->depth + 1 > deepest_grid) {
        record(cudaErrorLaunchMaxDepthExceeded);
        return;
    }
    child_grid child{site, config, run_thread, std::move(ctx), std::move(aliases),
                     tls_linear_block, 0, tail};
    child.config.stream = nullptr;  // ordered by run_child_grids, not by the host's queue
    std::lock_guard<std::mutex> lock(parent->children_mutex);
    if (!parent->children) parent->children = std::make_shared<child_grids>();
    child.sequence = parent->children->launches++;
    parent->children->grids.push_back(std::move(child));
}

cudaError_t run_child_grids(launch_job& job) {
    std::shared_ptr<child_grids> kept;
    {
        std::lock_guard<std::mutex> lock(job.children_mutex);
        kept.swap(job.children);
    }
    if (!kept) return cudaSuccess;
    std::vector<child_grid>& grids = kept->grids;
    // Blocks ran on several workers at once: put the launches in the order
    // of one worker running the blocks in turn.
    std::stable_sort(grids.begin(), grids.end(), [](const child_grid& a, const child_grid& b) {
        if (a.tail != b.tail) return b.tail;
        if (a.block != b.block) return a.block < b.block;
        return a.sequence < b.sequence;
    });
    for (child_grid& child : grids) {
        if (cudaError_t e = run_launch(child.site, child.config, child.run_thread, child.ctx.get(),
                                       job.depth + 1))
            return e;
        child.ctx.reset();  // its arguments go as soon as it is done, as on a GPU
        child.aliases.reset();
    }
    return cudaSuccess;
}

const char* launching_thread_memory(const void* p) {
    const auto* a = static_cast<const unsigned char*>(p);
    const fiber_slot* s = tls_slot;
    if (s && a >= reinterpret_cast<const unsigned char*>(s->stack.low) &&
        a < reinterpret_cast<const unsigned char*>(s->stack.high))
        return "local memory";
    const auto* dynamic = static_cast<const unsigned char*>(dynamic_shared_memory());
    if (tls_job && dynamic && a >= dynamic && a < dynamic + tls_job->config->shared_bytes)
        return "shared memory";
    shared_layout layout;
    if (shared_variable_layout(&layout)) {
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        if (at >= layout.begin && at < layout.end) return "shared memory";
    }
    return nullptr;
}

cudaError_t refuse_in_kernel(const char* call) {
    static std::mutex said_mutex;
    static std::set<std::string> said;
    bool first;
    {
        std::lock_guard<std::mutex> lock(said_mutex);
        first = said.insert(call).second;
    }
    if (first) {
        std::fflush(stdout);
        std::fprintf(stderr,
                     "cuemu: %s called in a kernel: the device runtime's copies and fills are not "
                     "emulated (cudaErrorNotSupported); copy in the kernel's own code, or in a "
                     "child grid\n",
                     call);
    }
    return record(cudaErrorNotSupported);
}

cudaError_t create_device_stream(cudaStream_t* stream, unsigned int flags) {
    if (!stream) return record(cudaErrorInvalidValue);
    // The device runtime's streams are all non-blocking, and must be asked for so.
    if (flags != cudaStreamNonBlocking) return record(cudaErrorInvalidValue);
    *stream = new CUstream_st{flags, 0, -1, -1};  // no number, no queue
    std::lock_guard<std::mutex> lock(device_streams_mutex);
    device_streams.insert(*stream);
    return cudaSuccess;
}

cudaError_t destroy_device_stream(cudaStream_t stream) {
    {
        std::lock_guard<std::mutex> lock(device_streams_mutex);
        if (device_streams.erase(stream) == 0) return record(cudaErrorInvalidResourceHandle);
    }
    delete stream;  // launches made into it keep no reference to it
    return cudaSuccess;
}

}  // namespace cuemu::detail
