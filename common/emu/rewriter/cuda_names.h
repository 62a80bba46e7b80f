// cuda_names.h - names of functions CUDA's own headers declare for device
// code (and often host code too), which a program may also define for itself
// as an overload: a program's host `int umin(int, int)` sits beside CUDA's
// `umin(unsigned, unsigned)`, and nvcc 13 picks by argument types. The
// execution-space check (rewrite.cpp) cannot resolve overloads, so a call of
// such a name is never refused.
#ifndef CUEMU_REWRITER_CUDA_NAMES_H
#define CUEMU_REWRITER_CUDA_NAMES_H

#include <string>

namespace cuemu_rewrite {
bool is_cuda_header_function(const std::string& name);
}

#endif
