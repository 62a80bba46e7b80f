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
#include <ctime>
#include <type_traits>

#include "device_inline.h"
#include "types.h"

namespace cuemu {
extern __thread uint3 tls_thread_idx;
extern __thread uint3 tls_block_idx;
extern __thread dim3 tls_block_dim;
extern __thread dim3 tls_grid_dim;
// Start of the block's dynamic shared memory (extern __shared__ arrays).
void* dynamic_shared_memory();
// True on a CUDA thread of a running kernel.
bool in_device_code();
// True where a GPU would run the device compilation of a __host__ __device__
// function: on a kernel's CUDA thread, and in a Thrust algorithm run as device
// work (thrust/device_work.cpp), whose functors a GPU runs in Thrust's
// kernels. cuemu-rewrite turns an #if on __CUDA_ARCH__ inside a __host__
// __device__ function into a choice on this when host and device code take
// different branches (rewriter/arch.h).
bool in_device_branch();
}  // namespace cuemu

// Read-only views, as in CUDA (assigning to threadIdx.x is a compile error).
// All four are references to the variables themselves: a dim3 temporary made
// from a uint3 would have to be stored to memory for every thread (its address
// goes to -fsanitize=alignment's check), which cost the vector add 8 %.
#define threadIdx (static_cast<const uint3&>(::cuemu::tls_thread_idx))
#define blockIdx (static_cast<const uint3&>(::cuemu::tls_block_idx))
// blockDim and gridDim are calls of unqualified functions, so that a struct
// of the runtime with members of those names (cudaKernelNodeParams,
// cuemu/graphs.h) can offer member functions of the same names instead:
// params.gridDim = dim3(4) then assigns the struct's own member.
inline __attribute__((always_inline)) const dim3& __cuemu_block_dim() { return ::cuemu::tls_block_dim; }
inline __attribute__((always_inline)) const dim3& __cuemu_grid_dim() { return ::cuemu::tls_grid_dim; }
#define blockDim __cuemu_block_dim()
#define gridDim __cuemu_grid_dim()
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
// A const kernel parameter the kernel may take the address of without a copy
// (CUDA 11.7+): every parameter is already a copy of its own here.
#define __grid_constant__
// __noinline__ cannot be a macro (libstdc++ spells an attribute that way);
// cuemu-rewrite replaces it in .cu files.

