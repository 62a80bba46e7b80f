// test_runtime_extra.cu - the runtime API beyond the core (issue 8's "runtime
// breadth"): the macros sample helpers test for, device flags, every device
// attribute, host registration and mapped memory, the typed cudaHostAlloc,
// pitched memory, pointer attributes, stream callbacks, occupancy, kernel
// attributes, limits, one-device peers, cudaLaunchKernel, cooperative launches
// with grid.sync(), and kernel parameters passed as bytes as CUDA passes them.
// Each answer is checked against what CUDA documents (and, where libcudart
// answers without a GPU, against it). Compiled by nvcc too.
#include <cooperative_groups.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <driver_functions.h>
#include <driver_types.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <sm_60_atomic_functions.h>

#include "stderr_capture.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace cg = cooperative_groups;

// ---- the names NVIDIA's sample helpers test for ------------------------------------
#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__)
#error "the guards of cuda_runtime.h and driver_types.h must be defined"
#endif
static_assert(CUDART_VERSION == 13000, "CUDA 13.0's runtime version");

TEST_CASE("sample helpers: compute mode, clock rate, version") {
    int mode = -1, clock_khz = 0, version = 0;
    REQUIRE(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0) == cudaSuccess);
    CHECK(mode != cudaComputeModeProhibited);
    CHECK(mode == cudaComputeModeDefault);
    REQUIRE(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) == cudaSuccess);
    CHECK(clock_khz > 0);
    REQUIRE(cudaRuntimeGetVersion(&version) == cudaSuccess);
    CHECK(version == CUDART_VERSION);
    CHECK(cudaProfilerStart() == cudaSuccess);
    CHECK(cudaProfilerStop() == cudaSuccess);
}

// ---- NVTX: annotations no tool reads ----------------------------------------------------
// Without a profiler attached (always, on the emulator; on a GPU, a run without
// Nsight), NVTX calls do nothing and say so with NVTX's "no tool" values.
TEST_CASE("NVTX ranges, marks and names build and answer as without a tool") {
    nvtxEventAttributes_t attributes = {};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.colorType = NVTX_COLOR_ARGB;
    attributes.color = 0xff00ff00u;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = "step";
    attributes.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    attributes.payload.dValue = 0.5;
    CHECK(attributes.size == sizeof(nvtxEventAttributes_t));
    CHECK(nvtxRangePushA("forward") == NVTX_NO_PUSH_POP_TRACKING);
    CHECK(nvtxRangePushEx(&attributes) == NVTX_NO_PUSH_POP_TRACKING);
    CHECK(nvtxRangePop() == NVTX_NO_PUSH_POP_TRACKING);
    CHECK(nvtxRangePop() == NVTX_NO_PUSH_POP_TRACKING);
    nvtxMarkA("here");
    const nvtxRangeId_t range = nvtxRangeStartA("copy");
    CHECK(range == 0);
    nvtxRangeEnd(range);
    nvtxDomainHandle_t domain = nvtxDomainCreateA("tutorial");
    CHECK(domain == nullptr);
    CHECK(nvtxDomainRangePushEx(domain, &attributes) == NVTX_NO_PUSH_POP_TRACKING);
    CHECK(nvtxDomainRangePop(domain) == NVTX_NO_PUSH_POP_TRACKING);
    nvtxDomainDestroy(domain);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    nvtxNameCudaStreamA(stream, "copies");
    nvtxNameCudaDeviceA(0, "the device");
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    // The toolkit's umbrella headers included above (driver_functions.h and
    // friends) bring what they have in CUDA.
    const cudaExtent extent = make_cudaExtent(4, 2, 1);
    CHECK(extent.width * extent.height * extent.depth == 8);
}

// ---- every device attribute ---------------------------------------------------------
// The numbers CUDA 13.0's cudaDeviceAttr leaves out; every other one from 1
// to 147 is an attribute and must be answered.
TEST_CASE("every cudaDeviceGetAttribute is answered, consistently with cudaGetDeviceProperties") {
    // Every number from 1 to 147, those the runtime's enum skips (44, 102 to
    // 105, 107, 110, 136, 137, 146: the driver's) too, and no other (measured
    // on an H200, CUDA 13.0).
    for (int n = 0; n <= 148; ++n) {
        int value = 0;
        const cudaError_t e = cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(n), 0);
        CAPTURE(n);
        CHECK(e == (n == 0 || n == 148 ? cudaErrorInvalidValue : cudaSuccess));
    }
    (void)cudaGetLastError();
    cudaDeviceProp p;
    REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
    auto attr = [](cudaDeviceAttr a) {
        int v = -12345;
        REQUIRE(cudaDeviceGetAttribute(&v, a, 0) == cudaSuccess);
        return v;
    };
    CHECK(attr(cudaDevAttrMaxThreadsPerBlock) == p.maxThreadsPerBlock);
    CHECK(attr(cudaDevAttrMaxBlockDimZ) == p.maxThreadsDim[2]);
    CHECK(attr(cudaDevAttrMaxGridDimY) == p.maxGridSize[1]);
    CHECK(attr(cudaDevAttrMultiProcessorCount) == p.multiProcessorCount);
    CHECK(attr(cudaDevAttrCanMapHostMemory) == p.canMapHostMemory);
    CHECK(attr(cudaDevAttrL2CacheSize) == p.l2CacheSize);
    CHECK(attr(cudaDevAttrMaxRegistersPerMultiprocessor) == p.regsPerMultiprocessor);
    CHECK(attr(cudaDevAttrCooperativeLaunch) == p.cooperativeLaunch);
    CHECK(attr(cudaDevAttrMaxBlocksPerMultiprocessor) == p.maxBlocksPerMultiProcessor);
    CHECK(attr(cudaDevAttrMaxSharedMemoryPerBlockOptin) == static_cast<int>(p.sharedMemPerBlockOptin));
    CHECK(attr(cudaDevAttrHostRegisterSupported) == p.hostRegisterSupported);
    CHECK(attr(cudaDevAttrComputeCapabilityMajor) * 10 + attr(cudaDevAttrComputeCapabilityMinor) ==
          p.major * 10 + p.minor);
}

