// histogram.cu - a 256-bin histogram of bytes, two ways: every thread adds to
// the global bins directly, and every block first counts into its own bins in
// shared memory and adds those to the global bins at the end (far fewer global
// atomics). Both must equal a histogram counted on the CPU.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_SAFE_CALL(call)                                                     \
    {                                                                            \
        const cudaError_t error = call;                                          \
        if (error != cudaSuccess) {                                              \
            fprintf(stderr, "Error: %s:%d, code: %d, reason: %s\n", __FILE__,    \
                    __LINE__, error, cudaGetErrorString(error));                 \
            exit(1);                                                             \
        }                                                                        \
    }

const int NUM_BINS = 256;

__global__ void histogram_global(const unsigned char* data, int n, unsigned int* bins) {
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[data[i]], 1u);
}

__global__ void histogram_shared(const unsigned char* data, int n, unsigned int* bins) {
    __shared__ unsigned int local_bins[NUM_BINS];
    // blockDim.x may be smaller than NUM_BINS: each thread clears several bins
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local_bins[b] = 0;
    __syncthreads();

    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local_bins[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        if (local_bins[b] != 0) atomicAdd(&bins[b], local_bins[b]);
}

int main(int argc, char* argv[]) {
    const int n = argc > 1 ? atoi(argv[1]) : 5000011;
    if (n <= 0) {
        fprintf(stderr, "n must be positive\n");
        return 2;
    }
    std::random_device rd;
    const unsigned seed = rd();
    std::mt19937 gen(seed);
    // A bell-shaped distribution, so the bins hold different counts and a
    // count landing in the wrong bin shows.
    std::binomial_distribution<int> dist(255, 0.4);
    std::vector<unsigned char> h_data(n);
    std::vector<unsigned int> expected(NUM_BINS, 0);
    for (int i = 0; i < n; ++i) {
        h_data[i] = (unsigned char)dist(gen);
        expected[h_data[i]]++;
    }

    unsigned char* d_data;
    unsigned int* d_bins;
    CUDA_SAFE_CALL(cudaMalloc(&d_data, n));
    CUDA_SAFE_CALL(cudaMalloc(&d_bins, NUM_BINS * sizeof(unsigned int)));
    CUDA_SAFE_CALL(cudaMemcpy(d_data, h_data.data(), n, cudaMemcpyHostToDevice));

    const int block = 192;  // fewer threads than bins on purpose
    const int grid = 64;
    int failures = 0;
    std::vector<unsigned int> h_bins(NUM_BINS);
    for (int method = 0; method < 2; ++method) {
        CUDA_SAFE_CALL(cudaMemset(d_bins, 0, NUM_BINS * sizeof(unsigned int)));
        if (method == 0)
            histogram_global<<<grid, block>>>(d_data, n, d_bins);
        else
            histogram_shared<<<grid, block>>>(d_data, n, d_bins);
        CUDA_SAFE_CALL(cudaGetLastError());
        CUDA_SAFE_CALL(cudaMemcpy(h_bins.data(), d_bins, NUM_BINS * sizeof(unsigned int),
                                  cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int b = 0; b < NUM_BINS; ++b)
            if (h_bins[b] != expected[b]) {
                if (wrong < 3)
                    fprintf(stderr, "bin %d: got %u, expected %u\n", b, h_bins[b], expected[b]);
                ++wrong;
            }
        printf("%s atomics: %d wrong bins\n", method == 0 ? "global" : "shared", wrong);
        failures += wrong;
    }
    CUDA_SAFE_CALL(cudaFree(d_data));
    CUDA_SAFE_CALL(cudaFree(d_bins));
    printf("histogram n=%d seed=%u %s\n", n, seed, failures == 0 ? "OK" : "FAILED");
    return failures == 0 ? 0 : 1;
}
