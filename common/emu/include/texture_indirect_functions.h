// <texture_indirect_functions.h> for emulator builds: textures, surfaces and CUDA arrays live in
// cuemu/textures.h, which the umbrella header includes.
#define __TEXTURE_INDIRECT_FUNCTIONS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
