// simple_p2p.cu - two GPUs that share work through peer access, in the style
// of the SDK's peer-to-peer sample: find two devices that can reach each
// other, enable access both ways, bounce a buffer between them with
// cudaMemcpyPeer (timed with events), then let a kernel on each device read
// the other's memory directly. Prints "simple_p2p ... OK" when every value
// matches the CPU. Needs two devices (CUEMU_DEVICES=2 on the emulator).
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define checkCudaErrors(call)                                                       \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorName(err_),      \
                    __FILE__, __LINE__);                                            \
            exit(EXIT_FAILURE);                                                     \
        }                                                                           \
    } while (0)

// Reads the peer's buffer through peer access and writes twice its value here.
__global__ void scaleFromPeer(float* dst, const float* src, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        dst[i] = src[i] * 2.0f;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    if (n <= 0 || n > (1 << 26)) {
        fprintf(stderr, "usage: %s [1 <= N <= 67108864]\n", argv[0]);
        return 2;
    }
    int gpuCount = 0;
    checkCudaErrors(cudaGetDeviceCount(&gpuCount));
    if (gpuCount < 2) {
        fprintf(stderr, "simple_p2p needs two devices, found %d\n", gpuCount);
        return EXIT_FAILURE;
    }
    int gpu[2] = {-1, -1};
    for (int i = 0; i < gpuCount && gpu[1] < 0; ++i)
        for (int j = i + 1; j < gpuCount && gpu[1] < 0; ++j) {
            int ij = 0, ji = 0;
            checkCudaErrors(cudaDeviceCanAccessPeer(&ij, i, j));
            checkCudaErrors(cudaDeviceCanAccessPeer(&ji, j, i));
            if (ij && ji) {
                gpu[0] = i;
                gpu[1] = j;
            }
        }
    if (gpu[1] < 0) {
        fprintf(stderr, "no two devices can access each other\n");
        return EXIT_FAILURE;
    }
    for (int k = 0; k < 2; ++k) {
        cudaDeviceProp prop;
        checkCudaErrors(cudaGetDeviceProperties(&prop, gpu[k]));
        printf("GPU%d: %s\n", gpu[k], prop.name);
        checkCudaErrors(cudaSetDevice(gpu[k]));
        checkCudaErrors(cudaDeviceEnablePeerAccess(gpu[1 - k], 0));
    }

    const size_t bytes = size_t(n) * sizeof(float);
    float *g0 = nullptr, *g1 = nullptr, *h = nullptr;
    checkCudaErrors(cudaSetDevice(gpu[0]));
    checkCudaErrors(cudaMalloc(&g0, bytes));
    checkCudaErrors(cudaSetDevice(gpu[1]));
    checkCudaErrors(cudaMalloc(&g1, bytes));
    checkCudaErrors(cudaMallocHost(&h, bytes));

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> value(-100.0f, 100.0f);
    std::vector<float> expected(n);
    for (int i = 0; i < n; ++i) expected[i] = h[i] = value(rng);
    checkCudaErrors(cudaMemcpy(g0, h, bytes, cudaMemcpyHostToDevice));

    // Ping-pong between the two devices, timed on device 0.
    checkCudaErrors(cudaSetDevice(gpu[0]));
    cudaEvent_t start, stop;
    checkCudaErrors(cudaEventCreate(&start));
    checkCudaErrors(cudaEventCreate(&stop));
    checkCudaErrors(cudaEventRecord(start, 0));
    for (int round = 0; round < 10; ++round) {
        if (round % 2 == 0)
            checkCudaErrors(cudaMemcpyPeer(g1, gpu[1], g0, gpu[0], bytes));
        else
            checkCudaErrors(cudaMemcpyPeer(g0, gpu[0], g1, gpu[1], bytes));
    }
    checkCudaErrors(cudaEventRecord(stop, 0));
    checkCudaErrors(cudaEventSynchronize(stop));
    float ms = 0;
    checkCudaErrors(cudaEventElapsedTime(&ms, start, stop));
    printf("cudaMemcpyPeer: %.2f GB/s\n", ms > 0 ? 10.0 * bytes / (ms * 1e6) : 0.0);

    // Device 1 reads device 0's buffer directly, then device 0 reads device 1's.
    const int threads = 256, blocks = (n + threads - 1) / threads < 128 ? (n + threads - 1) / threads : 128;
    checkCudaErrors(cudaSetDevice(gpu[1]));
    scaleFromPeer<<<blocks, threads>>>(g1, g0, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaSetDevice(gpu[0]));
    scaleFromPeer<<<blocks, threads>>>(g0, g1, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaMemcpy(h, g0, bytes, cudaMemcpyDefault));

    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (h[i] != expected[i] * 4.0f && ++errors <= 5)
            fprintf(stderr, "h[%d] = %g, expected %g\n", i, h[i], expected[i] * 4.0f);

    for (int k = 0; k < 2; ++k) {
        checkCudaErrors(cudaSetDevice(gpu[k]));
        checkCudaErrors(cudaDeviceDisablePeerAccess(gpu[1 - k]));
    }
    checkCudaErrors(cudaEventDestroy(start));
    checkCudaErrors(cudaEventDestroy(stop));
    checkCudaErrors(cudaFreeHost(h));
    checkCudaErrors(cudaFree(g0));
    checkCudaErrors(cudaFree(g1));
    if (errors) {
        printf("simple_p2p n=%d: %d wrong values\n", n, errors);
        return EXIT_FAILURE;
    }
    printf("simple_p2p n=%d OK\n", n);
    return 0;
}
