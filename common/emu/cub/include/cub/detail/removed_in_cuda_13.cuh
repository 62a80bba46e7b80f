// removed_in_cuda_13.cuh - CUB 1.x and 2.x names that CUDA 13's CUB no longer
// has. nvcc 13 refuses a program that uses one, so the emulator must too: each
// is declared here only so that using it stops the build with a message that
// names it and what CUDA 13 offers instead. Declaring one is harmless; the
// error comes from a static_assert in a template, which fires only when the
// program constructs the functor or iterator, calls the function or expands
// the macro. The emulator's CUB uses its own operators inside
// (thread/thread_operators.cuh, detail/emu_common.cuh).
#pragma once

#include <cstddef>

namespace cub {
namespace emu {
template <typename...>
constexpr bool removed_in_cuda_13 = false;
}  // namespace emu

#define CUB_EMU_REMOVED_FUNCTOR(name, replacement)                                                          \
    struct name {                                                                                          \
        template <typename Refused = void>                                                                 \
        __host__ __device__ name() {                                                                       \
            static_assert(emu::removed_in_cuda_13<Refused>,                                                \
                          "cub::" #name " was removed in CUDA 13's CUB (nvcc 13 refuses it too): use "    \
                          replacement);                                                                    \
        }                                                                                                  \
    };
CUB_EMU_REMOVED_FUNCTOR(Sum, "cuda::std::plus<>{} from <cuda/std/functional>")
CUB_EMU_REMOVED_FUNCTOR(Max, "cuda::maximum<>{} from <cuda/functional>")
CUB_EMU_REMOVED_FUNCTOR(Min, "cuda::minimum<>{} from <cuda/functional>")
CUB_EMU_REMOVED_FUNCTOR(Equality, "cuda::std::equal_to<>{} from <cuda/std/functional>")
CUB_EMU_REMOVED_FUNCTOR(Inequality, "cuda::std::not_equal_to<>{} from <cuda/std/functional>")
#undef CUB_EMU_REMOVED_FUNCTOR

#define CUB_EMU_REMOVED_FUNCTION(result, name, replacement)                                                 \
    template <typename... Refused>                                                                         \
    __device__ result name(Refused&&...) {                                                                 \
        static_assert(emu::removed_in_cuda_13<Refused...>,                                                 \
                      "cub::" #name " was removed in CUDA 13's CUB (nvcc 13 refuses it too): use "        \
                      replacement);                                                                        \
        return result();                                                                                   \
    }
CUB_EMU_REMOVED_FUNCTION(void, CTA_SYNC, "__syncthreads()")
CUB_EMU_REMOVED_FUNCTION(int, CTA_SYNC_AND, "__syncthreads_and(predicate)")
CUB_EMU_REMOVED_FUNCTION(int, CTA_SYNC_OR, "__syncthreads_or(predicate)")
CUB_EMU_REMOVED_FUNCTION(void, WARP_SYNC, "__syncwarp(member_mask)")
CUB_EMU_REMOVED_FUNCTION(unsigned, LaneId, "the lane from the thread's index (threadIdx.x % warpSize in a 1-D block)")
CUB_EMU_REMOVED_FUNCTION(unsigned, WarpId, "the warp from the thread's index (threadIdx.x / warpSize in a 1-D block)")
#undef CUB_EMU_REMOVED_FUNCTION

template <typename ValueType, typename OffsetT = std::ptrdiff_t>
class CountingInputIterator {
public:
    template <typename... Refused>
    __host__ __device__ CountingInputIterator(Refused&&...) {
        static_assert(emu::removed_in_cuda_13<Refused...>,
                      "cub::CountingInputIterator was removed in CUDA 13's CUB (nvcc 13 refuses it too): use "
                      "thrust::counting_iterator from <thrust/iterator/counting_iterator.h>");
    }
};
template <typename ValueType, typename ConversionOp, typename InputIteratorT, typename OffsetT = std::ptrdiff_t>
class TransformInputIterator {
public:
    template <typename... Refused>
    __host__ __device__ TransformInputIterator(Refused&&...) {
        static_assert(emu::removed_in_cuda_13<Refused...>,
                      "cub::TransformInputIterator was removed in CUDA 13's CUB (nvcc 13 refuses it too): use "
                      "thrust::transform_iterator from <thrust/iterator/transform_iterator.h>");
    }
};

}  // namespace cub

// Macros: an expression whose static_assert fires where the macro is used.
#define CUB_EMU_REMOVED_MACRO(message) ([] { static_assert(sizeof(char) == 0, message); return 0; }())
#define CUB_MAX(a, b) CUB_EMU_REMOVED_MACRO("CUB_MAX was removed in CUDA 13's CUB (nvcc 13 refuses it too): use cuda::std::max")
#define CUB_MIN(a, b) CUB_EMU_REMOVED_MACRO("CUB_MIN was removed in CUDA 13's CUB (nvcc 13 refuses it too): use cuda::std::min")
#define CUB_QUOTIENT_CEILING(x, y) \
    CUB_EMU_REMOVED_MACRO("CUB_QUOTIENT_CEILING was removed in CUDA 13's CUB (nvcc 13 refuses it too): use cuda::ceil_div from <cuda/cmath>")
#define CUB_ROUND_UP_NEAREST(x, y) \
    CUB_EMU_REMOVED_MACRO("CUB_ROUND_UP_NEAREST was removed in CUDA 13's CUB (nvcc 13 refuses it too): use cuda::round_up from <cuda/cmath>")
