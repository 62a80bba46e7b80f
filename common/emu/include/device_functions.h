// <device_functions.h> for emulator builds: the device functions live in the emulator.
#define __DEVICE_FUNCTIONS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
