// <surface_types.h> for emulator builds: textures, surfaces and CUDA arrays live in
// cuemu/textures.h, which the umbrella header includes.
#include "cuemu/cuemu.h"
