// test_inlined_helpers.cu - the emulator's small device helpers (the fast math
// and bit intrinsics, min/max, make_float2 ...) give the same answers in a
// kernel's instrumented body and in its uninstrumented twin, and the twin has
// them inlined (cuemu/device_inline.h says why that matters).
//
// The same kernel runs twice on the same inputs: under CUEMU_CHECK=race (the
// instrumented body, as the race check runs it) and under CUEMU_CHECK=none
// (the twin); both must equal the host's answer from the same helpers, bit for
// bit. check_inlined_helpers.sh then reads this program's machine code: no
// twin may call a helper or the profiler's flop counter out of line.
//
// Emulator only: the host reference calls device intrinsics, which only the
// emulator has on the host, and twins are the emulator's own.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cuda_check.h"

namespace {

constexpr int kCount = 1000;  // not a multiple of the block: the last block is partial
constexpr int kBlock = 128;
constexpr int kOutputs = 19;

// One row of results per element, from every helper this file covers.
__host__ __device__ void helpers_of(float x, unsigned u, float* out) {
    float s = 0.0f, c = 0.0f;
    __sincosf(x, &s, &c);
    out[0] = __fdividef(x, 3.0f + x);
    out[1] = __expf(x);
    out[2] = __logf(1.0f + x);
    out[3] = __powf(1.0f + x, 1.5f);
    out[4] = __saturatef(x - 1.0f);
    out[5] = rsqrtf(1.0f + x);
    out[6] = __fmaf_rn(x, x, 0.5f);
    out[7] = s + c;
    out[8] = static_cast<float>(min(static_cast<int>(u % 97u), 40) + max(static_cast<int>(u % 13u), 6));
    out[9] = make_float2(x, 2.0f * x).y;
    out[10] = static_cast<float>(__popc(u) + __clz(static_cast<int>(u)) + __ffs(static_cast<int>(u)));
    out[11] = __int_as_float(__float_as_int(x) ^ 1);
    out[12] = static_cast<float>(umin(u, 1000u) + __umulhi(u, 0x9e3779b9u) % 1000u);
    out[13] = static_cast<float>(__brev(u) >> 20);
    out[14] = __fsqrt_rn(x) + __frcp_rn(1.0f + x);
    out[15] = __exp10f(x * 0.25f) + __log2f(1.0f + x) + __sinf(x) * __cosf(x);
    // <cmath>'s float overloads, the emulator's own (cuemu/cmath_float.h).
    out[16] = sqrt(x) + exp(-x) + fabs(x - 2.0f) + floor(x) + std::abs(1.0f - x);
    out[17] = pow(x, 1.5f) + sin(x) * cos(x) + log(1.0f + x) + tanh(x) + ceil(x) + fmod(x, 0.75f);
    // C++11's float overloads, the emulator's own too.
    out[18] = fmax(x, 1.0f) + fmin(x, 3.0f) + round(x) + trunc(x) + log2(1.0f + x) + hypot(x, 2.0f) +
              cbrt(x) + copysign(x, -1.0f) + (std::isnan(x) ? 1.0f : 0.0f) + (std::isfinite(x) ? 2.0f : 0.0f) +
              (std::signbit(x - 2.0f) ? 4.0f : 0.0f);
}

// __shared__ makes this a source the race check instruments: the kernel has
// an instrumented body and a twin.
__global__ void helpers_kernel(const float* xs, const unsigned* us, float* out, int n) {
    __shared__ float staged[kBlock];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x] = i < n ? xs[i] : 0.0f;
    __syncthreads();
    if (i < n) helpers_of(staged[threadIdx.x], us[i], out + i * kOutputs);
}

std::vector<float> run_on_device(const std::vector<float>& xs, const std::vector<unsigned>& us) {
    float *d_xs = nullptr, *d_out = nullptr;
    unsigned* d_us = nullptr;
    CUDA_CHECK(cudaMalloc(&d_xs, kCount * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_us, kCount * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_out, kCount * kOutputs * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_xs, xs.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_us, us.data(), kCount * sizeof(unsigned), cudaMemcpyHostToDevice));
    helpers_kernel<<<(kCount + kBlock - 1) / kBlock, kBlock>>>(d_xs, d_us, d_out, kCount);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> out(kCount * kOutputs);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_xs));
    CUDA_CHECK(cudaFree(d_us));
    CUDA_CHECK(cudaFree(d_out));
    return out;
}

}  // namespace

TEST_CASE("the helpers give the host's answers in the kernel, bit for bit") {
    std::vector<float> xs(kCount);
    std::vector<unsigned> us(kCount);
    unsigned state = 12345u;
    for (int i = 0; i < kCount; ++i) {
        state = state * 1664525u + 1013904223u;
        us[i] = state;
        xs[i] = static_cast<float>(state >> 8) / 16777216.0f * 4.0f;  // [0, 4)
    }
    const std::vector<float> got = run_on_device(xs, us);
    int wrong = 0;
    for (int i = 0; i < kCount; ++i) {
        float want[kOutputs];
        helpers_of(xs[i], us[i], want);
        for (int k = 0; k < kOutputs; ++k) {
            if (std::memcmp(&want[k], &got[i * kOutputs + k], sizeof(float)) != 0 && wrong++ < 5)
                MESSAGE("element " << i << ", helper " << k << ": host " << want[k] << ", kernel "
                                   << got[i * kOutputs + k]);
        }
    }
    CHECK(wrong == 0);
}