// ---- device flags -------------------------------------------------------------------
TEST_CASE("cudaSetDeviceFlags and cudaGetDeviceFlags") {
    REQUIRE(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost) == cudaSuccess);
    unsigned int flags = 0;
    REQUIRE(cudaGetDeviceFlags(&flags) == cudaSuccess);
    CHECK((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync);
    CHECK((flags & cudaDeviceMapHost) != 0);
    CHECK(cudaSetDeviceFlags(0x100) == cudaErrorInvalidValue);
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    REQUIRE(cudaSetDeviceFlags(cudaDeviceScheduleAuto) == cudaSuccess);
}

// ---- host memory the device may use -------------------------------------------------
__global__ void add_one(int* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

TEST_CASE("cudaHostRegister: a kernel uses registered host memory through its device pointer") {
    std::vector<int> host(1000, 41);
    REQUIRE(cudaHostRegister(host.data(), host.size() * sizeof(int), cudaHostRegisterMapped) ==
            cudaSuccess);
    CHECK(cudaHostRegister(host.data(), 4, cudaHostRegisterDefault) ==
          cudaErrorHostMemoryAlreadyRegistered);
    (void)cudaGetLastError();
    int* device_view = nullptr;
    REQUIRE(cudaHostGetDevicePointer(&device_view, host.data(), 0) == cudaSuccess);
    add_one<<<4, 256>>>(device_view, 1000);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(host[0] == 42);
    CHECK(host[999] == 42);
    cudaPointerAttributes a;
    REQUIRE(cudaPointerGetAttributes(&a, host.data() + 10) == cudaSuccess);
    CHECK(a.type == cudaMemoryTypeHost);
    REQUIRE(cudaHostUnregister(host.data()) == cudaSuccess);
    CHECK(cudaHostUnregister(host.data()) == cudaErrorHostMemoryNotRegistered);
    CHECK(cudaHostGetDevicePointer(&device_view, host.data(), 0) == cudaErrorInvalidValue);
    CHECK(cudaHostRegister(nullptr, 16, 0) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

TEST_CASE("typed cudaHostAlloc with its flags, zero-copy in a kernel") {
    int* mapped = nullptr;
    REQUIRE(cudaHostAlloc(&mapped, 300 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable) ==
            cudaSuccess);
    unsigned int flags = 0;
    REQUIRE(cudaHostGetFlags(&flags, mapped) == cudaSuccess);
    CHECK(flags == (cudaHostAllocMapped | cudaHostAllocPortable));
    for (int i = 0; i < 300; ++i) mapped[i] = i;
    int* device_view = nullptr;
    REQUIRE(cudaHostGetDevicePointer(&device_view, mapped, 0) == cudaSuccess);
    add_one<<<2, 256>>>(device_view, 300);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(mapped[299] == 300);
    CHECK(cudaHostAlloc(&mapped, 16, 0x80) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    REQUIRE(cudaFreeHost(mapped) == cudaSuccess);
}

TEST_CASE("cudaPointerGetAttributes tells device, managed, pinned and pageable memory apart") {
    float *device = nullptr, *managed = nullptr, *pinned = nullptr;
    REQUIRE(cudaMalloc(&device, 64) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&managed, 64) == cudaSuccess);
    REQUIRE(cudaMallocHost(&pinned, 64) == cudaSuccess);
    float pageable[4];
    cudaPointerAttributes a;
    REQUIRE(cudaPointerGetAttributes(&a, device + 3) == cudaSuccess);
    CHECK(a.type == cudaMemoryTypeDevice);
    CHECK(a.device == 0);
    CHECK(a.devicePointer == device + 3);
    REQUIRE(cudaPointerGetAttributes(&a, managed) == cudaSuccess);
    CHECK(a.type == cudaMemoryTypeManaged);
    REQUIRE(cudaPointerGetAttributes(&a, pinned) == cudaSuccess);
    CHECK(a.type == cudaMemoryTypeHost);
    CHECK(a.hostPointer == pinned);
    REQUIRE(cudaPointerGetAttributes(&a, pageable) == cudaSuccess);
    CHECK(a.type == cudaMemoryTypeUnregistered);
    CHECK(cudaFree(device) == cudaSuccess);
    CHECK(cudaFree(managed) == cudaSuccess);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
}

// ---- pitched memory ---------------------------------------------------------------------
__global__ void scale_rows(float* rows, size_t pitch, int width, int height, float factor) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < width && y < height) {
        float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(rows) + y * pitch);
        row[x] *= factor;
    }
}

