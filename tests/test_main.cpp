// test_main.cpp - the main() of every lesson test executable.
//
// Three builds share it:
//   TUTORIAL_BACKEND_CPU   lesson 01 (plain C), no CUDA at all
//   TUTORIAL_BACKEND_EMU   the CPU emulator
//   TUTORIAL_BACKEND_NVCC  nvcc; on a machine without a usable GPU the first
//                          CUDA call fails, and the test reports "skipped"
//                          (exit code 77, which CTest is told to read so)
//                          rather than failing or pretending to pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if defined(TUTORIAL_BACKEND_EMU) || defined(TUTORIAL_BACKEND_NVCC)
#include <cuda_runtime.h>
#endif

#include "check_mode.h"

namespace {
std::uint64_t chosen_seed = 0;
}

std::uint64_t test_seed() { return chosen_seed; }

int main(int argc, char** argv) {
    // A failed CUDA_CHECK in the lesson's code fails its test case, not the whole run.
    tutorial_checks_throw() = true;
#ifdef TUTORIAL_BACKEND_NVCC
    int devices = 0;
    cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess || devices == 0) {
        std::printf("SKIPPED: no usable CUDA GPU here (%s: %s); the emulator "
                    "build of this test runs instead.\n",
                    cudaGetErrorName(status),
                    status == cudaSuccess ? "0 devices" : cudaGetErrorString(status));
        return 77;
    }
#endif
    const char* fixed = std::getenv("TUTORIAL_SEED");
    if (fixed && *fixed) {
        chosen_seed = std::strtoull(fixed, nullptr, 10);
    } else {
        chosen_seed = static_cast<std::uint64_t>(
            std::chrono::steady_clock::now().time_since_epoch().count()) % 1000000007u;
    }
    std::printf("test seed: %llu (repeat this run with TUTORIAL_SEED=%llu)\n",
                static_cast<unsigned long long>(chosen_seed),
                static_cast<unsigned long long>(chosen_seed));

    doctest::Context context;
    // The seed line above is the introduction; doctest's own banner would
    // only lengthen what a student reads. Set before the command line, so an
    // explicit --no-intro=false still wins.
    context.setOption("no-intro", true);
    context.applyCommandLine(argc, argv);
    return context.run();
}
