// test_memory_diagnostics.cu - the emulator as a teaching debugger for memory
// The cases that check its reports (all but host-pointer-allowed and
// device-memory-works-between-kernels) are in the test suite "emulator-only".
// bugs. Each test case feeds one small buggy program to the emulator and
// checks the message a learner would read: the kernel, its launch line, the
// block and thread (x,y,z) and, for memory, the buffer (its size and where it
// was allocated) and the offset. Then it checks what happens next: a sticky
// error (as on a GPU), a refused call, or a crash.
//
// CTest runs every case as a process of its own (--test-case=<name>), since a
// sticky error lasts for the process. Bugs that end the program (a device
// pointer used on the host, a sanitizer report) run in a forked child.
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "stderr_capture.h"

// ---- buggy kernels ------------------------------------------------------------------
// A 2D tile written without checking the row: rows past the last one are
// written anyway.
__global__ void fill_rows_without_check(float* m, int width) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width) m[y * width + x] = 1.0f;  // no `y < height`
}
constexpr int fill_rows_line = __LINE__ - 2;

// Reads the element before its own: thread 0 reads index -1.
__global__ void difference_with_previous(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] - in[i - 1];  // no `i > 0`
}
constexpr int difference_line = __LINE__ - 2;

__global__ void copy_element(int* out, const int* src, int index) {
    out[threadIdx.x] = src[index + threadIdx.x];
}
constexpr int copy_element_line = __LINE__ - 2;

__global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

__global__ void add_one(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

// A reference parameter is passed as the address of the caller's object.
struct tally {
    int value;
    int pad[3];
};
__global__ void bump_tally(tally& t, int by) { t.value += by; }
constexpr int bump_tally_line = __LINE__ - 1;
struct named_tally : tally {
    char name[8];
};
__managed__ tally managed_tally;

__global__ void recursive_sum(float* out, int depth) {
    volatile float local[1 << 16];  // 256 KiB: a CUDA thread's stack holds less
    for (int i = 0; i < (1 << 16); i += 512) local[i] = static_cast<float>(depth + i);
    out[threadIdx.x] = local[threadIdx.x * 512];
}

// ---- helpers -----------------------------------------------------------------------------
static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}
static std::string at_line(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

static std::vector<float> random_floats(size_t n) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

// ---- 1. past the end of a buffer, in a 2D launch --------------------------------------------
TEST_CASE("past-end-2d" * doctest::test_suite("emulator-only")) {
    // One column of 16 x 16 blocks covers 16 x 32; only block (0,1) reaches
    // past row 20, so the report is the same whichever worker runs it.
    const int width = 16, height = 21;
    float* d_m = nullptr;
    REQUIRE(cudaMalloc(&d_m, width * height * sizeof(float)) == cudaSuccess);
    const int alloc_line = __LINE__ - 1;
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    fill_rows_without_check<<<dim3(1, 2), dim3(16, 16)>>>(d_m, width);
    std::string report = capture.finish();
    CHECK(has(report, "cuemu: out-of-bounds write in kernel 'fill_rows_without_check' (launched at " +
                          at_line(launch_line) + ")"));
    // The first element past the end: row 21, column 0, in block (0,1) as thread (0,5).
    CHECK(has(report, "block (0,1,0) of grid (1,2,1), thread (0,5,0) of block (16,16,1)"));
    CHECK(has(report, "at " + at_line(fill_rows_line) + " in fill_rows_without_check"));
    CHECK(has(report, "0 bytes past the end of a 1344-byte buffer from cudaMalloc at " + at_line(alloc_line)));
    CHECK(has(report, "byte offset 1344: element 336"));
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));  // one report, not one per thread
    check_sticky(cudaErrorIllegalAddress);
}