// ---- barriers and fences -------------------------------------------------------------
// The hidden arguments name the call site (the compiler fills them in), so the
// emulator can tell threads waiting at different __syncthreads() apart and say
// which line a diagnostic is about.
#define CUEMU_SITE const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()
namespace cuemu {
// Suspends the CUDA thread until every thread of the block has arrived; returns
// how many passed a nonzero predicate (scheduler.cpp).
int block_barrier(int predicate, const char* file, int line);
}  // namespace cuemu
// Waits until every thread of the block has arrived; threads then resume in
// threadIdx order (or as CUEMU_SCHEDULE says), so a race gives the same
// (wrong) answer on every run.
inline void __syncthreads(CUEMU_SITE) { ::cuemu::block_barrier(0, cuemu_file, cuemu_line); }
inline int __syncthreads_count(int predicate, CUEMU_SITE) {
    return ::cuemu::block_barrier(predicate, cuemu_file, cuemu_line);
}
inline int __syncthreads_and(int predicate, CUEMU_SITE) {
    return ::cuemu::block_barrier(predicate, cuemu_file, cuemu_line) ==
           static_cast<int>(::cuemu::tls_block_dim.x * ::cuemu::tls_block_dim.y * ::cuemu::tls_block_dim.z);
}
inline int __syncthreads_or(int predicate, CUEMU_SITE) {
    return ::cuemu::block_barrier(predicate, cuemu_file, cuemu_line) != 0;
}
// A block runs on one OS thread, and blocks on different workers see each
// other's writes through these full fences (and the atomics below).
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- warps ---------------------------------------------------------------------------
// A warp is 32 consecutive threads of a block in x-fastest order; a block of 48
// threads has a second warp of 16 lanes. A warp function is a meeting of the
// lanes named in its mask: each lane waits (its fiber is suspended) until every
// lane of the mask has arrived at a warp function or has exited. Lanes a
// partial warp does not have, and lanes that have exited, do not hold it up (PTX:
// "all non-exited threads"). Where a GPU's result is undefined, the emulator's
// is stated below.
namespace cuemu {
enum warp_op : int {
    warp_sync, warp_shfl_idx, warp_shfl_up, warp_shfl_down, warp_shfl_xor,
    warp_ballot, warp_any, warp_all,
    warp_reduce_add, warp_reduce_min_signed, warp_reduce_max_signed, warp_reduce_min_unsigned,
    warp_reduce_max_unsigned, warp_reduce_and, warp_reduce_or, warp_reduce_xor,
    warp_match_any, warp_match_all
};
// Waits for the group, returns this lane's result (scheduler.cpp).
std::uint64_t warp_collective(int op, unsigned mask, std::uint64_t value, int param, int width,
                              const char* file, int line);
// The lanes the caller's warp has.
unsigned warp_active_mask();
// Cooperative groups' tiles of more than one warp (thread_block_tile<64> to
// <1024>): suspends the CUDA thread until every thread of its tile of `size`
// (the threads of ranks first .. first + size - 1 of the block, those of them
// the block has: its last warp may lack lanes) has arrived.
// `call` names the tile's function ("sync()", "shfl()" ...) for the report of
// a tile some thread never reaches (scheduler.cpp).
void tile_barrier(unsigned size, const char* call, const char* file, int line);
// A multi-warp tile of `size` threads was made at file:line: the race check
// stops taking two threads of different warps as unordered for the rest of the
// block (race_detector.cpp), and a tile whose block lacks whole warps of it
// (a GPU hangs) stops the launch with a report (scheduler.cpp).
void multi_warp_tile_made(unsigned size, const char* file, int line);
// The words through which the threads of a multi-warp tile exchange values,
// one per thread of the block by thread rank: the running block's, held by
// its worker, outside shared memory (the race check never sees them).
std::uint64_t* tile_exchange_words();
// Stops the launch from inside a kernel, for something a GPU would trap on
// and the emulator cannot do (grid.sync() without a cooperative launch): the
// report names the kernel, block, thread and file:line, then `what` (lines
// indented by two spaces), the hint and what a GPU does; the launch fails with
// cudaErrorLaunchFailure, sticky (scheduler.cpp). Never returns.
[[noreturn]] void kernel_cannot_go_on(const char* headline, const char* what, const char* hint,
                                      const char* on_a_gpu, const char* file, int line);

// A shuffle's width as the lanes see it: a width that is not a power of two
// from 1 to 32 is undefined on a GPU, and counts as 32 here.
inline unsigned shuffle_width(int width) {
    const unsigned w = static_cast<unsigned>(width);
    return w < 1 || w > 32 || (w & (w - 1)) ? 32 : w;
}
// The lane whose value lane `lane` gets from shuffle `op` (warp_shfl_idx ...)
// with parameter `param` (source lane, delta or lane mask) and `width` (from
// shuffle_width), PTX's rule; -1 where the source is outside the lane's
// segment of `width` lanes: the lane gets its own value. Whether the source
// lane took part is the caller's to check (all one bits where it did not).
// The fiber path (src/warp_group.h) and split versions (split_block.h) both
// use it, so their answers cannot differ.
inline int shuffle_source(int op, unsigned lane, int param, unsigned width) {
    const int first = static_cast<int>(lane & ~(width - 1));  // the segment's lanes
    const int last = first + static_cast<int>(width) - 1;
    int source = static_cast<int>(lane);
    bool valid = true;
    if (op == warp_shfl_idx) {
        source = first | (param & static_cast<int>(width - 1));
    } else if (op == warp_shfl_up) {
        source = static_cast<int>(lane) - static_cast<int>(static_cast<unsigned>(param));
        valid = source >= first;
    } else if (op == warp_shfl_down) {
        source = static_cast<int>(lane) + static_cast<int>(static_cast<unsigned>(param));
        valid = source <= last;
    } else {  // warp_shfl_xor
        source = static_cast<int>(lane ^ static_cast<unsigned>(param));
        valid = source >= 0 && source <= last;
    }
    return !valid || source < 0 || source > 31 ? -1 : source;
}

// A vote's answer (warp_ballot, warp_any, warp_all) from the ballot of the
// group's lanes whose predicate is nonzero; both paths use it, as above.
inline std::uint64_t vote_result(int op, std::uint32_t ballot, std::uint32_t group) {
    switch (op) {
        case warp_ballot: return ballot;
        case warp_any: return ballot != 0;
        default: return ballot == group;  // warp_all
    }
}

template <class T>
inline std::uint64_t to_warp_bits(const T& v) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "warp shuffles move values of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    return bits;
}
template <class T>
inline T from_warp_bits(std::uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}
}  // namespace cuemu

