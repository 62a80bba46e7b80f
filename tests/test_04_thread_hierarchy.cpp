// test_04_thread_hierarchy.cpp - lesson 04: blocks, grids, the global index.
//
// Built twice, against lessons/04-thread-hierarchy/vector_add.cu (the
// exercise, which must fail here as shipped) and
// solutions/04-thread-hierarchy/vector_add.cu (which must pass), for the
// emulator and for nvcc.
#include "test_support.h"  // doctest, random_floats, poisoned_floats, REQUIRE_ALL_CLOSE
#include "cpu_reference.h"

#include <cuda_runtime.h>

#include <string>

// The launchers from the lesson file (the same declarations as there).
void vector_add_on_gpu(const float* h_a, const float* h_b, float* h_c, int n, int block_size);
void vector_add_grid_stride_on_gpu(const float* h_a, const float* h_b, float* h_c, int n,
                                   int block_size, int num_blocks);
cudaError_t try_single_block_launch(int n);

// What the runtime answers to a launch past the limits: cudaErrorInvalidValue
// from CUDA 13 on (seen on an H200), cudaErrorInvalidConfiguration before.
#if CUDART_VERSION >= 13000
const cudaError_t kRefusedLaunch = cudaErrorInvalidValue;
#else
const cudaError_t kRefusedLaunch = cudaErrorInvalidConfiguration;
#endif

// Sizes: 1 (a single thread of a single block), 1000 and 1023 (not multiples
// of any block size below, so the last block is partly idle), 100003 (a large
// prime: many blocks, and many elements per thread in the grid-stride loop).
// Block sizes: a warp, two in between, and the largest a block can be.
static const int kSizes[] = {1, 1000, 1023, 100003};
static const int kBlockSizes[] = {32, 128, 256, 1024};

// One float addition is correctly rounded on both sides, so the answers should
// be identical; 1e-6 is a margin, not an expectation.
static const double kAtol = 1e-6, kRtol = 1e-6;

TEST_CASE("one thread per element: many blocks match the CPU for any n and block size") {
    for (int n : kSizes) {
        auto a = random_floats(n), b = random_floats(n);
        auto ref = poisoned_floats(n);
        cpu_vector_add(a.data(), b.data(), ref.data(), n);
        for (int block_size : kBlockSizes) {
            CAPTURE(n);
            CAPTURE(block_size);
            auto got = poisoned_floats(n);  // NaN: an element no thread wrote cannot pass
            vector_add_on_gpu(a.data(), b.data(), got.data(), n, block_size);
            REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, kAtol, kRtol);
        }
    }
}

TEST_CASE("grid-stride loop: a fixed number of blocks covers any n") {
    for (int n : kSizes) {
        auto a = random_floats(n), b = random_floats(n);
        auto ref = poisoned_floats(n);
        cpu_vector_add(a.data(), b.data(), ref.data(), n);
        for (int block_size : kBlockSizes) {
            // 1 and 3 blocks: far fewer threads than elements, so each thread
            // loops. (n + block_size - 1) / block_size + 5: more threads than
            // elements, so some threads never enter the loop.
            int more_than_enough = (n + block_size - 1) / block_size + 5;
            for (int num_blocks : {1, 3, more_than_enough}) {
                CAPTURE(n);
                CAPTURE(block_size);
                CAPTURE(num_blocks);
                auto got = poisoned_floats(n);
                vector_add_grid_stride_on_gpu(a.data(), b.data(), got.data(), n, block_size,
                                              num_blocks);
                REQUIRE_ALL_CLOSE("your c", got.data(), ref.data(), n, kAtol, kRtol);
            }
        }
    }
}

TEST_CASE("one block of 500000 threads is refused, and the error is not sticky") {
    // Start from a clean slate, whatever an earlier test case left behind.
    (void)cudaGetLastError();

    cudaError_t status = try_single_block_launch(500000);
    CHECK(status == kRefusedLaunch);
#if CUDART_VERSION >= 13000
    CHECK(std::string(cudaGetErrorName(status)) == "cudaErrorInvalidValue");
    CHECK(std::string(cudaGetErrorString(status)) == "invalid argument");
#endif
    // cudaGetLastError() reported it once and reset it.
    CHECK(cudaGetLastError() == cudaSuccess);
    // The device still works: a launch that fits is accepted right after.
    CHECK(try_single_block_launch(256) == cudaSuccess);
}

TEST_CASE("the limit is maxThreadsPerBlock: that many threads fit in one block, one more does not") {
    (void)cudaGetLastError();

    cudaDeviceProp prop = {};
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    CAPTURE(prop.name);
    // 1024 on every GPU CUDA 13 supports, and on the emulator.
    CHECK(prop.maxThreadsPerBlock == 1024);
    CHECK(prop.maxThreadsDim[0] == 1024);

    CHECK(try_single_block_launch(prop.maxThreadsPerBlock) == cudaSuccess);
    CHECK(try_single_block_launch(prop.maxThreadsPerBlock + 1) == kRefusedLaunch);
    CHECK(cudaGetLastError() == cudaSuccess);
}
