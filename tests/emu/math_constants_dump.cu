// Prints the bits of every CUDART_* constant of <math_constants.h>. Built with
// nvcc against CUDA's header and for the emulator against its own; ctest
// (emu.math-constants-vs-cuda) requires the outputs to be equal.
#include <math_constants.h>

#include <cstdio>
#include <cstring>

static void show(const char* name, float v) {
    unsigned u;
    std::memcpy(&u, &v, sizeof u);
    std::printf("%s float %08x\n", name, u);
}
static void show(const char* name, double v) {
    unsigned long long u;
    std::memcpy(&u, &v, sizeof u);
    std::printf("%s double %016llx\n", name, u);
}
static void show(const char* name, unsigned v) { std::printf("%s unsigned %u\n", name, v); }

// The special values (CUDART_INF_F, CUDART_NAN ...) are left out: CUDA spells
// them with __int_as_float/__longlong_as_double, which host code cannot call
// under nvcc; test_device_headers.cu checks their bits.
#define SHOW(c) show(#c, c)
int main() {
    SHOW(CUDART_ZERO_F);
    SHOW(CUDART_ONE_F);
    SHOW(CUDART_SQRT_HALF_F);
    SHOW(CUDART_SQRT_HALF_HI_F);
    SHOW(CUDART_SQRT_HALF_LO_F);
    SHOW(CUDART_SQRT_TWO_F);
    SHOW(CUDART_THIRD_F);
    SHOW(CUDART_PIO4_F);
    SHOW(CUDART_PIO2_F);
    SHOW(CUDART_3PIO4_F);
    SHOW(CUDART_2_OVER_PI_F);
    SHOW(CUDART_SQRT_2_OVER_PI_F);
    SHOW(CUDART_PI_F);
    SHOW(CUDART_L2E_F);
    SHOW(CUDART_L2T_F);
    SHOW(CUDART_LG2_F);
    SHOW(CUDART_LGE_F);
    SHOW(CUDART_LN2_F);
    SHOW(CUDART_LNT_F);
    SHOW(CUDART_LNPI_F);
    SHOW(CUDART_TWO_TO_M126_F);
    SHOW(CUDART_TWO_TO_126_F);
    SHOW(CUDART_NORM_HUGE_F);
    SHOW(CUDART_TWO_TO_23_F);
    SHOW(CUDART_TWO_TO_24_F);
    SHOW(CUDART_TWO_TO_31_F);
    SHOW(CUDART_TWO_TO_32_F);
    SHOW(CUDART_REMQUO_BITS_F);
    SHOW(CUDART_REMQUO_MASK_F);
    SHOW(CUDART_TRIG_PLOSS_F);
    SHOW(CUDART_ZERO);
    SHOW(CUDART_ONE);
    SHOW(CUDART_SQRT_TWO);
    SHOW(CUDART_SQRT_HALF);
    SHOW(CUDART_SQRT_HALF_HI);
    SHOW(CUDART_SQRT_HALF_LO);
    SHOW(CUDART_THIRD);
    SHOW(CUDART_TWOTHIRD);
    SHOW(CUDART_PIO4);
    SHOW(CUDART_PIO4_HI);
    SHOW(CUDART_PIO4_LO);
    SHOW(CUDART_PIO2);
    SHOW(CUDART_PIO2_HI);
    SHOW(CUDART_PIO2_LO);
    SHOW(CUDART_3PIO4);
    SHOW(CUDART_2_OVER_PI);
    SHOW(CUDART_PI);
    SHOW(CUDART_PI_HI);
    SHOW(CUDART_PI_LO);
    SHOW(CUDART_SQRT_2PI);
    SHOW(CUDART_SQRT_2PI_HI);
    SHOW(CUDART_SQRT_2PI_LO);
    SHOW(CUDART_SQRT_PIO2);
    SHOW(CUDART_SQRT_PIO2_HI);
    SHOW(CUDART_SQRT_PIO2_LO);
    SHOW(CUDART_SQRT_2OPI);
    SHOW(CUDART_L2E);
    SHOW(CUDART_L2E_HI);
    SHOW(CUDART_L2E_LO);
    SHOW(CUDART_L2T);
    SHOW(CUDART_LG2);
    SHOW(CUDART_LG2_HI);
    SHOW(CUDART_LG2_LO);
    SHOW(CUDART_LGE);
    SHOW(CUDART_LGE_HI);
    SHOW(CUDART_LGE_LO);
    SHOW(CUDART_LN2);
    SHOW(CUDART_LN2_HI);
    SHOW(CUDART_LN2_LO);
    SHOW(CUDART_LNT);
    SHOW(CUDART_LNT_HI);
    SHOW(CUDART_LNT_LO);
    SHOW(CUDART_LNPI);
    SHOW(CUDART_LN2_X_1024);
    SHOW(CUDART_LN2_X_1025);
    SHOW(CUDART_LN2_X_1075);
    SHOW(CUDART_LG2_X_1024);
    SHOW(CUDART_LG2_X_1075);
    SHOW(CUDART_TWO_TO_23);
    SHOW(CUDART_TWO_TO_52);
    SHOW(CUDART_TWO_TO_53);
    SHOW(CUDART_TWO_TO_54);
    SHOW(CUDART_TWO_TO_M54);
    SHOW(CUDART_TWO_TO_M1022);
    SHOW(CUDART_TRIG_PLOSS);
    SHOW(CUDART_DBL2INT_CVT);
    return 0;
}
