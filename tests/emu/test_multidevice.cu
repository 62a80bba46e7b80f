// test_multidevice.cu - several emulated devices (CUEMU_DEVICES): the count
// and properties, the current device per host thread, each device's own
// memory, peer access rules and their error codes, copies between devices
// and their ordering, streams and events of one device used with another's,
// the report for a kernel that uses another device's memory without peer
// access, and sticky errors that belong to one device.
//
// CTest runs it with CUEMU_DEVICES=2 and =4 (the cases need at least two
// devices), the case "single-device" with the default (one device), and
// each case that ends with a sticky error as a process of its own.
// The cases that check the emulator's reports (another device's memory used
// without peer access, memory nothing wrote) are in the test suite
// "emulator-only": on a GPU such a read may work or give a wrong answer (on
// an H200, with one device, reports-of-several-devices-do-not-interleave's
// kernel read its own buffer and ended with cudaSuccess).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "stderr_capture.h"

__global__ void fill(int* out, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value + i;
}

const int read_line = __LINE__ + 3;  // the line of the read in add_from
__global__ void add_from(int* out, const int* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += in[i];
}

// The same read through a pointer kept in a struct: the launch cannot screen
// it as it screens a raw pointer argument.
struct borrowed {
    const int* in;
};
const int struct_read_line = __LINE__ + 3;  // the line of the read in add_through
__global__ void add_through(int* out, borrowed from, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += from.in[i];
}

// Spins long enough that work queued behind it on another stream or
// device would overtake it if nothing ordered them.
__global__ void slow_fill(int* out, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    volatile int spin = 0;
    for (int k = 0; k < 20000; ++k) spin = spin + 1;
    if (i < n) out[i] = value + i + spin - spin;
}

// Spins until the host sets *release (or it gives up after max_polls);
// *released says which.
__global__ void hold(volatile int* release, int* released, long long max_polls) {
    long long polls = 0;
    while (*release == 0 && polls < max_polls) ++polls;
    *released = *release != 0 ? 1 : 0;
}

