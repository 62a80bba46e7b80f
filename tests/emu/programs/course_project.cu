// course_project.cu - a course-style project: the kernel and its launch in a
// header under include/ (built with -I include), a file-scope extern
// __shared__ array, a launch macro used with and without arguments, a __device__ counter, a launch
// through a kernel pointer, an old launch kept under #if 0, and a host lambda
// named like a __device__ function. Sums random numbers block by block and
// compares with the CPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <course/block_sums.cuh>

__device__ float scale(float x) { return 0.5f * x; }

__global__ void count_blocks(const float* sums, int blocks) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < blocks && sums[b] >= 0.0f) atomicAdd(&blocks_counted, 1u);
}

__global__ void halve(float* v, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = scale(v[i]);
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 100003;
    if (n <= 0 || n > (1 << 26)) {
        std::fprintf(stderr, "usage: course_project [1..%d]\n", 1 << 26);
        return 2;
    }
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> h_in(n);
    for (float& x : h_in) x = dist(rng);

    float *d_in, *d_sums;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    // Halve every input through a kernel pointer, as a dispatch table would.
    void (*kernel)(float*, int) = halve;
    (*kernel)<<<blocks, threads>>>(d_in, n);
    CHECK(cudaGetLastError());

#if 0
    // The first version, kept for reference; never compiled.
    block_sums<<<blocks, threads>>>(d_in, n);
#endif
    launch_block_sums(d_in, n, d_sums, threads);
    LAUNCH(clear_counter, 1, 1);
    LAUNCH(count_blocks, (blocks + threads - 1) / threads, threads, d_sums, blocks);
    CHECK(cudaGetLastError());

    std::vector<float> h_sums(blocks);
    unsigned int counted = 0;
    CHECK(cudaMemcpy(h_sums.data(), d_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&counted, blocks_counted, sizeof(unsigned int)));

    // Host code may have its own 'scale': a lambda, not the __device__ one.
    auto scale = [](float x) { return 0.5 * x; };
    double expected = 0.0, got = 0.0;
    for (float x : h_in) expected += scale(x);
    for (float s : h_sums) got += s;
    const bool ok = std::fabs(got - expected) <= 1e-4 * expected && counted == static_cast<unsigned>(blocks);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sums));
    std::printf("course_project n=%d blocks=%d sum=%.3f expected=%.3f %s\n", n, blocks, got, expected,
                ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
