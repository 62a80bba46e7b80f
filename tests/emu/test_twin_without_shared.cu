// test_twin_without_shared.cu - a program with no shared memory keeps the fast
// path: the race check's default is decided on the sources as written, and
// none of this program's uses shared memory, so a launch runs the kernel's
// uninstrumented twin (cuemu/launch.h). So does CUEMU_CHECK=race: a kernel
// that cannot reach shared memory has nothing for the check to look at. Only
// the profiler (CUEMU_PROFILE) needs the instrumented kernel. This file must
// never name the shared-memory qualifier in code.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

// Every instrumentation hook records its caller here (src/tsan_hooks.cpp).
namespace cuemu::detail {
extern __thread const void* tls_hook_caller;
}

namespace {

constexpr int kThreads = 64;

__global__ void store_calls_a_hook(int* called) {
    cuemu::detail::tls_hook_caller = nullptr;
    called[threadIdx.x] = 0;
    // Read the variable again after the store, not the nullptr GCC remembers.
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    called[threadIdx.x] = cuemu::detail::tls_hook_caller != nullptr;
}

}  // namespace

TEST_CASE("twin:runs-by-default-without-shared-memory") {
    const char* check = std::getenv("CUEMU_CHECK");
    const bool profiled = std::getenv("CUEMU_PROFILE") != nullptr;
    int* called = nullptr;
    REQUIRE(cudaMalloc(&called, kThreads * sizeof(int)) == cudaSuccess);
    store_calls_a_hook<<<1, kThreads>>>(called);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> h_called(kThreads, -1);
    REQUIRE(cudaMemcpy(h_called.data(), called, kThreads * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaFree(called) == cudaSuccess);
    INFO("CUEMU_CHECK=" << std::string(check ? check : "(unset)") << ", profiled: " << profiled);
    CHECK(h_called == std::vector<int>(kThreads, profiled ? 1 : 0));
}
