// test_races.cu - the shared-memory race check (CUEMU_CHECK=race) and legacy
// warp-synchronous code (common/emu/README.md, "Races").
//
//   race:*      one race each (a hazard kind, dynamic shared memory, legacy
//               warp-synchronous code): one report naming both threads, both
//               lines, the variable, the element and the missing barrier; then
//               the sticky error. One process per case, under CUEMU_CHECK=race.
//   clean:*     correct kernels that share memory (barriers, __syncwarp,
//               atomics, shuffles, read-only sharing, bytes, other blocks): no
//               report, right answers. Run under CUEMU_CHECK=race.
//   lockstep:*  legacy warp-synchronous code without CUEMU_CHECK: the right sum
//               (and, under the default race check, a note instead of a report).
//   twin:*      which build of a kernel runs (cuemu/launch.h): the
//               uninstrumented twin with CUEMU_CHECK=none (this source uses
//               __shared__, so the race check is on by default) and in the
//               launches the default check leaves out, the instrumented kernel
//               otherwise, but for a kernel that cannot reach shared memory:
//               its twin always; run three ways.
// race:read-after-write runs under the default check too (no CUEMU_CHECK).
// The whole file also compiles with nvcc; the race:* cases check the race
// check's reports, so they are in the test suite "emulator-only".
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "stderr_capture.h"

#ifdef CUEMU
// Every instrumentation hook records its caller here (src/tsan_hooks.cpp), so a
// kernel can tell whether its own shared-memory store called one.
namespace cuemu::detail {
extern __thread const void* tls_hook_caller;
}
#endif

namespace {

constexpr int kBlock = 128;

// ---- racing kernels ---------------------------------------------------------------
// Each thread reads its left neighbour's slot with no barrier after the writes.
__global__ void read_after_write(int* out) {
    __shared__ int slots[kBlock];
    const int t = threadIdx.x;
    slots[t] = t;
    out[t] = slots[(t + kBlock - 1) % kBlock];
}
constexpr int raw_write_line = __LINE__ - 3;
constexpr int raw_read_line = __LINE__ - 3;

// Each thread reads its right neighbour's slot, then overwrites its own: the
// neighbour may read the new value or the old one.
__global__ void write_after_read(int* out) {
    __shared__ int slots[kBlock];
    const int t = threadIdx.x;
    slots[t] = t;
    __syncthreads();
    const int right = slots[(t + 1) % kBlock];
    slots[t] = right * 2;
    out[t] = right;
}
constexpr int war_read_line = __LINE__ - 4;
constexpr int war_write_line = __LINE__ - 4;

// Every thread writes the same word: which value stays is up to the GPU.
__global__ void write_after_write(int* out) {
    __shared__ int last;
    last = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = last;
}
constexpr int waw_line = __LINE__ - 4;

// A shared counter bumped with a plain += (a histogram's bin): one statement
// racing with itself, which an atomic cures and no barrier does.
__global__ void shared_counter(int* out) {
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    count += 1;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = count;
}
constexpr int counter_line = __LINE__ - 4;

// The barrier is there, but no thread takes the branch it is in.
__global__ void barrier_not_taken(int* out, bool sync) {
    __shared__ int slots[kBlock];
    slots[threadIdx.x] = threadIdx.x;
    if (sync) __syncthreads();
    out[threadIdx.x] = slots[(threadIdx.x + kBlock - 1) % kBlock];
}
constexpr int not_taken_barrier_line = __LINE__ - 3;

// A race in dynamic shared memory (extern __shared__).
__global__ void dynamic_race(int* out) {
    extern __shared__ int scratch[];
    scratch[threadIdx.x] = 1;
    out[threadIdx.x] = scratch[threadIdx.x ^ 1];
}

// The classic last-warp reduction of pre-Volta code: volatile shared memory
// and no __syncwarp, counting on the 32 lanes running in lockstep.
__device__ void legacy_warp_reduce(volatile float* s, int t) {
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}
constexpr int legacy_first_line = __LINE__ - 7;

__global__ void legacy_block_sum(const float* in, float* sums) {
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * kBlock + t];
    __syncthreads();
    if (t < 64) s[t] += s[t + 64];
    __syncthreads();
    if (t < 32) legacy_warp_reduce(s, t);
    if (t == 0) sums[blockIdx.x] = s[0];
}

