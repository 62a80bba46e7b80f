// rgba_grayscale.cu - the book exercise: turn an RGBA image into grey with a
// 2D grid of 16x16 blocks, one thread per pixel, pixels as uchar4. The width
// and height come from the command line and are not multiples of 16; the
// image is random. Checked against the same formula on the CPU.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err = call;                                                       \
        if (err != cudaSuccess) {                                                     \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err), __FILE__,     \
                   __LINE__);                                                         \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

// Rec. 601 luma in integer arithmetic: the weights sum to 256.
__host__ __device__ unsigned char luma(uchar4 p) {
    return (unsigned char)((77 * p.x + 150 * p.y + 29 * p.z) >> 8);
}

__global__ void rgbaToGray(const uchar4* rgba, uchar4* gray, int width, int height) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height) return;
    int idx = __mul24(row, width) + col;  // the old fast 24-bit multiply
    unsigned char y = luma(rgba[idx]);
    gray[idx] = make_uchar4(y, y, y, rgba[idx].w);  // alpha kept
}

int main(int argc, char** argv) {
    int width = argc > 1 ? atoi(argv[1]) : 1023;
    int height = argc > 2 ? atoi(argv[2]) : 517;
    if (width <= 0 || height <= 0 || width > 8192 || height > 8192) {
        printf("usage: %s [width height], each 1..8192\n", argv[0]);
        return 1;
    }
    size_t pixels = (size_t)width * height;
    uchar4* h_in = (uchar4*)malloc(pixels * sizeof(uchar4));
    uchar4* h_out = (uchar4*)malloc(pixels * sizeof(uchar4));
    if (!h_in || !h_out) { printf("out of host memory\n"); return 1; }
    srand((unsigned)time(NULL));
    for (size_t i = 0; i < pixels; i++)
        h_in[i] = make_uchar4(rand() % 256, rand() % 256, rand() % 256, rand() % 256);

    uchar4 *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, pixels * sizeof(uchar4)));
    CUDA_CHECK(cudaMalloc(&d_out, pixels * sizeof(uchar4)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, pixels * sizeof(uchar4), cudaMemcpyHostToDevice));
    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    rgbaToGray<<<grid, block>>>(d_in, d_out, width, height);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, pixels * sizeof(uchar4), cudaMemcpyDeviceToHost));

    size_t wrong = 0;
    for (size_t i = 0; i < pixels; i++) {
        unsigned char y = luma(h_in[i]);
        if (h_out[i].x != y || h_out[i].y != y || h_out[i].z != y || h_out[i].w != h_in[i].w) wrong++;
    }
    printf("rgba_grayscale %dx%d wrong=%zu %s\n", width, height, wrong, wrong == 0 ? "OK" : "FAILED");
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return wrong == 0 ? 0 : 1;
}