// Shuffles. A source lane outside the caller's segment of `width` lanes gives
// the caller its own value, as CUDA specifies (srcLane of __shfl_sync wraps
// within the segment). A source lane that exited, is not in the mask, or does
// not exist gives an undefined value on a GPU; here all bits are 1 (NaN as a
// float, -1 as an int), like fresh device memory, so that the bug stands out.
template <class T>
inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize, CUEMU_SITE) {
    return ::cuemu::from_warp_bits<T>(::cuemu::warp_collective(
        ::cuemu::warp_shfl_idx, mask, ::cuemu::to_warp_bits(var), srcLane, width, cuemu_file, cuemu_line));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize, CUEMU_SITE) {
    return ::cuemu::from_warp_bits<T>(::cuemu::warp_collective(
        ::cuemu::warp_shfl_up, mask, ::cuemu::to_warp_bits(var), static_cast<int>(delta), width,
        cuemu_file, cuemu_line));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize, CUEMU_SITE) {
    return ::cuemu::from_warp_bits<T>(::cuemu::warp_collective(
        ::cuemu::warp_shfl_down, mask, ::cuemu::to_warp_bits(var), static_cast<int>(delta), width,
        cuemu_file, cuemu_line));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize, CUEMU_SITE) {
    return ::cuemu::from_warp_bits<T>(::cuemu::warp_collective(
        ::cuemu::warp_shfl_xor, mask, ::cuemu::to_warp_bits(var), laneMask, width, cuemu_file, cuemu_line));
}
// Votes over the lanes that take part (bits of other lanes are 0).
inline unsigned __ballot_sync(unsigned mask, int predicate, CUEMU_SITE) {
    return static_cast<unsigned>(::cuemu::warp_collective(::cuemu::warp_ballot, mask, predicate != 0,
                                                          0, 32, cuemu_file, cuemu_line));
}
inline int __any_sync(unsigned mask, int predicate, CUEMU_SITE) {
    return static_cast<int>(::cuemu::warp_collective(::cuemu::warp_any, mask, predicate != 0, 0, 32,
                                                     cuemu_file, cuemu_line));
}
inline int __all_sync(unsigned mask, int predicate, CUEMU_SITE) {
    return static_cast<int>(::cuemu::warp_collective(::cuemu::warp_all, mask, predicate != 0, 0, 32,
                                                     cuemu_file, cuemu_line));
}
// Reductions over the 32-bit values of the lanes that take part; every lane
// gets the result. add wraps around; min and max compare as the type says.
// On a GPU these need compute capability 8.0 (the emulator reports 7.5 and
// offers them anyway).
#define CUEMU_WARP_REDUCE(T, name, op)                                                        \
    inline T name(unsigned mask, T value, CUEMU_SITE) {                                       \
        return static_cast<T>(static_cast<std::uint32_t>(::cuemu::warp_collective(            \
            op, mask, static_cast<std::uint32_t>(value), 0, 32, cuemu_file, cuemu_line)));      \
    }
