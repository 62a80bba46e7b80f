// test_dynamic_parallelism.cu - kernels launched from kernels (common/emu/README.md,
// "Kernels launched from kernels"): every generation runs, a child sees what
// its parent wrote before the launch, a grid completes only with its
// descendants, tail launches come after the grid's other children, the
// device runtime's streams, the nesting limit, a child's fault, and a
// parent's shared or local memory passed to a child.
// Genuine CUDA: nvcc compiles this file too (with -rdc=true, as a program
// that launches from kernels needs; emu_tests_nvcc_compile_check).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "stderr_capture.h"

// ---- kernels ---------------------------------------------------------------------------
// Each block counts itself in blocks_at[depth]; thread 0 of each block
// launches a grid of `fan` blocks one generation deeper, down to max_depth.
__device__ int blocks_at[8];

__global__ void generations(int depth, int max_depth, int fan) {
    if (threadIdx.x == 0) atomicAdd(&blocks_at[depth], 1);
    if (threadIdx.x == 0 && depth < max_depth) {
        generations<<<fan, 3>>>(depth + 1, max_depth, fan);
        if (cudaGetLastError() != cudaSuccess) atomicAdd(&blocks_at[7], 1000);  // seen by the host
    }
}

// The child reads what the parent wrote before launching it and writes its
// own result, which only the host (after the grid) reads.
__global__ void doubled(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2 * in[i];
}

__global__ void fill_then_launch(int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) in[i] = i * i - 7;
    __syncthreads();  // the block's part of `in` is written before its thread 0 launches
    if (threadIdx.x == 0) {
        const int first = blockIdx.x * blockDim.x;
        const int count = min(static_cast<int>(blockDim.x), n - first);
        doubled<<<1, blockDim.x>>>(in + first, out + first, count);
    }
}

// Each child appends its tag to a log, in the order the children run.
__device__ int log_length;
__device__ int log_tags[64];

__global__ void append_tag(int tag) {
    const int at = atomicAdd(&log_length, 1);
    if (at < 64) log_tags[at] = tag;
}

// Tags: 1x plain (the NULL stream), 2x tail, 3x fire-and-forget, 4x a stream
// made in the kernel; x is the order of the launch within its kind.
__global__ void launch_every_kind() {
    cudaStream_t own;
    if (cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess) return;
    append_tag<<<1, 1, 0, cudaStreamTailLaunch>>>(20);
    append_tag<<<1, 1>>>(10);
    append_tag<<<1, 1, 0, cudaStreamFireAndForget>>>(30);
    append_tag<<<1, 1, 0, own>>>(40);
    append_tag<<<1, 1, 0, cudaStreamTailLaunch>>>(21);
    append_tag<<<1, 1>>>(11);
    append_tag<<<1, 1, 0, own>>>(41);
    cudaStreamDestroy(own);
}

// Blocks of one grid launching: the children's order is the blocks' order,
// then each block's own launch order.
__global__ void launch_from_each_block() {
    if (threadIdx.x == 1) append_tag<<<1, 1>>>(100 + 2 * blockIdx.x);
    if (threadIdx.x == 2) append_tag<<<1, 1>>>(101 + 2 * blockIdx.x);
}

// A chain, one grid a generation, until a launch fails: the depth reached
// and the launch's error.
__device__ int deepest;
__device__ int chain_error;

__global__ void chain(int depth) {
    atomicMax(&deepest, depth);
    chain<<<1, 1>>>(depth + 1);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) chain_error = static_cast<int>(e);
}

__global__ void child_of_bad_configuration(int* status) {
    doubled<<<1, 2048>>>(nullptr, nullptr, 0);  // more threads than a block holds
    status[0] = static_cast<int>(cudaGetLastError());
    cudaStream_t blocking;
    status[1] = static_cast<int>(cudaStreamCreateWithFlags(&blocking, cudaStreamDefault));
    cudaGetLastError();
}

__global__ void write_through(int* p) { p[threadIdx.x] = 1; }

__global__ void launch_faulting_child() { write_through<<<1, 4>>>(nullptr); }

__global__ void child_reads(const int* p, int* out) { out[threadIdx.x] = p[threadIdx.x]; }

__global__ void pass_shared_memory(int* out) {
    __shared__ int tile[8];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) child_reads<<<1, 8>>>(tile, out);
}

