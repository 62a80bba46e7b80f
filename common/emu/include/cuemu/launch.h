// cuemu/launch.h - what a rewritten launch calls.
//
// cuemu-rewrite turns   k<<<grid, block, shmem, stream>>>(a, b)   into
//   ::cuemu::launch(::cuemu::launch_site{"k", __FILE__, __LINE__},
//                   ::cuemu::launch_config(grid, block, shmem, stream),
//                   [=](auto&&... cuemu_args_) { k(cuemu_args_...); }, a, b)
// The arguments are copied once, as a GPU copies them into parameter memory,
// and every CUDA thread calls the kernel with them. The lambda lets C++ pick
// overloads and deduce template kernels exactly as a direct call would.
#ifndef CUEMU_LAUNCH_H
#define CUEMU_LAUNCH_H

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "types.h"

namespace cuemu {

struct launch_site {
    const char* kernel;  // as written at the launch, e.g. "vector_add<float>"
    const char* file;
    int line;
};

struct launch_config {
    dim3 grid, block;
    std::size_t shared_bytes;
    cudaStream_t stream;
    launch_config(dim3 g, dim3 b, std::size_t shmem = 0, cudaStream_t s = 0)
        : grid(g), block(b), shared_bytes(shmem), stream(s) {}
};

// Runs every block and thread of one launch (scheduler.cpp); run_thread(ctx)
// executes the kernel body for the current CUDA thread.
void run_launch(const launch_site& site, const launch_config& config,
                void (*run_thread)(void*), void* ctx);

template <class Body, class... Args>
void launch(const launch_site& site, const launch_config& config, Body body, Args&&... args) {
    struct context {
        Body body;
        std::tuple<std::decay_t<Args>...> args;
    } ctx{body, std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
    run_launch(site, config,
               [](void* p) {
                   auto* c = static_cast<context*>(p);
                   std::apply(c->body, c->args);
               },
               &ctx);
}

}  // namespace cuemu

#endif
