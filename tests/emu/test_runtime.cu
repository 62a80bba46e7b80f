// test_runtime.cu - the emulator's runtime, exercised through ordinary CUDA
// code: launch limits and error codes (the real ones), non-sticky errors,
// memory checks, shared memory per block, barrier semantics, a race that
// reproduces, atomics, and launch syntax the rewriter must handle; and, as a
// process's first calls, a call that needs the context made current.
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// ---- kernels -------------------------------------------------------------------
__global__ void fill_index(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}

__global__ void noop() {}

// Each block stores its own index in shared memory, waits, and reads it back
// from a different thread's slot: another block's value would show.
__global__ void shared_is_per_block(int* out) {
    __shared__ int slot[256];
    slot[threadIdx.x] = blockIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = slot[(threadIdx.x + 1) % blockDim.x];
}

// Rotation through shared memory, several rounds: needs a barrier between
// every write and the reads of other threads.
__global__ void rotate_rounds(const int* in, int* out, int rounds) {
    __shared__ int buf[128];
    int t = threadIdx.x;
    int value = in[t];
    for (int r = 0; r < rounds; ++r) {
        buf[t] = value;
        __syncthreads();
        value = buf[(t + 1) % blockDim.x];
        __syncthreads();
    }
    out[t] = value;
}

// __syncthreads_count, _and and _or, several rounds: round r's votes differ
// from the round before's, so a count left over from an earlier barrier, or
// a vote of another block's, shows.
__global__ void barrier_votes(int* counts, int* alls, int* anys, int rounds) {
    const int t = threadIdx.x, n = blockDim.x;
    for (int r = 0; r < rounds; ++r) {
        const int slot = (blockIdx.x * rounds + r) * n + t;
        counts[slot] = __syncthreads_count(t % (r + 2) == 0 || t < static_cast<int>(blockIdx.x));
        alls[slot] = __syncthreads_and(t < n - r);
        anys[slot] = __syncthreads_or(t == r * 40);
    }
}

// Tiled matrix multiply, square n x n, n a multiple of TILE. With
// with_second_barrier false, the next tile overwrites shared memory while
// other threads still read the current one: the classic missing barrier.
constexpr int TILE = 8;
__global__ void tiled_matmul(const float* a, const float* b, float* c, int n,
                             bool with_second_barrier) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        if (with_second_barrier) __syncthreads();
    }
    c[row * n + col] = sum;
}

__global__ void count_threads(unsigned long long* counter, float* fsum) {
    atomicAdd(counter, 1ull);
    atomicAdd(fsum, 1.0f);
}

template <typename T, int SCALE>
__global__ void scale_by(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= SCALE;
}

template <typename T>
__global__ void add_one(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += T(1);
}