TEST_CASE("cudaMallocPitch, cudaMemcpy2D, cudaMemset2D") {
    const int width = 100, height = 37;
    std::vector<float> host(width * height);
    for (int i = 0; i < width * height; ++i) host[i] = static_cast<float>(i);
    float* rows = nullptr;
    size_t pitch = 0;
    REQUIRE(cudaMallocPitch(&rows, &pitch, width * sizeof(float), height) == cudaSuccess);
    CHECK(pitch >= width * sizeof(float));
    REQUIRE(cudaMemcpy2D(rows, pitch, host.data(), width * sizeof(float), width * sizeof(float),
                         height, cudaMemcpyHostToDevice) == cudaSuccess);
    scale_rows<<<dim3(1, height), 128>>>(rows, pitch, width, height, 2.0f);
    std::vector<float> back(width * height);
    REQUIRE(cudaMemcpy2D(back.data(), width * sizeof(float), rows, pitch, width * sizeof(float),
                         height, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < width * height; i += 97) CHECK(back[i] == 2.0f * host[i]);
    REQUIRE(cudaMemset2D(rows, pitch, 0, width * sizeof(float), height) == cudaSuccess);
    REQUIRE(cudaMemcpy2D(back.data(), width * sizeof(float), rows, pitch, width * sizeof(float),
                         height, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(back[width * height - 1] == 0.0f);
    // A row wider than the pitch, and a rectangle past the allocation.
    CHECK(cudaMemcpy2D(rows, 8, host.data(), 8, 16, 2, cudaMemcpyHostToDevice) ==
          cudaErrorInvalidPitchValue);
    CHECK(cudaMemcpy2D(rows, pitch, host.data(), 4, 4, height + 1, cudaMemcpyHostToDevice) ==
          cudaErrorInvalidValue);
    (void)cudaGetLastError();
    CHECK(cudaFree(rows) == cudaSuccess);
}

// A 2D copy is one piece of work, as on a GPU: one node when captured, one
// wait for pageable host memory (cublasSetVector with increments of 1 is a
// 2D copy of n one-element rows: one queued copy per row, each waited for,
// took minutes for 500,000 floats). A 2D fill likewise.
TEST_CASE("cudaMemcpy2DAsync and cudaMemset2DAsync: one node each in a capture, pitched or not") {
    const int width = 4, height = 4000;
    std::vector<float> host(height);
    for (int i = 0; i < height; ++i) host[i] = static_cast<float>(3 * i + 1);
    float *from = nullptr, *to = nullptr, *pitched = nullptr;
    size_t pitch = 0;
    REQUIRE(cudaMalloc(&from, height * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&to, height * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMallocPitch(&pitched, &pitch, width, height) == cudaSuccess);
    REQUIRE(pitch > size_t(width));
    REQUIRE(cudaMemcpy(from, host.data(), height * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(cudaMemset2DAsync(to, width, 0, width, height, stream) == cudaSuccess);
    REQUIRE(cudaMemset2DAsync(pitched, pitch, 0xff, width, height, stream) == cudaSuccess);
    REQUIRE(cudaMemcpy2DAsync(pitched, pitch, from, width, width, height, cudaMemcpyDeviceToDevice, stream) ==
            cudaSuccess);
    REQUIRE(cudaMemcpy2DAsync(to, width, pitched, pitch, width, height, cudaMemcpyDeviceToDevice, stream) ==
            cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    size_t nodes = 0;
    REQUIRE(cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess);
    CHECK(nodes == 4);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    std::vector<float> back(height, -1.0f);
    REQUIRE(cudaMemcpy(back.data(), to, height * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(back == host);
    // Pageable host memory, rows pitch bytes apart on the host: the call
    // returns with the copy done.
    std::vector<char> host_rows(pitch * height, 0);
    REQUIRE(cudaMemcpy2DAsync(host_rows.data(), pitch, pitched, pitch, width, height, cudaMemcpyDeviceToHost,
                              stream) == cudaSuccess);
    for (int i = 0; i < height; i += 37) {
        float value;
        std::memcpy(&value, host_rows.data() + i * pitch, sizeof value);
        CHECK(value == host[i]);
    }
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(cudaFree(from) == cudaSuccess);
    CHECK(cudaFree(to) == cudaSuccess);
    CHECK(cudaFree(pitched) == cudaSuccess);
}

// ---- streams: callbacks and priorities ---------------------------------------------------
struct callback_log {
    std::vector<int> order;
    cudaError_t status = cudaErrorUnknown;
};
void CUDART_CB note_callback(cudaStream_t, cudaError_t status, void* user_data) {
    auto* log = static_cast<callback_log*>(user_data);
    log->status = status;
    log->order.push_back(2);
}
void CUDART_CB note_host_func(void* user_data) { static_cast<callback_log*>(user_data)->order.push_back(3); }

TEST_CASE("cudaStreamAddCallback runs after the work before it, in stream order") {
    cudaStream_t stream;
    int least = -1, greatest = -1;
    REQUIRE(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest) == cudaSuccess);
    int priority = 99;
    REQUIRE(cudaStreamGetPriority(stream, &priority) == cudaSuccess);
    CHECK(priority >= greatest);
    CHECK(priority <= least);
    int* data = nullptr;
    REQUIRE(cudaMallocManaged(&data, sizeof(int)) == cudaSuccess);
    *data = 0;
    callback_log log;
    add_one<<<1, 1, 0, stream>>>(data, 1);
    REQUIRE(cudaStreamAddCallback(stream, note_callback, &log, 0) == cudaSuccess);
    REQUIRE(cudaLaunchHostFunc(stream, note_host_func, &log) == cudaSuccess);
    CHECK(cudaStreamAddCallback(stream, note_callback, &log, 1) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(*data == 1);
    CHECK(log.order == std::vector<int>{2, 3});
    CHECK(log.status == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(cudaFree(data) == cudaSuccess);
}

// ---- occupancy, kernel attributes, limits ------------------------------------------------
__global__ void plain_kernel(float* out) { out[threadIdx.x] = 1.0f; }

TEST_CASE("occupancy answers follow the device's properties") {
    cudaDeviceProp p;
    REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
    int blocks = -1;
    REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain_kernel, 256, 0) == cudaSuccess);
    CHECK(blocks >= 1);
    CHECK(blocks <= p.maxBlocksPerMultiProcessor);
    CHECK(blocks * 256 <= p.maxThreadsPerMultiProcessor);
    REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain_kernel, 256,
                                                          p.sharedMemPerBlockOptin + 1) == cudaSuccess);
    CHECK(blocks == 0);
    int min_grid = 0, block = 0;
    REQUIRE(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, plain_kernel) == cudaSuccess);
    CHECK(block > 0);
    CHECK(block <= p.maxThreadsPerBlock);
    CHECK(block % p.warpSize == 0);
    REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain_kernel, block, 0) == cudaSuccess);
    CHECK(min_grid == blocks * p.multiProcessorCount);
    REQUIRE(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, plain_kernel, 0, 100) == cudaSuccess);
    CHECK(block <= 100);
}

// __launch_bounds__(128): at most 128 threads a block, which a GPU enforces at
// the launch (cudaErrorInvalidValue under CUDA 13, docs/gpu-runs/) and reports
// as the kernel's maxThreadsPerBlock.
__global__ void __launch_bounds__(128) bounded_kernel(float* out) { out[threadIdx.x] = 1.0f; }

TEST_CASE("__launch_bounds__ caps a kernel's blocks, as on a GPU") {
    cudaFuncAttributes a;
    REQUIRE(cudaFuncGetAttributes(&a, bounded_kernel) == cudaSuccess);
    CHECK(a.maxThreadsPerBlock == 128);
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 256 * sizeof(float)) == cudaSuccess);
    bounded_kernel<<<1, 128>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess);
    bounded_kernel<<<1, dim3(16, 9)>>>(d);  // 144 threads
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
}

