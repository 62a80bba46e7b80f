// test_static_shared.cu - a kernel's static __shared__ bytes at the launch, as a
// GPU counts them: added to the launch's dynamic shared memory before the
// comparison with the 48 KiB a block may have (or with the opt-in), and
// reported as cudaFuncGetAttributes' sharedSizeBytes. Sizes are multiples of
// 16 bytes, so that a GPU's alignment adds nothing and the numbers hold there
// too; the few emulator-only answers (what cuemu-rewrite leaves uncounted)
// are under #if defined(CUEMU). Compiled by nvcc too.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include "stderr_capture.h"

#include <string>

constexpr int kStaticWords = 40 * 1024 / 4;  // 40 KiB of int

__device__ void write_both(int* words, int* out) {
    extern __shared__ int dynamic_words[];
    words[threadIdx.x] = 1;
    dynamic_words[threadIdx.x] = 2;
    __syncthreads();
    if (threadIdx.x == 0) *out = words[0] + dynamic_words[0];
}

__global__ void static_40k(int* out) {
    __shared__ int words[kStaticWords];
    write_both(words, out);
}

// The same, for the opt-in: cudaFuncSetAttribute's setting stays with the kernel.
__global__ void static_40k_opted_in(int* out) {
    __shared__ int words[kStaticWords];
    write_both(words, out);
}

// Every way of spelling a size that the compiler, not the rewriter, resolves.
struct four_floats {
    float x, y, z, w;
};
typedef double pair_of_doubles[2];
constexpr int kTile = 16;

__global__ void many_spellings(float* out) {
    typedef float row_of_8[8];  // local to the kernel
    constexpr int kLocal = 16;
    __shared__ row_of_8 rows[4];                  // 128 bytes
    __shared__ double locals[kLocal];             // 128
    __shared__ four_floats quads[4];              // 64
    __shared__ pair_of_doubles pairs[4];          // 64
    __shared__ float tile[kTile][kTile + 4];      // 1280
    __shared__ int a[8], b[24];                   // 32 + 96
    static __shared__ union {
        float f[4];
        int i[4];
    } either;                                     // 16
    const int t = threadIdx.x;
    if (t < 4) {
        rows[t][0] = 1.0f;
        quads[t].x = 2.0f;
        pairs[t][1] = 3.0;
        either.f[t] = 4.0f;
    }
    if (t < kLocal) {
        locals[t] = 5.0;
        tile[t][t] = 6.0f;
    }
    if (t < 8) a[t] = 7;
    if (t < 24) b[t] = 8;
    __syncthreads();
    if (t == 0)
        *out = rows[3][0] + quads[3].x + float(pairs[3][1]) + either.f[3] + float(locals[15]) + tile[15][15] +
               float(a[7] + b[23]);
}
constexpr size_t kManySpellingsBytes = 128 + 128 + 64 + 64 + 1280 + 32 + 96 + 16;

// A template's sizes depend on its parameters: the emulator leaves them uncounted.
template <int N>
__global__ void template_static(int* out) {
    __shared__ int words[N];
    words[threadIdx.x] = 3;
    __syncthreads();
    if (threadIdx.x == 0) *out = words[0];
}

#if defined(CUEMU)  // only the emulator's notes are read (nvcc warns of an unused function)
static bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}
#endif

static int* device_int() {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, sizeof(int)) == cudaSuccess);
    return d;
}

static int read_int(const int* d) {
    int h = -1;
    REQUIRE(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
}

TEST_CASE("static __shared__ bytes count towards the 48 KiB a block may have") {
    int* d = device_int();
    stderr_capture quiet(capture_until::device_idle);
    static_40k<<<1, 32, 16 * 1024>>>(d);  // 56 KiB in all
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
    static_40k<<<1, 32, 8 * 1024>>>(d);        // 48 KiB in all: the limit itself
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(read_int(d) == 3);
    CHECK(quiet.finish().empty());  // every error was read: no note
    CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("an unread refusal names the static bytes beside the dynamic ones") {
    int* d = device_int();
    stderr_capture capture(capture_until::device_idle);
    static_40k<<<1, 32, 16 * 1024>>>(d);
    static_40k<<<1, 32, 8 * 1024>>>(d);
    const std::string note = capture.finish();
#if defined(CUEMU)
    CHECK(contains(note, "16384 bytes of dynamic shared memory beside the kernel's 40960 bytes of static "
                         "__shared__ memory, the limit is 49152 for both together"));
#endif
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("cudaFuncGetAttributes reports the static bytes, and the dynamic room they leave") {
    cudaFuncAttributes a;
    REQUIRE(cudaFuncGetAttributes(&a, static_40k) == cudaSuccess);
    CHECK(a.sharedSizeBytes == 40 * 1024);
    CHECK(a.maxDynamicSharedSizeBytes == 8 * 1024);
    REQUIRE(cudaFuncGetAttributes(&a, many_spellings) == cudaSuccess);
    CHECK(a.sharedSizeBytes == kManySpellingsBytes);
    CHECK(a.maxDynamicSharedSizeBytes == int(48 * 1024 - kManySpellingsBytes));
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, sizeof(float)) == cudaSuccess);
    many_spellings<<<1, 32>>>(d);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    float h = 0;
    REQUIRE(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(h == 1.0f + 2.0f + 3.0f + 4.0f + 5.0f + 6.0f + 15.0f);
    CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("the opt-in covers the dynamic part, up to the opt-in maximum less the static bytes") {
    int optin = 0;
    REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
    const int room = optin - 40 * 1024;
    CHECK(cudaFuncSetAttribute(static_40k_opted_in, cudaFuncAttributeMaxDynamicSharedMemorySize, room + 4) ==
          cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    REQUIRE(cudaFuncSetAttribute(static_40k_opted_in, cudaFuncAttributeMaxDynamicSharedMemorySize, room) ==
            cudaSuccess);
    cudaFuncAttributes a;
    REQUIRE(cudaFuncGetAttributes(&a, static_40k_opted_in) == cudaSuccess);
    CHECK(a.sharedSizeBytes == 40 * 1024);
    CHECK(a.maxDynamicSharedSizeBytes == room);
    int* d = device_int();
    static_40k_opted_in<<<1, 32, room + 4>>>(d);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    static_40k_opted_in<<<1, 32, room>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(read_int(d) == 3);
    CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("occupancy counts the static bytes") {
    int blocks = -1;
    REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static_40k, 32, 8 * 1024) == cudaSuccess);
    CHECK(blocks >= 1);
#if defined(CUEMU)  // a GPU's calculator counts what fits an SM, not what a launch may ask
    REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static_40k, 32, 16 * 1024) == cudaSuccess);
    CHECK(blocks == 0);
    size_t dynamic = 0;
    REQUIRE(cudaOccupancyAvailableDynamicSMemPerBlock(&dynamic, static_40k, 1, 32) == cudaSuccess);
    CHECK(dynamic == 8 * 1024);
#endif
}

TEST_CASE("a template kernel's static bytes: launched, and left uncounted by the emulator") {
    int* d = device_int();
    template_static<kStaticWords><<<1, 32, 8 * 1024>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(read_int(d) == 3);
    cudaFuncAttributes a;
    REQUIRE(cudaFuncGetAttributes(&a, template_static<kStaticWords>) == cudaSuccess);
#if defined(CUEMU)
    CHECK(a.sharedSizeBytes == 0);  // common/emu/README.md: "Launch checks"
#else
    CHECK(a.sharedSizeBytes == 40 * 1024);
#endif
    CHECK(cudaFree(d) == cudaSuccess);
}