// extern __shared__: the launch's dynamic shared memory.
__global__ void reverse_block(const int* in, int* out) {
    extern __shared__ int scratch[];
    scratch[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = scratch[blockDim.x - 1 - threadIdx.x];
}

__global__ void index_3d(int* out) {
    int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int threads = blockDim.x * blockDim.y * blockDim.z;
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[block * threads + t] = block * 1000 + t;
}

__global__ void say_hello() {
    if (threadIdx.x % 2 == 0) printf("hello from block %d thread %d\n", blockIdx.x, threadIdx.x);
}

// ---- helpers -------------------------------------------------------------------
template <class T>
struct device_buffer {
    T* ptr = nullptr;
    size_t n;
    explicit device_buffer(size_t count) : n(count) {
        REQUIRE(cudaMalloc(&ptr, n * sizeof(T)) == cudaSuccess);
    }
    ~device_buffer() { CHECK(cudaFree(ptr) == cudaSuccess); }
    std::vector<T> read() const {
        std::vector<T> h(n);
        REQUIRE(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return h;
    }
    void write(const std::vector<T>& h) {
        REQUIRE(cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    }
};

static cudaError_t launch_noop(dim3 grid, dim3 block, size_t shmem = 0) {
    noop<<<grid, block, shmem>>>();
    return cudaGetLastError();
}

// ---- launch limits and errors ----------------------------------------------------
// CUDA 13's runtime refuses every launch past the limits with
// cudaErrorInvalidValue (measured on an H200: docs/gpu-runs/2026-11-30-h200.md).
TEST_CASE("a block of 2048 threads is refused with the real error, and it is not sticky") {
    REQUIRE(cudaGetLastError() == cudaSuccess);
    noop<<<1, 2048>>>();
    cudaError_t e = cudaGetLastError();
    CHECK(e == cudaErrorInvalidValue);
    CHECK(static_cast<int>(e) == 1);
    CHECK(std::string(cudaGetErrorName(e)) == "cudaErrorInvalidValue");
    CHECK(std::string(cudaGetErrorString(e)) == "invalid argument");
    CHECK(cudaGetLastError() == cudaSuccess);  // read once, then cleared
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("launch limits are the real ones") {
    CHECK(launch_noop(1, 1024) == cudaSuccess);
    CHECK(launch_noop(1, dim3(32, 32)) == cudaSuccess);
    CHECK(launch_noop(1, dim3(1, 1, 64)) == cudaSuccess);
    CHECK(launch_noop(1, 1025) == cudaErrorInvalidValue);
    CHECK(launch_noop(1, dim3(64, 32)) == cudaErrorInvalidValue);  // 2048 in all
    CHECK(launch_noop(1, dim3(1, 1, 65)) == cudaErrorInvalidValue);
    CHECK(launch_noop(1, dim3(1, 1025)) == cudaErrorInvalidValue);
    CHECK(launch_noop(0, 32) == cudaErrorInvalidValue);
    CHECK(launch_noop(1, 0) == cudaErrorInvalidValue);
    CHECK(launch_noop(dim3(1, 65536), 1) == cudaErrorInvalidValue);
    CHECK(launch_noop(dim3(1, 1, 65536), 1) == cudaErrorInvalidValue);
    CHECK(launch_noop(dim3(1, 65535), 1) == cudaSuccess);
    CHECK(launch_noop(1, 32, 48 * 1024) == cudaSuccess);
    CHECK(launch_noop(1, 32, 48 * 1024 + 1) == cudaErrorInvalidValue);
}

TEST_CASE("peek does not clear the last error; get does") {
    noop<<<1, 4096>>>();
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaPeekAtLastError() == cudaSuccess);
}

TEST_CASE("error names and strings follow the real runtime") {
    CHECK(std::string(cudaGetErrorString(cudaSuccess)) == "no error");
    CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument");
    CHECK(std::string(cudaGetErrorString(cudaErrorMemoryAllocation)) == "out of memory");
    CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress)) ==
          "an illegal memory access was encountered");
    CHECK(std::string(cudaGetErrorName(cudaErrorInvalidMemcpyDirection)) ==
          "cudaErrorInvalidMemcpyDirection");
    CHECK(static_cast<int>(cudaErrorIllegalAddress) == 700);
    CHECK(static_cast<int>(cudaErrorNoDevice) == 100);
    CHECK(std::string(cudaGetErrorName(static_cast<cudaError_t>(12345))) ==
          "unrecognized error code");
}

