// cuemu/builtins.h - what a kernel sees: threadIdx, blockIdx, blockDim,
// gridDim, warpSize, __syncthreads, atomics, fences and the common math
// intrinsics, plus the CUDA keywords (__global__, __device__, __shared__ ...).
//
// The index variables are per OS thread (thread-local) and the scheduler sets
// them before it resumes each CUDA thread's fiber. A block never moves between
// OS threads, so thread-local storage also gives each block its own
// __shared__ variables (see scheduler.cpp).
#ifndef CUEMU_BUILTINS_H
#define CUEMU_BUILTINS_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "types.h"

namespace cuemu {
extern __thread uint3 tls_thread_idx;
extern __thread uint3 tls_block_idx;
extern __thread uint3 tls_block_dim;
extern __thread uint3 tls_grid_dim;
// Start of the block's dynamic shared memory (extern __shared__ arrays).
void* dynamic_shared_memory();
}  // namespace cuemu

// Read-only views, as in CUDA (assigning to threadIdx.x is a compile error).
#define threadIdx (static_cast<const uint3&>(::cuemu::tls_thread_idx))
#define blockIdx (static_cast<const uint3&>(::cuemu::tls_block_idx))
#define blockDim (static_cast<const dim3>(::cuemu::tls_block_dim))
#define gridDim (static_cast<const dim3>(::cuemu::tls_grid_dim))
constexpr int warpSize = 32;

// ---- keywords --------------------------------------------------------------------
// Every function is ordinary host code here, so the execution-space keywords
// vanish. __shared__ variables are per block: thread-local storage of the OS
// thread that runs the block (cuemu-rewrite turns "extern __shared__ T x[];"
// into a pointer to the launch's dynamic shared memory).
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
// __noinline__ cannot be a macro (libstdc++ spells an attribute that way);
// cuemu-rewrite replaces it in .cu files.

// ---- barriers and fences -------------------------------------------------------------
// Waits until every thread of the block has arrived; threads then resume in
// threadIdx order, so a race gives the same (wrong) answer on every run.
void __syncthreads();
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- atomics ---------------------------------------------------------------------
// Blocks run on several OS threads at once, so these are real atomic
// instructions. Each returns the old value, as in CUDA.
#define CUEMU_INTEGER_ATOMICS(T)                                                       \
    inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); } \
    inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); } \
    inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); } \
    inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); } \
    inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }   \
    inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); } \
    inline T atomicCAS(T* a, T expected, T desired) {                                   \
        __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_RELAXED,     \
                                    __ATOMIC_RELAXED);                                  \
        return expected;                                                                \
    }                                                                                   \
    inline T atomicMin(T* a, T v) {                                                     \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                   \
        while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, \
                                                       __ATOMIC_RELAXED)) {}             \
        return old;                                                                     \
    }                                                                                   \
    inline T atomicMax(T* a, T v) {                                                     \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                   \
        while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, \
                                                       __ATOMIC_RELAXED)) {}             \
        return old;                                                                     \
    }
CUEMU_INTEGER_ATOMICS(int)
CUEMU_INTEGER_ATOMICS(unsigned int)
CUEMU_INTEGER_ATOMICS(unsigned long long)
CUEMU_INTEGER_ATOMICS(long long)
#undef CUEMU_INTEGER_ATOMICS

namespace cuemu {
// Floating-point add as a compare-and-swap loop on the value's bits.
template <class F, class Bits>
inline F atomic_add_float(F* address, F value) {
    static_assert(sizeof(F) == sizeof(Bits), "same size");
    Bits* word = reinterpret_cast<Bits*>(address);
    Bits old_bits = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        F old_value;
        std::memcpy(&old_value, &old_bits, sizeof old_value);
        F new_value = old_value + value;
        Bits new_bits;
        std::memcpy(&new_bits, &new_value, sizeof new_bits);
        if (__atomic_compare_exchange_n(word, &old_bits, new_bits, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return old_value;
    }
}
}  // namespace cuemu
inline float atomicAdd(float* a, float v) { return cuemu::atomic_add_float<float, std::uint32_t>(a, v); }
inline double atomicAdd(double* a, double v) { return cuemu::atomic_add_float<double, std::uint64_t>(a, v); }
inline float atomicExch(float* a, float v) {
    float old;
    __atomic_exchange(a, &v, &old, __ATOMIC_RELAXED);
    return old;
}
// atomicInc/atomicDec wrap around at limit, as CUDA defines them.
inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
    unsigned int old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, old >= limit ? 0u : old + 1u, true,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}
inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
    unsigned int old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, (old == 0u || old > limit) ? limit : old - 1u,
                                        true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}

// ---- math ------------------------------------------------------------------------
// CUDA's min/max overloads (plain functions, usable in host code too). Mixed
// signed/unsigned arguments compare as unsigned, as in CUDA.
#define CUEMU_MINMAX(R, A, B)                                  \
    inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
    inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
CUEMU_MINMAX(int, int, int)
CUEMU_MINMAX(unsigned int, unsigned int, unsigned int)
CUEMU_MINMAX(unsigned int, int, unsigned int)
CUEMU_MINMAX(unsigned int, unsigned int, int)
CUEMU_MINMAX(long long, long long, long long)
CUEMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CUEMU_MINMAX(float, float, float)
CUEMU_MINMAX(double, double, double)
CUEMU_MINMAX(double, float, double)
CUEMU_MINMAX(double, double, float)
#undef CUEMU_MINMAX

// The fast intrinsics trade accuracy for speed on a GPU. Here they follow the
// same recipe where it matters for accuracy: __expf is 2^(x*log2(e)) with the
// product rounded to float first, which is where the GPU's error comes from
// (it grows with |x|). The hardware's own approximations are not bit-exact.
inline float __expf(float x) { return std::exp2(x * 1.4426950408889634f); }
inline float __exp10f(float x) { return std::exp2(x * 3.3219280948873622f); }
inline float __logf(float x) { return std::log2(x) * 0.6931471805599453f; }
inline float __log2f(float x) { return std::log2(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::exp2(y * std::log2(x)); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
template <class T>
inline T __ldg(const T* p) { return *p; }

#endif
