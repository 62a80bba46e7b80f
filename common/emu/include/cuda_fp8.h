// <cuda_fp8.h> for emulator builds: the 8-bit floating-point types
// (__nv_fp8_e4m3, __nv_fp8_e5m2 and their conversions) are not emulated; the
// build stops here, naming them.
#define __CUDA_FP8_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#error "cuemu does not emulate the FP8 types of <cuda_fp8.h>; use <cuda_fp16.h> or <cuda_bf16.h>, or build this program with nvcc for a GPU"
