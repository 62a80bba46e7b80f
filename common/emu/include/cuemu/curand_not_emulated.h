// cuemu/curand_not_emulated.h - cuRAND host calls outside the emulator's
// subset (<curand.h>). Each is a function template whose body fails to
// compile with a message naming the call, as cublas_not_emulated.h does for
// cuBLAS: a program that uses one stops at build time instead of running
// without it.
#ifndef CUEMU_CURAND_NOT_EMULATED_H
#define CUEMU_CURAND_NOT_EMULATED_H

#include "not_emulated.h"

#define CUEMU_CURAND_NOT_EMULATED(name, what)                                                  \
    template <class... A>                                                                      \
    curandStatus_t name(A&&...) {                                                              \
        static_assert(::cuemu::refused<A...>,                                                  \
                      "cuemu's cuRAND does not have " #name " (" what "); it has the XORWOW, " \
                      "MRG32k3a, Philox4_32_10, MT19937, MTGP32, Sobol32 and Sobol64 (scrambled or " \
                      "not) generators with "                                                  \
                      "curandGenerate(LongLong), "                                             \
                      "curandGenerateUniform/Normal/LogNormal(Double) and "                    \
                      "curandGeneratePoisson. Build this program with nvcc for a GPU");        \
        return CURAND_STATUS_TYPE_ERROR;                                                       \
    }

CUEMU_CURAND_NOT_EMULATED(curandCreatePoissonDistribution, "discrete distributions")
CUEMU_CURAND_NOT_EMULATED(curandDestroyDistribution, "discrete distributions")
CUEMU_CURAND_NOT_EMULATED(curandGeneratePoissonMethod, "Poisson methods")
CUEMU_CURAND_NOT_EMULATED(curandGenerateBinomial, "binomial numbers")
CUEMU_CURAND_NOT_EMULATED(curandGenerateBinomialMethod, "binomial numbers")
CUEMU_CURAND_NOT_EMULATED(curandGetProperty, "library properties; CURAND_VER_* are defined")

#undef CUEMU_CURAND_NOT_EMULATED

#endif
