// Lesson 03: device memory.
//
// The GPU has its own memory, separate from the host's (the CPU's RAM). A
// kernel can only read and write device memory, so a GPU program does its work
// in five steps: allocate device buffers (cudaMalloc), copy the inputs in
// (cudaMemcpy, host to device), launch the kernel, copy the result out
// (cudaMemcpy, device to host), free the buffers (cudaFree). Pointers into host
// memory are named h_..., pointers into device memory d_..., so a mix-up shows
// on the page before it shows at run time.
//
// Every runtime call returns an error code, and nothing stops the program when
// one fails: CUDA_CHECK(...) around each call, and CUDA_CHECK(cudaGetLastError())
// after each launch, turn a silent failure into one line naming the call.
//
// Build and run:   ./tutorial run 03 [--n 1000]     (the exercise)
//                  ./tutorial check 03              (its test)
//                  ./tutorial solution 03           (the finished version)
// It prints how many bytes crossed between host and device each way, compares
// the GPU's result with the CPU's, and ends with PASS or FAIL.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "cpu_reference.h"

#include <cstdio>
#include <vector>

// ---- kernel ----

// One block of n threads; thread i adds element i. a, b and c must point into
// device memory: a thread runs on the GPU and cannot see the host's arrays.
// [snippet: kernel]
__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
    int i = threadIdx.x;
    // Not needed while the block has exactly n threads, but it costs nothing
    // and stays right if someone launches more threads than elements.
    if (i < n) c[i] = a[i] + b[i];
}
// [end snippet]

// ---- launcher: host arrays in, host array out ----

// Adds h_a and h_b (host memory, n floats each) into h_c (host memory).
// n is 1 to 1024: everything runs in one block, and one block holds at most
// 1024 threads. Lesson 04 uses many blocks to go past that.
void vector_add_on_gpu(const float* h_a, const float* h_b, float* h_c, int n) {
    const size_t bytes = (size_t)n * sizeof(float);  // cudaMalloc and cudaMemcpy count bytes, not elements

    // 1. Allocate. cudaMalloc writes a device address into d_a; that address
    //    means nothing to the CPU, so never dereference it on the host.
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
    // TODO(03.1): allocate d_a, d_b and d_c on the device, `bytes` each, with
    //             cudaMalloc(&d_a, bytes). Wrap every call in CUDA_CHECK(...).
    //             Until you do, the pointers stay null and the first copy
    //             below fails with "invalid argument".

    // 2. Copy the inputs in. cudaMemcpy(destination, source, bytes, kind):
    //    the same order as memcpy, and the kind names the direction.
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    // TODO(03.2): copy h_b into d_b the same way.

    // 3. Launch, with device pointers only. A launch returns no error code, so
    //    ask for it: a bad launch (too many threads, for instance) is reported
    //    here and nowhere else.
    vector_add_kernel<<<1, n>>>(d_a, d_b, d_c, n);
    CUDA_CHECK(cudaGetLastError());

    // 4. Copy the result out. The launch above only queued the kernel;
    //    cudaMemcpy waits for it to finish before copying, so no
    //    cudaDeviceSynchronize() is needed, and an error raised while the
    //    kernel ran would be reported by this call.
    // TODO(03.3): copy d_c back into h_c. Mind the order (destination first)
    //             and the kind: this copy goes the other way.

    // 5. Free. Device memory is not released when d_a goes out of scope; a
    //    launcher that forgets this leaks on every call.
    // TODO(03.4): free d_a, d_b and d_c with cudaFree, each inside CUDA_CHECK.
}

// ---- main: flags, data, run, compare ----
#ifndef TUTORIAL_TEST_BUILD
int main(int argc, char** argv) {
    long long n = 1000;
    cli_option options[] = {
        {"--n", "elements, one block of n threads", CLI_INT, &n, 1, 1024},
    };
    cli_parse(argc, argv,
              "Adds two vectors on the GPU: copy in, launch, copy out.",
              options, 1);

    const size_t count = (size_t)n;
    const size_t bytes = count * sizeof(float);
    std::vector<float> h_a(count), h_b(count), h_c(count), h_ref(count);
    fill_random(h_a.data(), count, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), count, 2, -1.0f, 1.0f);
    fill_poison(h_c.data(), count);  // NaN: an element never copied back cannot pass

    const char* plural = n == 1 ? "" : "s";
    std::printf("vector add of %lld float%s in device memory, one block of %lld thread%s\n",
                n, plural, n, plural);
    std::printf("  copy in  (host -> device): %zu bytes, a and b at %zu bytes each\n",
                2 * bytes, bytes);
    std::printf("  copy out (device -> host): %zu bytes, c\n", bytes);
    std::fflush(stdout);  // so these lines come before any CUDA error on stderr

    cpu_vector_add(h_a.data(), h_b.data(), h_ref.data(), (int)n);
    vector_add_on_gpu(h_a.data(), h_b.data(), h_c.data(), (int)n);
    std::printf("  c[0] = %g (a[0] = %g, b[0] = %g)\n", h_c[0], h_a[0], h_b[0]);

    // One float addition is correctly rounded on the CPU and on the GPU alike,
    // so the results should agree exactly; the tiny tolerance is a margin only.
    size_t mismatches = compare_floats("c", h_c.data(), h_ref.data(), count, 1e-6, 1e-6, 5);
    std::printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");
    return mismatches == 0 ? 0 : 1;
}
#endif
