// <channel_descriptor.h> for emulator builds: textures, surfaces and CUDA arrays live in
// cuemu/textures.h, which the umbrella header includes.
#define __CHANNEL_DESCRIPTOR_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