// Every thread reads one word, then one thread overwrites it with no barrier:
// the check keeps only two of those reads (race_shadow.h), and they must
// still catch the write, from another warp (read_everywhere) or, after a
// __syncwarp, from the same warp (read_in_a_warp).
__global__ void read_everywhere(int* out) {
    __shared__ int table[32];
    const int t = threadIdx.x;
    if (t < 32) table[t] = t;
    __syncthreads();
    const int seen = table[5];
    if (t == kBlock - 28) table[5] = seen + 1;
    out[t] = seen;
}
constexpr int everywhere_read_line = __LINE__ - 4;
constexpr int everywhere_write_line = __LINE__ - 4;

__global__ void read_in_a_warp(int* out) {
    __shared__ int table[32];
    const int t = threadIdx.x;
    table[t] = t;
    __syncthreads();
    int seen = 0;
    if (t < 2) seen = table[5];  // these two are ordered before lane 3's write
    __syncwarp();
    if (t == 2) seen = table[5];  // this one is not: it cannot stand in for them
    if (t == 3) table[5] = seen;
    out[t] = seen;
}
constexpr int in_a_warp_read_line = __LINE__ - 4;
constexpr int in_a_warp_write_line = __LINE__ - 4;

// ---- correct kernels --------------------------------------------------------------
// Lanes of one warp read a word; after a __syncwarp one lane writes it.
__global__ void reads_then_warp_write(int* out) {
    __shared__ int table[32];
    const int t = threadIdx.x;
    table[t] = t;
    __syncthreads();
    const int seen = table[5] + table[5];
    __syncwarp();
    if (t == 7) table[5] = seen;
    out[t] = seen;
}

// The same reduction made right for independent lanes: read into a register,
// __syncwarp, write, __syncwarp.
__global__ void synced_block_sum(const float* in, float* sums) {
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * kBlock + t];
    __syncthreads();
    if (t < 64) s[t] += s[t + 64];
    __syncthreads();
    if (t < 32) {
        float v = s[t];
        for (int step = 32; step > 0; step /= 2) {
            v += s[t + step];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0) sums[blockIdx.x] = s[0];
}

// A tree reduction with a barrier after every step (lesson 11's, fixed).
__global__ void tree_block_sum(const float* in, float* sums) {
    __shared__ float s[kBlock];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * kBlock + t];
    __syncthreads();
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = s[0];
}

// A privatised histogram: atomics on shared memory, then a barrier, then reads.
__global__ void shared_histogram(const int* values, int* bins) {
    __shared__ int local[8];
    const int t = threadIdx.x;
    if (t < 8) local[t] = 0;
    __syncthreads();
    atomicAdd(&local[values[blockIdx.x * kBlock + t] & 7], 1);
    __syncthreads();
    if (t < 8) atomicAdd(&bins[t], local[t]);
}

// Warp shuffles, one shared slot per warp written by lane 0, read after a
// barrier by thread 0; and every thread reading the one value thread 0 wrote.
__global__ void shuffle_then_share(const float* in, float* sums, float* broadcast) {
    __shared__ float per_warp[kBlock / 32];
    __shared__ float first;
    const int t = threadIdx.x;
    float v = in[blockIdx.x * kBlock + t];
    for (int delta = 16; delta > 0; delta /= 2) v += __shfl_down_sync(0xffffffffu, v, delta);
    if (t % 32 == 0) per_warp[t / 32] = v;
    if (t == 0) first = in[blockIdx.x * kBlock];
    __syncthreads();
    if (t == 0) {
        float total = 0;
        for (int w = 0; w < kBlock / 32; ++w) total += per_warp[w];
        sums[blockIdx.x] = total;
    }
    broadcast[blockIdx.x * kBlock + t] = first;  // read-only sharing
}

// Neighbouring bytes of one word written by different threads: not a race.
__global__ void bytes_of_one_word(unsigned char* out) {
    __shared__ unsigned char flags[kBlock];
    const int t = threadIdx.x;
    flags[t] = static_cast<unsigned char>(t);
    flags[t] = static_cast<unsigned char>(flags[t] + 1);  // its own byte again
    __syncthreads();
    out[t] = flags[kBlock - 1 - t];
}

std::vector<float> block_sums_of(const std::vector<float>& in, int blocks) {
    std::vector<float> sums(blocks, 0.0f);
    for (int b = 0; b < blocks; ++b)
        for (int i = 0; i < kBlock; ++i) sums[b] += in[b * kBlock + i];
    return sums;
}

