// MTGP32 the way cuRAND's documentation and samples use it: one
// curandStateMtgp32_t per block, made on the host with
// curandMakeMTGP32Constants and curandMakeMTGP32KernelState from cuRAND's
// parameter table, then a kernel whose threads all draw together (curand on
// an MTGP32 state is a block-wide step); and the host API's MTGP32 generator
// on the device, checked against the same generator on the host
// (curandCreateGeneratorHost), as NVIDIA's MersenneTwisterGP11213 sample does.
// Usage: curand_mtgp32 [threads per block, default 256]; more than 256
// threads per state is a mistake the program makes on request.
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CALL(x) do { if ((x) != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(cudaGetLastError()), __FILE__, __LINE__); \
    return EXIT_FAILURE; } } while (0)
#define CURAND_CALL(x) do { if ((x) != CURAND_STATUS_SUCCESS) { \
    printf("cuRAND error at %s:%d\n", __FILE__, __LINE__); return EXIT_FAILURE; } } while (0)

// Each thread draws `per_thread` uniforms and counts those below 0.25.
__global__ void count_low(curandStateMtgp32_t* states, int per_thread, unsigned int* low) {
    unsigned int count = 0;
    for (int i = 0; i < per_thread; i++)
        if (curand_uniform(&states[blockIdx.x]) < 0.25f) count++;
    atomicAdd(low, count);
}

int main(int argc, char** argv) {
    const int threads = argc > 1 ? atoi(argv[1]) : 256;
    const int blocks = 64, per_thread = 301;
    if (threads < 1 || threads > 1024) {
        printf("usage: curand_mtgp32 [threads per block, 1 to 1024]\n");
        return EXIT_FAILURE;
    }
    curandStateMtgp32_t* d_states;
    mtgp32_kernel_params_t* d_params;
    unsigned int* d_low;
    CUDA_CALL(cudaMalloc(&d_states, blocks * sizeof(curandStateMtgp32_t)));
    CUDA_CALL(cudaMalloc(&d_params, sizeof(mtgp32_kernel_params_t)));
    CUDA_CALL(cudaMalloc(&d_low, sizeof(unsigned int)));
    CUDA_CALL(cudaMemset(d_low, 0, sizeof(unsigned int)));
    CURAND_CALL(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, d_params));
    CURAND_CALL(curandMakeMTGP32KernelState(d_states, mtgp32dc_params_fast_11213, d_params, blocks, 1234));
    count_low<<<blocks, threads>>>(d_states, per_thread, d_low);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaDeviceSynchronize());
    unsigned int low = 0;
    CUDA_CALL(cudaMemcpy(&low, d_low, sizeof low, cudaMemcpyDeviceToHost));
    const double draws = double(blocks) * threads * per_thread;
    const double fraction = low / draws;
    // Binomial: five standard deviations of the fraction around 1/4.
    const bool fraction_ok = std::fabs(fraction - 0.25) < 5 * std::sqrt(0.25 * 0.75 / draws);

    // The host API: the device generator's numbers must be the host generator's.
    const size_t n = 100003;
    float* d_numbers;
    CUDA_CALL(cudaMalloc(&d_numbers, n * sizeof(float)));
    curandGenerator_t gen, host_gen;
    CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_MTGP32));
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, 777));
    CURAND_CALL(curandGenerateUniform(gen, d_numbers, n));
    CURAND_CALL(curandCreateGeneratorHost(&host_gen, CURAND_RNG_PSEUDO_MTGP32));
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(host_gen, 777));
    std::vector<float> from_device(n), from_host(n);
    CURAND_CALL(curandGenerateUniform(host_gen, from_host.data(), n));
    CUDA_CALL(cudaMemcpy(from_device.data(), d_numbers, n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t mismatches = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (from_device[i] != from_host[i]) mismatches++;
        sum += from_host[i];
    }
    const bool mean_ok = std::fabs(sum / n - 0.5) < 0.01;
    CURAND_CALL(curandDestroyGenerator(gen));
    CURAND_CALL(curandDestroyGenerator(host_gen));
    CUDA_CALL(cudaFree(d_numbers));
    CUDA_CALL(cudaFree(d_low));
    CUDA_CALL(cudaFree(d_params));
    CUDA_CALL(cudaFree(d_states));

    const bool ok = fraction_ok && mean_ok && mismatches == 0;
    printf("curand_mtgp32 %d blocks x %d threads: fraction below 0.25 = %.5f, %zu of %zu device "
           "numbers differ from the host's: %s\n",
           blocks, threads, fraction, mismatches, n, ok ? "OK" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
