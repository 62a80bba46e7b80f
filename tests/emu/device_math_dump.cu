// device_math_dump.cu - prints, as bit patterns, what CUDA's device math
// functions and fast intrinsics answer inside a kernel for a fixed set of
// inputs (special values, then pseudo-random ones over several ranges).
// Built with nvcc and run on a GPU, its output was kept in docs/gpu-runs/;
// built for the emulator, tools/compare_math_dump.py counts the units in the
// last place between the two, function by function.
//
//   nvcc -arch=sm_90 device_math_dump.cu -o dump && ./dump > gpu.txt
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_dump.h"

// ---- the functions -----------------------------------------------------------------
// Each is applied to x (and y for two operands); one kernel per precision.
#define FLOAT_FUNCTIONS(F)                                                                   \
    F(sinf, sinf(x)) F(cosf, cosf(x)) F(tanf, tanf(x)) F(asinf, asinf(x)) F(acosf, acosf(x)) \
    F(atanf, atanf(x)) F(atan2f, atan2f(x, y)) F(sinhf, sinhf(x)) F(coshf, coshf(x))         \
    F(tanhf, tanhf(x)) F(expf, expf(x)) F(exp2f, exp2f(x)) F(exp10f, exp10f(x))              \
    F(expm1f, expm1f(x)) F(logf, logf(x)) F(log2f, log2f(x)) F(log10f, log10f(x))            \
    F(log1pf, log1pf(x)) F(powf, powf(x, y)) F(sqrtf, sqrtf(x)) F(rsqrtf, rsqrtf(x))         \
    F(cbrtf, cbrtf(x)) F(rcbrtf, rcbrtf(x)) F(erff, erff(x)) F(erfcf, erfcf(x))              \
    F(erfinvf, erfinvf(x)) F(erfcinvf, erfcinvf(x)) F(normcdff, normcdff(x))                 \
    F(normcdfinvf, normcdfinvf(x)) F(lgammaf, lgammaf(x)) F(tgammaf, tgammaf(x))             \
    F(hypotf, hypotf(x, y)) F(sinpif, sinpif(x)) F(cospif, cospif(x)) F(fmodf, fmodf(x, y))  \
    F(divide, x / y) F(fdividef, fdividef(x, y)) F(__fdividef, __fdividef(x, y))             \
    F(__expf, __expf(x)) F(__exp10f, __exp10f(x)) F(__logf, __logf(x))                       \
    F(__log2f, __log2f(x)) F(__log10f, __log10f(x)) F(__sinf, __sinf(x))                     \
    F(__cosf, __cosf(x)) F(__tanf, __tanf(x)) F(__powf, __powf(x, y))                        \
    F(__frcp_rn, __frcp_rn(x)) F(__fsqrt_rn, __fsqrt_rn(x)) F(__saturatef, __saturatef(x))   \
    F(fmaf, fmaf(x, y, 0.375f))
#define DOUBLE_FUNCTIONS(F)                                                                  \
    F(sin, sin(x)) F(cos, cos(x)) F(tan, tan(x)) F(atan2, atan2(x, y)) F(exp, exp(x))        \
    F(log, log(x)) F(pow, pow(x, y)) F(sqrt, sqrt(x)) F(rsqrt, rsqrt(x)) F(cbrt, cbrt(x))    \
    F(erf, erf(x)) F(erfinv, erfinv(x)) F(normcdfinv, normcdfinv(x)) F(lgamma, lgamma(x))    \
    F(tgamma, tgamma(x)) F(tanh, tanh(x)) F(expm1, expm1(x)) F(log1p, log1p(x))

#define COUNT(name, expr) +1
constexpr int kFloatFunctions = 0 FLOAT_FUNCTIONS(COUNT);
constexpr int kDoubleFunctions = 0 DOUBLE_FUNCTIONS(COUNT);
#define NAME(name, expr) #name,
const char* float_names[] = {FLOAT_FUNCTIONS(NAME)};
const char* double_names[] = {DOUBLE_FUNCTIONS(NAME)};

