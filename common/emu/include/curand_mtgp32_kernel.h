// <curand_mtgp32_kernel.h> for emulator builds (included by <curand_kernel.h>):
// cuRAND's device API for an MTGP32 state, which one whole block shares.
//
// curand(&state) is a meeting of the block: each of its threads (at most 256)
// makes the number at its own place in the round, from words of the ring the
// round before left, and writes one new word; a barrier, thread 0 moves the
// round's start on by the block's size, another barrier. So every thread of
// the block must call it the same number of times, as on a GPU, and the
// numbers of one round are the block's threads' in thread order.
//
// The recursion and tempering are MTGP's (Saito and Matsumoto); the host
// generator (src/curand/mtgp32.cpp) runs the same step for 192 states, one
// round of 256 numbers each in turn, which is libcurand's order.
//
// Not here (build errors naming them): curand_mtgp32_single and
// curand_mtgp32_single_specific (floats tempered straight into a float's
// bits), curand_discrete.
#ifndef CUEMU_CURAND_MTGP32_KERNEL_H
#define CUEMU_CURAND_MTGP32_KERNEL_H
#define CURAND_MTGP32_KERNEL_H  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cmath>

// The distributions below use <curand_kernel.h>'s conversions; a program
// may include this header alone (it includes this one at its end, after them).
#include "curand_kernel.h"
#include "cuemu/cuemu.h"
#include "cuemu/not_emulated.h"
#include "curand_mtgp32.h"

namespace cuemu {
namespace curand_detail {

// The number at place t of the state's next round, tempered; the new word
// goes into the ring MTGPDC_N words ahead. Within a round no place reads a
// word another place writes (the reads lie less than MTGPDC_N - 256 words
// ahead), so the places may be computed in any order.
__host__ __device__ inline unsigned int mtgp32_step(curandStateMtgp32_t* state, unsigned int t) {
    const mtgp32_kernel_params_t* k = state->k;
    const int set = state->pIdx;
    const unsigned int pos = k->pos_tbl[set];
    const auto word = [&](unsigned int ahead) -> unsigned int& {
        return state->s[(t + state->offset + ahead) & MTGP32_STATE_MASK];
    };
    unsigned int x = (word(0) & k->mask[0]) ^ word(1);
    x ^= x << k->sh1_tbl[set];
    unsigned int y = x ^ (word(pos) >> k->sh2_tbl[set]);
    y ^= k->param_tbl[set][y & 0x0f];
    word(MTGPDC_N) = y;
    // Tempering folds the word before the picked one down to four bits.
    unsigned int fold = word(pos - 1);
    fold ^= fold >> 16;
    fold ^= fold >> 8;
    return y ^ k->temper_tbl[set][fold & 0x0f];
}

// A round's threads: more than 256 would overwrite words that other threads
// of the same round still read.
__device__ inline void mtgp32_check_block(unsigned int threads, const char* file, int line) {
    if (threads <= THREAD_NUM) return;
    ::cuemu::kernel_cannot_go_on(
        "curand() on an MTGP32 state from a block of more than 256 threads",
        "  one curandStateMtgp32_t serves one block of at most 256 threads: each thread makes one\n"
        "  number of a round, and a larger round overwrites words of the state before they are read",
        "launch the kernel that draws from MTGP32 states with at most 256 threads per block "
        "(cuRAND's own examples use 64 blocks of 256)",
        "nothing checks this: the threads may get numbers that are not MTGP32's", file, line);
}

}  // namespace curand_detail
}  // namespace cuemu

