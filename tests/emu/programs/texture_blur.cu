// texture_blur.cu - a 2x2 box blur done by the texture unit, in the style of
// the CUDA samples' texture programs: an RGBA image of unsigned chars in a
// CUDA array (cudaMallocArray, cudaMemcpy2DToArray), a texture object with
// linear filtering and the normalized-float read mode, and one tex2D per
// pixel at the corner its four texels share, where the bilinear weights are
// all one half. Edges clamp. Sizes (width, height) are odd. Prints
// "texture_blur ... OK" when every channel matches the CPU's average.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CHECK_CUDA(call)                                                              \
    do {                                                                              \
        cudaError_t status_ = (call);                                                 \
        if (status_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,      \
                    cudaGetErrorString(status_));                                     \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void box_blur(cudaTextureObject_t image, float4* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        // (x + 1, y + 1) is the corner shared by texels x..x+1 and y..y+1.
        out[y * width + x] = tex2D<float4>(image, x + 1.0f, y + 1.0f);
    }
}

int main(int argc, char** argv) {
    int width = argc > 1 ? atoi(argv[1]) : 641;
    int height = argc > 2 ? atoi(argv[2]) : 479;
    if (width <= 0 || height <= 0 || width > 8192 || height > 8192) {
        fprintf(stderr, "usage: %s [width [height]], each 1 to 8192\n", argv[0]);
        return 2;
    }
    std::vector<uchar4> pixels(static_cast<size_t>(width) * height);
    std::mt19937 gen(std::random_device{}());
    std::uniform_int_distribution<int> dist(0, 255);
    for (uchar4& p : pixels) p = make_uchar4(dist(gen), dist(gen), dist(gen), dist(gen));

    cudaChannelFormatDesc channels = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array;
    CHECK_CUDA(cudaMallocArray(&array, &channels, width, height));
    CHECK_CUDA(cudaMemcpy2DToArray(array, 0, 0, pixels.data(), width * sizeof(uchar4),
                                   width * sizeof(uchar4), height, cudaMemcpyHostToDevice));

    cudaResourceDesc resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc sampling;
    memset(&sampling, 0, sizeof sampling);
    sampling.addressMode[0] = cudaAddressModeClamp;
    sampling.addressMode[1] = cudaAddressModeClamp;
    sampling.filterMode = cudaFilterModeLinear;
    sampling.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t image;
    CHECK_CUDA(cudaCreateTextureObject(&image, &resource, &sampling, nullptr));

    float4* d_out;
    CHECK_CUDA(cudaMalloc(&d_out, pixels.size() * sizeof(float4)));
    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    box_blur<<<grid, block>>>(image, d_out, width, height);
    CHECK_CUDA(cudaGetLastError());
    std::vector<float4> out(pixels.size());
    CHECK_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float4), cudaMemcpyDeviceToHost));

    int mismatches = 0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const int x1 = x + 1 < width ? x + 1 : width - 1;
            const int y1 = y + 1 < height ? y + 1 : height - 1;
            const uchar4 a = pixels[y * width + x], b = pixels[y * width + x1];
            const uchar4 c = pixels[y1 * width + x], d = pixels[y1 * width + x1];
            const float want[4] = {(a.x + b.x + c.x + d.x) / (4 * 255.0f),
                                   (a.y + b.y + c.y + d.y) / (4 * 255.0f),
                                   (a.z + b.z + c.z + d.z) / (4 * 255.0f),
                                   (a.w + b.w + c.w + d.w) / (4 * 255.0f)};
            const float4 got = out[y * width + x];
            const float got_channels[4] = {got.x, got.y, got.z, got.w};
            // Within half a step of 8 bits: a GPU's filter may round its sum.
            for (int k = 0; k < 4; ++k)
                if (fabsf(got_channels[k] - want[k]) > 0.5f / 255.0f) ++mismatches;
        }
    }
    CHECK_CUDA(cudaDestroyTextureObject(image));
    CHECK_CUDA(cudaFreeArray(array));
    CHECK_CUDA(cudaFree(d_out));
    printf("texture_blur %dx%d mismatches=%d %s\n", width, height, mismatches,
           mismatches == 0 ? "OK" : "FAILED");
    return mismatches == 0 ? 0 : 1;
}
