// <device_launch_parameters.h> for emulator builds: the built-ins live in the emulator.
#define __DEVICE_LAUNCH_PARAMETERS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