// The block's threads each take the next number at their place: thread t of
// a block of d threads gets number t of the round. The place is computed as
// cuRAND computes it, which is the thread's rank in blocks of one or two
// dimensions.
// cuemu_file and cuemu_line name the caller for the report above.
__device__ inline unsigned int curand(curandStateMtgp32_t* state,
                                      const char* cuemu_file = __builtin_FILE(),
                                      int cuemu_line = __builtin_LINE()) {
    const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    cuemu::curand_detail::mtgp32_check_block(threads, cuemu_file, cuemu_line);
    const unsigned int t =
        blockDim.z * blockDim.y * threadIdx.z + blockDim.x * threadIdx.y + threadIdx.x;
    const unsigned int number = cuemu::curand_detail::mtgp32_step(state, t);
    __syncthreads();  // every place has read the words the round needs
    if (t == 0) state->offset = (state->offset + threads) & MTGP32_STATE_MASK;
    __syncthreads();  // and the next round starts after the move
    return number;
}

// The same for the `n` threads with index < n that call it, each at place
// `index`: a round of n numbers.
__device__ inline unsigned int curand_mtgp32_specific(curandStateMtgp32_t* state,
                                                      unsigned char index, unsigned char n) {
    const unsigned int number = cuemu::curand_detail::mtgp32_step(state, index);
    __syncthreads();
    if (index == 0) state->offset = (state->offset + n) & MTGP32_STATE_MASK;
    __syncthreads();
    return number;
}

// ---- distributions: one raw number each, as the toolkit's ---------------------------------
// Each passes its caller's file and line on, so a report names the kernel's line.
#define CUEMU_MTGP32_SITE const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()
#define CUEMU_MTGP32_DRAW curand(state, cuemu_file, cuemu_line)
__device__ inline float curand_uniform(curandStateMtgp32_t* state, CUEMU_MTGP32_SITE) {
    return cuemu::curand_detail::uniform_from_bits(CUEMU_MTGP32_DRAW);
}
__device__ inline double curand_uniform_double(curandStateMtgp32_t* state, CUEMU_MTGP32_SITE) {
    return cuemu::curand_detail::uniform_double_from_bits(CUEMU_MTGP32_DRAW);
}
// The inverse normal distribution function, as for the Sobol states.
__device__ inline float curand_normal(curandStateMtgp32_t* state, CUEMU_MTGP32_SITE) {
    return cuemu::curand_detail::quasi_normal(CUEMU_MTGP32_DRAW);
}
__device__ inline double curand_normal_double(curandStateMtgp32_t* state, CUEMU_MTGP32_SITE) {
    return cuemu::curand_detail::quasi_normal_double(CUEMU_MTGP32_DRAW);
}
__device__ inline float curand_log_normal(curandStateMtgp32_t* state, float mean, float stddev,
                                          CUEMU_MTGP32_SITE) {
    return expf(mean + stddev * cuemu::curand_detail::quasi_normal(CUEMU_MTGP32_DRAW));
}
__device__ inline double curand_log_normal_double(curandStateMtgp32_t* state, double mean,
                                                  double stddev, CUEMU_MTGP32_SITE) {
    return std::exp(mean + stddev * cuemu::curand_detail::quasi_normal_double(CUEMU_MTGP32_DRAW));
}
__device__ inline unsigned int curand_poisson(curandStateMtgp32_t* state, double lambda,
                                              CUEMU_MTGP32_SITE) {
    return cuemu::curand_detail::poisson_from_one_number(CUEMU_MTGP32_DRAW, lambda);
}
#undef CUEMU_MTGP32_DRAW
#undef CUEMU_MTGP32_SITE

#define CUEMU_MTGP32_NOT_EMULATED(name, what)                                                  \
    template <class... A>                                                                      \
    float name(A&&...) {                                                                       \
        static_assert(::cuemu::refused<A...>,                                                  \
                      "cuemu's cuRAND does not have " #name " (" what "); an MTGP32 state "    \
                      "has curand, curand_mtgp32_specific, curand_uniform(_double), "          \
                      "curand_normal(_double), curand_log_normal(_double) and "                \
                      "curand_poisson. Build this "                                            \
                      "program with nvcc for a GPU");                                          \
        return 0;                                                                              \
    }
CUEMU_MTGP32_NOT_EMULATED(curand_mtgp32_single, "floats tempered straight into their bits")
#undef CUEMU_MTGP32_NOT_EMULATED

#endif
