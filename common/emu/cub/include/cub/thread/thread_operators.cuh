// thread_operators.cuh - CUB's functors that CUDA 13 still has (ArgMax,
// ArgMin, CastOp), and the operators the emulator's CUB uses inside
// (cub::emu::sum, maximum, minimum). Sum, Max, Min, Equality and Inequality,
// which CUDA 13's CUB removed, are build errors naming their replacements
// (detail/removed_in_cuda_13.cuh).
#pragma once

#include <cub/detail/removed_in_cuda_13.cuh>
#include <cub/util_type.cuh>

namespace cub {

namespace emu {
struct sum {
    template <typename A, typename B>
    __host__ __device__ auto operator()(const A& a, const B& b) const -> decltype(a + b) { return a + b; }
};
struct maximum {
    template <typename T>
    __host__ __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct minimum {
    template <typename T>
    __host__ __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
}  // namespace emu

// On (index, value) pairs: the larger value; of equal values, the lower index.
struct ArgMax {
    template <typename T, typename Offset>
    __host__ __device__ KeyValuePair<Offset, T> operator()(const KeyValuePair<Offset, T>& a,
                                                           const KeyValuePair<Offset, T>& b) const {
        if (a.value < b.value || (!(b.value < a.value) && b.key < a.key)) return b;
        return a;
    }
};
// On (index, value) pairs: the smaller value; of equal values, the lower index.
struct ArgMin {
    template <typename T, typename Offset>
    __host__ __device__ KeyValuePair<Offset, T> operator()(const KeyValuePair<Offset, T>& a,
                                                           const KeyValuePair<Offset, T>& b) const {
        if (b.value < a.value || (!(a.value < b.value) && b.key < a.key)) return b;
        return a;
    }
};
template <typename Target>
struct CastOp {
    template <typename From>
    __host__ __device__ Target operator()(const From& x) const { return static_cast<Target>(x); }
};

}  // namespace cub