__global__ void pass_local_memory(int* out) {
    int mine[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    child_reads<<<1, 8>>>(mine, out);
}

__global__ void free_heap(int* heap) { free(heap); }

// Memory from malloc in a kernel is global memory: a child may use it. A
// tail launch frees it once the child is done (it runs after the grid's
// other children).
__global__ void pass_heap_memory(int* out) {
    int* heap = static_cast<int*>(malloc(8 * sizeof(int)));
    if (!heap) return;
    for (int i = 0; i < 8; ++i) heap[i] = 50 + i;
    child_reads<<<1, 8>>>(heap, out);
    free_heap<<<1, 1, 0, cudaStreamTailLaunch>>>(heap);
}

namespace {

template <class T>
T read_symbol(const T& symbol) {
    T value{};
    REQUIRE(cudaMemcpyFromSymbol(&value, symbol, sizeof value) == cudaSuccess);
    return value;
}

void clear_log() {
    const int zero = 0;
    REQUIRE(cudaMemcpyToSymbol(log_length, &zero, sizeof zero) == cudaSuccess);
}

std::vector<int> read_log() {
    const int n = read_symbol(log_length);
    std::vector<int> tags(64);
    REQUIRE(cudaMemcpyFromSymbol(tags.data(), log_tags, tags.size() * sizeof(int)) == cudaSuccess);
    tags.resize(n < 64 ? n : 64);
    return tags;
}

int position_of(const std::vector<int>& tags, int tag) {
    for (size_t i = 0; i < tags.size(); ++i)
        if (tags[i] == tag) return static_cast<int>(i);
    return -1;
}

}  // namespace

TEST_CASE("every generation of a launch tree runs before the host's synchronize returns") {
    const int zeros[8] = {};
    REQUIRE(cudaMemcpyToSymbol(blocks_at, zeros, sizeof zeros) == cudaSuccess);
    generations<<<2, 3>>>(0, 4, 3);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int counted[8];
    REQUIRE(cudaMemcpyFromSymbol(counted, blocks_at, sizeof counted) == cudaSuccess);
    // Generation d: 2 blocks, each block launching 3 of the next.
    int expected = 2;
    for (int depth = 0; depth <= 4; ++depth, expected *= 3) {
        CAPTURE(depth);
        CHECK(counted[depth] == expected);
    }
    CHECK(counted[5] == 0);
    CHECK(counted[7] == 0);  // no launch failed
}

TEST_CASE("a child sees its parent's writes made before the launch") {
    const int n = 1000;
    int *d_in, *d_out;
    REQUIRE(cudaMalloc(&d_in, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemset(d_out, 0, n * sizeof(int)) == cudaSuccess);
    fill_then_launch<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<int> out(n);
    REQUIRE(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(out[i] == 2 * (i * i - 7));
    }
    CHECK(cudaFree(d_in) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
}

TEST_CASE("launches of one stream run in order, tail launches after every other child") {
    clear_log();
    launch_every_kind<<<1, 1>>>();
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> tags = read_log();
    REQUIRE(tags.size() == 7);
    for (int tag : {10, 11, 20, 21, 30, 40, 41}) CHECK(position_of(tags, tag) >= 0);
    // One stream's launches in launch order (the NULL stream, the kernel's own).
    CHECK(position_of(tags, 10) < position_of(tags, 11));
    CHECK(position_of(tags, 40) < position_of(tags, 41));
    // The tail launches last, in their order.
    CHECK(position_of(tags, 20) == 5);
    CHECK(position_of(tags, 21) == 6);
}

TEST_CASE("children run in the order of their blocks, whatever the workers" *
          doctest::test_suite("emulator-only")) {
    // A GPU may run them in any order; the emulator always in this one.
    clear_log();
    launch_from_each_block<<<5, 4>>>();
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> tags = read_log();
    REQUIRE(tags.size() == 10);
    for (int i = 0; i < 10; ++i) CHECK(tags[i] == 100 + i);
}

TEST_CASE("a launch past the nesting limit fails in the launching thread" *
          doctest::test_suite("emulator-only")) {
    // The Programming Guide's 24 generations; where a GPU stops exactly was
    // not measured.
    const int zero = 0;
    REQUIRE(cudaMemcpyToSymbol(deepest, &zero, sizeof zero) == cudaSuccess);
    REQUIRE(cudaMemcpyToSymbol(chain_error, &zero, sizeof zero) == cudaSuccess);
    chain<<<1, 1>>>(0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(read_symbol(deepest) == 24);
    CHECK(read_symbol(chain_error) == static_cast<int>(cudaErrorLaunchMaxDepthExceeded));
}

TEST_CASE("a child's bad configuration and a blocking device stream are refused in the kernel" *
          doctest::test_suite("emulator-only")) {
    // A GPU's device runtime codes for these were not measured; the emulator
    // answers as its host runtime does, and as the Programming Guide says
    // for the stream (device streams must be non-blocking).
    int* d_status;
    REQUIRE(cudaMalloc(&d_status, 2 * sizeof(int)) == cudaSuccess);
    child_of_bad_configuration<<<1, 1>>>(d_status);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int status[2];
    REQUIRE(cudaMemcpy(status, d_status, sizeof status, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(status[0] == static_cast<int>(cudaErrorInvalidValue));
    CHECK(status[1] == static_cast<int>(cudaErrorInvalidValue));
    CHECK(cudaFree(d_status) == cudaSuccess);
}

TEST_CASE("a child grid may read memory its parent got from malloc") {
    int* d_out;
    REQUIRE(cudaMalloc(&d_out, 8 * sizeof(int)) == cudaSuccess);
    pass_heap_memory<<<1, 1>>>(d_out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int out[8];
    REQUIRE(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < 8; ++i) CHECK(out[i] == 50 + i);
    CHECK(cudaFree(d_out) == cudaSuccess);
}

// ---- the device runtime's cudaMalloc and cudaFree: the device heap --------------------
// Each thread gets a buffer with cudaMalloc, a child grid fills it, a later
// grid reads it back and frees it with cudaFree, in device code throughout
// (as BezierLineCDP in NVIDIA's samples does): no wait for the device.
__device__ int* heap_buffers[4];

__global__ void fill_buffer(int* buffer, int n, int base) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buffer[i] = base + i;
}

__global__ void allocate_and_fill(int n, int* status) {
    const int t = threadIdx.x;
    int* buffer = nullptr;
    status[t] = cudaMalloc(reinterpret_cast<void**>(&buffer), n * sizeof(int));
    heap_buffers[t] = buffer;
    if (buffer) fill_buffer<<<(n + 31) / 32, 32>>>(buffer, n, 1000 * t);
}

__global__ void sum_and_free(int n, int* sums, int* status) {
    const int t = threadIdx.x;
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += heap_buffers[t][i];
    sums[t] = sum;
    status[t] = cudaFree(heap_buffers[t]);
}

__global__ void free_in_kernel(void* p, int* status) { *status = cudaFree(p); }

TEST_CASE("cudaMalloc and cudaFree in kernels: the device heap, used by a child grid") {
    constexpr int n = 100;
    int *d_status, *d_sums;
    REQUIRE(cudaMalloc(&d_status, 8 * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_sums, 4 * sizeof(int)) == cudaSuccess);
    allocate_and_fill<<<1, 4>>>(n, d_status);
    sum_and_free<<<1, 4>>>(n, d_sums, d_status + 4);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int status[8], sums[4];
    REQUIRE(cudaMemcpy(status, d_status, sizeof status, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int t = 0; t < 4; ++t) {
        CHECK(status[t] == static_cast<int>(cudaSuccess));
        CHECK(status[4 + t] == static_cast<int>(cudaSuccess));
        CHECK(sums[t] == 1000 * t * n + n * (n - 1) / 2);
    }
    CHECK(cudaFree(d_status) == cudaSuccess);
    CHECK(cudaFree(d_sums) == cudaSuccess);
}

TEST_CASE("the host and device heaps are freed each on its own side" * doctest::test_suite("emulator-only")) {
    // CUDA calls either free an error; what a GPU returns was not measured.
    int *d_status, *host_made;
    REQUIRE(cudaMalloc(&d_status, 4 * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&host_made, 16) == cudaSuccess);
    allocate_and_fill<<<1, 1>>>(8, d_status);
    stderr_capture capture;
    free_in_kernel<<<1, 1>>>(host_made, d_status + 1);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    int* kernel_made = nullptr;
    REQUIRE(cudaMemcpyFromSymbol(&kernel_made, heap_buffers, sizeof kernel_made) == cudaSuccess);
    CHECK(cudaFree(kernel_made) == cudaErrorInvalidValue);
    const std::string report = capture.finish();
    int status[2];
    REQUIRE(cudaMemcpy(status, d_status, sizeof status, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(status[0] == static_cast<int>(cudaSuccess));
    CHECK(status[1] == static_cast<int>(cudaErrorInvalidValue));
    CHECK(report.find("cudaFree in a kernel at") != std::string::npos);
    CHECK(report.find("frees only what a kernel got with cudaMalloc") != std::string::npos);
    CHECK(report.find("buffer from cudaMalloc in a kernel at") != std::string::npos);
    CHECK(report.find("only device code frees") != std::string::npos);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);  // the host's failed cudaFree
    free_in_kernel<<<1, 1>>>(kernel_made, d_status);      // where it belongs
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(cudaMemcpy(status, d_status, sizeof status, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(status[0] == static_cast<int>(cudaSuccess));
    CHECK(cudaFree(host_made) == cudaSuccess);
    CHECK(cudaFree(d_status) == cudaSuccess);
}

// ---- faults: each its own process (ctest runs them one by one) -------------------------
TEST_CASE("child-fault" * doctest::test_suite("emulator-only")) {
    stderr_capture capture;
    launch_faulting_child<<<1, 1>>>();
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    const std::string report = capture.finish();
    CHECK(report.find("null pointer") != std::string::npos);
    CHECK(report.find("'write_through'") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

TEST_CASE("parent-shared-memory" * doctest::test_suite("emulator-only")) {
    int* d_out;
    REQUIRE(cudaMalloc(&d_out, 8 * sizeof(int)) == cudaSuccess);
    stderr_capture capture;
    pass_shared_memory<<<1, 8>>>(d_out);
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    const std::string report = capture.finish();
    CHECK(report.find("a parent's shared memory used by a child grid (read) in kernel 'child_reads'") !=
          std::string::npos);
    CHECK(report.find("argument 1 of the launch at") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

TEST_CASE("parent-local-memory" * doctest::test_suite("emulator-only")) {
    int* d_out;
    REQUIRE(cudaMalloc(&d_out, 8 * sizeof(int)) == cudaSuccess);
    stderr_capture capture;
    pass_local_memory<<<1, 1>>>(d_out);
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    const std::string report = capture.finish();
    CHECK(report.find("a parent's local memory used by a child grid (read) in kernel 'child_reads'") !=
          std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}
