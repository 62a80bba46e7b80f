// zero_copy.cu - a dot product over zero-copy (mapped) host memory, in the
// style of the CUDA books' chapter on page-locked memory: the device is told
// to map host memory (cudaSetDeviceFlags(cudaDeviceMapHost)) after checking
// canMapHostMemory, the inputs are cudaHostAlloc'd write-combined and mapped
// (the typed T** form), the partial sums go to an ordinary malloc'd array
// that cudaHostRegister pins and maps, and the kernel reaches all of them
// through cudaHostGetDevicePointer. A shared-memory tree reduction per block,
// the last step on the CPU. Prints "zero_copy ... OK" when it matches the CPU.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <random>

#define HANDLE_ERROR(err) (HandleError(err, __FILE__, __LINE__))
static void HandleError(cudaError_t err, const char* file, int line) {
    if (err != cudaSuccess) {
        printf("%s in %s at line %d\n", cudaGetErrorString(err), file, line);
        exit(EXIT_FAILURE);
    }
}

const int threadsPerBlock = 256;

__global__ void dot(int size, const float* a, const float* b, float* c) {
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;
    float temp = 0;
    while (tid < size) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    for (int i = blockDim.x / 2; i != 0; i /= 2) {
        if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
    }
    if (cacheIndex == 0) c[blockIdx.x] = cache[0];
}

int main(int argc, char** argv) {
    const int N = argc > 1 ? atoi(argv[1]) : 33 * 1024;
    if (N <= 0 || N > (1 << 26)) {
        fprintf(stderr, "usage: %s [1 <= N <= 67108864]\n", argv[0]);
        return 2;
    }
    const int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock < 32
                                  ? (N + threadsPerBlock - 1) / threadsPerBlock
                                  : 32;

    cudaDeviceProp prop;
    int whichDevice;
    HANDLE_ERROR(cudaGetDevice(&whichDevice));
    HANDLE_ERROR(cudaGetDeviceProperties(&prop, whichDevice));
    if (prop.canMapHostMemory != 1) {
        printf("Device can not map memory.\n");
        return 0;
    }
    HANDLE_ERROR(cudaSetDeviceFlags(cudaDeviceMapHost));

    float *a, *b, *dev_a, *dev_b, *dev_partial_c;
    HANDLE_ERROR(cudaHostAlloc(&a, N * sizeof(float), cudaHostAllocWriteCombined | cudaHostAllocMapped));
    HANDLE_ERROR(cudaHostAlloc(&b, N * sizeof(float), cudaHostAllocWriteCombined | cudaHostAllocMapped));
    float* partial_c = static_cast<float*>(malloc(blocksPerGrid * sizeof(float)));
    HANDLE_ERROR(cudaHostRegister(partial_c, blocksPerGrid * sizeof(float), cudaHostRegisterMapped));

    std::mt19937 gen(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    double expected = 0.0, magnitude = 0.0;
    for (int i = 0; i < N; i++) {
        a[i] = dist(gen);
        b[i] = dist(gen);
        expected += double(a[i]) * b[i];
        magnitude += std::fabs(double(a[i]) * b[i]);
    }

    HANDLE_ERROR(cudaHostGetDevicePointer(&dev_a, a, 0));
    HANDLE_ERROR(cudaHostGetDevicePointer(&dev_b, b, 0));
    HANDLE_ERROR(cudaHostGetDevicePointer(&dev_partial_c, partial_c, 0));

    dot<<<blocksPerGrid, threadsPerBlock>>>(N, dev_a, dev_b, dev_partial_c);
    HANDLE_ERROR(cudaGetLastError());
    HANDLE_ERROR(cudaDeviceSynchronize());

    double c = 0;
    for (int i = 0; i < blocksPerGrid; i++) c += partial_c[i];

    HANDLE_ERROR(cudaHostUnregister(partial_c));
    free(partial_c);
    HANDLE_ERROR(cudaFreeHost(a));
    HANDLE_ERROR(cudaFreeHost(b));

    const bool ok = std::fabs(c - expected) <= 1e-5 * magnitude + 1e-6;
    printf("zero_copy N=%d dot=%.6f expected=%.6f %s\n", N, c, expected, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
