// pitched_2d.cu - a matrix in pitched device memory, in the style of the CUDA
// books' 2D-memory examples: cudaMallocPitch for the rows, cudaMemcpy2D in and
// out of a packed host matrix, cudaMemset2D to clear the result, a 2D grid of
// 2D blocks that adds two matrices row by row through the pitch, and
// cudaMemcpy2DAsync on a stream for the copy back. Sizes (nx, ny) are not
// multiples of the block. Prints "pitched_2d ... OK" when it matches the CPU.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                                 \
    {                                                                               \
        const cudaError_t error = call;                                             \
        if (error != cudaSuccess) {                                                 \
            printf("Error: %s:%d, ", __FILE__, __LINE__);                           \
            printf("code:%d, reason: %s\n", error, cudaGetErrorString(error));      \
            exit(1);                                                                \
        }                                                                           \
    }

__global__ void sumMatrixPitched(const float* A, size_t pitchA, const float* B, size_t pitchB,
                                 float* C, size_t pitchC, int nx, int ny) {
    unsigned int ix = threadIdx.x + blockIdx.x * blockDim.x;
    unsigned int iy = threadIdx.y + blockIdx.y * blockDim.y;
    if (ix < nx && iy < ny) {
        const float* rowA = (const float*)((const char*)A + iy * pitchA);
        const float* rowB = (const float*)((const char*)B + iy * pitchB);
        float* rowC = (float*)((char*)C + iy * pitchC);
        rowC[ix] = rowA[ix] + rowB[ix];
    }
}

int main(int argc, char** argv) {
    int nx = argc > 1 ? atoi(argv[1]) : 1000;
    int ny = argc > 2 ? atoi(argv[2]) : 333;
    if (nx <= 0 || ny <= 0 || nx > 16384 || ny > 16384) {
        fprintf(stderr, "usage: %s [nx [ny]], each 1 to 16384\n", argv[0]);
        return 2;
    }
    size_t rowBytes = nx * sizeof(float);
    std::vector<float> h_A(nx * ny), h_B(nx * ny), gpuRef(nx * ny, -1.0f);
    std::mt19937 gen(std::random_device{}());
    std::uniform_real_distribution<float> dist(0.0f, 10.0f);
    for (int i = 0; i < nx * ny; i++) h_A[i] = dist(gen), h_B[i] = dist(gen);

    float *d_A, *d_B, *d_C;
    size_t pitchA, pitchB, pitchC;
    CHECK(cudaMallocPitch((void**)&d_A, &pitchA, rowBytes, ny));
    CHECK(cudaMallocPitch((void**)&d_B, &pitchB, rowBytes, ny));
    CHECK(cudaMallocPitch(&d_C, &pitchC, rowBytes, ny));
    CHECK(cudaMemcpy2D(d_A, pitchA, h_A.data(), rowBytes, rowBytes, ny, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(d_B, pitchB, h_B.data(), rowBytes, rowBytes, ny, cudaMemcpyHostToDevice));
    CHECK(cudaMemset2D(d_C, pitchC, 0, rowBytes, ny));

    dim3 block(32, 8);
    dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
    sumMatrixPitched<<<grid, block>>>(d_A, pitchA, d_B, pitchB, d_C, pitchC, nx, ny);
    CHECK(cudaGetLastError());

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMemcpy2DAsync(gpuRef.data(), rowBytes, d_C, pitchC, rowBytes, ny,
                            cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));

    int mismatches = 0;
    for (int i = 0; i < nx * ny; i++)
        if (gpuRef[i] != h_A[i] + h_B[i]) mismatches++;

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_B));
    CHECK(cudaFree(d_C));
    printf("pitched_2d %dx%d pitch=%zu mismatches=%d %s\n", nx, ny, pitchC, mismatches,
           mismatches == 0 ? "OK" : "FAILED");
    return mismatches == 0 ? 0 : 1;
}
