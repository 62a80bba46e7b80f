// texture_fetch_dump.cu - prints, as bit patterns, what texture fetches return
// at coordinates that sweep through texels in small steps, so that the
// hardware's rules can be read off: the weights of linear filtering, how a
// normalized coordinate becomes a texel coordinate for each address mode, and
// how point sampling rounds. Built with nvcc and run on a GPU, its output was
// kept in docs/gpu-runs/; built for the emulator, ctest compares the two.
// Sections 6 and 7 (half texels, a surface over an array made without
// cudaArraySurfaceLoadStore) came after the H200 run of 2026-11-30: its file
// has no such lines, so they wait for the next GPU run (the comparison
// matches lines by their coordinates and leaves out what the GPU's file lacks).
//
//   nvcc -arch=sm_90 texture_fetch_dump.cu -o dump && ./dump > gpu.txt
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_dump.h"

// ---- kernels ---------------------------------------------------------------------------
__global__ void fetch_1d(cudaTextureObject_t tex, const float* at, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(tex, at[i]);
}

__global__ void fetch_2d(cudaTextureObject_t tex, const float2* at, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, at[i].x, at[i].y);
}

__global__ void fetch_3d(cudaTextureObject_t tex, const float4* at, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(tex, at[i].x, at[i].y, at[i].z);
}

// Each element of a 2D int surface set to x + 1000 y + 7, then read back.
__global__ void surface_round_trip(cudaSurfaceObject_t surf, int width, int height, int* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        surf2Dwrite(x + 1000 * y + 7, surf, x * (int)sizeof(int), y);
        out[y * width + x] = surf2Dread<int>(surf, x * (int)sizeof(int), y);
    }
}

// A fixed generator, so that both builds see the same texels and points.
static unsigned long long lcg_state = 12345;
static float next_unit() {
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(lcg_state >> 40) / 16777216.0f;
}

// ---- helpers ---------------------------------------------------------------------------
static unsigned bits_of(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    return u;
}

template <class T>
static cudaArray_t array_1d(const std::vector<T>& texels) {
    cudaChannelFormatDesc channel = cudaCreateChannelDesc<T>();
    cudaArray_t array = nullptr;
    CHECK(cudaMallocArray(&array, &channel, texels.size(), 0));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), texels.size() * sizeof(T),
                              texels.size() * sizeof(T), 1, cudaMemcpyHostToDevice));
    return array;
}

static cudaTextureObject_t texture_of(cudaArray_t array, cudaTextureAddressMode mode,
                                      cudaTextureFilterMode filter, bool normalized,
                                      cudaTextureReadMode read) {
    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc desc;
    std::memset(&desc, 0, sizeof desc);
    desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = mode;
    desc.filterMode = filter;
    desc.readMode = read;
    desc.normalizedCoords = normalized ? 1 : 0;
    for (int c = 0; c < 4; ++c) desc.borderColor[c] = -7.25f;
    cudaTextureObject_t tex = 0;
    CHECK(cudaCreateTextureObject(&tex, &res, &desc, nullptr));
    return tex;
}

