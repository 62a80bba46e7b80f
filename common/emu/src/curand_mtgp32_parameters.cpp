// curand_mtgp32_parameters.cpp - cuRAND's 200 MTGP32 parameter sets for the
// emulator (<curand_mtgp32dc_p_11213.h>, the host generator in
// src/curand/mtgp32.cpp).
//
// The sets are cuRAND's own table, so they are read, not copied: CMake finds
// the CUDA toolkit's curand_mtgp32dc_p_11213.h and names it in
// CUEMU_MTGP32_TABLE_HEADER for this file alone. That header brings the
// toolkit's <curand_mtgp32.h> with it (same include guard as the
// emulator's, whose types have the same layout); nothing else here includes
// the emulator's cuRAND headers, so the two never meet in one file.
// In the core library, not cuemu_curand: the device API is header-only and a
// program using it links no cuRAND library.
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#ifdef CUEMU_MTGP32_TABLE_HEADER
#include CUEMU_MTGP32_TABLE_HEADER

// The layout <curand_mtgp32.h> gives both copies of the type.
static_assert(sizeof(mtgp32_params_fast_t) == 236 && offsetof(mtgp32_params_fast_t, mask) == 208,
              "the toolkit's mtgp32_params_fast_t is not laid out as the emulator's");
static_assert(sizeof(mtgp32dc_params_fast_11213) / sizeof(mtgp32dc_params_fast_11213[0]) == 200,
              "the toolkit's MTGP32 table does not have 200 parameter sets");
#else
struct mtgp32_params_fast;
typedef struct mtgp32_params_fast mtgp32_params_fast_t;
#endif

namespace cuemu {

bool mtgp32_table_available() {
#ifdef CUEMU_MTGP32_TABLE_HEADER
    return true;
#else
    return false;
#endif
}

mtgp32_params_fast_t* mtgp32_parameter_sets() {
#ifdef CUEMU_MTGP32_TABLE_HEADER
    return mtgp32dc_params_fast_11213;
#else
    std::fflush(stdout);
    std::fprintf(stderr,
                 "cuemu: cuRAND's MTGP32 generator needs cuRAND's table of parameter sets "
                 "(curand_mtgp32dc_p_11213.h of a CUDA toolkit), which was not found when the "
                 "emulator was built: install a CUDA toolkit and build again, or use the XORWOW, "
                 "Philox4_32_10 or MRG32k3a generator\n");
    std::exit(1);
#endif
}

}  // namespace cuemu
