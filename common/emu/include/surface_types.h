// <surface_types.h> for emulator builds: textures, surfaces and CUDA arrays live in
// cuemu/textures.h, which the umbrella header includes.
#define __SURFACE_TYPES_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