// A launch whose arguments convert to the kernel's parameters (a float* for a
// const float*, an int for a long, as NVIDIA's immaTensorCoreGemm passes a
// uint8_t* for a const uint8_t*) is still a launch of that kernel: its
// __launch_bounds__ and its opt-in to more dynamic shared memory apply.
__global__ void __launch_bounds__(128) bounded_const_kernel(const float* in, float* out, long n) {
    if (threadIdx.x < n) out[threadIdx.x] = in[threadIdx.x] + 1.0f;
}
__global__ void opted_in_kernel(const float* in, float* out) {
    extern __shared__ float big[];
    big[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = 2.0f * big[31 - threadIdx.x];
}

TEST_CASE("a launch whose arguments convert to the parameters keeps the kernel's limits and opt-in") {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 256 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, 256 * sizeof(float)) == cudaSuccess);
    bounded_const_kernel<<<1, 128>>>(d, d + 128, 3);
    CHECK(cudaGetLastError() == cudaSuccess);
    bounded_const_kernel<<<1, dim3(16, 9)>>>(d, d + 128, 3);  // 144 threads
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    int optin = 0;
    REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
    REQUIRE(optin > 48 * 1024);
    REQUIRE(cudaFuncSetAttribute(opted_in_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) ==
            cudaSuccess);
    opted_in_kernel<<<1, 32, optin>>>(d, d + 128);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
}

// Host code may name its own variables and parameters threadIdx, blockIdx,
// blockDim and gridDim, which nvcc's host compilation only knows as
// declarations (immaTensorCoreGemm: `dim3 gridDim; dim3 blockDim;` in main);
// device code still reads the built-ins.
__global__ void record_shape(unsigned* out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = gridDim.x;
        out[1] = blockDim.x;
    }
}

static void launch_shaped(dim3 gridDim, dim3 blockDim, unsigned* out) { record_shape<<<gridDim, blockDim>>>(out); }

