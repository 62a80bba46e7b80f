// test_launch_attributes.cu - cudaLaunchKernelEx and cudaLaunchKernelExC
// (common/emu/README.md, "Launches with attributes"): arguments converted to
// the kernel's parameter types, the C form through the kernel's address, a
// cooperative launch, programmatic dependent launch, the completion event,
// and what the emulator refuses (clusters of more than one block, unknown
// attributes, no configuration).
// Genuine CUDA: nvcc compiles this file too (emu_tests_nvcc_compile_check).
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

// ---- kernels ---------------------------------------------------------------------------
__global__ void scale_add(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// Every block writes its own slot, the grid waits, then each block sums all
// slots: only right when every block has written before any reads.
__global__ void grid_sum(int* slots, int* sums) {
    if (threadIdx.x == 0) slots[blockIdx.x] = static_cast<int>(blockIdx.x) + 1;
    cg::this_grid().sync();
    if (threadIdx.x == 0) {
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) total += slots[b];
        sums[blockIdx.x] = total;
    }
}

__global__ void produce(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = 3 * i;
    cudaTriggerProgrammaticLaunchCompletion();  // the dependent may start
}

__global__ void consume(const int* data, int* out, int n) {
    cudaGridDependencySynchronize();  // produce's writes are visible from here
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = data[i] + 1;
}

namespace {

cudaLaunchConfig_t config_of(dim3 grid, dim3 block, cudaStream_t stream, cudaLaunchAttribute* attrs,
                             unsigned count) {
    cudaLaunchConfig_t config;
    std::memset(&config, 0, sizeof config);
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    config.attrs = attrs;
    config.numAttrs = count;
    return config;
}

cudaLaunchAttribute attribute(cudaLaunchAttributeID id) {
    cudaLaunchAttribute a;
    std::memset(&a, 0, sizeof a);
    a.id = id;
    return a;
}

}  // namespace

TEST_CASE("cudaLaunchKernelEx converts the arguments and runs the kernel; the C form too") {
    const int n = 1000;
    std::vector<float> h_x(n), h_y(n);
    for (int i = 0; i < n; ++i) {
        h_x[i] = 0.5f * i;
        h_y[i] = 1.0f;
    }
    float *d_x, *d_y;
    REQUIRE(cudaMalloc(&d_x, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_y, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_y, h_y.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cudaLaunchAttribute hint = attribute(cudaLaunchAttributePriority);
    cudaLaunchConfig_t config = config_of(dim3((n + 127) / 128), dim3(128), 0, &hint, 1);
    // a double and a size_t, converted to the kernel's float and int
    const double two = 2.0;
    const size_t count = n;
    CHECK(cudaLaunchKernelEx(&config, scale_add, two, d_x, d_y, count) == cudaSuccess);
    // The C form: the kernel by its address, the arguments by theirs.
    float three = 3.0f;
    int n_arg = n;
    const float* x_arg = d_x;
    void* args[] = {&three, &x_arg, &d_y, &n_arg};
    config.numAttrs = 0;
    CHECK(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(scale_add), args) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(h_y[i] == 1.0f + 5.0f * (0.5f * i));
    }
    CHECK(cudaFree(d_x) == cudaSuccess);
    CHECK(cudaFree(d_y) == cudaSuccess);
}

TEST_CASE("cudaLaunchAttributeCooperative makes a cooperative launch") {
    int device = 0, cooperative = 0;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device) == cudaSuccess);
    REQUIRE(cooperative == 1);
    // As many blocks as the device holds at once, up to 4 (the emulator: one per worker).
    int per_sm = 0, sms = 0;
    REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 32, 0) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
    const int blocks = per_sm * sms < 4 ? per_sm * sms : 4;
    REQUIRE(blocks >= 1);
    int *d_slots, *d_sums;
    REQUIRE(cudaMalloc(&d_slots, blocks * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_sums, blocks * sizeof(int)) == cudaSuccess);
    cudaLaunchAttribute coop = attribute(cudaLaunchAttributeCooperative);
    coop.val.cooperative = 1;
    cudaLaunchConfig_t config = config_of(dim3(blocks), dim3(32), 0, &coop, 1);
    CHECK(cudaLaunchKernelEx(&config, grid_sum, d_slots, d_sums) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<int> sums(blocks);
    REQUIRE(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int b = 0; b < blocks; ++b) CHECK(sums[b] == blocks * (blocks + 1) / 2);
    CHECK(cudaFree(d_slots) == cudaSuccess);
    CHECK(cudaFree(d_sums) == cudaSuccess);
}

