// <driver_functions.h> for emulator builds: make_cudaPitchedPtr, make_cudaPos
// and make_cudaExtent are the emulator's (cuemu/textures.h).
#define __DRIVER_FUNCTIONS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