TEST_CASE("host variables and parameters named gridDim and blockDim") {
    unsigned* d = nullptr;
    REQUIRE(cudaMalloc(&d, 2 * sizeof(unsigned)) == cudaSuccess);
    dim3 gridDim;
    dim3 blockDim;
    blockDim.x = 64;
    gridDim.x = 3;
    record_shape<<<gridDim, blockDim>>>(d);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    unsigned shape[2];
    REQUIRE(cudaMemcpy(shape, d, sizeof shape, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(shape[0] == 3u);
    CHECK(shape[1] == 64u);
    launch_shaped(dim3(5), dim3(32), d);
    REQUIRE(cudaMemcpy(shape, d, sizeof shape, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(shape[0] == 5u);
    CHECK(shape[1] == 32u);
    CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("cudaFuncGetAttributes, cudaFuncSetAttribute, cache configs and limits") {
    cudaFuncAttributes a;
    REQUIRE(cudaFuncGetAttributes(&a, plain_kernel) == cudaSuccess);
    CHECK(a.maxThreadsPerBlock >= 1);
    CHECK(a.maxThreadsPerBlock <= 1024);
    int optin = 0;
    REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
    CHECK(cudaFuncSetAttribute(plain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) ==
          cudaSuccess);
    CHECK(cudaFuncSetAttribute(plain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1) ==
          cudaErrorInvalidValue);
    (void)cudaGetLastError();
    CHECK(cudaFuncSetCacheConfig(plain_kernel, cudaFuncCachePreferShared) == cudaSuccess);
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1) == cudaSuccess);
    cudaFuncCache cache;
    REQUIRE(cudaDeviceGetCacheConfig(&cache) == cudaSuccess);
    CHECK(cache == cudaFuncCachePreferL1);
    size_t fifo = 0;
    REQUIRE(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20) == cudaSuccess);
    REQUIRE(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize) == cudaSuccess);
    CHECK(fifo == size_t(4) << 20);
    // Limits 7 and 8 are the driver's CU_LIMIT_SHMEM_SIZE and
    // CU_LIMIT_CIG_ENABLED, which the runtime's enum lacks; 10 is past the
    // driver's last (all measured on an H200, CUDA 13.0).
    size_t shared = 0, cig = 1;
    CHECK(cudaDeviceGetLimit(&shared, static_cast<cudaLimit>(7)) == cudaSuccess);
    CHECK(shared == size_t(optin));  // as the block's opt-in maximum is on an H200
    CHECK(cudaDeviceGetLimit(&cig, static_cast<cudaLimit>(8)) == cudaSuccess);
    CHECK(cig == 0);
    CHECK(cudaDeviceGetLimit(&fifo, static_cast<cudaLimit>(9)) == cudaErrorUnsupportedLimit);
    CHECK(cudaDeviceGetLimit(&fifo, static_cast<cudaLimit>(10)) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
}

TEST_CASE("a device by PCI bus id, cudaInitDevice, cudaSetValidDevices, stream ids") {
    char id[16] = {};
    REQUIRE(cudaDeviceGetPCIBusId(id, sizeof id, 0) == cudaSuccess);
    int device = -1;
    REQUIRE(cudaDeviceGetByPCIBusId(&device, id) == cudaSuccess);
    CHECK(device == 0);
    CHECK(cudaDeviceGetByPCIBusId(&device, "not a bus id") != cudaSuccess);
    CHECK(cudaDeviceGetPCIBusId(id, sizeof id, 99) == cudaErrorInvalidDevice);
    CHECK(cudaInitDevice(99, 0, 0) == cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    CHECK(cudaInitDevice(0, 0, 0) == cudaSuccess);
    int valid[1] = {0};
    CHECK(cudaSetValidDevices(valid, 1) == cudaSuccess);
    int invalid[1] = {99};
    CHECK(cudaSetValidDevices(invalid, 1) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);

    // A stream's id is its own and stays the same.
    cudaStream_t first = nullptr, second = nullptr;
    REQUIRE(cudaStreamCreate(&first) == cudaSuccess);
    REQUIRE(cudaStreamCreate(&second) == cudaSuccess);
    unsigned long long id_first = 0, id_second = 0, id_again = 0, id_default = 0;
    REQUIRE(cudaStreamGetId(first, &id_first) == cudaSuccess);
    REQUIRE(cudaStreamGetId(second, &id_second) == cudaSuccess);
    REQUIRE(cudaStreamGetId(first, &id_again) == cudaSuccess);
    REQUIRE(cudaStreamGetId(0, &id_default) == cudaSuccess);
    CHECK(id_first != id_second);
    CHECK(id_first == id_again);
    CHECK(id_default != id_first);
    CHECK(id_default != id_second);
    CHECK(cudaStreamDestroy(first) == cudaSuccess);
    CHECK(cudaStreamDestroy(second) == cudaSuccess);
}

TEST_CASE("one device: no peers, cudaMemcpyPeer copies within it") {
    int can = -1;
    REQUIRE(cudaDeviceCanAccessPeer(&can, 0, 0) == cudaSuccess);
    CHECK(can == 0);
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaErrorInvalidDevice);
    // A device is not its own peer (measured on an H200, CUDA 13.0).
    CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorPeerAccessUnsupported);
    CHECK(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled);
    (void)cudaGetLastError();
    int *a = nullptr, *b = nullptr, v = 7, w = 0;
    REQUIRE(cudaMalloc(&a, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&b, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemcpy(a, &v, sizeof v, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpyPeer(b, 0, a, 0, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemcpy(&w, b, sizeof w, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(w == 7);
    CHECK(cudaMemcpyPeer(b, 1, a, 0, sizeof(int)) == cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    CHECK(cudaFree(a) == cudaSuccess);
    CHECK(cudaFree(b) == cudaSuccess);
}

// ---- kernel parameters as CUDA passes them -------------------------------------------------
// An RAII wrapper: owns device memory, frees it in its destructor; its copies
// (the ones a launch makes) do not own. CUDA copies a kernel's parameters as
// bytes: no constructor and no destructor runs on the device, and the host's
// copies are destroyed on the host.
std::atomic<int> wrapper_copies{0}, wrapper_destructions{0}, destructions_off_host{0};
std::thread::id host_thread;

struct owning_buffer {
    int* data = nullptr;
    int n = 0;
    bool owner = true;
    explicit owning_buffer(int count) : n(count) { cudaMalloc(&data, n * sizeof(int)); }
    owning_buffer(const owning_buffer& o) : data(o.data), n(o.n), owner(false) { ++wrapper_copies; }
    owning_buffer& operator=(const owning_buffer&) = delete;
    ~owning_buffer() {
        ++wrapper_destructions;
        if (std::this_thread::get_id() != host_thread) ++destructions_off_host;
        if (owner) cudaFree(data);
    }
};

__global__ void fill_owned(owning_buffer buffer, int value) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < buffer.n) buffer.data[i] = value + (buffer.owner ? 1000 : 0);
}

TEST_CASE("a by-value argument with a destructor: copied as bytes, destroyed on the host only") {
    host_thread = std::this_thread::get_id();
    std::vector<int> back(2000);
    {
        owning_buffer buffer(2000);
        wrapper_copies = 0;
        wrapper_destructions = 0;
        fill_owned<<<8, 256>>>(buffer, 5);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        // nvcc's launch stub copies the argument "one or more times" on the
        // host; 2048 CUDA threads must not each copy and destroy it.
        CHECK(wrapper_copies >= 1);
        CHECK(wrapper_copies <= 4);
        CHECK(wrapper_destructions == wrapper_copies);
        CHECK(destructions_off_host == 0);
        REQUIRE(cudaMemcpy(back.data(), buffer.data, back.size() * sizeof(int),
                           cudaMemcpyDeviceToHost) == cudaSuccess);
    }
    // The kernel saw the bytes of a host copy (owner == false), never a
    // constructor of its own.
    CHECK(back[0] == 5);
    CHECK(back[1999] == 5);
    CHECK(destructions_off_host == 0);
}

// A functor with no default constructor (like a lambda), passed by value.
struct times {
    int factor;
    explicit times(int f) : factor(f) {}
    __device__ int operator()(int x) const { return x * factor; }
};
template <class F>
__global__ void apply_functor(F f, int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(i);
}

TEST_CASE("a by-value argument without a default constructor") {
    int* out = nullptr;
    REQUIRE(cudaMallocManaged(&out, 100 * sizeof(int)) == cudaSuccess);
    apply_functor<<<1, 128>>>(times(3), out, 100);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(out[99] == 297);
    CHECK(cudaFree(out) == cudaSuccess);
}

// ---- launches without <<<...>>> -------------------------------------------------------------
__global__ void axpy(float a, const float* x, float* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

TEST_CASE("cudaLaunchKernel with void** arguments, and its launch errors") {
    const int n = 1000;
    float *x = nullptr, *y = nullptr;
    REQUIRE(cudaMallocManaged(&x, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&y, n * sizeof(float)) == cudaSuccess);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
    float a = 2.0f;
    const float* cx = x;
    int count = n;
    void* args[] = {&a, &cx, &y, &count};
    REQUIRE(cudaLaunchKernel(axpy, dim3((n + 127) / 128), dim3(128), args, 0, 0) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(y[999] == 1.0f + 2.0f * 999.0f);
    CHECK(cudaLaunchKernel(axpy, dim3(1), dim3(2048), args, 0, 0) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaFree(x) == cudaSuccess);
    CHECK(cudaFree(y) == cudaSuccess);
}

// NVIDIA's samples launch through the C API's void*: the kernel is found by
// its address, its arguments read with its own parameter types.
template <class T>
__global__ void scale_template(T* data, T factor, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}

TEST_CASE("cudaLaunchKernel((void*)kernel, ...) finds the kernel by its address") {
    const int n = 300;
    float *x = nullptr, *y = nullptr;
    REQUIRE(cudaMallocManaged(&x, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&y, n * sizeof(float)) == cudaSuccess);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 0.5f;
    float a = 3.0f;
    const float* cx = x;
    int count = n;
    void* args[] = {&a, &cx, &y, &count};
    REQUIRE(cudaLaunchKernel((const void*)axpy, dim3(3), dim3(128), args, 0, 0) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (int i : {0, 1, 127, 128, 299}) CHECK(y[i] == 0.5f + 3.0f * static_cast<float>(i));
    // A launch error is the call's own, and recorded, as with the typed form.
    CHECK(cudaLaunchKernel((void*)axpy, dim3(1), dim3(2048), args, 0, 0) ==
          cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    SUBCASE("a template kernel's instantiation, and an address that is no kernel") {
        // An instantiation runs as any kernel; a host function's address is
        // cudaErrorInvalidResourceHandle (both measured on an H200, CUDA 13.0).
        float factor = 2.0f;
        void* scale_args[] = {&y, &factor, &count};
        REQUIRE(cudaLaunchKernel((const void*)scale_template<float>, dim3(3), dim3(128), scale_args, 0, 0) ==
                cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(y[1] == 7.0f);
        CHECK(y[299] == 2.0f * (0.5f + 3.0f * 299.0f));
        stderr_capture capture;
        const cudaError_t host = cudaLaunchKernel((const void*)&std::strlen, dim3(1), dim3(32), args, 0, 0);
        const std::string said = capture.finish();
        CHECK(host == cudaErrorInvalidResourceHandle);
        CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
#if defined(CUEMU)
        CHECK(said.find("cudaLaunchKernel: ") != std::string::npos);
        CHECK(said.find("is no kernel the emulator knows by its address") != std::string::npos);
#endif
        // Refused before anything ran: y is as the launches left it.
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(y[1] == 7.0f);
    }
    CHECK(cudaFree(x) == cudaSuccess);
    CHECK(cudaFree(y) == cudaSuccess);
}

// nvcc's version macros, and a __grid_constant__ parameter (CUDA 11.7+).
static_assert(__CUDACC_VER_MAJOR__ == 13 && __CUDACC_VER_MINOR__ >= 0, "nvcc 13's version macros");
#ifdef CUEMU
// The values cuemu-rewrite decides file-scope #if with (add_predefined in
// common/emu/rewriter/conditionals.cpp) must be those the compiler sees.
static_assert(__CUDACC_VER_MAJOR__ == 13 && __CUDACC_VER_MINOR__ == 0 && __CUDACC_VER_BUILD__ == 88 &&
                  CUDART_VERSION == 13000,
              "cuemu/cuemu.h and the rewriter's predefined macros disagree");
#endif
struct scale_params {
    float factor;
    int n;
};
__global__ void scale_by_params(const __grid_constant__ scale_params params, float* data) {
    const scale_params* p = &params;  // its address may be taken
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p->n) data[i] *= p->factor;
}

TEST_CASE("a __grid_constant__ parameter") {
    float* data = nullptr;
    REQUIRE(cudaMallocManaged(&data, 70 * sizeof(float)) == cudaSuccess);
    for (int i = 0; i < 70; ++i) data[i] = static_cast<float>(i);
    scale_by_params<<<3, 32>>>(scale_params{-2.0f, 65}, data);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(data[64] == -128.0f);
    CHECK(data[65] == 65.0f);
    CHECK(cudaFree(data) == cudaSuccess);
}

// ---- stream-ordered allocation and memory pools ----------------------------------------------
__global__ void fill_index(int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * 3;
}

std::uint64_t pool_bytes(cudaMemPool_t pool, cudaMemPoolAttr attr) {
    std::uint64_t value = 12345;
    REQUIRE(cudaMemPoolGetAttribute(pool, attr, &value) == cudaSuccess);
    return value;
}

TEST_CASE("cudaMallocAsync and cudaFreeAsync: stream order, and the pool's counts") {
    int supported = 0;
    REQUIRE(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess);
    CHECK(supported == 1);
    cudaMemPool_t pool = nullptr, current = nullptr;
    REQUIRE(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess);
    REQUIRE(cudaDeviceGetMemPool(&current, 0) == cudaSuccess);
    CHECK(pool == current);
    const std::uint64_t before = pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    const int n = 1000;
    int* d = nullptr;
    REQUIRE(cudaMallocAsync(&d, n * sizeof(int), stream) == cudaSuccess);
    REQUIRE(d != nullptr);
    CHECK(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent) == before + n * sizeof(int));
    // The pool reserves 32 MiB at a time (measured on an H200, CUDA 13.0).
    CHECK(pool_bytes(pool, cudaMemPoolAttrReservedMemCurrent) == (std::uint64_t(32) << 20));
    cudaPointerAttributes attributes;
    REQUIRE(cudaPointerGetAttributes(&attributes, d) == cudaSuccess);
    CHECK(attributes.type == cudaMemoryTypeDevice);
    fill_index<<<(n + 127) / 128, 128, 0, stream>>>(d, n);
    std::vector<int> host(n, -1);
    REQUIRE(cudaMemcpyAsync(host.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
    REQUIRE(cudaFreeAsync(d, stream) == cudaSuccess);
    {
        // A second free of the same buffer, queued before the first ran or after: refused.
        stderr_capture capture;
        CHECK(cudaFreeAsync(d, stream) == cudaErrorInvalidValue);
        CHECK(cudaGetLastError() == cudaErrorInvalidValue);
        const std::string said = capture.finish();
#ifdef CUEMU  // the emulator's line; CUDA prints none
        CHECK(said.find("cudaFreeAsync") != std::string::npos);
#endif
    }
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    for (int i : {0, 1, 500, 999}) CHECK(host[i] == 3 * i);
    CHECK(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent) == before);
    // The synchronization gave back what is not used (the release threshold
    // is 0): with nothing used, all of it (measured on an H200, CUDA 13.0).
    if (before == 0) CHECK(pool_bytes(pool, cudaMemPoolAttrReservedMemCurrent) == 0);
    CHECK(pool_bytes(pool, cudaMemPoolAttrUsedMemHigh) >= before + n * sizeof(int));

    SUBCASE("cudaFree of stream-ordered memory, and the high mark reset") {
        void* p = nullptr;
        REQUIRE(cudaMallocAsync(&p, 256, 0) == cudaSuccess);
        CHECK(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent) == before + 256);
        // cudaFree leaves the bytes in the pool's used count (measured on an
        // H200, CUDA 13.0: they stayed there to the end of the process).
        REQUIRE(cudaFree(p) == cudaSuccess);
        CHECK(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent) == before + 256);
        std::uint64_t zero = 0, nonzero = 7;
        CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero) == cudaSuccess);
        CHECK(pool_bytes(pool, cudaMemPoolAttrUsedMemHigh) == before + 256);
        CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &nonzero) == cudaErrorInvalidValue);
        CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &zero) == cudaErrorInvalidValue);
        (void)cudaGetLastError();
    }
    SUBCASE("a pool of the program's own, made current, destroyed with memory still out") {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        cudaMemPool_t mine = nullptr;
        REQUIRE(cudaMemPoolCreate(&mine, &props) == cudaSuccess);
        std::uint64_t threshold = UINT64_MAX;
        REQUIRE(cudaMemPoolSetAttribute(mine, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess);
        CHECK(pool_bytes(mine, cudaMemPoolAttrReleaseThreshold) == UINT64_MAX);
        float* f = nullptr;
        REQUIRE(cudaMallocAsync(&f, 64 * sizeof(float), mine, stream) == cudaSuccess);  // C++ API: from a pool
        CHECK(pool_bytes(mine, cudaMemPoolAttrUsedMemCurrent) == 64 * sizeof(float));
        CHECK(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent) == before);
        REQUIRE(cudaDeviceSetMemPool(0, mine) == cudaSuccess);
        void* g = nullptr;
        REQUIRE(cudaMallocAsync(&g, 32, stream) == cudaSuccess);  // from the current pool: mine
        CHECK(pool_bytes(mine, cudaMemPoolAttrUsedMemCurrent) == 64 * sizeof(float) + 32);
        cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
        cudaMemLocation here = {cudaMemLocationTypeDevice, 0};
        CHECK(cudaMemPoolGetAccess(&flags, mine, &here) == cudaSuccess);
        CHECK(flags == cudaMemAccessFlagsProtReadWrite);
        CHECK(cudaMemPoolTrimTo(mine, 0) == cudaSuccess);
        REQUIRE(cudaMemPoolDestroy(mine) == cudaSuccess);
        REQUIRE(cudaDeviceGetMemPool(&current, 0) == cudaSuccess);
        CHECK(current == pool);  // the default pool is current again
        fill_index<<<1, 64, 0, stream>>>(reinterpret_cast<int*>(f), 64);  // still valid memory
        REQUIRE(cudaFreeAsync(f, stream) == cudaSuccess);
        REQUIRE(cudaFreeAsync(g, stream) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        CHECK(cudaMemPoolDestroy(pool) == cudaErrorInvalidValue);  // a default pool stays
        (void)cudaGetLastError();
    }
    SUBCASE("what a pool refuses") {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeInvalid;
        cudaMemPool_t bad = nullptr;
        CHECK(cudaMemPoolCreate(&bad, &props) == cudaErrorInvalidValue);
#if defined(CUEMU)
        // A pool of host memory: CUDA 13 makes one (an H200 did); not emulated.
        props.location.type = cudaMemLocationTypeHost;
        CHECK(cudaMemPoolCreate(&bad, &props) == cudaErrorNotSupported);
#endif
        CHECK(cudaMallocAsync(nullptr, 16, stream) == cudaErrorInvalidValue);
        int value = 0;
        CHECK(cudaMemPoolGetAttribute(nullptr, cudaMemPoolAttrUsedMemCurrent, &value) == cudaErrorInvalidValue);
        (void)cudaGetLastError();
    }
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

// The stream reaches the free before the kernel that still reads the buffer.
// Emulator-only: on an H200 the kernel read the freed memory without a fault.
TEST_CASE("process: a kernel after cudaFreeAsync uses freed memory" * doctest::test_suite("emulator-only")) {
    int* d = nullptr;
    REQUIRE(cudaMallocAsync(&d, 64 * sizeof(int), 0) == cudaSuccess);
    REQUIRE(cudaFreeAsync(d, 0) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    fill_index<<<1, 64>>>(d, 64);
    const std::string report = capture.finish();
    CHECK(report.find("cudaFreeAsync") != std::string::npos);
    check_sticky(cudaErrorIllegalAddress);
}

// ---- cooperative launches ---------------------------------------------------------------------
// Each block sums its part; after grid.sync() block 0 adds the partial sums.
__global__ void grid_sum(const int* in, int n, int* partial, int* total) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int block_sum;
    if (block.thread_rank() == 0) block_sum = 0;
    block.sync();
    for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n);
         i += grid.size())
        atomicAdd(&block_sum, in[i]);
    block.sync();
    if (block.thread_rank() == 0) partial[blockIdx.x] = block_sum;
    grid.sync();
    if (grid.thread_rank() == 0) {
        int sum = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
        *total = sum;
    }
}

TEST_CASE("cudaLaunchCooperativeKernel: grid.sync() waits for every block") {
    int per_sm = 0, sms = 0, supported = 0;
    REQUIRE(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0) == cudaSuccess);
    REQUIRE(supported == 1);
    REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 128, 0) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
    const int blocks = per_sm * sms, n = 100003;
    int *in = nullptr, *partial = nullptr, *total = nullptr;
    REQUIRE(cudaMallocManaged(&in, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&partial, blocks * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&total, sizeof(int)) == cudaSuccess);
    long long expected = 0;
    for (int i = 0; i < n; ++i) expected += in[i] = i % 7;
    int count = n;
    void* args[] = {&in, &count, &partial, &total};
    REQUIRE(cudaLaunchCooperativeKernel(grid_sum, dim3(blocks), dim3(128), args, 0, 0) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(*total == expected);
    CHECK(cudaLaunchCooperativeKernel(grid_sum, dim3(blocks + 1), dim3(128), args, 0, 0) ==
          cudaErrorCooperativeLaunchTooLarge);
    CHECK(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
    // The samples' form, through the C API's void*.
    *total = 0;
    REQUIRE(cudaLaunchCooperativeKernel((void*)grid_sum, dim3(blocks), dim3(128), args, 0, 0) ==
            cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(*total == expected);
    CHECK(cudaLaunchCooperativeKernel((void*)grid_sum, dim3(blocks + 1), dim3(128), args, 0, 0) ==
          cudaErrorCooperativeLaunchTooLarge);
    CHECK(cudaFree(in) == cudaSuccess);
    CHECK(cudaFree(partial) == cudaSuccess);
    CHECK(cudaFree(total) == cudaSuccess);
}

// Block 1 returns before the grid barrier that block 0 waits at: a GPU hangs
// (an H200 did), so the case is emulator-only.
__global__ void early_exit_before_grid_sync(int* out) {
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x == 1) return;
    grid.sync();
    out[blockIdx.x] = 1;
}

TEST_CASE("process: a block that ends before grid.sync() stops the cooperative launch" *
          doctest::test_suite("emulator-only")) {
    int sms = 0;
    REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
    if (sms < 2) return;  // one worker holds one block: nothing to wait for
    int* out = nullptr;
    REQUIRE(cudaMalloc(&out, 2 * sizeof(int)) == cudaSuccess);
    void* args[] = {&out};
    REQUIRE(cudaLaunchCooperativeKernel(early_exit_before_grid_sync, dim3(2), dim3(32), args, 0, 0) ==
            cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}
