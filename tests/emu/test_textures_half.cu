// test_textures_half.cu - 16-bit float (half) texture channels and a surface
// over an array made without cudaArraySurfaceLoadStore (common/emu/README.md,
// "Textures and surfaces"): an H200 (CUDA 13.0) made both
// (docs/gpu-runs/2026-11-30-h200.md). Half texels are fetched as float, each
// widened exactly before filtering, so a half texture of values half holds
// exactly must fetch what a float texture of the same values fetches, with
// point and linear filtering alike.
// Genuine CUDA: nvcc compiles this file too (emu_tests_nvcc_compile_check).
#include <channel_descriptor.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <surface_types.h>
#include <texture_types.h>

#include <cstring>
#include <random>
#include <vector>

// ---- kernels ---------------------------------------------------------------------------
__global__ void half_fetch_1d(cudaTextureObject_t tex, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}

__global__ void half_fetch_1d_pairs(cudaTextureObject_t tex, float2* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float2>(tex, i);
}

__global__ void half_sample_2d(cudaTextureObject_t tex, const float2* at, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, at[i].x, at[i].y);
}

__global__ void half_sample_2d_quads(cudaTextureObject_t tex, const float2* at, float4* out,
                                     int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(tex, at[i].x, at[i].y);
}

// Each element of a 2D int surface set to x + 100 y, then read back.
__global__ void unflagged_surface_fill(cudaSurfaceObject_t surf, int width, int height,
                                       int* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        surf2Dwrite(x + 100 * y, surf, x * (int)sizeof(int), y);
        out[y * width + x] = surf2Dread<int>(surf, x * (int)sizeof(int), y);
    }
}

