// launch-limits.cu - what the CUDA runtime answers to launches past the
// hardware's limits, one line a case, so that the emulator's answers can be set
// beside a real GPU's.
//
//   nvcc -arch=sm_90 -o launch-limits tools/launch-limits.cu && ./launch-limits
//   bin/nvcc-emu -o launch-limits tools/launch-limits.cu && ./launch-limits
//
// For every case: the error the launch left (cudaGetLastError), what a second
// cudaGetLastError says (is the error sticky?), and whether a good launch right
// after it runs and computes. docs/gpu-runs/ records a GPU's output;
// tests/emu compares the emulator's output with it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// ---- kernels -------------------------------------------------------------------

__global__ void write_one(int* out) {
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0) *out = 1;
}

__global__ void uses_dynamic_shared(int* out) {
    extern __shared__ int dynamic_words[];
    dynamic_words[threadIdx.x] = 1;
    __syncthreads();
    if (threadIdx.x == 0) *out = dynamic_words[0];
}

__global__ void uses_static_and_dynamic_shared(int* out) {
    __shared__ int static_words[40 * 1024 / 4];  // 40 KiB
    extern __shared__ int dynamic_words[];
    static_words[threadIdx.x] = 1;
    dynamic_words[threadIdx.x] = 1;
    __syncthreads();
    if (threadIdx.x == 0) *out = static_words[0] + dynamic_words[0] - 1;
}

__global__ void __launch_bounds__(128) at_most_128_threads(int* out) {
    if (threadIdx.x == 0) *out = 1;
}

// ---- one case --------------------------------------------------------------------

static int* d_out;

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                         cudaGetErrorString(e_));                                            \
            std::exit(1);                                                                    \
        }                                                                                    \
    } while (0)

// Does a plain launch run and write its result now?
static const char* good_launch_works() {
    CHECK(cudaMemset(d_out, 0, sizeof(int)));
    write_one<<<1, 32>>>(d_out);
    if (cudaGetLastError() != cudaSuccess) return "refused";
    if (cudaDeviceSynchronize() != cudaSuccess) return "failed";
    int h_out = 0;
    if (cudaMemcpy(&h_out, d_out, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return "copy failed";
    return h_out == 1 ? "runs" : "wrong result";
}

static void report(const char* what) {
    cudaError_t launch = cudaGetLastError();
    cudaError_t again = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    std::printf("%-52s %-30s then %-12s sync %-12s next launch %s\n", what,
                cudaGetErrorName(launch),
                again == cudaSuccess ? "cleared" : cudaGetErrorName(again),
                sync == cudaSuccess ? "ok" : cudaGetErrorName(sync), good_launch_works());
}

// ---- main --------------------------------------------------------------------------

int main() {
    int runtime = 0, driver = 0;
    CHECK(cudaRuntimeGetVersion(&runtime));
    CHECK(cudaDriverGetVersion(&driver));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s, compute capability %d.%d, runtime %d, driver %d\n", prop.name, prop.major,
                prop.minor, runtime, driver);
    std::printf("# sharedMemPerBlock %zu, sharedMemPerBlockOptin %zu, maxThreadsPerBlock %d\n",
                prop.sharedMemPerBlock, prop.sharedMemPerBlockOptin, prop.maxThreadsPerBlock);
    std::printf("# error names: %s \"%s\", %s \"%s\"\n", cudaGetErrorName(cudaErrorInvalidValue),
                cudaGetErrorString(cudaErrorInvalidValue),
                cudaGetErrorName(cudaErrorInvalidConfiguration),
                cudaGetErrorString(cudaErrorInvalidConfiguration));
    CHECK(cudaMalloc(&d_out, sizeof(int)));

    write_one<<<1, 1024>>>(d_out);
    report("block (1024, 1, 1): the limit itself");
    write_one<<<1, 1025>>>(d_out);
    report("block (1025, 1, 1)");
    write_one<<<1, 500000>>>(d_out);
    report("block (500000, 1, 1)");
    write_one<<<1, dim3(1, 1025, 1)>>>(d_out);
    report("block (1, 1025, 1)");
    write_one<<<1, dim3(32, 32, 2)>>>(d_out);
    report("block (32, 32, 2): 2048 threads");
    write_one<<<1, dim3(1, 1, 65)>>>(d_out);
    report("block (1, 1, 65)");
    write_one<<<1, 0>>>(d_out);
    report("block (0, 1, 1)");
    write_one<<<0, 32>>>(d_out);
    report("grid (0, 1, 1)");
    write_one<<<dim3(1, 65536, 1), 1>>>(d_out);
    report("grid (1, 65536, 1)");
    write_one<<<dim3(1, 1, 65536), 1>>>(d_out);
    report("grid (1, 1, 65536)");
    write_one<<<dim3(2147483648u, 1, 1), 1>>>(d_out);
    report("grid (2147483648, 1, 1)");
    {
        void* args[] = {&d_out};
        cudaError_t direct =
            cudaLaunchKernel((const void*)write_one, dim3(1), dim3(1025), args, 0, nullptr);
        std::printf("%-52s returned %s\n", "cudaLaunchKernel, block (1025, 1, 1)",
                    cudaGetErrorName(direct));
        report("  ... and after it");
    }
    uses_dynamic_shared<<<1, 32, 48 * 1024>>>(d_out);
    report("dynamic shared 48 KiB");
    uses_dynamic_shared<<<1, 32, 48 * 1024 + 4>>>(d_out);
    report("dynamic shared 48 KiB + 4 bytes, no opt-in");
    uses_static_and_dynamic_shared<<<1, 32, 16 * 1024>>>(d_out);
    report("static 40 KiB + dynamic 16 KiB, no opt-in");
    {
        // 64 KiB: what compute capability 7.5 allows (the emulator's), and less
        // than any newer GPU allows.
        cudaError_t set = cudaFuncSetAttribute(uses_dynamic_shared,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               64 * 1024);
        std::printf("%-52s returned %s\n", "opt in to 64 KiB", cudaGetErrorName(set));
        report("  ... and after it");
        uses_dynamic_shared<<<1, 32, 64 * 1024>>>(d_out);
        report("dynamic shared 64 KiB after opting in");
        uses_dynamic_shared<<<1, 32, 64 * 1024 + 4>>>(d_out);
        report("dynamic shared 64 KiB + 4 bytes after opting in");
        set = cudaFuncSetAttribute(uses_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)prop.sharedMemPerBlockOptin + 4);
        std::printf("%-52s returned %s\n", "opt in past sharedMemPerBlockOptin",
                    cudaGetErrorName(set));
        report("  ... and after it");
    }
    at_most_128_threads<<<1, 128>>>(d_out);
    report("__launch_bounds__(128), 128 threads");
    at_most_128_threads<<<1, 256>>>(d_out);
    report("__launch_bounds__(128), 256 threads");
    CHECK(cudaFree(d_out));
    return 0;
}
