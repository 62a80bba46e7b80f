// vector_add.cu - lesson 02: your first kernel.
//
// A serial vector add is a loop that visits one element after another. Here
// the loop disappears: we launch n GPU threads at once and each one adds
// exactly one element. Three words to know:
//   host    the CPU and its memory; it runs main() and launches kernels
//   device  the GPU and its memory; it runs kernels
//   kernel  a function marked __global__, run by many device threads at once
// Memory comes from cudaMallocManaged, which gives a pointer the host and the
// device can both use. Lesson 03 replaces it with separate device memory and
// explicit copies, which is what fast programs do.
//
//   ./tutorial run 02 [--n 1000] [--hello]   build and run this program
//   ./tutorial check 02                      run its test
//   ./tutorial solution 02                   run the finished version
//
// It prints the device it ran on, the launch it made, the first and last
// elements of the result, and PASS or FAIL against the CPU reference. With
// --hello it first prints one line from each of 4 threads of a tiny kernel.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "cpu_reference.h"

#include <cstdio>
#include <vector>

// ---- kernels ----

// Every thread of the launch runs this whole function. The threads are not
// guaranteed to print in any particular order.
// [snippet: hello-kernel]
__global__ void hello_kernel() {
    printf("hello from thread %d of %d\n", (int)threadIdx.x, (int)blockDim.x);
}
// [end snippet]

// The body of the serial loop, with the loop gone: the launch starts one
// thread per element, and threadIdx.x (0, 1, ..., n-1 within the block) tells
// each thread which element is its own. No bounds check is needed because we
// launch exactly n threads; lesson 04 launches more threads than elements and
// has to add one.
// [snippet: kernel]
__global__ void vector_add_kernel(const float* a, const float* b, float* c) {
    // TODO(02.1): take this thread's element index from threadIdx.x, then
    // store the sum of a and b at that index into c.
}
// [end snippet]

// ---- launcher (the test calls this) ----

// a, b and c must come from cudaMallocManaged, so that the device can use
// them. n must be 1 to 1024: all n threads go into a single block, and a
// block holds at most 1024 threads.
// [snippet: launcher]
void vector_add_managed(const float* a, const float* b, float* c, int n) {
    // <<<blocks, threads per block>>>
    // TODO(02.2): launch 1 block of n threads, one per element (as written,
    // a single thread runs, so only element 0 could ever be computed).
    vector_add_kernel<<<1, 1>>>(a, b, c);
    // A launch returns no error code. A launch that could not start (say,
    // 2000 threads in one block) is reported by the next call: ask now.
    CUDA_CHECK(cudaGetLastError());
    // The launch only queued the work; the host runs on at once. Wait until
    // the device has finished before anyone reads c.
    CUDA_CHECK(cudaDeviceSynchronize());
}
// [end snippet]

// ---- the program ----

#ifndef TUTORIAL_TEST_BUILD
int main(int argc, char** argv) {
    long long n = 1000, hello = 0;
    cli_option opts[] = {
        {"--n", "number of elements, one thread each", CLI_INT, &n, 1, 1024},
        {"--hello", "first run a tiny kernel that prints from 4 threads", CLI_FLAG,
         &hello, 0, 0},
    };
    cli_parse(argc, argv,
              "Adds two float vectors on the GPU: one block, one thread per element.",
              opts, 2);

    int device = 0;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    printf("device %d: %s\n", device, prop.name);

    if (hello) {
        // [snippet: hello-launch]
        hello_kernel<<<1, 4>>>();
        CUDA_CHECK(cudaGetLastError());
        // Kernel printf output is buffered on the device and shows up when
        // the host waits for it: without this line you might see nothing.
        CUDA_CHECK(cudaDeviceSynchronize());
        // [end snippet]
    }

    // Managed memory: one pointer, valid on the host and on the device, so
    // the host can fill a and b directly and read c back without a copy.
    size_t bytes = (size_t)n * sizeof(float);
    float* a = nullptr;
    float* b = nullptr;
    float* c = nullptr;
    CUDA_CHECK(cudaMallocManaged(&a, bytes));
    CUDA_CHECK(cudaMallocManaged(&b, bytes));
    CUDA_CHECK(cudaMallocManaged(&c, bytes));

    // Random inputs, and c poisoned with NaN so that an element no thread
    // wrote shows up as a mismatch instead of passing by luck.
    fill_random(a, (size_t)n, 1, -1.0f, 1.0f);
    fill_random(b, (size_t)n, 2, -1.0f, 1.0f);
    fill_poison(c, (size_t)n);

    printf("vector add of n = %lld floats, one thread per element\n", n);
    vector_add_managed(a, b, c, (int)n);

    long long last = n - 1;
    printf("c[0] = %g + %g = %g\n", a[0], b[0], c[0]);
    printf("c[%lld] = %g + %g = %g\n", last, a[last], b[last], c[last]);

    // Tolerance 0: one float addition is rounded the same way (IEEE 754,
    // round to nearest) on every CPU and GPU, so the bits must agree.
    std::vector<float> ref((size_t)n);
    cpu_vector_add(a, b, ref.data(), (int)n);
    size_t bad = compare_floats("c", c, ref.data(), (size_t)n, 0.0, 0.0, 5);
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");

    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(c));
    return bad == 0 ? 0 : 1;
}
#endif  // TUTORIAL_TEST_BUILD
