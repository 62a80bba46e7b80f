// Lesson 05: timing and asynchronous launches.
//
// A kernel launch does not run the kernel: it puts it in the device's queue
// and returns at once, while the device works on its own. A host clock read
// right after a launch therefore measures only the queuing. To time GPU work,
// either make the host wait (cudaDeviceSynchronize) before reading the clock,
// or better, put CUDA events into the queue: the device stamps each one with
// its own clock as it reaches it, and cudaEventElapsedTime gives the time
// between two of them.
//
// What to time matters as much as how. The kernel of a vector add is quick;
// copying the inputs to the device and the result back is slower than adding
// them. So this program reports both "kernel only" and "end to end" (with the
// copies), each as the median of several runs after a warm-up run, next to the
// plain CPU loop. With --bench it does so for n = 10^3 to 10^8: where does the
// GPU start to win, and does it ever win once the copies count?
//
// It also asks how many devices there are, lets you pick one (--device), and
// when there is none at all it says so and runs the CPU path only, the way
// well-written GPU programs do.
//
// Build and run:   ./tutorial run 05 [--n 10000000] [--block 256] [--device 0]
//                  ./tutorial run 05 --bench        (the CPU vs GPU table)
//                  ./tutorial check 05              (the exercise's test)
//                  ./tutorial solution 05           (the finished version)
// It prints the devices, three ways of timing one launch, the kernel-only and
// end-to-end times against the CPU, and PASS or FAIL against the CPU result.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference.h"
#include "timer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

// ---- kernel (lesson 04's: one thread per element) ----

__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];  // the last block sticks out past n
}

static int blocks_for(int n, int block_size) { return (n + block_size - 1) / block_size; }

// ---- devices: how many, and what if there are none ----

// The number of CUDA devices this program can use; 0 when there are none, or
// when the CUDA driver itself is missing (an nvcc build on a machine without
// a GPU: cudaGetDeviceCount then fails with cudaErrorInsufficientDriver or
// cudaErrorNoDevice). Not wrapped in CUDA_CHECK on purpose: "no GPU" is an
// answer here, not a reason to stop. *why_none, if given, gets the error.
int usable_device_count(cudaError_t* why_none = nullptr) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (why_none) *why_none = status;
    return status == cudaSuccess ? count : 0;
}

// ---- statistics ----

// The middle value of the samples (the mean of the two middle ones for an even
// count). A run that the operating system interrupted, or that paid for
// something once (the first touch of fresh memory), is far slower than the
// rest; one such outlier drags the mean along but barely moves the median.
double median(std::vector<double> samples) {
    if (samples.empty()) return NAN;
    std::sort(samples.begin(), samples.end());
    size_t mid = samples.size() / 2;
    return samples.size() % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
}

// ---- device buffers, allocated once and reused by every timed run ----

struct DeviceVectors {
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
    int n = 0;
};

static DeviceVectors allocate_device_vectors(int n) {
    const size_t bytes = (size_t)n * sizeof(float);
    DeviceVectors dev;
    dev.n = n;
    CUDA_CHECK(cudaMalloc(&dev.d_a, bytes));
    CUDA_CHECK(cudaMalloc(&dev.d_b, bytes));
    CUDA_CHECK(cudaMalloc(&dev.d_c, bytes));
    return dev;
}

static void free_device_vectors(DeviceVectors& dev) {
    CUDA_CHECK(cudaFree(dev.d_a));
    CUDA_CHECK(cudaFree(dev.d_b));
    CUDA_CHECK(cudaFree(dev.d_c));
    dev = DeviceVectors{};
}

// ---- timing with CUDA events ----

// Two times from one run, in milliseconds, both measured by the device's clock.
struct GpuTimes {
    float kernel_ms;      // the kernel alone
    float end_to_end_ms;  // copy a and b in, the kernel, copy c out
};

