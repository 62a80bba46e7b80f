// constant_stencil.cu - a 1D convolution whose weights live in __constant__
// memory, set from the host with cudaMemcpyToSymbol (and read back with
// cudaMemcpyFromSymbol to make sure they arrived). Every thread reads the same
// weight at the same time, the access pattern constant memory is made for.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_CHECK_RETURN(value)                                                    \
    {                                                                               \
        cudaError_t _m_cudaStat = value;                                            \
        if (_m_cudaStat != cudaSuccess) {                                           \
            fprintf(stderr, "Error %s at line %d in file %s\n",                    \
                    cudaGetErrorString(_m_cudaStat), __LINE__, __FILE__);           \
            exit(1);                                                                \
        }                                                                           \
    }

#define RADIUS 4
#define WIDTH (2 * RADIUS + 1)

__constant__ float c_weights[WIDTH];
__constant__ int c_length;

// Outside the array the input counts as zero.
__global__ void convolve(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= c_length) return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = i + k;
        if (j >= 0 && j < c_length) sum += c_weights[k + RADIUS] * in[j];
    }
    out[i] = sum;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 123457;
    if (n < 1) { fprintf(stderr, "n must be at least 1\n"); return 2; }
    std::mt19937 gen(std::random_device{}());
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);

    std::vector<float> h_in(n), h_out(n), weights(WIDTH);
    for (float& v : h_in) v = uniform(gen);
    for (float& w : weights) w = uniform(gen);

    CUDA_CHECK_RETURN(cudaMemcpyToSymbol(c_weights, weights.data(), WIDTH * sizeof(float)));
    CUDA_CHECK_RETURN(cudaMemcpyToSymbol(c_length, &n, sizeof(int)));
    float readBack[WIDTH];
    CUDA_CHECK_RETURN(cudaMemcpyFromSymbol(readBack, c_weights, sizeof(readBack)));
    int errors = 0;
    for (int k = 0; k < WIDTH; ++k)
        if (readBack[k] != weights[k]) ++errors;

    float *d_in, *d_out;
    CUDA_CHECK_RETURN(cudaMalloc((void**)&d_in, sizeof(float) * n));
    CUDA_CHECK_RETURN(cudaMalloc((void**)&d_out, sizeof(float) * n));
    CUDA_CHECK_RETURN(cudaMemcpy(d_in, h_in.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
    convolve<<<(n + 127) / 128, 128>>>(d_in, d_out);
    CUDA_CHECK_RETURN(cudaGetLastError());
    CUDA_CHECK_RETURN(cudaMemcpy(h_out.data(), d_out, sizeof(float) * n, cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; ++i) {
        double ref = 0.0;
        for (int k = -RADIUS; k <= RADIUS; ++k)
            if (i + k >= 0 && i + k < n) ref += (double)weights[k + RADIUS] * h_in[i + k];
        // 9 products of magnitude < 1 summed in float: well under 1e-5 apart
        if (fabs(h_out[i] - ref) > 1e-5) ++errors;
    }
    CUDA_CHECK_RETURN(cudaFree(d_in));
    CUDA_CHECK_RETURN(cudaFree(d_out));
    printf("constant_stencil n=%d radius=%d errors=%d %s\n", n, RADIUS, errors, errors ? "FAILED" : "OK");
    return errors ? 1 : 0;
}