TEST_CASE("programmatic dependent launch: the dependent sees the primary's writes; its event completes") {
    const int n = 777;
    int *d_data, *d_out;
    REQUIRE(cudaMalloc(&d_data, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, n * sizeof(int)) == cudaSuccess);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    cudaEvent_t done;
    REQUIRE(cudaEventCreateWithFlags(&done, cudaEventDisableTiming) == cudaSuccess);
    cudaLaunchConfig_t first = config_of(dim3((n + 63) / 64), dim3(64), stream, nullptr, 0);
    REQUIRE(cudaLaunchKernelEx(&first, produce, d_data, n) == cudaSuccess);
    cudaLaunchAttribute attrs[2] = {attribute(cudaLaunchAttributeProgrammaticStreamSerialization),
                                    attribute(cudaLaunchAttributeLaunchCompletionEvent)};
    attrs[0].val.programmaticStreamSerializationAllowed = 1;
    attrs[1].val.launchCompletionEvent.event = done;
    cudaLaunchConfig_t second = config_of(dim3((n + 63) / 64), dim3(64), stream, attrs, 2);
    REQUIRE(cudaLaunchKernelEx(&second, consume, d_data, d_out, n) == cudaSuccess);
    CHECK(cudaEventSynchronize(done) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    std::vector<int> out(n);
    REQUIRE(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(out[i] == 3 * i + 1);
    }
    CHECK(cudaEventDestroy(done) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(cudaFree(d_data) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
}

TEST_CASE("one-block clusters are ordinary launches; larger clusters are refused" *
          doctest::test_suite("emulator-only")) {
    // A GPU of compute capability 9.0 runs the cluster of two; the emulator
    // does not emulate clusters and says so.
    float *d_x, *d_y;
    REQUIRE(cudaMalloc(&d_x, 64 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_y, 64 * sizeof(float)) == cudaSuccess);
    cudaLaunchAttribute cluster = attribute(cudaLaunchAttributeClusterDimension);
    cluster.val.clusterDim.x = cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = config_of(dim3(2), dim3(32), 0, &cluster, 1);
    CHECK(cudaLaunchKernelEx(&config, scale_add, 1.0f, d_x, d_y, 64) == cudaSuccess);
    cluster.val.clusterDim.x = 2;
    CHECK(cudaLaunchKernelEx(&config, scale_add, 1.0f, d_x, d_y, 64) == cudaErrorNotSupported);
    CHECK(cudaGetLastError() == cudaErrorNotSupported);
    cudaLaunchAttribute unknown = attribute(static_cast<cudaLaunchAttributeID>(15));  // none has 15
    config.attrs = &unknown;
    CHECK(cudaLaunchKernelEx(&config, scale_add, 1.0f, d_x, d_y, 64) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaLaunchKernelEx(nullptr, scale_add, 1.0f, d_x, d_y, 64) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaFree(d_x) == cudaSuccess);
    CHECK(cudaFree(d_y) == cudaSuccess);
}

TEST_CASE("a configuration the device cannot run is refused as cudaLaunchKernel refuses it" *
          doctest::test_suite("emulator-only")) {
    // An H200 answered <<<...>>> with cudaErrorInvalidValue; cudaLaunchKernelEx was not measured.
    float* d_y;
    REQUIRE(cudaMalloc(&d_y, 64 * sizeof(float)) == cudaSuccess);
    cudaLaunchConfig_t config = config_of(dim3(1), dim3(2048), 0, nullptr, 0);
    CHECK(cudaLaunchKernelEx(&config, scale_add, 1.0f, d_y, d_y, 64) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaFree(d_y) == cudaSuccess);
}