// One whole job (copies in, kernel, copy out) on buffers allocated before,
// timed with four events placed in the device's queue between the steps:
//
//   start | copy a, b in | kernel_start | kernel | kernel_stop | copy c out | stop
//
// cudaEventRecord only queues a marker and returns; the device writes its
// clock into the event when the work queued before it is done. The
// allocation is not timed: a real program allocates once and reuses.
static GpuTimes timed_run(const DeviceVectors& dev, const float* h_a, const float* h_b,
                          float* h_c, int block_size) {
    const int n = dev.n;
    const size_t bytes = (size_t)n * sizeof(float);
    cudaEvent_t start, kernel_start, kernel_stop, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&kernel_start));
    CUDA_CHECK(cudaEventCreate(&kernel_stop));
    CUDA_CHECK(cudaEventCreate(&stop));

    // [snippet: timed-run]
    CUDA_CHECK(cudaEventRecord(start));
    CUDA_CHECK(cudaMemcpy(dev.d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dev.d_b, h_b, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaEventRecord(kernel_start));
    vector_add_kernel<<<blocks_for(n, block_size), block_size>>>(dev.d_a, dev.d_b, dev.d_c, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(kernel_stop));
    CUDA_CHECK(cudaMemcpy(h_c, dev.d_c, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventRecord(stop));

    // The host got here as soon as it had queued the last marker; the device
    // may not have reached it yet. Wait for it: until then stop holds no time,
    // and cudaEventElapsedTime would answer cudaErrorNotReady.
    CUDA_CHECK(cudaEventSynchronize(stop));

    GpuTimes times;
    CUDA_CHECK(cudaEventElapsedTime(&times.kernel_ms, kernel_start, kernel_stop));
    CUDA_CHECK(cudaEventElapsedTime(&times.end_to_end_ms, start, stop));
    // [end snippet]

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(kernel_start));
    CUDA_CHECK(cudaEventDestroy(kernel_stop));
    CUDA_CHECK(cudaEventDestroy(stop));
    return times;
}

// ---- timing with the host's clock ----

struct HostTimedLaunch {
    double host_ms;                    // what the host clock saw
    bool finished_when_clock_stopped;  // had the kernel finished by then?
};

// Times one launch with the host's clock, the naive way. Without
// synchronize, the clock stops as soon as the launch has been queued. To show
// that, an event is queued right after the kernel and asked (cudaEventQuery,
// which does not wait) just after the clock stops: cudaErrorNotReady means the
// kernel was still running. The inputs must already be on the device.
static HostTimedLaunch host_timed_launch(const DeviceVectors& dev, int block_size,
                                         bool synchronize) {
    cudaEvent_t kernel_done;
    CUDA_CHECK(cudaEventCreate(&kernel_done));
    // Start from an idle device, so that earlier work is not counted.
    CUDA_CHECK(cudaDeviceSynchronize());

    double t0 = wall_time_ms();
    vector_add_kernel<<<blocks_for(dev.n, block_size), block_size>>>(dev.d_a, dev.d_b, dev.d_c,
                                                                    dev.n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(kernel_done));
    if (synchronize) {
        // The host waits here until everything queued so far, the kernel
        // included, is done: only now does the clock mean "the kernel took".
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    double t1 = wall_time_ms();

    cudaError_t state = cudaEventQuery(kernel_done);
    bool finished = state == cudaSuccess;
    if (state != cudaErrorNotReady) CUDA_CHECK(state);  // a real error, not "still busy"

    CUDA_CHECK(cudaDeviceSynchronize());  // leave nothing running behind us
    CUDA_CHECK(cudaEventDestroy(kernel_done));
    return {t1 - t0, finished};
}

// ---- launchers the test calls: host arrays in, host array out ----

// One event-timed run: allocate, copy in, add, copy out, free.
GpuTimes vector_add_timed(const float* h_a, const float* h_b, float* h_c, int n,
                          int block_size) {
    DeviceVectors dev = allocate_device_vectors(n);
    GpuTimes times = timed_run(dev, h_a, h_b, h_c, block_size);
    free_device_vectors(dev);
    return times;
}

// One warm-up run, then `repeats` timed runs; the median of each time. The
// warm-up pays for what only the first run pays for (fresh device memory
// being mapped, the kernel's code being loaded) so that no timed run does.
GpuTimes vector_add_median_times(const float* h_a, const float* h_b, float* h_c, int n,
                                 int block_size, int repeats) {
    DeviceVectors dev = allocate_device_vectors(n);
    timed_run(dev, h_a, h_b, h_c, block_size);  // warm-up, not counted
    std::vector<double> kernel_ms, end_to_end_ms;
    for (int r = 0; r < repeats; ++r) {
        GpuTimes t = timed_run(dev, h_a, h_b, h_c, block_size);
        kernel_ms.push_back(t.kernel_ms);
        end_to_end_ms.push_back(t.end_to_end_ms);
    }
    free_device_vectors(dev);
    return {(float)median(kernel_ms), (float)median(end_to_end_ms)};
}

// One launch timed with the host clock, with or without a synchronize before
// the clock stops; the result is copied back into h_c either way.
HostTimedLaunch vector_add_host_timed(const float* h_a, const float* h_b, float* h_c, int n,
                                      int block_size, bool synchronize) {
    const size_t bytes = (size_t)n * sizeof(float);
    DeviceVectors dev = allocate_device_vectors(n);
    CUDA_CHECK(cudaMemcpy(dev.d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dev.d_b, h_b, bytes, cudaMemcpyHostToDevice));
    host_timed_launch(dev, block_size, true);  // warm-up, not counted
    HostTimedLaunch timing = host_timed_launch(dev, block_size, synchronize);
    CUDA_CHECK(cudaMemcpy(h_c, dev.d_c, bytes, cudaMemcpyDeviceToHost));
    free_device_vectors(dev);
    return timing;
}

// The CPU loop, timed with the host clock (right for CPU code): one warm-up
// pass, then the median of `repeats` passes.
double cpu_median_ms(const float* a, const float* b, float* c, int n, int repeats) {
    cpu_vector_add(a, b, c, n);
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
        double t0 = wall_time_ms();
        cpu_vector_add(a, b, c, n);
        ms.push_back(wall_time_ms() - t0);
    }
    return median(ms);
}