namespace {

template <class T>
T* on_device(const std::vector<T>& h) {
    T* d = nullptr;
    REQUIRE(cudaMalloc(&d, h.size() * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    return d;
}

template <class T>
std::vector<T> from_device(const T* d, size_t n) {
    std::vector<T> h(n);
    REQUIRE(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
}

// Values half holds exactly: multiples of 1/16 in [-8, 8), and a few far
// from 1 (the largest half, the smallest normal and subnormal halves).
std::vector<float> exact_half_values(size_t n, unsigned seed) {
    std::mt19937 engine(seed);
    std::uniform_int_distribution<int> sixteenths(-128, 127);
    std::vector<float> v(n);
    for (auto& x : v) x = sixteenths(engine) / 16.0f;
    const float far[] = {65504.0f, -65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f};
    for (size_t i = 0; i < 4 && i < n; ++i) v[n - 1 - i] = far[i];
    return v;
}

std::vector<__half> as_halves(const std::vector<float>& v) {
    std::vector<__half> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = __float2half(v[i]);
    return h;
}

cudaTextureDesc half_test_desc(cudaTextureFilterMode filter, cudaTextureReadMode read) {
    cudaTextureDesc desc;
    std::memset(&desc, 0, sizeof desc);
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = filter;
    desc.readMode = read;
    return desc;
}

cudaTextureObject_t texture_over_array(cudaArray_t array, cudaTextureFilterMode filter) {
    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    const cudaTextureDesc desc = half_test_desc(filter, cudaReadModeElementType);
    cudaTextureObject_t tex = 0;
    REQUIRE(cudaCreateTextureObject(&tex, &res, &desc, nullptr) == cudaSuccess);
    return tex;
}

// A width x height array of `channel` holding `bytes` (rows packed).
cudaArray_t filled_array(const cudaChannelFormatDesc& channel, const void* bytes,
                         size_t element_bytes, int width, int height) {
    cudaArray_t array = nullptr;
    REQUIRE(cudaMallocArray(&array, &channel, width, height) == cudaSuccess);
    REQUIRE(cudaMemcpy2DToArray(array, 0, 0, bytes, width * element_bytes, width * element_bytes,
                                height, cudaMemcpyHostToDevice) == cudaSuccess);
    return array;
}

// What tex2D<float> gives at each of `at` through the texture.
std::vector<float> sampled(cudaTextureObject_t tex, const std::vector<float2>& at) {
    const int n = static_cast<int>(at.size());
    float2* d_at = on_device(at);
    float* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    half_sample_2d<<<(n + 127) / 128, 128>>>(tex, d_at, d_out, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> out = from_device(d_out, n);
    CHECK(cudaFree(d_at) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
    return out;
}

}  // namespace

TEST_CASE("half texture over linear memory: tex1Dfetch returns each half as float") {
    const int n = 301;
    const std::vector<float> values = exact_half_values(n, 11);
    __half* d = on_device(as_halves(values));
    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d;
    res.res.linear.desc = cudaCreateChannelDescHalf();
    res.res.linear.sizeInBytes = n * sizeof(__half);
    const cudaTextureDesc desc = half_test_desc(cudaFilterModePoint, cudaReadModeElementType);
    cudaTextureObject_t tex = 0;
    REQUIRE(cudaCreateTextureObject(&tex, &res, &desc, nullptr) == cudaSuccess);
    float* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess);
    half_fetch_1d<<<(n + 127) / 128, 128>>>(tex, d_out, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(from_device(d_out, n) == values);

    // Two channels (Half2) fetched as float2; the normalized float read mode
    // leaves float channels as they are (the Programming Guide maps only 8-
    // and 16-bit integers).
    res.res.linear.desc = cudaCreateChannelDescHalf2();
    const cudaTextureDesc normalized = half_test_desc(cudaFilterModePoint,
                                                      cudaReadModeNormalizedFloat);
    cudaTextureObject_t pairs = 0;
    REQUIRE(cudaCreateTextureObject(&pairs, &res, &normalized, nullptr) == cudaSuccess);
    const int m = n / 2;
    float2* d_pairs = nullptr;
    REQUIRE(cudaMalloc(&d_pairs, m * sizeof(float2)) == cudaSuccess);
    half_fetch_1d_pairs<<<(m + 127) / 128, 128>>>(pairs, d_pairs, m);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float2> got = from_device(d_pairs, m);
    for (int i = 0; i < m; ++i) {
        CHECK(got[i].x == values[2 * i]);
        CHECK(got[i].y == values[2 * i + 1]);
    }
    CHECK(cudaDestroyTextureObject(tex) == cudaSuccess);
    CHECK(cudaDestroyTextureObject(pairs) == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
    CHECK(cudaFree(d_pairs) == cudaSuccess);
}

TEST_CASE("half 2D array: point and linear filtering fetch what a float array fetches") {
    const int width = 37, height = 23;
    const std::vector<float> values = exact_half_values(width * height, 5);
    const std::vector<__half> halves = as_halves(values);
    cudaArray_t half_array = filled_array(cudaCreateChannelDescHalf(), halves.data(),
                                          sizeof(__half), width, height);
    cudaArray_t float_array = filled_array(cudaCreateChannelDesc<float>(), values.data(),
                                           sizeof(float), width, height);
    // The array gives its half elements back unchanged.
    std::vector<__half> back(width * height);
    REQUIRE(cudaMemcpy2DFromArray(back.data(), width * sizeof(__half), half_array, 0, 0,
                                  width * sizeof(__half), height,
                                  cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(std::memcmp(back.data(), halves.data(), back.size() * sizeof(__half)) == 0);

    std::mt19937 engine(7);
    std::uniform_real_distribution<float> across(-1.0f, width + 1.0f), down(-1.0f, height + 1.0f);
    std::vector<float2> at(1000);
    for (auto& p : at) p = make_float2(across(engine), down(engine));
    for (int i = 0; i < height; ++i) at[i] = make_float2(i + 0.5f, i + 0.5f);  // texel centres

    for (cudaTextureFilterMode filter : {cudaFilterModePoint, cudaFilterModeLinear}) {
        CAPTURE(filter);
        cudaTextureObject_t half_tex = texture_over_array(half_array, filter);
        cudaTextureObject_t float_tex = texture_over_array(float_array, filter);
        const std::vector<float> from_half = sampled(half_tex, at);
        const std::vector<float> from_float = sampled(float_tex, at);
        for (size_t i = 0; i < at.size(); ++i) {
            CAPTURE(at[i].x);
            CAPTURE(at[i].y);
            CHECK(from_half[i] == from_float[i]);
        }
        for (int i = 0; i < height; ++i) CHECK(from_half[i] == values[i * width + i]);
        CHECK(cudaDestroyTextureObject(half_tex) == cudaSuccess);
        CHECK(cudaDestroyTextureObject(float_tex) == cudaSuccess);
    }
    CHECK(cudaFreeArray(half_array) == cudaSuccess);
    CHECK(cudaFreeArray(float_array) == cudaSuccess);
}

TEST_CASE("half4 pitched memory: tex2D<float4> returns the four halves of a texel") {
    const int width = 19, height = 9;
    size_t pitch = 0;
    __half* d = nullptr;
    REQUIRE(cudaMallocPitch(reinterpret_cast<void**>(&d), &pitch, width * 4 * sizeof(__half),
                            height) == cudaSuccess);
    const std::vector<float> values = exact_half_values(width * height * 4, 3);
    const std::vector<__half> halves = as_halves(values);
    REQUIRE(cudaMemcpy2D(d, pitch, halves.data(), width * 4 * sizeof(__half),
                         width * 4 * sizeof(__half), height, cudaMemcpyHostToDevice) == cudaSuccess);
    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = d;
    res.res.pitch2D.desc = cudaCreateChannelDescHalf4();
    res.res.pitch2D.width = width;
    res.res.pitch2D.height = height;
    res.res.pitch2D.pitchInBytes = pitch;
    const cudaTextureDesc desc = half_test_desc(cudaFilterModePoint, cudaReadModeElementType);
    cudaTextureObject_t tex = 0;
    REQUIRE(cudaCreateTextureObject(&tex, &res, &desc, nullptr) == cudaSuccess);
    std::vector<float2> at;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) at.push_back(make_float2(x + 0.5f, y + 0.5f));
    const int n = static_cast<int>(at.size());
    float2* d_at = on_device(at);
    float4* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, n * sizeof(float4)) == cudaSuccess);
    half_sample_2d_quads<<<(n + 127) / 128, 128>>>(tex, d_at, d_out, n);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float4> got = from_device(d_out, n);
    for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(got[i].x == values[4 * i]);
        CHECK(got[i].y == values[4 * i + 1]);
        CHECK(got[i].z == values[4 * i + 2]);
        CHECK(got[i].w == values[4 * i + 3]);
    }
    CHECK(cudaDestroyTextureObject(tex) == cudaSuccess);
    CHECK(cudaFree(d) == cudaSuccess);
    CHECK(cudaFree(d_at) == cudaSuccess);
    CHECK(cudaFree(d_out) == cudaSuccess);
}

// The H200 made the surface object; its reads and writes there were not
// measured, so this runs only in the emulator, where they work as on an array
// made with cudaArraySurfaceLoadStore.
TEST_CASE("surface over an array made without cudaArraySurfaceLoadStore is created") {
    const int width = 13, height = 6;
    cudaChannelFormatDesc channel = cudaCreateChannelDesc<int>();
    cudaArray_t array = nullptr;
    REQUIRE(cudaMallocArray(&array, &channel, width, height) == cudaSuccess);  // no flag
    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaSurfaceObject_t surf = 0;
    REQUIRE(cudaCreateSurfaceObject(&surf, &res) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaSuccess);
#ifdef CUEMU
    int* d_out = nullptr;
    REQUIRE(cudaMalloc(&d_out, width * height * sizeof(int)) == cudaSuccess);
    unflagged_surface_fill<<<dim3(1, 1), dim3(16, 8)>>>(surf, width, height, d_out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = from_device(d_out, width * height);
    std::vector<int> stored(width * height);
    REQUIRE(cudaMemcpy2DFromArray(stored.data(), width * sizeof(int), array, 0, 0,
                                  width * sizeof(int), height,
                                  cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            CHECK(got[y * width + x] == x + 100 * y);
            CHECK(stored[y * width + x] == x + 100 * y);
        }
    CHECK(cudaFree(d_out) == cudaSuccess);
#endif
    CHECK(cudaDestroySurfaceObject(surf) == cudaSuccess);
    CHECK(cudaFreeArray(array) == cudaSuccess);
}