// Small whole numbers: every order of adding them gives the same float.
std::vector<float> small_values(int n) {
    std::vector<float> v(n);
    auto ints = random_ints(n, 0, 9);
    for (int i = 0; i < n; ++i) v[i] = static_cast<float>(ints[i]);
    return v;
}

// For the racing launches: never freed, since cudaFree fails once the race
// has made the error sticky.
template <class T>
T* device_array(int n) {
    T* p = nullptr;
    REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
    return p;
}

// True when the report has the line "    <kind> by thread <xyz> at <path>/test_races.cu:<line>".
bool names_access(const std::string& text, const std::string& kind, const char* thread, int line) {
    const std::string head = "    " + kind + " by thread " + thread + " at ";
    const std::string tail = "/test_races.cu:" + std::to_string(line) + "\n";
    for (std::size_t at = text.find(head); at != std::string::npos; at = text.find(head, at + 1)) {
        const std::size_t end = text.find('\n', at);
        if (end != std::string::npos && text.compare(end + 1 - tail.size(), tail.size(), tail) == 0)
            return true;
    }
    return false;
}

// Runs a racing kernel's launch under the capture and checks the report's
// common parts: one report, the hazard, the sticky error.
std::string race_report_of(const std::function<void()>& launch, const char* hazard) {
    stderr_capture capture(capture_until::device_idle);
    launch();
    const std::string text = capture.finish();
    const char* check = std::getenv("CUEMU_CHECK");
    const bool named = check && std::string(check).find("race") != std::string::npos;
    CHECK(text.find(named ? "cuemu: race on shared memory (CUEMU_CHECK=race)"
                          : "cuemu: race on shared memory (checked by default; CUEMU_CHECK=none turns the "
                            "check off)") != std::string::npos);
    CHECK(text.find(std::string(hazard) + " hazard") != std::string::npos);
    CHECK(text.find("race on shared memory") == text.rfind("race on shared memory"));  // one report
    CHECK(text.find("a race is not an error") != std::string::npos);
    check_sticky(cudaErrorLaunchFailure);
    return text;
}

#ifdef CUEMU
// ---- the uninstrumented twin ------------------------------------------------------
__global__ void store_calls_a_hook(int* called) {
    __shared__ int slots[kBlock];
    cuemu::detail::tls_hook_caller = nullptr;
    slots[threadIdx.x] = 1;
    // The instrumentation comes after GCC's optimizations, which would have
    // read nullptr straight from the line above: read the variable again. (Not
    // an asm volatile: a kernel that says volatile gets no twin.)
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    called[threadIdx.x] = cuemu::detail::tls_hook_caller != nullptr;
}

// The same store to global memory, from a kernel that cannot reach shared
// memory: its twin runs under the race check too (cuemu/launch.h).
__global__ void global_store_calls_a_hook(int* called, int* target) {
    cuemu::detail::tls_hook_caller = nullptr;
    target[threadIdx.x] = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    called[threadIdx.x] = cuemu::detail::tls_hook_caller != nullptr;
}

// Which blocks the check looks at: thread 0 of each says whether its store
// reached a hook.
__global__ void block_calls_a_hook(int* called) {
    __shared__ int slots[kBlock];
    cuemu::detail::tls_hook_caller = nullptr;
    slots[threadIdx.x] = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (threadIdx.x == 0) called[blockIdx.y * gridDim.x + blockIdx.x] = cuemu::detail::tls_hook_caller != nullptr;
}
#endif

// A race in the grid's last block only, and only when asked: each thread
// reads its right neighbour's slot with the barrier skipped there.
__global__ void race_in_last_block(int* out, int racy) {
    __shared__ int slots[kBlock];
    const int t = threadIdx.x;
    slots[t] = t;
    if (!(racy && blockIdx.x == gridDim.x - 1)) __syncthreads();
    out[blockIdx.x * kBlock + t] = slots[(t + 1) % kBlock];
}
}  // namespace

TEST_CASE("race:read-after-write" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(kBlock);
    std::string text = race_report_of([&] { read_after_write<<<2, kBlock>>>(out); }, "read-after-write");
    CHECK(text.find("'slots' of ") != std::string::npos);
    CHECK(names_access(text, "write", "(0,0,0)", raw_write_line));
    CHECK(names_access(text, "read ", "(1,0,0)", raw_read_line));
    CHECK(text.find("element 0 (byte offset 0") != std::string::npos);
    CHECK(text.find("block (0,0,0) of grid (2,1,1)") != std::string::npos);
    CHECK(text.find("hint: add a __syncthreads() after line " + std::to_string(raw_write_line) +
                    " and before line " + std::to_string(raw_read_line)) != std::string::npos);
}