// ---- main: devices, the three timings, CPU vs GPU ----
#ifndef TUTORIAL_TEST_BUILD

// Fewer repeats as the work grows: small sizes are noisy and cheap, large ones
// steady and slow (on the emulator a 10^8 run takes about a second).
static int repeats_for(long long n) {
    return n <= 100000 ? 25 : n <= 1000000 ? 11 : n <= 10000000 ? 7 : 3;
}

static bool is_time(float ms) { return std::isfinite(ms) && ms >= 0; }

// The table for --bench: CPU loop against GPU kernel and GPU end to end, for
// n = 10^3 to 10^8 (the sizes whose arrays fit in the device's free memory).
// Returns false if any GPU result differs from the CPU's.
static bool run_bench(int block_size, const cudaDeviceProp& prop) {
    std::vector<long long> sizes;
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    for (long long n = 1000; n <= 100000000; n *= 10) {
        // 3 arrays on the device, 4 on the host (a, b and both results): on
        // the emulator, and on GPUs that share memory with the CPU, all 7
        // come out of the same memory.
        if (7.0 * (double)n * sizeof(float) < 0.8 * (double)free_bytes)
            sizes.push_back(n);
        else
            std::printf("n = %lld left out: its arrays do not fit in the %.1f GiB free\n", n,
                        free_bytes / 1073741824.0);
    }
    const size_t largest = (size_t)sizes.back();
    std::vector<float> h_a(largest), h_b(largest), h_c(largest), h_ref(largest);
    fill_random(h_a.data(), largest, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), largest, 2, -1.0f, 1.0f);

    std::printf("CPU vs GPU vector add, on %s\n", prop.name);
    std::printf("  CPU: one core, host clock. GPU: CUDA events; \"kernel\" is the kernel only,\n"
                "  \"end to end\" adds copying a and b in and c out. Each time is the median\n"
                "  of the runs shown, after one warm-up run. Speed-up = CPU time / GPU time.\n\n");
    std::printf("%11s %5s %12s %12s %12s %10s %10s\n", "n", "runs", "CPU ms", "kernel ms",
                "end-to-end", "kernel x", "e2e x");
    bool all_passed = true;
    for (long long n : sizes) {
        int repeats = repeats_for(n);
        double cpu_ms = cpu_median_ms(h_a.data(), h_b.data(), h_ref.data(), (int)n, repeats);
        fill_poison(h_c.data(), (size_t)n);
        GpuTimes gpu = vector_add_median_times(h_a.data(), h_b.data(), h_c.data(), (int)n,
                                               block_size, repeats);
        // One float addition is correctly rounded on both sides: exact match
        // expected, the tolerance is only a margin.
        bool passed = compare_floats("GPU", h_c.data(), h_ref.data(), (size_t)n, 1e-6, 1e-6, 3) == 0;
        all_passed &= passed;
        std::printf("%11lld %5d %12.4f %12.4f %12.4f %10.2f %10.2f%s\n", n, repeats, cpu_ms,
                    gpu.kernel_ms, gpu.end_to_end_ms, cpu_ms / gpu.kernel_ms,
                    cpu_ms / gpu.end_to_end_ms, passed ? "" : "  FAIL");
        std::fflush(stdout);
    }
    std::printf("\nspeed-up above 1: the GPU was faster; below 1: the CPU was.\n");
    return all_passed;
}

