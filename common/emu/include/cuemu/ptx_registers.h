// cuemu/ptx_registers.h - PTX's special registers, which device code reads
// with inline assembly (asm("mov.u32 %0, %%laneid;" : "=r"(lane))). Device
// code is compiled for the host here, where PTX means nothing, so
// cuemu-rewrite turns each such read into a call of one of these
// (rewriter/inline_ptx.cpp). What they answer is what a GPU may answer:
// %warpid and %smid are documented as volatile hints (a warp may move, a
// block's SM is the hardware's choice), %globaltimer as a nanosecond timer.
#ifndef CUEMU_PTX_REGISTERS_H
#define CUEMU_PTX_REGISTERS_H

#include "builtins.h"

namespace cuemu {
namespace ptx {

// The calling thread's place in its block, x fastest, as warps are formed.
inline unsigned linear_thread() {
    return tls_thread_idx.x + tls_block_dim.x * (tls_thread_idx.y + tls_block_dim.y * tls_thread_idx.z);
}
inline unsigned laneid() { return linear_thread() & 31u; }
// The warp within its block: a GPU counts warps per SM, but the emulator's
// SM runs one block at a time.
inline unsigned warpid() { return linear_thread() >> 5; }
// Warps one SM may hold: the device's maxThreadsPerMultiProcessor / 32.
unsigned nwarpid();
// The SM the block runs on, and how many the device has
// (cudaDevAttrMultiProcessorCount): src/ptx_registers.cpp.
unsigned smid();
unsigned nsmid();

// The cycle counter of clock64(), and its halves; the global timer counts
// nanoseconds, which on the emulator's nominal 1 GHz clock is the same count.
inline long long clock64() { return ::clock64(); }
inline unsigned clock32() { return static_cast<unsigned>(::clock64()); }
inline unsigned clock_hi() { return static_cast<unsigned>(static_cast<unsigned long long>(::clock64()) >> 32); }
inline unsigned long long globaltimer() { return static_cast<unsigned long long>(::clock64()); }
inline unsigned globaltimer_lo() { return static_cast<unsigned>(globaltimer()); }
inline unsigned globaltimer_hi() { return static_cast<unsigned>(globaltimer() >> 32); }

// The lanes of the warp below, at and above the caller's, as bit masks.
inline unsigned lanemask_eq() { return 1u << laneid(); }
inline unsigned lanemask_lt() { return lanemask_eq() - 1u; }
inline unsigned lanemask_le() { return lanemask_lt() | lanemask_eq(); }
inline unsigned lanemask_ge() { return ~lanemask_lt(); }
inline unsigned lanemask_gt() { return ~lanemask_le(); }

}  // namespace ptx
}  // namespace cuemu

#endif