// The default check's later launches look at some blocks, the grid's last
// among them: a race that a launch's own data brings there is reported.
TEST_CASE("race:last-block-of-a-later-launch" * doctest::test_suite("emulator-only")) {
    const int blocks = 40;
    int* out = device_array<int>(blocks * kBlock);
    race_in_last_block<<<blocks, kBlock>>>(out, 0);  // the first launch: every block, no race
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::string text = race_report_of([&] { race_in_last_block<<<blocks, kBlock>>>(out, 1); }, "write-after-read");
    CHECK(text.find("block (39,0,0) of grid (40,1,1)") != std::string::npos);
}

TEST_CASE("race:write-after-read" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(kBlock);
    std::string text = race_report_of([&] { write_after_read<<<1, kBlock>>>(out); }, "write-after-read");
    CHECK(names_access(text, "read ", "(0,0,0)", war_read_line));
    CHECK(names_access(text, "write", "(1,0,0)", war_write_line));
    CHECK(text.find("element 1 (byte offset 4") != std::string::npos);
    CHECK(text.find("after the __syncthreads() at ") != std::string::npos);
}

TEST_CASE("race:write-after-write" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(kBlock);
    std::string text = race_report_of([&] { write_after_write<<<1, kBlock>>>(out); }, "write-after-write");
    CHECK(text.find("'last' of ") != std::string::npos);
    CHECK(names_access(text, "write", "(0,0,0)", waw_line));
    CHECK(names_access(text, "write", "(1,0,0)", waw_line));
}

TEST_CASE("race:update-in-place" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(1);
    std::string text = race_report_of([&] { shared_counter<<<1, kBlock>>>(out); }, "read-after-write");
    CHECK(names_access(text, "write", "(0,0,0)", counter_line));
    CHECK(names_access(text, "read ", "(1,0,0)", counter_line));
    // Both remedies: the loop's barrier, and the atomic a counter needs.
    CHECK(text.find("hint: add a __syncthreads() after line " + std::to_string(counter_line) +
                    ", inside the loop around it") != std::string::npos);
    CHECK(text.find("but if both threads mean to update this one element (a count, a sum),") !=
          std::string::npos);
    CHECK(text.find("make the update atomic (atomicAdd)") != std::string::npos);
}

TEST_CASE("race:barrier-not-taken" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(kBlock);
    std::string text = race_report_of([&] { barrier_not_taken<<<1, kBlock>>>(out, false); },
                                      "read-after-write");
    CHECK(text.find("hint: add a __syncthreads() after line " +
                    std::to_string(not_taken_barrier_line - 1) + " and before line " +
                    std::to_string(not_taken_barrier_line + 1) + ";\n        line " +
                    std::to_string(not_taken_barrier_line) +
                    " has a __syncthreads() that did not run between them") != std::string::npos);
}

TEST_CASE("race:dynamic-shared-memory" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(kBlock);
    std::string text = race_report_of(
        [&] { dynamic_race<<<1, kBlock, kBlock * sizeof(int)>>>(out); }, "write-after-read");
    CHECK(text.find("the dynamic shared memory (extern __shared__), element 1") != std::string::npos);
}

TEST_CASE("race:legacy-warp-synchronous" * doctest::test_suite("emulator-only")) {
    float* in = device_array<float>(kBlock * 2);
    float* sums = device_array<float>(2);
    const auto in_h = small_values(kBlock * 2);
    REQUIRE(cudaMemcpy(in, in_h.data(), in_h.size() * sizeof(float), cudaMemcpyHostToDevice) ==
            cudaSuccess);
    std::string text = race_report_of([&] { legacy_block_sum<<<2, kBlock>>>(in, sums); },
                                      "read-after-write");
    CHECK(names_access(text, "write", "(16,0,0)", legacy_first_line));
    CHECK(names_access(text, "read ", "(0,0,0)", legacy_first_line + 1));
    CHECK(text.find("lanes of warp 0") != std::string::npos);
    CHECK(text.find("warp-synchronous code") != std::string::npos);
    CHECK(text.find("hint: add a __syncwarp()") != std::string::npos);
}