static void sweep_1d(const char* label, cudaTextureObject_t tex, const std::vector<float>& at) {
    const int n = static_cast<int>(at.size());
    float *d_at, *d_out;
    CHECK(cudaMalloc(&d_at, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_at, at.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    fetch_1d<<<(n + 127) / 128, 128>>>(tex, d_at, d_out, n);
    CHECK(cudaGetLastError());
    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) std::printf("%s %08x %08x\n", label, bits_of(at[i]), bits_of(out[i]));
    CHECK(cudaFree(d_at));
    CHECK(cudaFree(d_out));
}

const char* mode_names[] = {"wrap", "clamp", "mirror", "border"};

// ---- main ------------------------------------------------------------------------------
int main() {
    // 1. Linear filtering's weight: texels 0 and 1, unnormalized coordinates
    //    from the first texel's centre to the second's in steps of 1/4096.
    {
        cudaArray_t array = array_1d<float>({0.0f, 1.0f});
        cudaTextureObject_t tex = texture_of(array, cudaAddressModeClamp, cudaFilterModeLinear,
                                             false, cudaReadModeElementType);
        std::vector<float> at;
        for (int k = 0; k <= 4096; ++k) at.push_back(0.5f + k / 4096.0f);
        for (int k = 1; k <= 64; ++k) at.push_back(1000.0f / k);  // far coordinates too
        sweep_1d("weight", tex, at);
        CHECK(cudaDestroyTextureObject(tex));
        CHECK(cudaFreeArray(array));
    }
    // 2. Normalized coordinates over 37 texels valued 0..36, every address
    //    mode, point and linear filtering, u from -1.5 to 2.5.
    {
        std::vector<float> ramp(37);
        for (int i = 0; i < 37; ++i) ramp[i] = static_cast<float>(i);
        cudaArray_t array = array_1d<float>(ramp);
        std::vector<float> at;
        for (int k = 0; k <= 8000; ++k) at.push_back(-1.5f + k * 0.0005003f);
        for (int mode = 0; mode < 4; ++mode)
            for (int linear = 0; linear < 2; ++linear) {
                cudaTextureObject_t tex =
                    texture_of(array, static_cast<cudaTextureAddressMode>(mode),
                               linear ? cudaFilterModeLinear : cudaFilterModePoint, true,
                               cudaReadModeElementType);
                char label[48];
                std::snprintf(label, sizeof label, "normalized-%s-%s", mode_names[mode],
                              linear ? "linear" : "point");
                sweep_1d(label, tex, at);
                CHECK(cudaDestroyTextureObject(tex));
            }
        // The same with unnormalized coordinates, where only clamp and border apply.
        std::vector<float> texel_at;
        for (int k = 0; k <= 4000; ++k) texel_at.push_back(-3.0f + k * 0.010731f);
        for (int mode = 1; mode < 4; mode += 2)
            for (int linear = 0; linear < 2; ++linear) {
                cudaTextureObject_t tex =
                    texture_of(array, static_cast<cudaTextureAddressMode>(mode),
                               linear ? cudaFilterModeLinear : cudaFilterModePoint, false,
                               cudaReadModeElementType);
                char label[48];
                std::snprintf(label, sizeof label, "texels-%s-%s", mode_names[mode],
                              linear ? "linear" : "point");
                sweep_1d(label, tex, texel_at);
                CHECK(cudaDestroyTextureObject(tex));
            }
        CHECK(cudaFreeArray(array));
    }
    // 3. 8-bit texels read as normalized floats, linearly filtered.
    {
        std::vector<unsigned char> bytes = {0, 255, 7, 200};
        cudaArray_t array = array_1d<unsigned char>(bytes);
        cudaTextureObject_t tex = texture_of(array, cudaAddressModeClamp, cudaFilterModeLinear,
                                             false, cudaReadModeNormalizedFloat);
        std::vector<float> at;
        for (int k = 0; k <= 3 * 512; ++k) at.push_back(0.5f + k / 512.0f);
        sweep_1d("uchar-normalized", tex, at);
        CHECK(cudaDestroyTextureObject(tex));
        CHECK(cudaFreeArray(array));
    }
    // 4. Two dimensions: texels (i, j) valued i + 100 j, at points spread by
    //    a fixed generator over the texture and a little past its edges.
    {
        const int width = 37, height = 23;
        std::vector<float> texels(width * height);
        for (int j = 0; j < height; ++j)
            for (int i = 0; i < width; ++i) texels[j * width + i] = i + 100.0f * j;
        cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
        cudaArray_t array = nullptr;
        CHECK(cudaMallocArray(&array, &channel, width, height));
        CHECK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), width * sizeof(float),
                                  width * sizeof(float), height, cudaMemcpyHostToDevice));
        const int n = 3000;
        std::vector<float2> at(n);
        for (float2& p : at)
            p = make_float2(-2.0f + next_unit() * (width + 4), -2.0f + next_unit() * (height + 4));
        float2* d_at;
        float* d_out;
        CHECK(cudaMalloc(&d_at, n * sizeof(float2)));
        CHECK(cudaMalloc(&d_out, n * sizeof(float)));
        CHECK(cudaMemcpy(d_at, at.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
        for (int linear = 0; linear < 2; ++linear) {
            cudaTextureObject_t tex = texture_of(array, cudaAddressModeClamp,
                                                 linear ? cudaFilterModeLinear : cudaFilterModePoint,
                                                 false, cudaReadModeElementType);
            fetch_2d<<<(n + 127) / 128, 128>>>(tex, d_at, d_out, n);
            CHECK(cudaGetLastError());
            std::vector<float> out(n);
            CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
            for (int i = 0; i < n; ++i)
                std::printf("2d-clamp-%s %08x %08x %08x\n", linear ? "linear" : "point",
                            bits_of(at[i].x), bits_of(at[i].y), bits_of(out[i]));
            CHECK(cudaDestroyTextureObject(tex));
        }
        CHECK(cudaFree(d_at));
        CHECK(cudaFree(d_out));
        CHECK(cudaFreeArray(array));
    }
    // 5. Random texels, where the weights' products show: 2D (37 x 23) and 3D
    //    (13 x 7 x 5), linear filtering, texel and normalized coordinates,
    //    clamp, border and wrap.
    {
        const int width = 37, height = 23;
        std::vector<float> texels(width * height);
        for (float& t : texels) t = -100.0f + 200.0f * next_unit();
        cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
        cudaArray_t array = nullptr;
        CHECK(cudaMallocArray(&array, &channel, width, height));
        CHECK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), width * sizeof(float),
                                  width * sizeof(float), height, cudaMemcpyHostToDevice));
        const int n = 2000;
        std::vector<float2> at(n);
        for (float2& p : at) p = make_float2(-0.3f + 1.6f * next_unit(), -0.3f + 1.6f * next_unit());
        float2* d_at;
        float* d_out;
        CHECK(cudaMalloc(&d_at, n * sizeof(float2)));
        CHECK(cudaMalloc(&d_out, n * sizeof(float)));
        for (int normalized = 0; normalized < 2; ++normalized) {
            std::vector<float2> scaled = at;
            if (!normalized)
                for (float2& p : scaled) p = make_float2(p.x * width, p.y * height);
            CHECK(cudaMemcpy(d_at, scaled.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
            for (int mode = 0; mode < 4; mode += 1) {
                if (mode == 2) continue;  // mirror: as wrap, folded
                cudaTextureObject_t tex = texture_of(array, static_cast<cudaTextureAddressMode>(mode),
                                                     cudaFilterModeLinear, normalized, cudaReadModeElementType);
                fetch_2d<<<(n + 127) / 128, 128>>>(tex, d_at, d_out, n);
                CHECK(cudaGetLastError());
                std::vector<float> out(n);
                CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
                for (int i = 0; i < n; ++i)
                    std::printf("random-2d-%s-%s %08x %08x %08x\n", normalized ? "normalized" : "texels",
                                mode_names[mode], bits_of(scaled[i].x), bits_of(scaled[i].y), bits_of(out[i]));
                CHECK(cudaDestroyTextureObject(tex));
            }
        }
        CHECK(cudaFree(d_at));
        CHECK(cudaFree(d_out));
        CHECK(cudaFreeArray(array));
        std::printf("random-2d-texels");
        for (float t : texels) std::printf(" %08x", bits_of(t));
        std::printf("\n");
    }
    {
        const int size[3] = {13, 7, 5};
        std::vector<float> texels(size[0] * size[1] * size[2]);
        for (float& t : texels) t = -10.0f + 20.0f * next_unit();
        cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
        cudaArray_t array = nullptr;
        CHECK(cudaMalloc3DArray(&array, &channel, make_cudaExtent(size[0], size[1], size[2])));
        cudaMemcpy3DParms in;
        std::memset(&in, 0, sizeof in);
        in.srcPtr = make_cudaPitchedPtr(texels.data(), size[0] * sizeof(float), size[0], size[1]);
        in.dstArray = array;
        in.extent = make_cudaExtent(size[0], size[1], size[2]);
        in.kind = cudaMemcpyHostToDevice;
        CHECK(cudaMemcpy3D(&in));
        const int n = 2000;
        std::vector<float4> at(n);
        for (float4& p : at)
            p = make_float4(-0.3f + 1.6f * next_unit(), -0.3f + 1.6f * next_unit(), -0.3f + 1.6f * next_unit(), 0.0f);
        float4* d_at;
        float* d_out;
        CHECK(cudaMalloc(&d_at, n * sizeof(float4)));
        CHECK(cudaMalloc(&d_out, n * sizeof(float)));
        for (int normalized = 0; normalized < 2; ++normalized) {
            std::vector<float4> scaled = at;
            if (!normalized)
                for (float4& p : scaled) p = make_float4(p.x * size[0], p.y * size[1], p.z * size[2], 0.0f);
            CHECK(cudaMemcpy(d_at, scaled.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
            for (int mode = 0; mode < 4; mode += 1) {
                if (mode == 2) continue;
                cudaTextureObject_t tex = texture_of(array, static_cast<cudaTextureAddressMode>(mode),
                                                     cudaFilterModeLinear, normalized, cudaReadModeElementType);
                fetch_3d<<<(n + 127) / 128, 128>>>(tex, d_at, d_out, n);
                CHECK(cudaGetLastError());
                std::vector<float> out(n);
                CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
                for (int i = 0; i < n; ++i)
                    std::printf("random-3d-%s-%s %08x %08x %08x %08x\n", normalized ? "normalized" : "texels",
                                mode_names[mode], bits_of(scaled[i].x), bits_of(scaled[i].y), bits_of(scaled[i].z),
                                bits_of(out[i]));
                CHECK(cudaDestroyTextureObject(tex));
            }
        }
        CHECK(cudaFree(d_at));
        CHECK(cudaFree(d_out));
        CHECK(cudaFreeArray(array));
        std::printf("random-3d-texels");
        for (float t : texels) std::printf(" %08x", bits_of(t));
        std::printf("\n");
    }
    // 6. Half texels (16-bit float channels), fetched as float: linear
    //    filtering's weight between 0 and 1, and random texels in 2D. Does
    //    the GPU filter them as float texels of the same values?
    {
        cudaChannelFormatDesc half_channel = cudaCreateChannelDescHalf();
        cudaArray_t array = nullptr;
        CHECK(cudaMallocArray(&array, &half_channel, 2, 0));
        const __half ends[2] = {__float2half(0.0f), __float2half(1.0f)};
        CHECK(cudaMemcpy2DToArray(array, 0, 0, ends, sizeof ends, sizeof ends, 1,
                                  cudaMemcpyHostToDevice));
        cudaTextureObject_t tex = texture_of(array, cudaAddressModeClamp, cudaFilterModeLinear,
                                             false, cudaReadModeElementType);
        std::vector<float> at;
        for (int k = 0; k <= 1024; ++k) at.push_back(0.5f + k / 1024.0f);
        sweep_1d("half-weight", tex, at);
        CHECK(cudaDestroyTextureObject(tex));
        CHECK(cudaFreeArray(array));

        const int width = 37, height = 23;
        std::vector<__half> texels(width * height);
        for (__half& t : texels) t = __float2half(-100.0f + 200.0f * next_unit());
        CHECK(cudaMallocArray(&array, &half_channel, width, height));
        CHECK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), width * sizeof(__half),
                                  width * sizeof(__half), height, cudaMemcpyHostToDevice));
        const int n = 2000;
        std::vector<float2> points(n);
        for (float2& p : points)
            p = make_float2(-2.0f + next_unit() * (width + 4), -2.0f + next_unit() * (height + 4));
        float2* d_at;
        float* d_out;
        CHECK(cudaMalloc(&d_at, n * sizeof(float2)));
        CHECK(cudaMalloc(&d_out, n * sizeof(float)));
        CHECK(cudaMemcpy(d_at, points.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
        for (int linear = 0; linear < 2; ++linear) {
            tex = texture_of(array, cudaAddressModeClamp,
                             linear ? cudaFilterModeLinear : cudaFilterModePoint, false,
                             cudaReadModeElementType);
            fetch_2d<<<(n + 127) / 128, 128>>>(tex, d_at, d_out, n);
            CHECK(cudaGetLastError());
            std::vector<float> out(n);
            CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
            for (int i = 0; i < n; ++i)
                std::printf("half-2d-clamp-%s %08x %08x %08x\n", linear ? "linear" : "point",
                            bits_of(points[i].x), bits_of(points[i].y), bits_of(out[i]));
            CHECK(cudaDestroyTextureObject(tex));
        }
        CHECK(cudaFree(d_at));
        CHECK(cudaFree(d_out));
        CHECK(cudaFreeArray(array));
        std::printf("half-2d-texels");
        for (const __half& t : texels) std::printf(" %08x", bits_of(__half2float(t)));
        std::printf("\n");
    }
    // 7. A surface over an array made without cudaArraySurfaceLoadStore
    //    (CUDA asks for the flag; the H200 made the object): what do its
    //    writes and reads do? One line per element: what the kernel read
    //    back, and what the array then held.
    {
        const int width = 13, height = 6;
        cudaChannelFormatDesc channel = cudaCreateChannelDesc<int>();
        cudaArray_t array = nullptr;
        CHECK(cudaMallocArray(&array, &channel, width, height));
        std::vector<int> zeros(width * height, 0);
        CHECK(cudaMemcpy2DToArray(array, 0, 0, zeros.data(), width * sizeof(int), width * sizeof(int),
                                  height, cudaMemcpyHostToDevice));
        cudaResourceDesc res;
        std::memset(&res, 0, sizeof res);
        res.resType = cudaResourceTypeArray;
        res.res.array.array = array;
        cudaSurfaceObject_t surf = 0;
        const cudaError_t made = cudaCreateSurfaceObject(&surf, &res);
        std::printf("unflagged-surface-create %d\n", static_cast<int>(made));
        if (made == cudaSuccess) {
            int* d_out;
            CHECK(cudaMalloc(&d_out, width * height * sizeof(int)));
            surface_round_trip<<<dim3(1, 1), dim3(16, 8)>>>(surf, width, height, d_out);
            const cudaError_t ran = cudaDeviceSynchronize();
            std::printf("unflagged-surface-kernel %d\n", static_cast<int>(ran));
            if (ran == cudaSuccess) {
                std::vector<int> read(width * height), held(width * height);
                CHECK(cudaMemcpy(read.data(), d_out, read.size() * sizeof(int), cudaMemcpyDeviceToHost));
                CHECK(cudaMemcpy2DFromArray(held.data(), width * sizeof(int), array, 0, 0,
                                            width * sizeof(int), height, cudaMemcpyDeviceToHost));
                for (int i = 0; i < width * height; ++i)
                    std::printf("unflagged-surface %d %d %d\n", i, read[i], held[i]);
                CHECK(cudaFree(d_out));
            }
            CHECK(cudaDestroySurfaceObject(surf));
        } else {
            cudaGetLastError();
        }
        CHECK(cudaFreeArray(array));
    }
    return 0;
}
