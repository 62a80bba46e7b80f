// thread_operators.cuh - CUB's functors: Sum, Max, Min, Equality, Inequality,
// ArgMax, ArgMin, CastOp. (CUDA 13's CUB removed Sum, Max and Min in favour of
// cuda::std::plus<>, cuda::maximum<> and cuda::minimum<>; they build here, as
// in CUB 1.x and 2.x, and nvcc 13 refuses them.)
#pragma once

#include <cub/util_type.cuh>

namespace cub {

struct Sum {
    template <typename A, typename B>
    __host__ __device__ auto operator()(const A& a, const B& b) const -> decltype(a + b) { return a + b; }
};
struct Max {
    template <typename T>
    __host__ __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
    template <typename T>
    __host__ __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct Equality {
    template <typename A, typename B>
    __host__ __device__ bool operator()(const A& a, const B& b) const { return a == b; }
};
struct Inequality {
    template <typename A, typename B>
    __host__ __device__ bool operator()(const A& a, const B& b) const { return a != b; }
};
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
