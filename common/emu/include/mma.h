// <mma.h> for emulator builds: tensor cores' warp matrix functions,
// namespace nvcuda::wmma, as the CUDA C++ Programming Guide describes them.
// What is emulated, how a warp's lanes share a matrix and how results compare
// with a GPU's are in cuemu/wmma.h and in common/emu/README.md, "Tensor cores
// (wmma)".
#ifndef CUEMU_MMA_H
#define CUEMU_MMA_H
#define __CUDA_MMA_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "cuemu/wmma.h"

#endif
