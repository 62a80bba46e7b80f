// test_schedule_order.cu - CUEMU_SCHEDULE changes the order in which threads
// start and leave each barrier (forward, reverse, shuffle:SEED). Correct
// kernels give the right answer in every order; a race gives a wrong answer
// that is the same on every run of one order; and a race that forward order
// happens to hide shows up in the others. CTest runs this program once per
// order; the tests read CUEMU_SCHEDULE to know which one they are under.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// Each thread reads its left neighbour's value from shared memory, with the
// barrier between the write and the read left out. In forward order thread
// t-1 has always written before thread t reads, so the bug stays hidden there.
__global__ void shift_right(const int* in, int* out, bool with_barrier) {
    __shared__ int tile[256];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    if (with_barrier) __syncthreads();
    out[blockIdx.x * blockDim.x + t] = t > 0 ? tile[t - 1] : 0;
}

// Tiled matmul; without the second barrier a thread overwrites a tile that
// slower threads still read.
constexpr int TILE = 8;
__global__ void tiled_matmul(const float* a, const float* b, float* c, int n, bool second_barrier) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        ta[threadIdx.y][threadIdx.x] = row < n && ak < n ? a[row * n + ak] : 0.0f;
        tb[threadIdx.y][threadIdx.x] = bk < n && col < n ? b[bk * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        if (second_barrier) __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = sum;
}

// A warp reduction and a block barrier together: correct in any order.
__global__ void warp_then_block(const int* in, int* out) {
    __shared__ int partial[8];
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    int total = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) total += partial[w];
    out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

template <class T>
static T* device_copy(const std::vector<T>& h) {
    T* d = nullptr;
    REQUIRE(cudaMalloc(&d, h.size() * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    return d;
}

template <class T>
static std::vector<T> host_copy(const T* d, size_t n) {
    std::vector<T> h(n);
    REQUIRE(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
}

static std::string schedule() {
    const char* s = std::getenv("CUEMU_SCHEDULE");
    return s && *s ? s : "forward";
}

static std::mt19937& rng() {
    static std::mt19937 engine(std::random_device{}());
    return engine;
}

static std::vector<int> run_shift(const std::vector<int>& in, int blocks, bool barrier) {
    int* d_in = device_copy(in);
    int* d_out = device_copy(std::vector<int>(in.size(), -7));  // poisoned
    shift_right<<<blocks, 256>>>(d_in, d_out, barrier);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> out = host_copy(d_out, in.size());
    CHECK(cudaFree(d_in) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
    return out;
}

// This case and the next check the emulator's schedule orders (CUEMU_SCHEDULE), which
// a GPU does not have: emulator-only. On an H200 the races gave other results.
TEST_CASE("a missing barrier that forward order hides shows in reverse and shuffled order" *
          doctest::test_suite("emulator-only")) {
    const int blocks = 3;
    std::vector<int> in(blocks * 256);
    for (int& x : in) x = std::uniform_int_distribution<int>(1, 1 << 30)(rng());
    std::vector<int> expected(in.size());
    for (size_t i = 0; i < in.size(); ++i) expected[i] = i % 256 ? in[i - 1] : 0;

    CHECK(run_shift(in, blocks, true) == expected);  // with the barrier: right in every order
    std::vector<int> racy = run_shift(in, blocks, false);
    if (schedule() == "forward")
        CHECK(racy == expected);  // hidden: every thread's left neighbour ran first
    else
        CHECK(racy != expected);  // shown
    for (int run = 0; run < 3; ++run) CHECK(run_shift(in, blocks, false) == racy);  // reproducible
}

static std::vector<float> run_matmul(const std::vector<float>& a, const std::vector<float>& b, int n,
                                     bool second_barrier) {
    float* d_a = device_copy(a);
    float* d_b = device_copy(b);
    float* d_c = device_copy(std::vector<float>(n * n, -1.0f));
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    tiled_matmul<<<grid, block>>>(d_a, d_b, d_c, n, second_barrier);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<float> c = host_copy(d_c, n * n);
    for (float* p : {d_a, d_b, d_c}) CHECK(cudaFree(p) == cudaSuccess);
    return c;
}

TEST_CASE("a tiled matmul without its second barrier is wrong, the same way on every run of one order" *
          doctest::test_suite("emulator-only")) {
    const int n = 37;  // not a multiple of the tile
    std::vector<float> a(n * n), b(n * n), ref(n * n, 0.0f);
    std::uniform_int_distribution<int> dist(-6, 6);  // small integers: exact sums in float
    for (float& x : a) x = static_cast<float>(dist(rng()));
    for (float& x : b) x = static_cast<float>(dist(rng()));
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            for (int k = 0; k < n; ++k) ref[r * n + c] += a[r * n + k] * b[k * n + c];
    CHECK(run_matmul(a, b, n, true) == ref);
    std::vector<float> racy = run_matmul(a, b, n, false);
    CHECK(racy != ref);
    for (int run = 0; run < 3; ++run) CHECK(run_matmul(a, b, n, false) == racy);
}

TEST_CASE("warp functions and barriers together are right in every order") {
    const int blocks = 5, threads = 256;
    std::vector<int> in(blocks * threads);
    for (int& x : in) x = std::uniform_int_distribution<int>(-1000, 1000)(rng());
    int* d_in = device_copy(in);
    int* d_out = device_copy(std::vector<int>(in.size(), 0x5A5A5A5A));
    warp_then_block<<<blocks, threads>>>(d_in, d_out);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<int> out = host_copy(d_out, in.size());
    for (int b = 0; b < blocks; ++b) {
        int total = 0;
        for (int t = 0; t < threads; ++t) total += in[b * threads + t];
        for (int t = 0; t < threads; ++t) CHECK(out[b * threads + t] == total);
    }
    CHECK(cudaFree(d_in) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
}