__global__ void float_kernel(const float* xs, const float* ys, int n, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xs[i], y = ys[i];
    int f = 0;
#define APPLY(name, expr) out[(f++) * n + i] = __float_as_uint(expr);
    FLOAT_FUNCTIONS(APPLY)
#undef APPLY
}

__global__ void double_kernel(const double* xs, const double* ys, int n,
                              unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = xs[i], y = ys[i];
    int f = 0;
#define APPLY(name, expr) out[(f++) * n + i] = __double_as_longlong(expr);
    DOUBLE_FUNCTIONS(APPLY)
#undef APPLY
}

// ---- the inputs --------------------------------------------------------------------
// A fixed generator, so both builds see the same numbers.
static unsigned long long lcg_state = 88172645463325252ull;
static double next_unit() {
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(lcg_state >> 11) * (1.0 / 9007199254740992.0);
}

static std::vector<double> inputs() {
    std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-40, -1e-40, 1e30, -1e30,
                             INFINITY, -INFINITY, NAN, 3.14159265358979, 100.0, 88.5, -87.5};
    const double ranges[][2] = {{-1, 1}, {0, 1}, {-10, 10}, {0, 100}, {-1000, 1000}, {1e-3, 1e6}};
    for (const auto& r : ranges)
        for (int i = 0; i < 40; ++i) v.push_back(r[0] + (r[1] - r[0]) * next_unit());
    return v;
}

// ---- main --------------------------------------------------------------------------
int main() {
    const std::vector<double> xs = inputs();
    std::vector<double> ys(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) ys[i] = xs[(i * 7 + 3) % xs.size()] * 0.75;
    const int n = static_cast<int>(xs.size());

    std::vector<float> h_xf(xs.begin(), xs.end()), h_yf(ys.begin(), ys.end());
    float *d_xf, *d_yf;
    double *d_xd, *d_yd;
    unsigned* d_of;
    unsigned long long* d_od;
    CHECK(cudaMalloc(&d_xf, n * sizeof(float)));
    CHECK(cudaMalloc(&d_yf, n * sizeof(float)));
    CHECK(cudaMalloc(&d_xd, n * sizeof(double)));
    CHECK(cudaMalloc(&d_yd, n * sizeof(double)));
    CHECK(cudaMalloc(&d_of, kFloatFunctions * n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_od, kDoubleFunctions * n * sizeof(unsigned long long)));
    CHECK(cudaMemcpy(d_xf, h_xf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_yf, h_yf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_xd, xs.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_yd, ys.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    float_kernel<<<(n + 127) / 128, 128>>>(d_xf, d_yf, n, d_of);
    CHECK(cudaGetLastError());
    double_kernel<<<(n + 127) / 128, 128>>>(d_xd, d_yd, n, d_od);
    CHECK(cudaGetLastError());
    std::vector<unsigned> h_of(kFloatFunctions * n);
    std::vector<unsigned long long> h_od(kDoubleFunctions * n);
    CHECK(cudaMemcpy(h_of.data(), d_of, h_of.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_od.data(), d_od, h_od.size() * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));

    for (int f = 0; f < kFloatFunctions; ++f)
        for (int i = 0; i < n; ++i) {
            unsigned xb, yb;
            std::memcpy(&xb, &h_xf[i], 4);
            std::memcpy(&yb, &h_yf[i], 4);
            std::printf("f %s %08x %08x %08x\n", float_names[f], xb, yb, h_of[f * n + i]);
        }
    for (int f = 0; f < kDoubleFunctions; ++f)
        for (int i = 0; i < n; ++i) {
            unsigned long long xb, yb;
            std::memcpy(&xb, &xs[i], 8);
            std::memcpy(&yb, &ys[i], 8);
            std::printf("d %s %016llx %016llx %016llx\n", double_names[f], xb, yb,
                        h_od[f * n + i]);
        }
    CHECK(cudaFree(d_xf)); CHECK(cudaFree(d_yf)); CHECK(cudaFree(d_xd));
    CHECK(cudaFree(d_yd)); CHECK(cudaFree(d_of)); CHECK(cudaFree(d_od));
    return 0;
}
