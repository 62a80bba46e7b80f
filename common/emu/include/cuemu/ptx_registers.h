// cuemu/ptx_registers.h - PTX's special registers, which device code reads
// with inline assembly (asm("mov.u32 %0, %%laneid;" : "=r"(lane))). Device
// code is compiled for the host here, where PTX means nothing, so
// cuemu-rewrite turns each such read into a call of one of these
// (rewriter/inline_ptx.cpp). What they answer is what a GPU may answer:
// %warpid and %smid are documented as volatile hints (a warp may move, a
// block's SM is the hardware's choice), %globaltimer as a nanosecond timer.
// PTX's bfind, which code writes the same way (asm("bfind.u32 %0, %1;" ...)),
// is here too.
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

// bfind[.shiftamt].{u32,s32,u64,s64} d, a: the place of the most significant
// non-sign bit of a (a 1, or for a negative signed a, a 0), or with .shiftamt
// how far a left shift takes that bit to the top; 0xffffffff when there is
// no such bit (PTX ISA, "bfind").
inline unsigned bfind_bits(unsigned long long bits, unsigned width, bool shiftamt) {
    if (bits == 0) return 0xffffffffu;
    const unsigned place = 63u - static_cast<unsigned>(__builtin_clzll(bits));
    return shiftamt ? width - 1u - place : place;
}
inline unsigned bfind_u32(unsigned a) { return bfind_bits(a, 32, false); }
inline unsigned bfind_u64(unsigned long long a) { return bfind_bits(a, 64, false); }
inline unsigned bfind_s32(int a) { return bfind_bits(a < 0 ? ~static_cast<unsigned>(a) : static_cast<unsigned>(a), 32, false); }
inline unsigned bfind_s64(long long a) {
    const auto bits = static_cast<unsigned long long>(a);
    return bfind_bits(a < 0 ? ~bits : bits, 64, false);
}
inline unsigned bfind_shiftamt_u32(unsigned a) { return bfind_bits(a, 32, true); }
inline unsigned bfind_shiftamt_u64(unsigned long long a) { return bfind_bits(a, 64, true); }
inline unsigned bfind_shiftamt_s32(int a) {
    return bfind_bits(a < 0 ? ~static_cast<unsigned>(a) : static_cast<unsigned>(a), 32, true);
}
inline unsigned bfind_shiftamt_s64(long long a) {
    const auto bits = static_cast<unsigned long long>(a);
    return bfind_bits(a < 0 ? ~bits : bits, 64, true);
}

}  // namespace ptx
}  // namespace cuemu

#endif