// ---- 2. before the start of a buffer (sanitizer build only) ---------------------------------
// Registered only in the AddressSanitizer build: in the plain build the bytes
// just before a buffer are readable and nothing reports a[-1].
static void read_before_start() {
    const int n = 300;
    std::vector<float> h_in = random_floats(n);
    float *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    difference_with_previous<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    cudaDeviceSynchronize();
}
constexpr int before_start_alloc_line = __LINE__ - 6;  // in the forked child
constexpr int before_start_launch_line = __LINE__ - 4;
TEST_CASE("before-start" * doctest::test_suite("emulator-only")) {
    child_result r = run_in_child(read_before_start);
    CHECK(r.status != 0);  // AddressSanitizer ends the program
    CHECK(has(r.err, "cuemu: out-of-bounds read before the start of a buffer in kernel "
                     "'difference_with_previous'"));
    CHECK(has(r.err, "(launched at " + at_line(before_start_launch_line) + ")"));
    CHECK(has(r.err, "block (0,0,0) of grid (3,1,1), thread (0,0,0) of block (128,1,1)"));
    CHECK(has(r.err, "4 bytes before the start of a 1200-byte buffer from cudaMalloc at " +
                         at_line(before_start_alloc_line)));
    CHECK(has(r.err, "byte offset -4: element -1"));
    CHECK(has(r.err, "AddressSanitizer"));
    CHECK(has(r.err, std::string(__FILE__) + ":" + std::to_string(difference_line)));
}

// ---- 3. a host pointer passed to a kernel ------------------------------------------------------
TEST_CASE("host-pointer" * doctest::test_suite("emulator-only")) {
    std::vector<int> h_src(64, 7);  // host memory: the bug is passing it to the kernel
    int* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, 32 * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    copy_element<<<1, 32>>>(d_out, h_src.data(), 5);
    std::string report = capture.finish();
    CHECK(has(report, "cuemu: host pointer dereferenced (read) in kernel 'copy_element' (launched at " +
                          at_line(launch_line) + ")"));
    CHECK(has(report, "block (0,0,0) of grid (1,1,1), thread (0,0,0) of block (32,1,1)"));
    CHECK(has(report, "at " + at_line(copy_element_line) + " in copy_element"));
    char pointer[32];
    std::snprintf(pointer, sizeof pointer, "%p", static_cast<void*>(h_src.data()));
    CHECK(has(report, "argument 2 of the launch at " + at_line(launch_line) + " is " + pointer +
                          ", a host address"));
    CHECK(has(report, "byte offset 20: element 5"));
    CHECK(has(report, "cudaMemcpy the data"));
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));
    check_sticky(cudaErrorIllegalAddress);
}

// Pinned host memory (cudaMallocHost) and managed memory are reachable from a
// kernel on a GPU, so they are not screened.
TEST_CASE("host-pointer-allowed") {
    const int n = 200;
    int *pinned = nullptr, *managed = nullptr;
    REQUIRE(cudaMallocHost(&pinned, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&managed, n * sizeof(int)) == cudaSuccess);
    std::mt19937 rng(std::random_device{}());
    std::vector<int> expected(n);
    for (int i = 0; i < n; ++i) {
        expected[i] = static_cast<int>(rng() % 1000);
        pinned[i] = managed[i] = expected[i];
    }
    stderr_capture capture(capture_until::device_idle);
    add_one<<<(n + 63) / 64, 64>>>(pinned, n);
    add_one<<<(n + 63) / 64, 64>>>(managed, n);
    std::string report = capture.finish();
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(report.empty());
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += (pinned[i] != expected[i] + 1) + (managed[i] != expected[i] + 1);
    CHECK(wrong == 0);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
    CHECK(cudaFree(managed) == cudaSuccess);
}