// ---- memory ----------------------------------------------------------------------
TEST_CASE("memory calls check their arguments as the real runtime does") {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 100 * sizeof(float)) == cudaSuccess);
    std::vector<float> h(200, 1.0f);
    CHECK(cudaMemcpy(d, h.data(), 100 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemcpy(d, h.data(), 101 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(nullptr, h.data(), 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(h.data(), d, 4, static_cast<cudaMemcpyKind>(7)) == cudaErrorInvalidMemcpyDirection);
    CHECK(cudaMemset(d, 0, 100 * sizeof(float)) == cudaSuccess);
    CHECK(cudaMemset(d, 0, 101 * sizeof(float)) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);  // the most recent failure
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFree(d) == cudaErrorInvalidValue);  // double free
    CHECK(cudaFree(nullptr) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}

// Emulator-only: the emulator fills fresh memory with NaN; on an H200 these
// 16 floats were 0.
TEST_CASE("fresh device memory is not zero, so unwritten output shows" *
          doctest::test_suite("emulator-only")) {
    device_buffer<float> d(16);
    for (float v : d.read()) CHECK(v != v);  // NaN
}

TEST_CASE("managed memory is usable from host and kernel") {
    int* m = nullptr;
    REQUIRE(cudaMallocManaged(&m, 1000 * sizeof(int)) == cudaSuccess);
    fill_index<<<4, 256>>>(m, 1000);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (int i = 0; i < 1000; ++i) REQUIRE(m[i] == i);
    CHECK(cudaFree(m) == cudaSuccess);
}

// ---- scheduling ----------------------------------------------------------------
TEST_CASE("every thread of every block runs once, for sizes off the block multiple") {
    for (int n : {1, 1000, 1023, 100003}) {
        CAPTURE(n);
        device_buffer<int> d(n);
        fill_index<<<(n + 127) / 128, 128>>>(d.ptr, n);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        std::vector<int> h = d.read();
        for (int i = 0; i < n; ++i) REQUIRE(h[i] == i);
    }
}

TEST_CASE("3D grids and blocks give each thread its own coordinates") {
    dim3 grid(3, 2, 2), block(4, 3, 2);
    const int total = 12 * 24;
    device_buffer<int> d(total);
    index_3d<<<grid, block>>>(d.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> h = d.read();
    for (int b = 0; b < 12; ++b)
        for (int t = 0; t < 24; ++t) REQUIRE(h[b * 24 + t] == b * 1000 + t);
}

TEST_CASE("shared memory is private to each block") {
    const int blocks = 64, threads = 256;
    device_buffer<int> d(blocks * threads);
    shared_is_per_block<<<blocks, threads>>>(d.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> h = d.read();
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t) REQUIRE(h[b * threads + t] == b);
}

TEST_CASE("barriers: every write before __syncthreads is seen by every thread after it") {
    const int n = 128, rounds = 5;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * 7 + 3;
    device_buffer<int> d_in(n), d_out(n);
    d_in.write(in);
    rotate_rounds<<<1, n>>>(d_in.ptr, d_out.ptr, rounds);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> out = d_out.read();
    for (int i = 0; i < n; ++i) REQUIRE(out[i] == in[(i + rounds) % n]);
}

TEST_CASE("__syncthreads_count, _and and _or give every thread its block's votes at that barrier") {
    const int n = 100, blocks = 3, rounds = 4;  // 100: a partial last warp
    device_buffer<int> d_counts(blocks * rounds * n), d_alls(blocks * rounds * n), d_anys(blocks * rounds * n);
    barrier_votes<<<blocks, n>>>(d_counts.ptr, d_alls.ptr, d_anys.ptr, rounds);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<int> counts = d_counts.read(), alls = d_alls.read(), anys = d_anys.read();
    for (int b = 0; b < blocks; ++b)
        for (int r = 0; r < rounds; ++r) {
            int yes = 0;
            for (int t = 0; t < n; ++t) yes += t % (r + 2) == 0 || t < b;
            for (int t = 0; t < n; ++t) {
                const int slot = (b * rounds + r) * n + t;
                CHECK(counts[slot] == yes);
                CHECK(alls[slot] == (r == 0 ? 1 : 0));
                CHECK(anys[slot] == (r * 40 < n ? 1 : 0));
            }
        }
}

static std::vector<float> run_tiled(const std::vector<float>& a, const std::vector<float>& b,
                                    int n, bool barrier) {
    device_buffer<float> d_a(n * n), d_b(n * n), d_c(n * n);
    d_a.write(a);
    d_b.write(b);
    dim3 block(TILE, TILE), grid(n / TILE, n / TILE);
    tiled_matmul<<<grid, block>>>(d_a.ptr, d_b.ptr, d_c.ptr, n, barrier);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    return d_c.read();
}

// Emulator-only: the emulator's fixed thread order; on an H200 the race went
// unseen (the product was right).
TEST_CASE("a tiled matmul without its second barrier is wrong, the same way on every run" *
          doctest::test_suite("emulator-only")) {
    const int n = 32;
    std::vector<float> a(n * n), b(n * n), ref(n * n, 0.0f);
    for (int i = 0; i < n * n; ++i) {
        a[i] = static_cast<float>((i * 37) % 11) - 5.0f;
        b[i] = static_cast<float>((i * 53) % 13) - 6.0f;
    }
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            for (int k = 0; k < n; ++k) ref[r * n + c] += a[r * n + k] * b[k * n + c];

    CHECK(run_tiled(a, b, n, true) == ref);  // small integers: exact in float
    std::vector<float> first = run_tiled(a, b, n, false);
    CHECK(first != ref);
    for (int run = 0; run < 5; ++run) CHECK(run_tiled(a, b, n, false) == first);
}

TEST_CASE("atomics add up across blocks running on different workers") {
    unsigned long long* counter = nullptr;
    float* fsum = nullptr;
    REQUIRE(cudaMallocManaged(&counter, sizeof *counter) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&fsum, sizeof *fsum) == cudaSuccess);
    *counter = 0;
    *fsum = 0.0f;
    count_threads<<<200, 500>>>(counter, fsum);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(*counter == 100000ull);
    CHECK(*fsum == 100000.0f);  // integers below 2^24 are exact in float
    CHECK(cudaFree(counter) == cudaSuccess);
    CHECK(cudaFree(fsum) == cudaSuccess);
}

// ---- launch syntax ---------------------------------------------------------------
TEST_CASE("template kernels, deduced and explicit, and launches over several lines") {
    const int n = 1000;
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
    device_buffer<float> d(n);
    d.write(h);
    scale_by<float, 3><<<(n + 255) / 256, 256>>>(d.ptr, n);
    add_one<<<
        (n + 255) / 256,  // blocks
        256               // threads per block
        >>>(d.ptr,
            n);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    add_one<float><<<dim3((n + 127) / 128, 1, 1), dim3(128, 1, 1), 0, stream>>>(d.ptr, n);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<float> out = d.read();
    for (int i = 0; i < n; ++i) REQUIRE(out[i] == 3.0f * i + 2.0f);
}

TEST_CASE("extern __shared__ gives each launch its dynamic shared memory") {
    const int n = 200;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * i;
    device_buffer<int> d_in(n), d_out(n);
    d_in.write(in);
    reverse_block<<<1, n, n * sizeof(int)>>>(d_in.ptr, d_out.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> out = d_out.read();
    for (int i = 0; i < n; ++i) REQUIRE(out[i] == in[n - 1 - i]);
}

TEST_CASE("printf works inside kernels") {
    std::fflush(stdout);
    std::string path = "/tmp/cuemu_printf_" + std::to_string(getpid()) + ".txt";
    FILE* saved = stdout;
    FILE* capture = std::fopen(path.c_str(), "w+");
    REQUIRE(capture != nullptr);
    stdout = capture;
    say_hello<<<2, 4>>>();
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::fflush(capture);
    stdout = saved;
    std::rewind(capture);
    std::string text;
    for (int c; (c = std::fgetc(capture)) != EOF;) text += static_cast<char>(c);
    std::fclose(capture);
    std::remove(path.c_str());
    for (const char* line : {"hello from block 0 thread 0\n", "hello from block 0 thread 2\n",
                             "hello from block 1 thread 0\n", "hello from block 1 thread 2\n"})
        CHECK(text.find(line) != std::string::npos);
    CHECK(text.find("thread 1") == std::string::npos);
}

// ---- device ----------------------------------------------------------------------
TEST_CASE("the device describes itself honestly") {
    int count = 0, device = -1;
    CHECK(cudaGetDeviceCount(&count) == cudaSuccess);
#ifdef CUEMU
    CHECK(count == 1);  // unless CUEMU_DEVICES says otherwise
#endif
    CHECK(cudaGetDevice(&device) == cudaSuccess);
    CHECK(device == 0);
    cudaDeviceProp prop;
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
#ifdef CUEMU  // a GPU's name is its own ("NVIDIA H200")
    CHECK(std::string(prop.name).find("emulator") != std::string::npos);
#endif
    CHECK(prop.maxThreadsPerBlock == 1024);
    CHECK(prop.maxThreadsDim[2] == 64);
    CHECK(prop.maxGridSize[1] == 65535);
    CHECK(prop.warpSize == 32);
    CHECK(prop.multiProcessorCount >= 1);
    int value = 0;
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerBlock, 0) == cudaSuccess);
    CHECK(value == 1024);
    CHECK(cudaSetDevice(count) == cudaErrorInvalidDevice);
    CHECK(cudaGetDeviceProperties(&prop, count + 2) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
}

TEST_CASE("events measure elapsed time") {
    cudaEvent_t start, stop;
    REQUIRE(cudaEventCreate(&start) == cudaSuccess);
    REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle);  // not recorded
    REQUIRE(cudaEventRecord(start) == cudaSuccess);
    device_buffer<int> d(1 << 16);
    fill_index<<<(1 << 16) / 256, 256>>>(d.ptr, 1 << 16);
    REQUIRE(cudaEventRecord(stop) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
    CHECK(ms >= 0.0f);
    CHECK(cudaEventDestroy(start) == cudaSuccess);
    CHECK(cudaEventDestroy(stop) == cudaSuccess);
    // the refused elapsed-time query above is still the last error: read it once
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaSuccess);
}

// ---- the worker threads -------------------------------------------------------------
// Emulator only: a kernel there is host code, so it can ask which CPUs its worker may use.
#ifdef CUEMU
__global__ void record_worker_cpus(int* cpu_count) {
    if (threadIdx.x != 0) return;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    cpu_count[blockIdx.x] = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : -1;
}

TEST_CASE("with one worker per CPU each worker keeps to one CPU; other counts stay free") {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    REQUIRE(sched_getaffinity(0, sizeof cpus, &cpus) == 0);
    const int allowed = CPU_COUNT(&cpus);
    const char* setting = std::getenv("CUEMU_WORKERS");
    const int workers = setting && *setting ? std::atoi(setting) : allowed;
    const int expected = workers >= 2 && workers == allowed ? 1 : allowed;
    constexpr int blocks = 64;
    device_buffer<int> d(blocks);
    record_worker_cpus<<<blocks, 32>>>(d.ptr);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<int> seen(blocks);
    REQUIRE(cudaMemcpy(seen.data(), d.ptr, blocks * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int b = 0; b < blocks; ++b) CHECK(seen[b] == expected);
}
#endif  // CUEMU

// Run as the first CUDA calls of its process (emu.runtime.l2-reset-first):
// cudaCtxResetPersistingL2Cache does not make the primary context current, so
// before any call has it fails, as on an H200 (CUDA 13.0, measured 2026-11-30,
// docs/gpu-runs/2026-11-30-h200-runtime-facts.txt); cudaInitDevice makes the
// context without making it current.
TEST_CASE("process: cudaCtxResetPersistingL2Cache before and after the context is current") {
    CHECK(cudaCtxResetPersistingL2Cache() == cudaErrorDeviceUninitialized);
    CHECK(cudaGetLastError() == cudaErrorDeviceUninitialized);
    CHECK(cudaInitDevice(0, 0, 0) == cudaSuccess);
    CHECK(cudaCtxResetPersistingL2Cache() == cudaErrorDeviceUninitialized);
    CHECK(cudaGetLastError() == cudaErrorDeviceUninitialized);
    CHECK(cudaFree(nullptr) == cudaSuccess);
    CHECK(cudaCtxResetPersistingL2Cache() == cudaSuccess);
    CHECK(cudaGetLastError() == cudaSuccess);
}