CUEMU_WARP_REDUCE(unsigned, __reduce_add_sync, ::cuemu::warp_reduce_add)
CUEMU_WARP_REDUCE(int, __reduce_add_sync, ::cuemu::warp_reduce_add)
CUEMU_WARP_REDUCE(unsigned, __reduce_min_sync, ::cuemu::warp_reduce_min_unsigned)
CUEMU_WARP_REDUCE(int, __reduce_min_sync, ::cuemu::warp_reduce_min_signed)
CUEMU_WARP_REDUCE(unsigned, __reduce_max_sync, ::cuemu::warp_reduce_max_unsigned)
CUEMU_WARP_REDUCE(int, __reduce_max_sync, ::cuemu::warp_reduce_max_signed)
CUEMU_WARP_REDUCE(unsigned, __reduce_and_sync, ::cuemu::warp_reduce_and)
CUEMU_WARP_REDUCE(unsigned, __reduce_or_sync, ::cuemu::warp_reduce_or)
CUEMU_WARP_REDUCE(unsigned, __reduce_xor_sync, ::cuemu::warp_reduce_xor)
#undef CUEMU_WARP_REDUCE
// __match_any_sync: the lanes whose value has the same bits as the caller's.
// __match_all_sync: the mask of lanes taking part if all values have the same
// bits (and *pred = 1), else 0 (and *pred = 0). Bits, as CUDA specifies: 0.0f
// and -0.0f differ, a NaN matches the same NaN. The overloads are CUDA's.
#define CUEMU_WARP_MATCH(T)                                                                    \
    inline unsigned __match_any_sync(unsigned mask, T value, CUEMU_SITE) {                    \
        return static_cast<unsigned>(::cuemu::warp_collective(                                  \
            ::cuemu::warp_match_any, mask, ::cuemu::to_warp_bits(value), 0, 32, cuemu_file,    \
            cuemu_line));                                                                      \
    }                                                                                          \
    inline unsigned __match_all_sync(unsigned mask, T value, int* pred, CUEMU_SITE) {          \
        const std::uint64_t r = ::cuemu::warp_collective(::cuemu::warp_match_all, mask,        \
                                                         ::cuemu::to_warp_bits(value), 0, 32,  \
                                                         cuemu_file, cuemu_line);              \
        *pred = static_cast<int>(r >> 32);                                                     \
        return static_cast<unsigned>(r);                                                       \
    }
CUEMU_WARP_MATCH(int)
CUEMU_WARP_MATCH(unsigned int)
CUEMU_WARP_MATCH(long)
CUEMU_WARP_MATCH(unsigned long)
CUEMU_WARP_MATCH(long long)
CUEMU_WARP_MATCH(unsigned long long)
CUEMU_WARP_MATCH(float)
CUEMU_WARP_MATCH(double)
#undef CUEMU_WARP_MATCH
inline void __syncwarp(unsigned mask = 0xffffffffu, CUEMU_SITE) {
    ::cuemu::warp_collective(::cuemu::warp_sync, mask, 0, 0, 32, cuemu_file, cuemu_line);
}
// Not a meeting point. A GPU answers with the lanes executing this instruction
// together, which leaves out lanes that have exited or taken another branch.
// The emulator has no notion of divergence and answers with every lane the
// warp has (fewer than 32 only in a partial warp).
inline unsigned __activemask() { return ::cuemu::warp_active_mask(); }
#undef CUEMU_SITE

// ---- atomics ---------------------------------------------------------------------
// Always inlined (cuemu/device_inline.h), so that they are part of the kernel
// that calls them: a fault names the kernel's line (diagnostics.cpp).
// The profiler (CUEMU_PROFILE) counts each atomic call as one atomic
// instruction, whatever loop of compare-and-swaps does it here; the call's
// return address names the kernel's line. Only an instrumented kernel run for
// the profiler sets the flag.
namespace cuemu {
namespace detail {
extern __thread bool tls_profiling;
}
void profile_atomic(const void* address, std::size_t size);
}  // namespace cuemu
#define CUEMU_PROFILE_ATOMIC(a) \
    (__builtin_expect(::cuemu::detail::tls_profiling, 0) ? ::cuemu::profile_atomic((a), sizeof(*(a))) : void())