// A host object for a reference parameter: the kernel gets the object's
// address, which a GPU cannot read (an H200 stops the kernel with
// cudaErrorIllegalAddress); nothing is copied that would hide the bug.
TEST_CASE("host-object-reference" * doctest::test_suite("emulator-only")) {
    tally on_stack{};
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    bump_tally<<<1, 1>>>(on_stack, 3);
    std::string report = capture.finish();
    CHECK(has(report, "cuemu: host object used through a reference parameter (read) in kernel "
                      "'bump_tally' (launched at " + at_line(launch_line) + ")"));
    CHECK(has(report, "at " + at_line(bump_tally_line) + " in bump_tally"));
    char pointer[32];
    std::snprintf(pointer, sizeof pointer, "%p", static_cast<void*>(&on_stack));
    CHECK(has(report, "parameter 1 of the kernel is a reference: the launch at " +
                          at_line(launch_line) + " passed the address of\n    the caller's " +
                          "object, " + pointer + ", and made no copy"));
    CHECK(has(report, "which a GPU cannot read"));
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));
    CHECK(on_stack.value == 0);
    check_sticky(cudaErrorIllegalAddress);
}

// Objects in managed, pinned or registered host memory are reachable from a
// kernel: a reference to one is the object itself, and the host sees the
// kernel's writes; a derived object too.
TEST_CASE("object-reference-allowed") {
    tally* managed = nullptr;
    named_tally* derived = nullptr;
    tally* pinned = nullptr;
    REQUIRE(cudaMallocManaged(&managed, sizeof(tally)) == cudaSuccess);
    REQUIRE(cudaMallocManaged(&derived, sizeof(named_tally)) == cudaSuccess);
    REQUIRE(cudaMallocHost(&pinned, sizeof(tally)) == cudaSuccess);
    std::vector<tally> registered(1);
    REQUIRE(cudaHostRegister(registered.data(), sizeof(tally), cudaHostRegisterDefault) ==
            cudaSuccess);
    std::mt19937 rng(std::random_device{}());
    const int start = static_cast<int>(rng() % 1000), by = 1 + static_cast<int>(rng() % 100);
    managed->value = derived->value = pinned->value = registered[0].value = start;
    managed_tally.value = start;
    stderr_capture capture(capture_until::device_idle);
    bump_tally<<<1, 1>>>(*managed, by);
    bump_tally<<<1, 1>>>(*derived, by);
    bump_tally<<<1, 1>>>(*pinned, by);
    bump_tally<<<1, 1>>>(registered[0], by);
    bump_tally<<<1, 1>>>(managed_tally, by);
    std::string report = capture.finish();
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(report.empty());
    CHECK(managed->value == start + by);
    CHECK(derived->value == start + by);
    CHECK(pinned->value == start + by);
    CHECK(registered[0].value == start + by);
    CHECK(managed_tally.value == start + by);
    CHECK(cudaHostUnregister(registered.data()) == cudaSuccess);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
    CHECK(cudaFree(managed) == cudaSuccess);
    CHECK(cudaFree(derived) == cudaSuccess);
}

