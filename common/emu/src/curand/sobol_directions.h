// sobol_directions.h - Joe and Kuo's Sobol direction vectors
// (sobol_directions.cpp), shared by curandGetDirectionVectors32/64 and the
// host-API Sobol generators (sobol_layout.cpp).
#ifndef CUEMU_CURAND_SOBOL_DIRECTIONS_H
#define CUEMU_CURAND_SOBOL_DIRECTIONS_H

#include "curand.h"

namespace cuemu::curand_host {

// libcurand's sets hold this many dimensions.
constexpr unsigned int curand_sobol_dimensions = 20000;

// How many dimensions the emulator can give: the dimensions of Boost.Random's
// table, or 0 where it was not found at build time.
unsigned int sobol_dimensions();

// The first sobol_dimensions() dimensions' vectors, made at the first call;
// the dimensions after them up to 20000 are unreadable, so that a program
// reading past what the emulator has stops with a fault there.
const curandDirectionVectors32_t* sobol_directions32();
const curandDirectionVectors64_t* sobol_directions64();

// The line saying the emulator stops at sobol_dimensions(), for `call`.
void report_missing_dimensions(const char* call, unsigned int asked);

}  // namespace cuemu::curand_host

#endif
