// thrust_removed_in_cuda_13.cu - names of Thrust 1.17 (the emulator's Thrust)
// that CUDA 13's Thrust removed, each used once: nvcc 13 refuses every one,
// so the emulator must stop the build too, with a message naming the name and
// its replacement (common/emu/thrust/include/thrust/functional.h and
// system/cuemu/detail/removed_in_cuda_13.h; test
// emu.thrust.removed-in-cuda-13). Sorting ints below uses Thrust 1.17's radix
// sort, whose own use of the renamed unary_function must still build, and
// copy, copy_if, gather_if and scatter_if use its renamed identity inside;
// device_vector's pointers and references use its renamed remove_cvref.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>
#include <thrust/functional.h>
#include <thrust/limits.h>
#include <thrust/optional.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>

#include <type_traits>

struct square : thrust::unary_function<int, int> {
    __host__ __device__ int operator()(int x) const { return x * x; }
};
struct add : thrust::binary_function<int, int, int> {
    __host__ __device__ int operator()(int a, int b) const { return a + b; }
};

// thrust::void_t and thrust::remove_cvref_t: Thrust's own headers bring in
// the emulator's stand-ins (1.17's iterator_traits.h includes void_t.h).
template <typename T, typename = void>
struct has_value_type : std::false_type {};
template <typename T>
struct has_value_type<T, thrust::void_t<typename T::value_type>> : std::true_type {};
static_assert(has_value_type<thrust::device_vector<int>>::value, "a device_vector has a value_type");
using plain_int = thrust::remove_cvref_t<const int&>;
// thrust::null_type: 1.17's tuples are built on their own, renamed one.
thrust::tuple<int, thrust::null_type> padded_tuple;

struct positive {
    __host__ __device__ bool operator()(int x) const { return x > 0; }
};
struct less_than {
    __host__ __device__ bool operator()(int a, int b) const { return a < b; }
};

int main() {
    thrust::device_vector<int> v(10, 3);
    thrust::sort(v.begin(), v.end());
    thrust::transform(v.begin(), v.end(), v.begin(), square());
    thrust::transform(v.begin(), v.end(), v.begin(), v.begin(), add());
    thrust::transform(v.begin(), v.end(), v.begin(), thrust::not1(positive()));
    auto not_less = thrust::not2(less_than());
    thrust::unary_negate<positive> negated(positive{});
    thrust::binary_negate<less_than> negated_pair(less_than{});
    thrust::unary_traits<square>::result_type unary_result = 0;
    thrust::binary_traits<add>::result_type binary_result = 0;
    thrust::transform(v.begin(), v.end(), v.begin(), thrust::identity<int>());
    thrust::device_vector<int> out(10), map(10, 1), stencil(10, 1);
    thrust::copy(v.begin(), v.end(), out.begin());
    thrust::copy_if(v.begin(), v.end(), stencil.begin(), out.begin(), positive());
    thrust::gather_if(map.begin(), map.end(), stencil.begin(), v.begin(), out.begin());
    thrust::scatter_if(v.begin(), v.end(), map.begin(), stencil.begin(), out.begin());
    return 0;
}
