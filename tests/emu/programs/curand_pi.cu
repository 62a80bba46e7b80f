// Monte Carlo pi the way course notes write it: one curandState per thread,
// set up by its own kernel with curand_init(seed, thread id, 0), then a kernel
// that throws darts and counts hits with atomicAdd. Run twice with the same
// seed, it must give the same count; a host-API generator (curandGenerateUniform
// into device memory, built with -lcurand) throws a second set of darts.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CALL(x) do { if ((x) != cudaSuccess) { \
    printf("CUDA error at %s:%d\n", __FILE__, __LINE__); return EXIT_FAILURE; } } while (0)
#define CURAND_CALL(x) do { if ((x) != CURAND_STATUS_SUCCESS) { \
    printf("cuRAND error at %s:%d\n", __FILE__, __LINE__); return EXIT_FAILURE; } } while (0)

__global__ void setup_kernel(curandState* state, unsigned long long seed, int n) {
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    if (id < n) curand_init(seed, id, 0, &state[id]);
}

__global__ void darts(curandState* state, int n, int per_thread, unsigned int* hits) {
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    if (id >= n) return;
    curandState local = state[id];  // work on a copy in registers, store it back
    unsigned int count = 0;
    for (int i = 0; i < per_thread; i++) {
        float x = curand_uniform(&local);
        float y = curand_uniform(&local);
        if (x * x + y * y <= 1.0f) count++;
    }
    state[id] = local;
    atomicAdd(hits, count);
}

__global__ void count_pairs(const float* xy, int pairs, unsigned int* hits) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += blockDim.x * gridDim.x) {
        float x = xy[2 * i], y = xy[2 * i + 1];
        if (x * x + y * y <= 1.0f) atomicAdd(hits, 1u);
    }
}

static int run_darts(int n, int per_thread, unsigned int* result) {
    curandState* states;
    unsigned int* hits;
    CUDA_CALL(cudaMalloc(&states, n * sizeof(curandState)));
    CUDA_CALL(cudaMalloc(&hits, sizeof(unsigned int)));
    CUDA_CALL(cudaMemset(hits, 0, sizeof(unsigned int)));
    int threads = 128, blocks = (n + threads - 1) / threads;
    setup_kernel<<<blocks, threads>>>(states, 1234ULL, n);
    CUDA_CALL(cudaGetLastError());
    darts<<<blocks, threads>>>(states, n, per_thread, hits);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemcpy(result, hits, sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CUDA_CALL(cudaFree(states));
    CUDA_CALL(cudaFree(hits));
    return 0;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10007;  // threads, not a multiple of the block
    int per_thread = 100;
    unsigned int first = 0, second = 0;
    if (run_darts(n, per_thread, &first) || run_darts(n, per_thread, &second)) return EXIT_FAILURE;
    double pi_device = 4.0 * first / (double(n) * per_thread);

    int pairs = 500009;
    float* xy;
    unsigned int *hits, host_hits = 0;
    CUDA_CALL(cudaMalloc(&xy, 2 * pairs * sizeof(float)));
    CUDA_CALL(cudaMalloc(&hits, sizeof(unsigned int)));
    CUDA_CALL(cudaMemset(hits, 0, sizeof(unsigned int)));
    curandGenerator_t gen;
    CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
    CURAND_CALL(curandGenerateUniform(gen, xy, 2 * pairs));
    count_pairs<<<128, 256>>>(xy, pairs, hits);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemcpy(&host_hits, hits, sizeof(unsigned int), cudaMemcpyDeviceToHost));
    CURAND_CALL(curandDestroyGenerator(gen));
    CUDA_CALL(cudaFree(xy));
    CUDA_CALL(cudaFree(hits));
    double pi_host_api = 4.0 * host_hits / pairs;

    // About 1e6 and 5e5 darts: standard errors near 0.0016 and 0.0023.
    bool ok = first == second && fabs(pi_device - M_PI) < 0.01 && fabs(pi_host_api - M_PI) < 0.012;
    printf("curand_pi threads=%d device-api pi=%.5f (runs %s) host-api pi=%.5f %s\n", n, pi_device,
           first == second ? "identical" : "DIFFER", pi_host_api, ok ? "OK" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
