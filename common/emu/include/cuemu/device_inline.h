// cuemu/device_inline.h - CUEMU_DEVICE_INLINE, the mark of the emulator's own
// small device helpers (atomics, min/max, the fast math and bit intrinsics,
// make_float4 and kin) that must become part of the kernel that calls them.
//
// Why always_inline: kernels are compiled with the race check's instrumentation,
// and each kernel's uninstrumented twin (cuemu/launch.h) and split version
// (cuemu/split_block.h) carry no_sanitize("thread"). GCC inlines nothing across
// that difference, except a function marked always_inline, so without the mark
// a twin calls each helper out of line and pays a call per __fdividef or min().
// Inlined, a helper is also instrumented as part of its caller (a fault names the
// kernel's line; __sincosf's stores are seen by the race check), and the flops
// the profiler's plugin counts in its body come along with it.
//
// A helper so marked calls only builtins (__builtin_exp2f, not std::exp2, whose
// float overload is itself an instrumented inline function) or other marked
// helpers, so that nothing in it stays out of line.
#ifndef CUEMU_DEVICE_INLINE_H
#define CUEMU_DEVICE_INLINE_H

#define CUEMU_DEVICE_INLINE inline __attribute__((always_inline))

#endif
