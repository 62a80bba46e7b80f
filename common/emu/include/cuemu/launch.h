// cuemu/launch.h - what a rewritten launch calls.
//
// cuemu-rewrite turns   k<<<grid, block, shmem, stream>>>(a, b)   into
//   ::cuemu::launch(::cuemu::launch_site{"k", __FILE__, __LINE__},
//                   ::cuemu::launch_config(grid, block, shmem, stream),
//                   [=](auto&&... cuemu_args_) { k(cuemu_args_...); }, a, b)
// The arguments are copied once, as a GPU copies them into parameter memory,
// pointers into host memory are screened (below), and every CUDA thread calls
// the kernel with them. The launch returns before the kernel runs: launches
// are asynchronous, as on a GPU. The lambda lets C++ pick
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

// Checks the configuration at once (an error is recorded for the next
// cudaGetLastError, as on a GPU) and queues the launch for the device thread
// (queue.cpp), which later calls run_thread(ctx) for every CUDA thread. The
// queue owns ctx from here on and calls destroy(ctx) when the launch is done
// or refused.
void enqueue_launch(const launch_site& site, const launch_config& config,
                    void (*run_thread)(void*), void* ctx, void (*destroy)(void*));

// A GPU cannot reach host memory. A pointer argument that points into it (the
// stack, the heap: not device, managed or cudaMallocHost memory, and not a
// global variable) is swapped for an address in a reserved, inaccessible
// window, so a kernel that dereferences it faults and the report names the
// argument (memory.cpp). argument counts from 1.
void* screen_pointer_argument(void* p, int argument, const launch_site& site);

template <class T>
void screen_argument(T&, int, const launch_site&) {}
template <class T>
void screen_argument(T*& p, int argument, const launch_site& site) {
    if constexpr (!std::is_function_v<T>) {
        void* raw = const_cast<void*>(static_cast<const volatile void*>(p));
        p = static_cast<T*>(screen_pointer_argument(raw, argument, site));
    }
}
template <class Tuple, std::size_t... I>
void screen_arguments(Tuple& args, const launch_site& site, std::index_sequence<I...>) {
    (screen_argument(std::get<I>(args), static_cast<int>(I) + 1, site), ...);
}

template <class Body, class... Args>
void launch(const launch_site& site, const launch_config& config, Body body, Args&&... args) {
    // The kernel runs after this call returns, so the arguments live on the
    // heap, copied once by value, as a GPU copies them into parameter memory.
    struct context {
        Body body;
        std::tuple<std::decay_t<Args>...> args;
    };
    auto* ctx = new context{body, std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
    // Screened here, at the launch, so the report names the argument as the
    // program passed it.
    screen_arguments(ctx->args, site, std::index_sequence_for<Args...>{});
    enqueue_launch(site, config,
                   [](void* p) {
                       auto* c = static_cast<context*>(p);
                       std::apply(c->body, c->args);
                   },
                   ctx, [](void* p) { delete static_cast<context*>(p); });
}

}  // namespace cuemu

#endif