// ---- 4. a device pointer dereferenced on the host -----------------------------------------------
static void read_device_memory_on_host() {
    const int n = 100;
    std::vector<float> h = random_floats(n);
    float* d_values = nullptr;
    cudaMalloc(&d_values, n * sizeof(float));
    cudaMemcpy(d_values, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    // A copy back first, as lesson 03's program does: device memory must be
    // closed again when cudaMemcpy returns, not a moment later.
    cudaMemcpy(h.data(), d_values, n * sizeof(float), cudaMemcpyDeviceToHost);
    volatile float* values = d_values;
    float third = values[3];  // the bug: d_values lives on the device
    std::printf("%f\n", third);
}
constexpr int device_on_host_alloc_line = __LINE__ - 9;  // in the forked child
constexpr int device_on_host_use_line = __LINE__ - 4;
TEST_CASE("device-pointer-on-host" * doctest::test_suite("emulator-only")) {
    child_result r = run_in_child(read_device_memory_on_host);
    CHECK(WIFSIGNALED(r.status));  // a segmentation fault, as on a GPU machine
    if (WIFSIGNALED(r.status)) CHECK(WTERMSIG(r.status) == SIGSEGV);
    CHECK(has(r.err, "cuemu: host code read through a device pointer (cudaMalloc of 400 bytes at " +
                         at_line(device_on_host_alloc_line) + ")"));
    CHECK(has(r.err, "at " + at_line(device_on_host_use_line)));
    CHECK(has(r.err, "inside a 400-byte buffer from cudaMalloc"));
    CHECK(has(r.err, "byte offset 12: element 3"));
    CHECK(has(r.err, "device memory is only reachable from kernels; copy it back with cudaMemcpy"));
}

// ---- 4b. queued work that touches host memory gone by the time it runs ----------------------
// The bug: the host buffer of a cudaMemcpyAsync is released before the copy
// has run. A host function queued first holds the device until the buffer
// is gone, so the copy runs after it on every run. The buffer is pinned
// (registered): only then does cudaMemcpyAsync return before the copy; from
// pageable memory it waits for the copy, as CUDA allows (copy_engines.cpp).
static std::atomic<bool> host_buffer_released{false};
static void CUDART_CB wait_until_released(void*) {
    while (!host_buffer_released.load()) usleep(1000);
}
static void copy_from_released_host_buffer() {
    const size_t bytes = 4096;
    float* d_values = nullptr;
    cudaMalloc(&d_values, bytes);
    void* h_values = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    std::memset(h_values, 0, bytes);
    cudaHostRegister(h_values, bytes, cudaHostRegisterDefault);
    cudaLaunchHostFunc(0, wait_until_released, nullptr);
    cudaMemcpyAsync(d_values, h_values, bytes, cudaMemcpyHostToDevice);
    // Released (and still registered) while the copy is queued. PROT_NONE
    // rather than munmap: an unmapped hole can be mapped again by anything
    // before the copy runs (a thread's stack, the sanitizer's allocator: the
    // ASan lane saw no fault once in CI), and then the copy reads valid memory.
    mprotect(h_values, bytes, PROT_NONE);
    host_buffer_released = true;
    cudaDeviceSynchronize();
}
constexpr int released_copy_line = __LINE__ - 9;
TEST_CASE("queued-copy-after-host-free" * doctest::test_suite("emulator-only")) {
    child_result r = run_in_child(copy_from_released_host_buffer);
    CHECK(WIFSIGNALED(r.status));  // the program crashes, as it may on a GPU machine
    if (WIFSIGNALED(r.status)) CHECK(WTERMSIG(r.status) == SIGSEGV);
    CHECK(has(r.err, "cuemu: cudaMemcpyAsync at " + at_line(released_copy_line) +
                         " (cudaMemcpyHostToDevice, 4096 bytes) faulted reading address "));
    CHECK(has(r.err, "byte 0 of the source"));
    CHECK(has(r.err, "synchronize (cudaStreamSynchronize) before freeing or reusing it"));
    CHECK(!has(r.err, "host code"));  // not mistaken for the host program's own fault
}

// Between kernels the same buffer is usable by kernels and copies as before.
TEST_CASE("device-memory-works-between-kernels") {
    const int n = 1000;
    std::vector<float> h_in = random_floats(n), h_out(n, -7.0f);  // poisoned
    float *d_in = nullptr, *d_out = nullptr;
    REQUIRE(cudaMalloc(&d_in, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    scale<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    scale<<<(n + 255) / 256, 256>>>(d_out, d_in, n);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaMemcpy(h_out.data(), d_in, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += h_out[i] != 4.0f * h_in[i];  // exact: scaling by 2 twice
    CHECK(wrong == 0);
}

// ---- 5. use after cudaFree (host side) and double free ------------------------------------------
TEST_CASE("double-free" * doctest::test_suite("emulator-only")) {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
    const int alloc_line = __LINE__ - 1;
    REQUIRE(cudaFree(d) == cudaSuccess);
    const int first_free_line = __LINE__ - 1;
    stderr_capture capture(capture_until::device_idle);
    const int second_free_line = __LINE__ + 1;
    cudaError_t second = cudaFree(d);
    std::string report = capture.finish();
    CHECK(second == cudaErrorInvalidValue);
    CHECK(has(report, "cuemu: cudaFree at " + at_line(second_free_line) +
                          " frees a 256-byte buffer from cudaMalloc at " + at_line(alloc_line) +
                          " a second time"));
    CHECK(has(report, "(it was freed by cudaFree at " + at_line(first_free_line) + ")"));
    // Not sticky: the runtime refuses the call and goes on.
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
    float* more = nullptr;
    CHECK(cudaMalloc(&more, 16) == cudaSuccess);
}

TEST_CASE("copy-from-freed" * doctest::test_suite("emulator-only")) {
    std::vector<float> h(64);
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, h.size() * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaFree(d) == cudaSuccess);
    const int free_line = __LINE__ - 1;
    stderr_capture capture(capture_until::device_idle);
    const int copy_line = __LINE__ + 1;
    cudaError_t e = cudaMemcpy(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::string report = capture.finish();
    CHECK(e == cudaErrorInvalidValue);
    CHECK(has(report, "cuemu: cudaMemcpy at " + at_line(copy_line) + " refused: the source is a "
                      "256-byte buffer from cudaMalloc at "));
    CHECK(has(report, "freed by cudaFree at " + at_line(free_line)));
}

// ---- 6. cudaMemcpy: too many bytes, the wrong direction ----------------------------------------
TEST_CASE("memcpy-too-many-bytes" * doctest::test_suite("emulator-only")) {
    const int n = 1000;
    std::vector<float> h = random_floats(n + 1);
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, n * sizeof(float)) == cudaSuccess);
    const int alloc_line = __LINE__ - 1;
    stderr_capture capture(capture_until::device_idle);
    const int copy_line = __LINE__ + 1;
    cudaError_t e = cudaMemcpy(d, h.data(), (n + 1) * sizeof(float), cudaMemcpyHostToDevice);
    std::string report = capture.finish();
    CHECK(e == cudaErrorInvalidValue);  // as the real runtime
    CHECK(has(report, "cuemu: cudaMemcpy at " + at_line(copy_line) +
                          " refused: 4004 bytes from byte offset 0 do not fit in a 4000-byte "
                          "buffer from cudaMalloc at " + at_line(alloc_line)));
    CHECK(has(report, "the copy would run 4 bytes past its end"));
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
}

TEST_CASE("memcpy-wrong-direction" * doctest::test_suite("emulator-only")) {
    const int n = 256;
    std::vector<float> h_result(n);
    float* d_result = nullptr;
    REQUIRE(cudaMalloc(&d_result, n * sizeof(float)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int copy_line = __LINE__ + 1;
    cudaError_t e = cudaMemcpy(h_result.data(), d_result, n * sizeof(float), cudaMemcpyHostToDevice);
    std::string report = capture.finish();
    CHECK(e == cudaErrorInvalidValue);  // as the real runtime
    char pointer[32];
    std::snprintf(pointer, sizeof pointer, "%p", static_cast<void*>(h_result.data()));
    CHECK(has(report, "cuemu: cudaMemcpy at " + at_line(copy_line) + " refused: the destination " +
                          pointer + " is not device memory, but cudaMemcpyHostToDevice copies to the device"));
    CHECK(has(report, "are the two pointers, or the direction, swapped?"));
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
}

// ---- 7. reading memory nothing wrote (CUEMU_CHECK=uninit) --------------------------------------
TEST_CASE("uninit-kernel-read" * doctest::test_suite("emulator-only")) {
    REQUIRE(std::getenv("CUEMU_CHECK") != nullptr);  // CTest sets CUEMU_CHECK=uninit
    const int n = 256;
    float *d_in = nullptr, *d_out = nullptr;
    REQUIRE(cudaMalloc(&d_in, n * sizeof(float)) == cudaSuccess);
    const int alloc_line = __LINE__ - 1;
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    // The bug: the input is never copied to d_in.
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    scale<<<1, n>>>(d_in, d_out, n);
    std::string report = capture.finish();
    CHECK(cudaGetLastError() == cudaSuccess);  // a GPU reports nothing; neither is it an error here
    CHECK(has(report, "cuemu: read of device memory nothing wrote (CUEMU_CHECK=uninit) in kernel "
                      "'scale' (launched at " + at_line(launch_line) + ")"));
    CHECK(has(report, "block (0,0,0) of grid (1,1,1), thread (0,0,0) of block (256,1,1)"));
    CHECK(has(report, "inside a 1024-byte buffer from cudaMalloc at " + at_line(alloc_line)));
    CHECK(has(report, "byte offset 0: element 0"));
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));  // one report per launch
    // A buffer the program did fill gives no report.
    std::vector<float> h_in = random_floats(n);
    REQUIRE(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    stderr_capture quiet(capture_until::device_idle);
    scale<<<1, n>>>(d_in, d_out, n);
    CHECK(quiet.finish().empty());
}

// Kernels queued back to back, with no wait between them: what the first
// wrote counts as written when the second reads it, and the copy back is clean.
TEST_CASE("uninit-queued-kernels" * doctest::test_suite("emulator-only")) {
    REQUIRE(std::getenv("CUEMU_CHECK") != nullptr);
    const int n = 3000;  // several pages, not a multiple of the block
    std::vector<float> h_in = random_floats(n), h_out(n, -7.0f);  // poisoned
    float *d_in = nullptr, *d_mid = nullptr, *d_out = nullptr;
    REQUIRE(cudaMalloc(&d_in, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_mid, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    REQUIRE(cudaMemcpyAsync(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    scale<<<(n + 255) / 256, 256>>>(d_in, d_mid, n);
    scale<<<(n + 255) / 256, 256>>>(d_mid, d_out, n);
    REQUIRE(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    std::string report = capture.finish();
    CHECK(report.empty());
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += h_out[i] != 4.0f * h_in[i];  // exact: scaling by 2 twice
    CHECK(wrong == 0);
}

TEST_CASE("uninit-copy-back" * doctest::test_suite("emulator-only")) {
    REQUIRE(std::getenv("CUEMU_CHECK") != nullptr);
    const int n = 1000;
    std::vector<float> h_in = random_floats(n), h_out(n);
    float *d_in = nullptr, *d_out = nullptr;
    REQUIRE(cudaMalloc(&d_in, n * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    const int alloc_line = __LINE__ - 1;
    REQUIRE(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    scale<<<n / 256, 256>>>(d_in, d_out, n);  // the bug: 3 blocks cover 768 of 1000 elements
    REQUIRE(cudaGetLastError() == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int copy_line = __LINE__ + 1;
    cudaError_t e = cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    std::string report = capture.finish();
    CHECK(e == cudaSuccess);
    CHECK(has(report, "cuemu: cudaMemcpy at " + at_line(copy_line) +
                          " copies device memory that nothing wrote (CUEMU_CHECK=uninit)"));
    CHECK(has(report, "928 of the 4000 bytes copied from a 4000-byte buffer from cudaMalloc at " +
                          at_line(alloc_line)));
    CHECK(has(report, "byte offset 3072: element 768"));
    CHECK(h_out[767] == 2.0f * h_in[767]);
}

// ---- 10. a thread's stack overflows ------------------------------------------------------------
TEST_CASE("stack-overflow-position" * doctest::test_suite("emulator-only")) {
    float* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    recursive_sum<<<2, 64>>>(d, 3);
    std::string report = capture.finish();
    CHECK(has(report, "cuemu: stack overflow in kernel 'recursive_sum' (launched at " +
                          at_line(launch_line) + ")"));
    CHECK(has(report, "block (0,0,0) of grid (2,1,1), thread (0,0,0) of block (64,1,1)"));
    CHECK(has(report, "large local array"));
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));
    check_sticky(cudaErrorIllegalAddress);
}

// ---- report and continue (CUEMU_ON_FAULT=continue) -----------------------------------------------
TEST_CASE("continue-after-fault" * doctest::test_suite("emulator-only")) {
    REQUIRE(std::getenv("CUEMU_ON_FAULT") != nullptr);  // CTest sets CUEMU_ON_FAULT=continue
    // 1344 bytes, a multiple of 16: in the sanitizer build too, the first
    // access past the end hits the guard page (not ASan's poisoned slack).
    const int width = 16, height = 21;
    float* d_m = nullptr;
    REQUIRE(cudaMalloc(&d_m, width * height * sizeof(float)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    fill_rows_without_check<<<dim3(1, 2), dim3(16, 16)>>>(d_m, width);
    std::string report = capture.finish();
    CHECK(cudaGetLastError() == cudaSuccess);  // no sticky error in this mode
    CHECK(has(report, "cuemu: out-of-bounds write in kernel 'fill_rows_without_check'"));
    CHECK(has(report, "CUEMU_ON_FAULT=continue: this thread is"));
    // 11 rows past the end, 16 columns each: every one of those threads faulted.
    CHECK(has(report, "cuemu: 176 CUDA threads of kernel 'fill_rows_without_check'"));
    CHECK(report.find("out-of-bounds") == report.rfind("out-of-bounds"));  // reported once
    std::vector<float> h(width * height, 0.0f);
    REQUIRE(cudaMemcpy(h.data(), d_m, h.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    int wrong = 0;
    for (float v : h) wrong += v != 1.0f;  // the threads inside the matrix all ran
    CHECK(wrong == 0);
}

// ---- a misaligned pointer argument, where the kernel has an aligned twin ------------------
// `halve_into` only indexes its pointer parameters, so the emulator may run it without
// a check per access (cuemu/launch.h, "aligned twin") when both pointers are
// aligned for float. A float pointer two bytes into a buffer is not: the launch
// must run the checked kernel and report the access, as without the twin.
__global__ void halve_into(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float value = i < n ? in[i] : 0.0f;
    if (i < n) out[i] = value / 2;
}
constexpr int halve_into_read_line = __LINE__ - 3;

TEST_CASE("misaligned-argument-with-aligned-twin" * doctest::test_suite("emulator-only")) {
    float *in, *out;
    REQUIRE(cudaMalloc(&in, 1024 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&out, 1024 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMemset(in, 0, 1024 * sizeof(float)) == cudaSuccess);
#if defined(CUEMU) && defined(__SANITIZE_THREAD__)
    const std::uint64_t before = cuemu::aligned_twin_launches();
#endif
    halve_into<<<4, 256>>>(in, out, 1000);  // aligned: the aligned twin may run
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
#if defined(CUEMU) && defined(__SANITIZE_THREAD__)
    const char* setting = std::getenv("CUEMU_ALIGNED_TWINS");
    CHECK(cuemu::aligned_twin_launches() == before + (setting && std::strcmp(setting, "0") == 0 ? 0 : 1));
    const std::uint64_t after_aligned = cuemu::aligned_twin_launches();
#endif
    const float* shifted = reinterpret_cast<const float*>(reinterpret_cast<const char*>(in) + 2);
    stderr_capture capture;
    const int launch_line = __LINE__ + 1;
    halve_into<<<4, 256>>>(shifted, out, 1000);
    CHECK(cudaDeviceSynchronize() == cudaErrorMisalignedAddress);
    const std::string report = capture.finish();
#if defined(CUEMU) && defined(__SANITIZE_THREAD__)
    CHECK(cuemu::aligned_twin_launches() == after_aligned);  // the checked twin ran
#endif
    CHECK(has(report, "cuemu: misaligned memory access in kernel 'halve_into' (launched at " +
                      at_line(launch_line) + ")"));
    CHECK(has(report, "thread (0,0,0) made the access at " + at_line(halve_into_read_line)));
    CHECK(has(report, "it must be 4-byte aligned, and this address is 2 bytes\n  past a multiple of 4"));
}
