// <driver_functions.h> for emulator builds: make_cudaPitchedPtr, make_cudaPos
// and make_cudaExtent are the emulator's (cuemu/textures.h).
#include "cuemu/cuemu.h"
