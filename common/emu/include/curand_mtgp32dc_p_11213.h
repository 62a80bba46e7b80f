// <curand_mtgp32dc_p_11213.h> for emulator builds: cuRAND's 200 MTGP32
// parameter sets for the Mersenne exponent 11213, the table a program hands
// to curandMakeMTGP32Constants and curandMakeMTGP32KernelState.
//
// The table is cuRAND's own (found by a search its authors ran; it cannot be
// derived), so the emulator does not carry a copy: its library reads the
// CUDA toolkit's header when one was installed where the emulator was built
// (src/curand_mtgp32_parameters.cpp). Without one, the first use of the table
// stops the program with a line saying so.
#ifndef CURAND_MTGP32DC_P_11213_H
#define CURAND_MTGP32DC_P_11213_H

#include "curand_mtgp32.h"

namespace cuemu {
// The 200 sets (src/curand_mtgp32_parameters.cpp).
mtgp32_params_fast_t* mtgp32_parameter_sets();
}  // namespace cuemu

// The table's name stands for the emulator's copy, read from the toolkit.
#define mtgp32dc_params_fast_11213 (::cuemu::mtgp32_parameter_sets())

#endif