// No device at all: the CPU path, timed, and the reason we are on it.
static int run_cpu_only(long long n, bool bench, cudaError_t why) {
    std::printf("no CUDA device found (cudaGetDeviceCount: %s, \"%s\"):\n"
                "running the CPU path only\n\n",
                cudaGetErrorName(why), why == cudaSuccess ? "0 devices" : cudaGetErrorString(why));
    std::vector<long long> sizes;
    if (bench)
        for (long long s = 1000; s <= 100000000; s *= 10) sizes.push_back(s);
    else
        sizes.push_back(n);
    const size_t largest = (size_t)sizes.back();
    std::vector<float> h_a(largest), h_b(largest), h_c(largest);
    fill_random(h_a.data(), largest, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), largest, 2, -1.0f, 1.0f);
    std::printf("vector add on the CPU, one core, host clock; median of the runs shown\n");
    std::printf("%11s %5s %12s\n", "n", "runs", "CPU ms");
    for (long long s : sizes)
        std::printf("%11lld %5d %12.4f\n", s, repeats_for(s),
                    cpu_median_ms(h_a.data(), h_b.data(), h_c.data(), (int)s, repeats_for(s)));
    return 0;
}

int main(int argc, char** argv) {
    long long n = 10000000, block_size = 256, device = 0, bench = 0;
    cli_option options[] = {
        {"--n", "number of elements", CLI_INT, &n, 1, 100000000},
        {"--block", "threads per block", CLI_INT, &block_size, 1, 1024},
        {"--device", "which CUDA device to use", CLI_INT, &device, 0, 15},
        {"--bench", "CPU vs GPU table for n = 10^3 to 10^8 instead", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Times a vector add: host clock vs CUDA events, kernel only vs end to end, CPU vs GPU.",
              options, 4);
    // Four host arrays, three device arrays, of the largest size this run uses
    // (--bench goes up to 10^8): refused up front if they do not fit.
    const double largest = bench ? 1e8 : (double)n;
    run_limits_require_memory(4.0 * 4.0 * largest, 3.0 * 4.0 * largest);

    // ---- choosing a device ----
    cudaError_t why_none = cudaSuccess;
    int device_count = usable_device_count(&why_none);
    if (device_count == 0) return run_cpu_only(n, bench, why_none);
    if (device >= device_count) {
        std::fprintf(stderr, "error: --device %lld, but this machine has %d CUDA device%s (0 to %d)\n",
                     device, device_count, device_count == 1 ? "" : "s", device_count - 1);
        return 2;
    }
    std::printf("CUDA devices: %d\n", device_count);
    for (int d = 0; d < device_count; ++d) {
        cudaDeviceProp p;
        CUDA_CHECK(cudaGetDeviceProperties(&p, d));
        std::printf("  device %d: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB\n", d,
                    p.name, p.major, p.minor, p.multiProcessorCount,
                    p.totalGlobalMem / 1073741824.0);
    }
    // Every later CUDA call of this host thread (allocations, copies,
    // launches, events) goes to this device.
    CUDA_CHECK(cudaSetDevice((int)device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, (int)device));
    std::printf("using device %lld: %s\n\n", device, prop.name);

    if (bench) {
        bool passed = run_bench((int)block_size, prop);
        std::printf("\n%s\n", passed ? "PASS" : "FAIL");
        return passed ? 0 : 1;
    }

    const size_t count = (size_t)n;
    const size_t bytes = count * sizeof(float);
    std::vector<float> h_a(count), h_b(count), h_c(count), h_ref(count);
    fill_random(h_a.data(), count, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), count, 2, -1.0f, 1.0f);
    bool all_passed = true;

    // ---- 1. a launch returns before the kernel is done ----
    const int num_blocks = blocks_for((int)n, (int)block_size);
    std::printf("1. timing one launch of %d block%s x %lld threads (n = %lld) with the host clock\n",
                num_blocks, num_blocks == 1 ? "" : "s", block_size, n);
    DeviceVectors dev = allocate_device_vectors((int)n);
    CUDA_CHECK(cudaMemcpy(dev.d_a, h_a.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dev.d_b, h_b.data(), bytes, cudaMemcpyHostToDevice));
    host_timed_launch(dev, (int)block_size, true);  // warm-up, not shown
    HostTimedLaunch naive = host_timed_launch(dev, (int)block_size, false);
    HostTimedLaunch honest = host_timed_launch(dev, (int)block_size, true);
    free_device_vectors(dev);
    std::printf("  launch, read clock:                         %9.4f ms   kernel finished by then? %s\n",
                naive.host_ms, naive.finished_when_clock_stopped ? "yes" : "no");
    std::printf("  launch, cudaDeviceSynchronize, read clock:  %9.4f ms   kernel finished by then? %s\n",
                honest.host_ms, honest.finished_when_clock_stopped ? "yes" : "no");
    if (!naive.finished_when_clock_stopped)
        std::printf("  the launch returned while the kernel was still running: the first\n"
                    "  time is only what it costs to queue a launch\n");
    else
        std::printf("  this time the kernel was done before the launch returned (a tiny\n"
                    "  kernel, or a device that runs each launch before returning)\n");
    if (!honest.finished_when_clock_stopped) {
        std::printf("  but the kernel was still running when the second clock stopped too:\n"
                    "  the host did not wait for it (see TODO 05.4)\n");
        all_passed = false;
    }

    // ---- 2. CUDA events: kernel only and end to end, against the CPU ----
    const int repeats = repeats_for(n);
    std::printf("\n2. CUDA events on %s: median of %d runs after one warm-up\n", prop.name, repeats);
    fill_poison(h_c.data(), count);
    GpuTimes gpu = vector_add_median_times(h_a.data(), h_b.data(), h_c.data(), (int)n,
                                           (int)block_size, repeats);
    double cpu_ms = cpu_median_ms(h_a.data(), h_b.data(), h_ref.data(), (int)n, repeats);
    if (!is_time(gpu.kernel_ms) || !is_time(gpu.end_to_end_ms)) {
        std::printf("  kernel only: %g ms, end to end: %g ms: not times (see TODO 05.1 to 05.3)\n",
                    gpu.kernel_ms, gpu.end_to_end_ms);
        all_passed = false;
    } else {
        // The copies move 12 bytes per element: a and b in, c out.
        double copied_gb = 3.0 * bytes / 1e9;
        std::printf("  GPU kernel only:                        %9.4f ms\n", gpu.kernel_ms);
        std::printf("  GPU end to end (copy in, add, copy out): %8.4f ms   copies: %.0f%% of it, %.3g GB/s\n",
                    gpu.end_to_end_ms, 100.0 * (gpu.end_to_end_ms - gpu.kernel_ms) / gpu.end_to_end_ms,
                    copied_gb / ((gpu.end_to_end_ms - gpu.kernel_ms) / 1e3));
        std::printf("  CPU loop, one core (host clock):        %9.4f ms\n", cpu_ms);
        std::printf("  speed-up over the CPU: %.2fx kernel only, %.2fx end to end (below 1: the CPU wins)\n",
                    cpu_ms / gpu.kernel_ms, cpu_ms / gpu.end_to_end_ms);
    }

    // One float addition is correctly rounded on the CPU and on the GPU alike,
    // so the results should agree exactly; the tolerance is a margin only.
    size_t mismatches = compare_floats("GPU result", h_c.data(), h_ref.data(), count, 1e-6, 1e-6, 5);
    std::printf("  GPU result against the CPU: %s\n", mismatches == 0 ? "PASS" : "FAIL");
    all_passed &= mismatches == 0;

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
