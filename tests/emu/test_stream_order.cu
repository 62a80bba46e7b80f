// test_stream_order.cu - the order between streams (queue.cpp, copy_engines.cpp):
// a copy of one stream runs while a kernel of another runs (the copy engines),
// the legacy default stream waits for blocking streams and they for it, a
// non-blocking stream waits for neither, and cudaMemcpyAsync from pageable
// memory returns only when its copy is done.
//
// Each case holds a kernel in a spin until the host releases it, so what may
// run meanwhile is decided by the ordering rules, never by timing: if a rule
// is broken, a wait either returns too early (checked) or cannot return until
// the kernel gives up its spin (it then writes 0 to `released`, checked).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstring>

// Spins until the host sets *release or max_polls pass; writes 1 to
// *released if it was released, 0 if it gave up.
__global__ void hold_until_released(volatile int* release, int* released, long long max_polls) {
    long long polls = 0;
    while (*release == 0 && polls < max_polls) ++polls;
    *released = *release != 0 ? 1 : 0;
}

__global__ void store(float* p, float value) { *p = value; }

// Seconds of polling at most: far longer than any host step below.
constexpr long long kMaxPolls = 1ll << 33;

namespace {
// A kernel held in its spin on `stream`, released by release().
struct HeldKernel {
    int* flags = nullptr;  // [0] release, [1] released
    explicit HeldKernel(cudaStream_t stream) {
        REQUIRE(cudaMallocManaged(&flags, 2 * sizeof(int)) == cudaSuccess);
        flags[0] = 0;
        flags[1] = -1;
        hold_until_released<<<1, 1, 0, stream>>>(flags, flags + 1, kMaxPolls);
        REQUIRE(cudaGetLastError() == cudaSuccess);
    }
    void release() { __atomic_store_n(&flags[0], 1, __ATOMIC_SEQ_CST); }
    // After the kernel has finished: was it released, rather than giving up?
    bool was_released() const { return flags[1] == 1; }
    ~HeldKernel() { cudaFree(flags); }
};
}  // namespace

TEST_CASE("a copy on one stream runs while a kernel of another stream runs") {
    cudaStream_t a, b;
    REQUIRE(cudaStreamCreate(&a) == cudaSuccess);
    REQUIRE(cudaStreamCreate(&b) == cudaSuccess);
    float *h = nullptr, *d = nullptr;
    REQUIRE(cudaMallocHost(&h, sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d, sizeof(float)) == cudaSuccess);
    *h = 42.0f;
    {
        HeldKernel held(a);
        REQUIRE(cudaMemcpyAsync(d, h, sizeof(float), cudaMemcpyHostToDevice, b) == cudaSuccess);
        REQUIRE(cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, b) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(b) == cudaSuccess);  // both copies, kernel still held
        CHECK(cudaStreamQuery(a) == cudaErrorNotReady);
        held.release();
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(held.was_released());
    }
    CHECK(*h == 42.0f);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFreeHost(h) == cudaSuccess);
    CHECK(cudaStreamDestroy(a) == cudaSuccess);
    CHECK(cudaStreamDestroy(b) == cudaSuccess);
}

TEST_CASE("the legacy default stream waits for a blocking stream's earlier work") {
    cudaStream_t s;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    float *h = nullptr, *d = nullptr;
    REQUIRE(cudaMallocHost(&h, sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d, sizeof(float)) == cudaSuccess);
    *h = -1.0f;
    {
        HeldKernel held(s);
        store<<<1, 1, 0, s>>>(d, 7.0f);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        REQUIRE(cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, 0) == cudaSuccess);
        CHECK(cudaStreamQuery(0) == cudaErrorNotReady);  // the copy waits for s
        CHECK(*h == -1.0f);
        held.release();
        REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
        CHECK(*h == 7.0f);  // copied after the store
        CHECK(held.was_released());
    }
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFreeHost(h) == cudaSuccess);
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("a blocking stream's later work waits for the legacy default stream") {
    cudaStream_t s;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    float *h = nullptr, *d = nullptr;
    REQUIRE(cudaMallocHost(&h, sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d, sizeof(float)) == cudaSuccess);
    *h = -1.0f;
    {
        HeldKernel held(0);
        store<<<1, 1>>>(d, 9.0f);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        REQUIRE(cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, s) == cudaSuccess);
        CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
        held.release();
        REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
        CHECK(*h == 9.0f);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(held.was_released());
    }
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFreeHost(h) == cudaSuccess);
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("a non-blocking stream waits for neither the default stream nor it for it") {
    cudaStream_t s;
    REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    float *h = nullptr, *d = nullptr;
    REQUIRE(cudaMallocHost(&h, sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d, sizeof(float)) == cudaSuccess);
    *h = 3.0f;
    {
        HeldKernel held(0);
        REQUIRE(cudaMemcpyAsync(d, h, sizeof(float), cudaMemcpyHostToDevice, s) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);  // not behind the held kernel
        CHECK(cudaStreamQuery(0) == cudaErrorNotReady);
        held.release();
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(held.was_released());
    }
    {
        *h = -1.0f;
        HeldKernel held(s);
        REQUIRE(cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, 0) == cudaSuccess);
        REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);  // not behind s's held kernel
        CHECK(*h == 3.0f);
        CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
        held.release();
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(held.was_released());
    }
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFreeHost(h) == cudaSuccess);
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("cudaStreamWaitEvent orders work across streams") {
    cudaStream_t a, b;
    REQUIRE(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking) == cudaSuccess);
    cudaEvent_t stored;
    REQUIRE(cudaEventCreate(&stored) == cudaSuccess);
    float *h = nullptr, *d = nullptr;
    REQUIRE(cudaMallocHost(&h, sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d, sizeof(float)) == cudaSuccess);
    *h = -1.0f;
    {
        HeldKernel held(a);
        store<<<1, 1, 0, a>>>(d, 5.0f);
        REQUIRE(cudaEventRecord(stored, a) == cudaSuccess);
        REQUIRE(cudaStreamWaitEvent(b, stored, 0) == cudaSuccess);
        REQUIRE(cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, b) == cudaSuccess);
        CHECK(cudaStreamQuery(b) == cudaErrorNotReady);
        held.release();
        REQUIRE(cudaStreamSynchronize(b) == cudaSuccess);
        CHECK(*h == 5.0f);
        CHECK(held.was_released());
    }
    CHECK(cudaEventDestroy(stored) == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFreeHost(h) == cudaSuccess);
    CHECK(cudaStreamDestroy(a) == cudaSuccess);
    CHECK(cudaStreamDestroy(b) == cudaSuccess);
}

TEST_CASE("cudaMemcpyAsync from pageable memory returns when the copy is done") {
    cudaStream_t s;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    const size_t n = 1 << 20;
    float* pageable = new float[n];
    for (size_t i = 0; i < n; ++i) pageable[i] = (float)i;
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(d, pageable, n * sizeof(float), cudaMemcpyHostToDevice, s) == cudaSuccess);
#ifdef CUEMU
    // Nothing left to do on s here; on an H200 (CUDA 13.0) the stream still
    // reported cudaErrorNotReady: the data was taken, the copy not yet done.
    CHECK(cudaStreamQuery(s) == cudaSuccess);
#endif
    std::memset(pageable, 0, n * sizeof(float));  // safe: the copy has its data
    REQUIRE(cudaMemcpy(pageable, d, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(pageable[n - 1] == (float)(n - 1));
    delete[] pageable;
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaStreamDestroy(s) == cudaSuccess);
}