TEST_CASE("race:write-after-many-reads" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(kBlock);
    std::string text = race_report_of([&] { read_everywhere<<<1, kBlock>>>(out); }, "write-after-read");
    CHECK(names_access(text, "read ", "(0,0,0)", everywhere_read_line));
    CHECK(names_access(text, "write", "(100,0,0)", everywhere_write_line));
    CHECK(text.find("'table' of ") != std::string::npos);
    CHECK(text.find("element 5 (byte offset 20") != std::string::npos);
}

TEST_CASE("race:write-after-reads-in-one-warp" * doctest::test_suite("emulator-only")) {
    int* out = device_array<int>(32);
    std::string text = race_report_of([&] { read_in_a_warp<<<1, 32>>>(out); }, "write-after-read");
    CHECK(names_access(text, "read ", "(2,0,0)", in_a_warp_read_line));
    CHECK(names_access(text, "write", "(3,0,0)", in_a_warp_write_line));
    CHECK(text.find("lanes of warp 0") != std::string::npos);
}

TEST_CASE("clean:no-report-for-correct-sharing") {
    const int blocks = 6;
    stderr_capture capture(capture_until::device_idle);
    auto in_h = small_values(blocks * kBlock);
    const auto expected = block_sums_of(in_h, blocks);
    device_buffer<float> in(blocks * kBlock), sums(blocks), broadcast(blocks * kBlock);
    in.write(in_h);
    synced_block_sum<<<blocks, kBlock>>>(in.ptr, sums.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(sums.read() == expected);
    tree_block_sum<<<blocks, kBlock>>>(in.ptr, sums.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(sums.read() == expected);
    shuffle_then_share<<<blocks, kBlock>>>(in.ptr, sums.ptr, broadcast.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(sums.read() == expected);
    const auto seen = broadcast.read();
    for (int i = 0; i < blocks * kBlock; ++i) CHECK(seen[i] == in_h[i / kBlock * kBlock]);

    auto values_h = random_ints(blocks * kBlock, 0, 1000);
    std::vector<int> bins_expected(8, 0);
    for (int v : values_h) ++bins_expected[v & 7];
    device_buffer<int> values(blocks * kBlock), bins(8);
    values.write(values_h);
    REQUIRE(cudaMemset(bins.ptr, 0, 8 * sizeof(int)) == cudaSuccess);
    shared_histogram<<<blocks, kBlock>>>(values.ptr, bins.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(bins.read() == bins_expected);

    device_buffer<unsigned char> bytes(kBlock);
    bytes_of_one_word<<<blocks, kBlock>>>(bytes.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    const auto flags = bytes.read();
    for (int t = 0; t < kBlock; ++t) CHECK(flags[t] == kBlock - t);

    device_buffer<int> doubled(32);
    reads_then_warp_write<<<1, 32>>>(doubled.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(doubled.read() == std::vector<int>(32, 10));

    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::string text = capture.finish();
    CHECK(text.find("cuemu: race on shared memory") == std::string::npos);
}

TEST_CASE("lockstep:legacy-warp-synchronous-sum") {
    // Without CUEMU_CHECK the lanes of a warp take each volatile shared access
    // together, as the GPUs this code was written for did: the right sums.
    // The default race check says once that the code relies on this, and lets
    // the kernel go on; CUEMU_CHECK=none says nothing.
    const int blocks = 5;
    auto in_h = small_values(blocks * kBlock);
    device_buffer<float> in(blocks * kBlock), sums(blocks);
    in.write(in_h);
    stderr_capture capture(capture_until::device_idle);
    legacy_block_sum<<<blocks, kBlock>>>(in.ptr, sums.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(sums.read() == block_sums_of(in_h, blocks));
    const std::string text = capture.finish();
    CHECK(text.find("cuemu: race on shared memory") == std::string::npos);
#ifdef CUEMU
    const char* check = std::getenv("CUEMU_CHECK");
    const bool checked = !(check && std::string(check) == "none");
    INFO(text);
    CHECK((text.find("warp-synchronous code on volatile shared memory") != std::string::npos) == checked);
    if (checked) CHECK(text.find("test_races.cu:" + std::to_string(legacy_first_line)) != std::string::npos);
#endif
}

#ifdef CUEMU
TEST_CASE("twin:instrumented-only-under-the-race-check") {
    const char* check = std::getenv("CUEMU_CHECK");
    const bool race_check = !(check && std::string(check) == "none");
    device_buffer<int> called(kBlock);
    store_calls_a_hook<<<1, kBlock>>>(called.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    INFO("CUEMU_CHECK=" << std::string(check ? check : "(unset)"));
    CHECK(called.read() == std::vector<int>(kBlock, race_check ? 1 : 0));
    device_buffer<int> target(kBlock);
    global_store_calls_a_hook<<<1, kBlock>>>(called.ptr, target.ptr);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(called.read() == std::vector<int>(kBlock, 0));
}

// The default check looks at the 1st, 2nd, 4th, 8th ... launch of a kernel in
// one configuration (src/race_detector.cpp, checks_this_launch);
// CUEMU_CHECK=race at every launch, unless CUEMU_RACE_LAUNCHES=sampled (what
// ./tutorial run sets); CUEMU_RACE_LAUNCHES=all makes the default check look
// at every launch too; none looks at none.
TEST_CASE("twin:default-check-samples-repeated-launches") {
    const char* check = std::getenv("CUEMU_CHECK");
    const char* launches = std::getenv("CUEMU_RACE_LAUNCHES");
    const std::string setting = check ? check : "", which = launches ? launches : "";
    const bool every = which == "all" || (setting == "race" && which != "sampled");
    device_buffer<int> called(kBlock);
    auto instrumented = [&](int blocks) {
        store_calls_a_hook<<<blocks, kBlock>>>(called.ptr);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        return called.read()[0] == 1;
    };
    std::string seen, expected;
    for (int n = 1; n <= 40; ++n) {
        // Two blocks: a sampled launch looks at both (block 0, and the last),
        // so the last to write called[] says the same as the other.
        seen += instrumented(2) ? 'c' : '-';
        const bool sampled = n == 1 || n == 2 || n == 4 || n == 8 || n == 16 || n == 32;
        expected += setting == "none" ? '-' : every || sampled ? 'c' : '-';
    }
    INFO("CUEMU_CHECK=" << setting << " CUEMU_RACE_LAUNCHES=" << which);
    CHECK(seen == expected);
    // Another configuration of the same kernel starts its own count.
    CHECK(instrumented(4) == (setting != "none"));
}

// Sampled, the first launch of a configuration of up to 64 blocks is looked at
// in every block; a larger first launch, and the 2nd, 4th ... of any, in the
// same few blocks each time, the grid's far row and column and block 0 among
// them.
TEST_CASE("twin:default-check-samples-blocks-of-later-launches") {
    const char* check = std::getenv("CUEMU_CHECK");
    const char* launches = std::getenv("CUEMU_RACE_LAUNCHES");
    const std::string setting = check ? check : "", which = launches ? launches : "";
    const bool every = which == "all" || (setting == "race" && which != "sampled");
    INFO("CUEMU_CHECK=" << setting << " CUEMU_RACE_LAUNCHES=" << which);
    for (const dim3 grid : {dim3(8, 5), dim3(16, 8)}) {
        const int wide = static_cast<int>(grid.x), high = static_cast<int>(grid.y), blocks = wide * high;
        CAPTURE(blocks);
        device_buffer<int> called(blocks);
        auto looked_at = [&] {
            block_calls_a_hook<<<grid, kBlock>>>(called.ptr);
            REQUIRE(cudaGetLastError() == cudaSuccess);
            return called.read();
        };
        const std::vector<int> all(blocks, 1), none(blocks, 0);
        const std::vector<int> first = looked_at(), second = looked_at(), third = looked_at(), fourth = looked_at();
        if (setting == "none") {
            CHECK(first == none);
            CHECK(second == none);
            continue;
        }
        if (every) {
            CHECK(first == all);
            CHECK(second == all);
            CHECK(third == all);
            continue;
        }
        if (blocks <= 64)
            CHECK(first == all);
        else
            CHECK(first == second);
        CHECK(third == none);
        CHECK(fourth == second);  // the same blocks each time
        const int sampled = static_cast<int>(std::count(second.begin(), second.end(), 1));
        CHECK(sampled < blocks / 2);
        CHECK(second[0] == 1);
        for (int x = 0; x < wide; ++x) CHECK(second[(high - 1) * wide + x] == 1);  // the last row
        for (int y = 0; y < high; ++y) CHECK(second[y * wide + wide - 1] == 1);  // the last column
        CHECK(sampled > wide + high);  // and some from inside the grid
    }
}
#endif