// Blocks run on several OS threads at once, so these are real atomic
// instructions, relaxed as CUDA's are (order them with __threadfence()). Each
// returns the old value, as in CUDA. The overloads are CUDA's, no more, so code
// that compiles here also compiles with nvcc. The _block and _system forms
// (narrower or wider scope on a GPU) are the same operation here.
#define CUEMU_ATOMIC_RMW(T, name, builtin)                                                 \
    CUEMU_DEVICE_INLINE T name(T* a, T v) { CUEMU_PROFILE_ATOMIC(a); return builtin(a, v, __ATOMIC_RELAXED); } \
    CUEMU_DEVICE_INLINE T name##_block(T* a, T v) { return name(a, v); }                                \
    CUEMU_DEVICE_INLINE T name##_system(T* a, T v) { return name(a, v); }
#define CUEMU_ATOMIC_CAS(T)                                                                \
    CUEMU_DEVICE_INLINE T atomicCAS(T* a, T expected, T desired) {                                      \
        CUEMU_PROFILE_ATOMIC(a);                                                           \
        __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_RELAXED,        \
                                    __ATOMIC_RELAXED);                                     \
        return expected;                                                                   \
    }                                                                                      \
    CUEMU_DEVICE_INLINE T atomicCAS_block(T* a, T e, T d) { return atomicCAS(a, e, d); }                \
    CUEMU_DEVICE_INLINE T atomicCAS_system(T* a, T e, T d) { return atomicCAS(a, e, d); }
#define CUEMU_ATOMIC_MINMAX(T)                                                              \
    CUEMU_DEVICE_INLINE T atomicMin(T* a, T v) {                                                        \
        CUEMU_PROFILE_ATOMIC(a);                                                           \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                      \
        while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, \
                                                       __ATOMIC_RELAXED)) {}                \
        return old;                                                                        \
    }                                                                                      \
    CUEMU_DEVICE_INLINE T atomicMax(T* a, T v) {                                                        \
        CUEMU_PROFILE_ATOMIC(a);                                                           \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                      \
        while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, \
                                                       __ATOMIC_RELAXED)) {}                \
        return old;                                                                        \
    }                                                                                      \
    CUEMU_DEVICE_INLINE T atomicMin_block(T* a, T v) { return atomicMin(a, v); }                        \
    CUEMU_DEVICE_INLINE T atomicMin_system(T* a, T v) { return atomicMin(a, v); }                       \
    CUEMU_DEVICE_INLINE T atomicMax_block(T* a, T v) { return atomicMax(a, v); }                        \
    CUEMU_DEVICE_INLINE T atomicMax_system(T* a, T v) { return atomicMax(a, v); }
// add and exch: int, unsigned int, unsigned long long (float and double below)
// sub: int, unsigned int
// and, or, xor: int, unsigned int, unsigned long long
// min, max: int, unsigned int, long long, unsigned long long
// CAS: int, unsigned int, unsigned long long, unsigned short
#define CUEMU_ATOMIC_INTEGER(T)                         \
    CUEMU_ATOMIC_RMW(T, atomicAdd, __atomic_fetch_add)  \
    CUEMU_ATOMIC_RMW(T, atomicExch, __atomic_exchange_n) \
    CUEMU_ATOMIC_RMW(T, atomicAnd, __atomic_fetch_and)  \
    CUEMU_ATOMIC_RMW(T, atomicOr, __atomic_fetch_or)    \
    CUEMU_ATOMIC_RMW(T, atomicXor, __atomic_fetch_xor)  \
    CUEMU_ATOMIC_CAS(T)                                 \
    CUEMU_ATOMIC_MINMAX(T)