namespace {

#ifdef CUEMU
int devices_from_environment() {
    const char* text = std::getenv("CUEMU_DEVICES");
    return text ? std::atoi(text) : 1;
}
#endif

int device_count() {
    int n = 0;
    REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
    return n;
}

int device_of(const void* p) {
    cudaPointerAttributes a{};
    REQUIRE(cudaPointerGetAttributes(&a, p) == cudaSuccess);
    return a.device;
}

std::vector<int> to_host(const int* d, int n) {
    std::vector<int> h(n);
    REQUIRE(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
}

// Built with nvcc for a real machine, the cases that need two devices skip
// themselves, with a message, where it has fewer; the emulator always runs
// them (CTest gives it CUEMU_DEVICES=2 and 4). "single-device" likewise needs
// exactly one.
bool devices_here(int wanted, bool exactly) {
#ifdef CUEMU
    (void)wanted;
    (void)exactly;
    return true;
#else
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    if (exactly ? n == wanted : n >= wanted) return true;
    MESSAGE("skipped: this case needs " << (exactly ? "exactly " : "") << wanted << " device(s); this machine has "
                                        << n);
    return false;
#endif
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// in1 on device 1 holds 10, 11, ..., and device 1 is idle; out0 is device 0's,
// unset; device 0 is current.
void buffers_on_devices_0_and_1(int n, int** out0, int** in1) {
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaMalloc(in1, n * sizeof(int)) == cudaSuccess);
    fill<<<2, 256>>>(*in1, n, 10);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    REQUIRE(cudaMalloc(out0, n * sizeof(int)) == cudaSuccess);
}

}  // namespace

TEST_CASE("count-and-properties") {
    if (!devices_here(2, false)) return;
    const int n = device_count();
#ifdef CUEMU
    CHECK(n == devices_from_environment());
#endif
    REQUIRE(n >= 2);
    std::vector<int> pci_ids;
    for (int d = 0; d < n; ++d) {
        cudaDeviceProp p{};
        REQUIRE(cudaGetDeviceProperties(&p, d) == cudaSuccess);
        int id = -1;
        REQUIRE(cudaDeviceGetAttribute(&id, cudaDevAttrPciDeviceId, d) == cudaSuccess);
        CHECK(id == p.pciDeviceID);
        for (int other : pci_ids) CHECK(other != id);
        pci_ids.push_back(id);
    }
    cudaDeviceProp p{};
    int value = 0;
    CHECK(cudaGetDeviceProperties(&p, n) == cudaErrorInvalidDevice);
    CHECK(cudaGetDeviceProperties(&p, -1) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrPciDeviceId, n) == cudaErrorInvalidDevice);
    CHECK(cudaSetDevice(n) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    int current = -1;
    CHECK(cudaGetDevice(&current) == cudaSuccess);
    CHECK(current == 0);  // the refused cudaSetDevice changed nothing
}

TEST_CASE("current-device-per-thread") {
    if (!devices_here(2, false)) return;
    const int last = device_count() - 1;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    int seen_in_thread = -1, after_set = -1, allocated_on = -1;
    std::thread([&] {
        cudaGetDevice(&seen_in_thread);  // a new thread starts on device 0
        cudaSetDevice(last);
        cudaGetDevice(&after_set);
        int* d = nullptr;
        if (cudaMalloc(&d, 64) == cudaSuccess) {
            cudaPointerAttributes a{};
            cudaPointerGetAttributes(&a, d);
            allocated_on = a.device;
            cudaFree(d);
        }
    }).join();
    CHECK(seen_in_thread == 0);
    CHECK(after_set == last);
    CHECK(allocated_on == last);
    int here = -1;
    CHECK(cudaGetDevice(&here) == cudaSuccess);
    CHECK(here == 1);  // the other thread's cudaSetDevice did not change ours
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
    CHECK(device_of(d) == 1);
    CHECK(cudaFree(d) == cudaSuccess);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
}

TEST_CASE("memory-per-device") {
    if (!devices_here(2, false)) return;
    const int n = device_count();
    std::vector<int*> buffers(n);
    for (int d = 0; d < n; ++d) {
        REQUIRE(cudaSetDevice(d) == cudaSuccess);
        REQUIRE(cudaMalloc(&buffers[d], 4096) == cudaSuccess);
        CHECK(device_of(buffers[d]) == d);
        if (d > 0) CHECK(buffers[d] > buffers[d - 1]);  // each device has its own address range
    }
    // Memory taken on device 1 counts against device 1 only.
    constexpr size_t big = size_t(64) << 20;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    size_t free1 = 0, total1 = 0;
    REQUIRE(cudaMemGetInfo(&free1, &total1) == cudaSuccess);
    void* large = nullptr;
    REQUIRE(cudaMalloc(&large, big) == cudaSuccess);
    size_t free1_after = 0, total1_after = 0;
    REQUIRE(cudaMemGetInfo(&free1_after, &total1_after) == cudaSuccess);
    CHECK(total1_after == total1);
    CHECK(free1_after <= total1 - big - 4096);
    cudaDeviceProp p{};
    REQUIRE(cudaGetDeviceProperties(&p, 1) == cudaSuccess);
    CHECK(p.totalGlobalMem == total1);
    // cudaDeviceReset frees the current device's memory only.
    REQUIRE(cudaDeviceReset() == cudaSuccess);
    cudaPointerAttributes a{};
    REQUIRE(cudaPointerGetAttributes(&a, buffers[1]) == cudaSuccess);
    CHECK(a.type == cudaMemoryTypeUnregistered);  // freed by the reset
    CHECK(device_of(buffers[0]) == 0);            // device 0's buffer lives on
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    for (int d = 0; d < n; ++d)
        if (d != 1) CHECK(cudaFree(buffers[d]) == cudaSuccess);
}

TEST_CASE("peer-access-rules") {
    if (!devices_here(2, false)) return;
    const int n = device_count();
    int can = -1;
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaSuccess);
    CHECK(can == 1);
    CHECK(cudaDeviceCanAccessPeer(&can, 1, 1) == cudaSuccess);
    CHECK(can == 0);  // a device is not its own peer
    CHECK(cudaDeviceCanAccessPeer(&can, 0, n) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceCanAccessPeer(&can, -1, 0) == cudaErrorInvalidDevice);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaDeviceEnablePeerAccess(1, 1) == cudaErrorInvalidValue);
    CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorPeerAccessUnsupported);  // as on an H200
    CHECK(cudaDeviceEnablePeerAccess(n, 0) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled);
    CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
    CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
    CHECK(cudaGetLastError() == cudaErrorPeerAccessAlreadyEnabled);
    // One way only: device 1 has no access to device 0.
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    CHECK(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaDeviceDisablePeerAccess(1) == cudaSuccess);
    CHECK(cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled);
    CHECK(cudaGetLastError() == cudaErrorPeerAccessNotEnabled);
    CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("pci-bus-ids-and-link-attributes") {
    if (!devices_here(2, false)) return;
    const int n = device_count();
    std::vector<std::string> ids;
    for (int d = 0; d < n; ++d) {
        char id[16] = {};
        REQUIRE(cudaDeviceGetPCIBusId(id, sizeof id, d) == cudaSuccess);
        cudaDeviceProp prop{};
        REQUIRE(cudaGetDeviceProperties(&prop, d) == cudaSuccess);
        unsigned domain = 99, bus = 99, device = 99;
        REQUIRE(std::sscanf(id, "%x:%x:%x.0", &domain, &bus, &device) == 3);
        CHECK(static_cast<int>(domain) == prop.pciDomainID);
        CHECK(static_cast<int>(bus) == prop.pciBusID);
        CHECK(static_cast<int>(device) == prop.pciDeviceID);
        int back = -1;
        REQUIRE(cudaDeviceGetByPCIBusId(&back, id) == cudaSuccess);
        CHECK(back == d);
        ids.push_back(id);
    }
    CHECK(ids[0] != ids[1]);  // each device at a place of its own
    int value = -1;
    REQUIRE(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, 1) == cudaSuccess);
    CHECK(value == 1);  // as cudaDeviceCanAccessPeer says
    REQUIRE(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, 1, 0) == cudaSuccess);
    CHECK(value >= 0);
    CHECK(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 1, 1) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, 0, n) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceGetP2PAttribute(nullptr, cudaDevP2PAttrAccessSupported, 0, 1) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("peer-copies") {
    if (!devices_here(2, false)) return;
    const int n = 1000;
    const size_t bytes = n * sizeof(int);
    int *a0 = nullptr, *b1 = nullptr, *c1 = nullptr;
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    REQUIRE(cudaMalloc(&a0, bytes) == cudaSuccess);
    fill<<<(n + 255) / 256, 256>>>(a0, n, 100);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaMalloc(&b1, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&c1, bytes) == cudaSuccess);
    // cudaMemcpyPeer: no peer access needed; ordered after device 0's kernel.
    REQUIRE(cudaMemcpyPeer(b1, 1, a0, 0, bytes) == cudaSuccess);
    std::vector<int> h = to_host(b1, n);
    CHECK(h[0] == 100);
    CHECK(h[n - 1] == 100 + n - 1);
    // cudaMemcpyDefault and DeviceToDevice between devices (unified addressing).
    REQUIRE(cudaMemcpy(c1, a0, bytes, cudaMemcpyDefault) == cudaSuccess);
    CHECK(to_host(c1, n)[7] == 107);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    fill<<<(n + 255) / 256, 256>>>(a0, n, 5);
    REQUIRE(cudaMemcpy(c1, a0, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess);
    CHECK(to_host(c1, n)[7] == 12);
    // Wrong device numbers and pointers are refused.
    CHECK(cudaMemcpyPeer(b1, 2 + device_count(), a0, 0, bytes) == cudaErrorInvalidDevice);
    CHECK(cudaMemcpyPeer(b1, 0, a0, 0, bytes) == cudaErrorInvalidValue);  // b1 is device 1's
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    // cudaMemcpyPeerAsync is ordered in its stream: behind a slow kernel of
    // device 1 that writes the source.
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    cudaStream_t s1;
    REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
    slow_fill<<<(n + 255) / 256, 256, 0, s1>>>(b1, n, 7000);
    REQUIRE(cudaMemcpyPeerAsync(a0, 0, b1, 1, bytes, s1) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
    h = to_host(a0, n);
    CHECK(h[0] == 7000);
    CHECK(h[n - 1] == 7000 + n - 1);
    CHECK(cudaStreamDestroy(s1) == cudaSuccess);
    CHECK(cudaFree(a0) == cudaSuccess);  // device 0's buffer, freed while device 1 is current
    CHECK(cudaFree(b1) == cudaSuccess);
    CHECK(cudaFree(c1) == cudaSuccess);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
}

TEST_CASE("kernel-with-peer-access") {
    if (!devices_here(2, false)) return;
    const int n = 300;
    int *out0 = nullptr, *in1 = nullptr;
    buffers_on_devices_0_and_1(n, &out0, &in1);
    REQUIRE(cudaMemset(out0, 0, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
    add_from<<<2, 256>>>(out0, in1, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<int> h = to_host(out0, n);
    CHECK(h[0] == 10);
    CHECK(h[n - 1] == 10 + n - 1);
    // A pointer in a struct works too: the peer's memory is open to the kernel.
    add_through<<<2, 256>>>(out0, borrowed{in1}, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    h = to_host(out0, n);
    CHECK(h[0] == 20);
    CHECK(h[n - 1] == 2 * (10 + n - 1));
    CHECK(cudaDeviceDisablePeerAccess(1) == cudaSuccess);
}

// A pointer the launch cannot screen (in a struct), while the other device
// is idle: its memory is closed, so the first use faults and is reported.
TEST_CASE("cross-device-access-in-struct" * doctest::test_suite("emulator-only")) {
    if (!devices_here(2, false)) return;
    const int n = 300;
    int *out0 = nullptr, *in1 = nullptr;
    buffers_on_devices_0_and_1(n, &out0, &in1);  // device 1 is idle from here
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    add_through<<<2, 256>>>(out0, borrowed{in1}, n);
    std::string report = capture.finish();
    const std::string at = std::string(__FILE__) + ":" + std::to_string(launch_line);
    CHECK(has(report, "cuemu: another device's memory used (read) in kernel 'add_through' "
                      "(launched at " + at + ")"));
    CHECK(has(report, ":" + std::to_string(struct_read_line)));
    CHECK(has(report, "the kernel runs on device 0; the buffer is memory of device 1, and peer "
                      "access from\n    device 0 to device 1 was not enabled when the kernel was "
                      "launched"));
    CHECK(has(report, "cudaDeviceEnablePeerAccess(1, 0) while device 0 is current"));
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    REQUIRE(cudaSetDevice(1) == cudaSuccess);  // device 1 is untouched
    CHECK(to_host(in1, n)[n - 1] == 10 + n - 1);
}

// Without peer access the kernel stops with a report, even while device 1
// is busy with work of its own (its memory is open then).
TEST_CASE("cross-device-access-report" * doctest::test_suite("emulator-only")) {
    if (!devices_here(2, false)) return;
    const int n = 300;
    int *out0 = nullptr, *in1 = nullptr, *busy1 = nullptr;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaMalloc(&in1, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMalloc(&busy1, 16 * 256 * sizeof(int)) == cudaSuccess);
    for (int k = 0; k < 4; ++k) slow_fill<<<16, 256>>>(busy1, 16 * 256, k);  // device 1 is busy
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    REQUIRE(cudaMalloc(&out0, n * sizeof(int)) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    const int launch_line = __LINE__ + 1;
    add_from<<<2, 256>>>(out0, in1, n);
    std::string report = capture.finish();
    const std::string at = std::string(__FILE__) + ":" + std::to_string(launch_line);
    CHECK(has(report, "cuemu: another device's memory used without peer access (read) in kernel "
                      "'add_from' (launched at " + at + ")"));
    CHECK(has(report, "thread (0,0,0) of block (256,1,1)"));
    CHECK(has(report, "add_from") );
    CHECK(has(report, ":" + std::to_string(read_line)));
    CHECK(has(report, "the kernel runs on device 0; argument 2 of the launch at " + at));
    CHECK(has(report, "memory of device 1, and peer access from device 0 to device 1 is not enabled"));
    CHECK(has(report, "cudaDeviceEnablePeerAccess(1, 0)"));
    CHECK(has(report, "cudaErrorIllegalAddress, or give a silent wrong answer"));
    CHECK(has(report, "fails with that error while this device is current"));
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    // The error is device 0's: device 1's work went on, and device 1 is usable.
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    int* more = nullptr;
    CHECK(cudaMalloc(&more, 16) == cudaSuccess);
    CHECK(cudaSetDevice(0) == cudaErrorIllegalAddress);  // its context stays corrupted
    CHECK(cudaMalloc(&more, 16) == cudaErrorIllegalAddress);
}

// Takes a pointer and never uses it: each launch still screens the argument
// (a host pointer gets an alias window of its own).
__global__ void keep_pointer(const int*) {}

// A launch queued behind other work keeps its own record of a screened
// argument: launches made while it waits (more than the emulator keeps
// windows for at first) must not take that record over, or the report
// names one of their launches instead of the kernel that faulted. Launches
// refused at once hold no window.
TEST_CASE("report-names-the-faulting-launch" * doctest::test_suite("emulator-only")) {
    if (!devices_here(2, false)) return;
    const int n = 300;
    int* flags = nullptr;  // [0] release, [1] released
    REQUIRE(cudaMallocManaged(&flags, 2 * sizeof(int)) == cudaSuccess);
    flags[0] = 0;
    flags[1] = -1;
    int *out0 = nullptr, *in1 = nullptr;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaMalloc(&in1, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    REQUIRE(cudaMalloc(&out0, n * sizeof(int)) == cudaSuccess);
    int on_the_host = 0;
    // Launches refused at once (too many threads per block) let go of their
    // screened argument's window at once too: 300 of them fill nothing.
    const int* host_pointer = &on_the_host;
    void* args[] = {&host_pointer};
    for (int k = 0; k < 300; ++k)
        REQUIRE(cudaLaunchKernel(keep_pointer, dim3(1), dim3(2048), args, 0, 0) ==
                cudaErrorInvalidValue);
    stderr_capture capture(capture_until::device_idle);
    hold<<<1, 1>>>(flags, flags + 1, 1ll << 33);  // device 0 waits for the host
    const int launch_line = __LINE__ + 1;
    add_from<<<2, 256>>>(out0, in1, n);
    // Queued behind it: 40 fit in the emulator's windows; 300 do not, and
    // then the report must say that the argument it names may not be right.
    const bool too_many = std::getenv("TOO_MANY_LAUNCHES") != nullptr;
    for (int k = 0; k < (too_many ? 300 : 40); ++k) keep_pointer<<<1, 1>>>(&on_the_host);
    __atomic_store_n(&flags[0], 1, __ATOMIC_SEQ_CST);
    std::string report = capture.finish();
    const std::string at = std::string(__FILE__) + ":" + std::to_string(launch_line);
    CHECK(has(report, "in kernel 'add_from' (launched at " + at + ")"));
    if (too_many) {
        CHECK(has(report, "caution: over 256 launches with such pointer arguments were queued"));
    } else {
        CHECK(has(report, "the kernel runs on device 0; argument 2 of the launch at " + at + " is "));
        CHECK(has(report, "memory of device 1, and peer access from device 0 to device 1 is not enabled"));
        CHECK_FALSE(has(report, "caution:"));
    }
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
}

// Every device runs a kernel that reads the next device's memory: the
// reports come at about the same time, from each device's own thread, and
// each must reach stderr whole, its lines together.
TEST_CASE("reports-of-several-devices-do-not-interleave" * doctest::test_suite("emulator-only")) {
    if (!devices_here(2, false)) return;
    const int n = 300;
    int count = 0;
    REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
    std::vector<int*> buffers(count, nullptr);
    for (int d = 0; d < count; ++d) {
        REQUIRE(cudaSetDevice(d) == cudaSuccess);
        REQUIRE(cudaMalloc(&buffers[d], n * sizeof(int)) == cudaSuccess);
    }
    stderr_capture capture;
    for (int d = 0; d < count; ++d) {
        REQUIRE(cudaSetDevice(d) == cudaSuccess);
        add_from<<<2, 256>>>(buffers[d], buffers[(d + 1) % count], n);
    }
    for (int d = 0; d < count; ++d) {
        (void)cudaSetDevice(d);  // returns the device's sticky error once it has faulted
        CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    }
    std::string text = capture.finish();
    // Each report runs from its "cuemu: ..." headline to the line that says
    // which error later calls return; no other headline may come between.
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    int reports = 0;
    bool inside = false;
    for (const std::string& line : lines) {
        const bool headline = line.rfind("cuemu: ", 0) == 0;
        if (headline) {
            CHECK_MESSAGE(!inside, "a report began inside another:\n" << text);
            inside = true;
            ++reports;
        }
        if (has(line, "and every later CUDA call fails with that error")) {
            CHECK_MESSAGE(inside, "a report's last line without its headline:\n" << text);
            inside = false;
        }
    }
    CHECK(reports == count);
    CHECK_FALSE(inside);
}

TEST_CASE("streams-and-events-across-devices") {
    if (!devices_here(2, false)) return;
    const int n = 512;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    cudaStream_t s1;
    cudaEvent_t e1;
    REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
    REQUIRE(cudaEventCreate(&e1) == cudaSuccess);
    int* b1 = nullptr;
    REQUIRE(cudaMalloc(&b1, n * sizeof(int)) == cudaSuccess);
    int got = -1;
    CHECK(cudaStreamGetDevice(s1, &got) == cudaSuccess);
    CHECK(got == 1);

    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    cudaStream_t s0;
    cudaEvent_t e0;
    REQUIRE(cudaStreamCreate(&s0) == cudaSuccess);
    REQUIRE(cudaEventCreate(&e0) == cudaSuccess);
    int* a0 = nullptr;
    REQUIRE(cudaMalloc(&a0, n * sizeof(int)) == cudaSuccess);
    // A launch into another device's stream is refused.
    fill<<<2, 256, 0, s1>>>(a0, n, 1);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    // An event recorded on another device's stream, and times across devices.
    CHECK(cudaEventRecord(e0, s1) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventRecord(e1, s0) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventRecord(e0, s0) == cudaSuccess);
    CHECK(cudaEventRecord(e1, s1) == cudaSuccess);  // any current device: e1 and s1 agree
    CHECK(cudaEventSynchronize(e1) == cudaSuccess);  // allowed from another device
    CHECK(cudaEventQuery(e1) == cudaSuccess);
    CHECK(cudaEventSynchronize(e0) == cudaSuccess);
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    // A copy may use another device's stream; cudaStreamWaitEvent across
    // devices orders it behind device 0's slow kernel.
    slow_fill<<<2, 256, 0, s0>>>(a0, n, 3000);
    REQUIRE(cudaEventRecord(e0, s0) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(s1, e0, 0) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(b1, a0, n * sizeof(int), cudaMemcpyDefault, s1) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
    std::vector<int> h = to_host(b1, n);
    CHECK(h[0] == 3000);
    CHECK(h[n - 1] == 3000 + n - 1);
    CHECK(cudaStreamDestroy(s1) == cudaSuccess);  // another device's stream
    CHECK(cudaEventDestroy(e1) == cudaSuccess);
    CHECK(cudaStreamDestroy(s0) == cudaSuccess);
    CHECK(cudaEventDestroy(e0) == cudaSuccess);
    CHECK(cudaFree(a0) == cudaSuccess);
    CHECK(cudaFree(b1) == cudaSuccess);
}

// cudaDeviceSynchronize waits for the current device only: device 1's kernel
// is held in a spin while device 0 synchronizes.
TEST_CASE("synchronize-current-device-only") {
    if (!devices_here(2, false)) return;
    int* flags = nullptr;  // [0] release, [1] released
    REQUIRE(cudaMallocManaged(&flags, 2 * sizeof(int)) == cudaSuccess);
    flags[0] = 0;
    flags[1] = -1;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    hold<<<1, 1>>>(flags, flags + 1, 1ll << 33);
    REQUIRE(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
    REQUIRE(cudaMemset(d, 0, 64) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);  // returns with device 1 still held
    CHECK(cudaFree(d) == cudaSuccess);
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    CHECK(cudaStreamQuery(0) == cudaErrorNotReady);
    __atomic_store_n(&flags[0], 1, __ATOMIC_SEQ_CST);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(flags[1] == 1);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaFree(flags) == cudaSuccess);
}

// A copy to another device goes on a copy engine: it runs while a kernel of
// another stream of the same device is held in a spin.
TEST_CASE("peer-copy-overlaps-kernel") {
    if (!devices_here(2, false)) return;
    const int n = 4096;
    int* flags = nullptr;  // [0] release, [1] released
    REQUIRE(cudaMallocManaged(&flags, 2 * sizeof(int)) == cudaSuccess);
    flags[0] = 0;
    flags[1] = -1;
    int *a0 = nullptr, *b1 = nullptr;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaMalloc(&b1, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    REQUIRE(cudaMalloc(&a0, n * sizeof(int)) == cudaSuccess);
    fill<<<n / 256, 256>>>(a0, n, 40);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    cudaStream_t held, copying;
    REQUIRE(cudaStreamCreateWithFlags(&held, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&copying, cudaStreamNonBlocking) == cudaSuccess);
    hold<<<1, 1, 0, held>>>(flags, flags + 1, 1ll << 31);
    REQUIRE(cudaMemcpyPeerAsync(b1, 1, a0, 0, n * sizeof(int), copying) == cudaSuccess);
    CHECK(cudaStreamSynchronize(copying) == cudaSuccess);
    CHECK(cudaStreamQuery(held) == cudaErrorNotReady);  // the kernel is still held
    __atomic_store_n(&flags[0], 1, __ATOMIC_SEQ_CST);
    CHECK(cudaStreamSynchronize(held) == cudaSuccess);
    CHECK(flags[1] == 1);  // released, not given up: the copy did not wait for it
    CHECK(to_host(b1, n)[n - 1] == 40 + n - 1);
    CHECK(cudaStreamDestroy(held) == cudaSuccess);
    CHECK(cudaStreamDestroy(copying) == cudaSuccess);
    CHECK(cudaFree(a0) == cudaSuccess);
    CHECK(cudaFree(b1) == cudaSuccess);
    CHECK(cudaFree(flags) == cudaSuccess);
}

// CUEMU_CHECK=uninit with several devices (ctest runs it with 2): device 0's
// fill and kernel queued while device 1's kernels run (its pages are watched
// then), and a kernel reading a peer's memory, written or not.
TEST_CASE("uninit-across-devices" * doctest::test_suite("emulator-only")) {
    if (!devices_here(2, false)) return;
    const int n = 16 * 256;
    const size_t bytes = n * sizeof(int);
    int *busy1 = nullptr, *out1 = nullptr, *written0 = nullptr, *unwritten0 = nullptr;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaMalloc(&busy1, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&out1, bytes) == cudaSuccess);
    REQUIRE(cudaMemset(out1, 0, bytes) == cudaSuccess);
    for (int k = 0; k < 4; ++k) slow_fill<<<16, 256>>>(busy1, n, k);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    REQUIRE(cudaMalloc(&written0, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&unwritten0, bytes) == cudaSuccess);
    {
        stderr_capture capture(capture_until::device_idle);
        REQUIRE(cudaMemset(written0, 0, bytes) == cudaSuccess);
        add_from<<<16, 256>>>(written0, written0, n);  // reads what the memset wrote
        std::string report = capture.finish();
        CHECK(report.empty());
    }
    CHECK(cudaGetLastError() == cudaSuccess);
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaDeviceEnablePeerAccess(0, 0) == cudaSuccess);
    stderr_capture capture(capture_until::device_idle);
    add_from<<<16, 256>>>(out1, written0, n);
    const int launch_line = __LINE__ + 1;
    add_from<<<16, 256>>>(out1, unwritten0, n);
    std::string report = capture.finish();
    CHECK(has(report, "cuemu: read of device memory nothing wrote (CUEMU_CHECK=uninit) in kernel "
                      "'add_from' (launched at " + std::string(__FILE__) + ":" +
                      std::to_string(launch_line) + ")"));
    CHECK(report.find("cuemu:") == report.rfind("cuemu:"));  // that one report only
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

// With the default, one device: the count, and the peer calls' answers of a
// system with one GPU.
TEST_CASE("single-device") {
    if (!devices_here(1, true)) return;
    CHECK(device_count() == 1);
    int can = -1;
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 0) == cudaSuccess);
    CHECK(can == 0);
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaErrorInvalidDevice);
    // A device is not its own peer (measured on an H200, CUDA 13.0).
    CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorPeerAccessUnsupported);
    CHECK(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceEnablePeerAccess(1, 1) == cudaErrorInvalidDevice);  // the device before the flags
    CHECK(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled);
    {
        // The emulator says once that CUEMU_DEVICES gives it more devices: a
        // multi-GPU program's first cudaSetDevice(1) fails here as on a
        // one-GPU machine.
        stderr_capture capture;
        CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice);
        CHECK(cudaSetDevice(3) == cudaErrorInvalidDevice);
        const std::string said = capture.finish();
#ifdef CUEMU
        CHECK(said.find("cuemu: note: device 1 was asked for, and this emulator has 1 device, so the call "
                        "returns cudaErrorInvalidDevice (\"invalid device ordinal\"), as a machine with 1 "
                        "GPU would; CUEMU_DEVICES=2 (at most 16) gives it more") != std::string::npos);
        CHECK(said.find("device 3") == std::string::npos);  // once a program
#else
        (void)said;
#endif
    }
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
    CHECK(cudaMemcpyPeer(d, 1, d, 0, 64) == cudaErrorInvalidDevice);
    CHECK(cudaMemcpyPeer(d, 0, d + 8, 0, 32) == cudaSuccess);
    CHECK(device_of(d) == 0);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
}
