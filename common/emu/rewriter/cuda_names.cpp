// cuda_names.cpp - see cuda_names.h.
#include "cuda_names.h"

#include <set>

namespace cuemu_rewrite {
bool is_cuda_header_function(const std::string& name) {
    static const std::set<std::string> names = {
        // CUDA's min/max family, host and device
        "min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax",
        // math functions programs like to write their own versions of
        "abs", "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "sqrt", "sqrtf", "rsqrt",
        "rsqrtf", "pow", "powf", "exp", "expf", "log", "logf", "floor", "floorf", "ceil",
        "ceilf", "round", "roundf", "trunc", "truncf", "sin", "sinf", "cos", "cosf", "tan",
        "tanf", "sinpi", "sinpif", "cospi", "cospif", "hypot", "hypotf", "norm3d", "norm3df",
        "signbit", "isnan", "isinf", "isfinite", "copysign", "copysignf", "fma", "fmaf", "erf",
        "erff", "erfinv", "erfinvf", "normcdf", "normcdff"};
    return names.count(name) != 0;
}
}  // namespace cuemu_rewrite