CUEMU_ATOMIC_INTEGER(int)
CUEMU_ATOMIC_INTEGER(unsigned int)
CUEMU_ATOMIC_INTEGER(unsigned long long)
CUEMU_ATOMIC_RMW(int, atomicSub, __atomic_fetch_sub)
CUEMU_ATOMIC_RMW(unsigned int, atomicSub, __atomic_fetch_sub)
CUEMU_ATOMIC_MINMAX(long long)
CUEMU_ATOMIC_CAS(unsigned short)
#undef CUEMU_ATOMIC_INTEGER
#undef CUEMU_ATOMIC_MINMAX
#undef CUEMU_ATOMIC_CAS
#undef CUEMU_ATOMIC_RMW

namespace cuemu {
// Floating-point add as a compare-and-swap loop on the value's bits.
template <class F, class Bits>
CUEMU_DEVICE_INLINE F atomic_add_float(F* address, F value) {
    static_assert(sizeof(F) == sizeof(Bits), "same size");
    CUEMU_PROFILE_ATOMIC(address);
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
CUEMU_DEVICE_INLINE float atomicAdd(float* a, float v) { return cuemu::atomic_add_float<float, std::uint32_t>(a, v); }
CUEMU_DEVICE_INLINE double atomicAdd(double* a, double v) { return cuemu::atomic_add_float<double, std::uint64_t>(a, v); }
CUEMU_DEVICE_INLINE float atomicAdd_block(float* a, float v) { return atomicAdd(a, v); }
CUEMU_DEVICE_INLINE float atomicAdd_system(float* a, float v) { return atomicAdd(a, v); }
CUEMU_DEVICE_INLINE double atomicAdd_block(double* a, double v) { return atomicAdd(a, v); }
CUEMU_DEVICE_INLINE double atomicAdd_system(double* a, double v) { return atomicAdd(a, v); }
CUEMU_DEVICE_INLINE float atomicExch(float* a, float v) {
    CUEMU_PROFILE_ATOMIC(a);
    float old;
    __atomic_exchange(a, &v, &old, __ATOMIC_RELAXED);
    return old;
}
// atomicInc/atomicDec wrap around at limit, as CUDA defines them:
// inc stores (old >= limit) ? 0 : old + 1; dec stores (old == 0 || old > limit) ? limit : old - 1.
CUEMU_DEVICE_INLINE unsigned int atomicInc(unsigned int* a, unsigned int limit) {
    CUEMU_PROFILE_ATOMIC(a);
    unsigned int old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, old >= limit ? 0u : old + 1u, true,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}
CUEMU_DEVICE_INLINE unsigned int atomicDec(unsigned int* a, unsigned int limit) {
    CUEMU_PROFILE_ATOMIC(a);
    unsigned int old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, (old == 0u || old > limit) ? limit : old - 1u,
                                        true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}

// ---- math ------------------------------------------------------------------------
// CUDA's min/max overloads (plain functions, usable in host code too), the same
// set as CUDA's math headers. Mixed signed/unsigned arguments compare as
// unsigned, and float with double as double, as in CUDA.
#define CUEMU_MINMAX(R, A, B)                                  \
    CUEMU_DEVICE_INLINE R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
    CUEMU_DEVICE_INLINE R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
CUEMU_MINMAX(int, int, int)
CUEMU_MINMAX(unsigned int, unsigned int, unsigned int)
CUEMU_MINMAX(unsigned int, int, unsigned int)
CUEMU_MINMAX(unsigned int, unsigned int, int)
CUEMU_MINMAX(long, long, long)
CUEMU_MINMAX(unsigned long, unsigned long, unsigned long)
CUEMU_MINMAX(unsigned long, long, unsigned long)
CUEMU_MINMAX(unsigned long, unsigned long, long)
CUEMU_MINMAX(long long, long long, long long)
CUEMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CUEMU_MINMAX(unsigned long long, long long, unsigned long long)
CUEMU_MINMAX(unsigned long long, unsigned long long, long long)
CUEMU_MINMAX(float, float, float)
CUEMU_MINMAX(double, double, double)
CUEMU_MINMAX(double, float, double)
CUEMU_MINMAX(double, double, float)
#undef CUEMU_MINMAX

// The fast intrinsics trade accuracy for speed on a GPU. What is reproduced
// here, and what is not:
//
// __expf(x): the GPU computes ex2.approx(x * log2(e)) with the product rounded
//   to float. That rounding is the error that matters: the product carries an
//   absolute error of up to half an ulp of x*log2(e), plus |x| times the error
//   of log2(e) rounded to float, and 2^(that error) turns it into a relative
//   error of the result that grows with |x| (about 2^-24 near |x| = 1, about
//   2^-18 near |x| = 80). The emulator computes the product in float exactly
//   as the GPU does (same constant, same rounding), then takes a correctly rounded
//   exp2, so this growth is reproduced. Not reproduced: ex2.approx's own error
//   (at most 2 ulp on a GPU, 0 here) and its flushing of subnormal results to 0
//   (here a subnormal result stays). Results are close to, not bit-equal with, a GPU's.
// __exp10f(x): the same recipe with log2(10).
// __logf(x): lg2.approx(x) * ln(2) on a GPU; here log2 then the float multiply.
// __log2f, __log10f: log2 (times log10(2) in float).
// __powf(x, y): ex2(y * lg2(x)), the GPU's recipe, with exact exp2/log2.
// __sinf, __cosf, __tanf: exact here. A GPU's sin.approx/cos.approx have an
//   absolute error around 2^-21 in [-pi, pi] and get worse outside; that error is
//   NOT reproduced.
// __fdividef(x, y): x * (1/y), two roundings, as the GPU's rcp.approx-based
//   divide; like the GPU it returns 0 when 2^126 < |y| < 2^128 (and NaN if x is
//   infinite there), which is documented CUDA behaviour.
// rsqrtf: 1/sqrt(x) in float (a GPU's rsqrt.approx differs by up to 2 ulp).
// __saturatef, fmaf, the _rn arithmetic: exact, as on a GPU.
CUEMU_DEVICE_INLINE float __expf(float x) {
    const float product = x * 1.4426950408889634f;  // rounded to float: the GPU's error
    return __builtin_exp2f(product);
}
CUEMU_DEVICE_INLINE float __exp10f(float x) { return __builtin_exp2f(x * 3.3219280948873622f); }
CUEMU_DEVICE_INLINE float __logf(float x) { return __builtin_log2f(x) * 0.6931471805599453f; }
CUEMU_DEVICE_INLINE float __log2f(float x) { return __builtin_log2f(x); }
CUEMU_DEVICE_INLINE float __log10f(float x) { return __builtin_log2f(x) * 0.30102999566398120f; }
CUEMU_DEVICE_INLINE float __sinf(float x) { return __builtin_sinf(x); }
CUEMU_DEVICE_INLINE float __cosf(float x) { return __builtin_cosf(x); }
CUEMU_DEVICE_INLINE float __tanf(float x) { return __builtin_tanf(x); }
CUEMU_DEVICE_INLINE void __sincosf(float x, float* s, float* c) {
    *s = __builtin_sinf(x);
    *c = __builtin_cosf(x);
}
CUEMU_DEVICE_INLINE float __powf(float x, float y) { return __builtin_exp2f(y * __builtin_log2f(x)); }
CUEMU_DEVICE_INLINE float __fdividef(float x, float y) {
    const float big = 8.507059173023462e37f;  // 2^126
    if (__builtin_fabsf(y) > big && __builtin_isfinite(y)) return __builtin_isinf(x) ? NAN : 0.0f;
    return x * (1.0f / y);
}
// -0 saturates to +0, as on an H200 (tests/emu/device_math_dump.cu).
CUEMU_DEVICE_INLINE float __saturatef(float x) { return x <= 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
CUEMU_DEVICE_INLINE float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
CUEMU_DEVICE_INLINE double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
CUEMU_DEVICE_INLINE float __frsqrt_rn(float x) { return 1.0f / __builtin_sqrtf(x); }
CUEMU_DEVICE_INLINE float __fsqrt_rn(float x) { return __builtin_sqrtf(x); }
CUEMU_DEVICE_INLINE float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
CUEMU_DEVICE_INLINE float __fadd_rn(float a, float b) { return a + b; }
CUEMU_DEVICE_INLINE float __fsub_rn(float a, float b) { return a - b; }
CUEMU_DEVICE_INLINE float __fmul_rn(float a, float b) { return a * b; }
CUEMU_DEVICE_INLINE float __fdiv_rn(float a, float b) { return a / b; }
CUEMU_DEVICE_INLINE float __frcp_rn(float x) { return 1.0f / x; }
// __float2int_rn and the other rounding-mode intrinsics: intrinsics_round.h.

// ---- bits --------------------------------------------------------------------------
CUEMU_DEVICE_INLINE int __popc(unsigned int x) { return __builtin_popcount(x); }
CUEMU_DEVICE_INLINE int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
CUEMU_DEVICE_INLINE int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
CUEMU_DEVICE_INLINE int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
CUEMU_DEVICE_INLINE int __ffs(int x) { return __builtin_ffs(x); }
CUEMU_DEVICE_INLINE int __ffsll(long long x) { return __builtin_ffsll(x); }
CUEMU_DEVICE_INLINE unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
CUEMU_DEVICE_INLINE int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
CUEMU_DEVICE_INLINE unsigned int __float_as_uint(float x) { unsigned int i; std::memcpy(&i, &x, 4); return i; }
CUEMU_DEVICE_INLINE float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
CUEMU_DEVICE_INLINE float __uint_as_float(unsigned int i) { float x; std::memcpy(&x, &i, 4); return x; }
CUEMU_DEVICE_INLINE long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
CUEMU_DEVICE_INLINE double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, 8); return x; }

// clock64() counts the GPU's clock cycles; here it counts cycles of the
// device's nominal 1 GHz clock (cudaDevAttrClockRate), that is nanoseconds of
// the host's monotonic clock, so busy-waits and timings inside a kernel still
// measure something real. CUDA's device clock() is the C library's name, so
// it is defined in the library instead (src/device_clock.cpp).
inline long long clock64() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

// __ldg reads through the read-only cache on a GPU: an ordinary load here.
template <class T>
CUEMU_DEVICE_INLINE T __ldg(const T* p) { return *p; }

// The loads and stores with a cache hint (sm_32_intrinsics.h: cache at all
// levels, at L2, streaming, last use; write back, at L2, streaming, write
// through), which tuned kernels such as llm.c's use. The emulator has no
// caches: each is an ordinary load or store. __ldcv fetches again on every
// call (a kernel may poll memory another thread writes with it), so the
// compiler is not let keep an earlier value.
template <class T>
CUEMU_DEVICE_INLINE T __ldca(const T* p) { return *p; }
template <class T>
CUEMU_DEVICE_INLINE T __ldcg(const T* p) { return *p; }
template <class T>
CUEMU_DEVICE_INLINE T __ldcs(const T* p) { return *p; }
template <class T>
CUEMU_DEVICE_INLINE T __ldlu(const T* p) { return *p; }
template <class T>
CUEMU_DEVICE_INLINE T __ldcv(const T* p) {
    __asm__ __volatile__("" ::: "memory");
    return *p;
}
template <class T, class V>
CUEMU_DEVICE_INLINE void __stwb(T* p, V value) { *p = value; }
template <class T, class V>
CUEMU_DEVICE_INLINE void __stcg(T* p, V value) { *p = value; }
template <class T, class V>
CUEMU_DEVICE_INLINE void __stcs(T* p, V value) { *p = value; }
template <class T, class V>
CUEMU_DEVICE_INLINE void __stwt(T* p, V value) { *p = value; }

// __trap() aborts the kernel (llm.c's kernels call it on a size they cannot
// handle, rather than hang): the report names the kernel, block, thread and
// line, and the launch fails with cudaErrorLaunchFailure, sticky, as a
// kernel that faults does.
[[noreturn]] inline void __trap(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::cuemu::kernel_cannot_go_on(
        "__trap() called", "  the kernel called __trap(), which stops it",
        "a kernel traps where it cannot go on: what it checked just before is what to look at",
        "the kernel stops and the launch fails with an error, sticky (\"unspecified launch failure\")",
        file, line);
}

#endif
