// <sm_20_atomic_functions.h> for emulator builds: the atomic functions are the emulator's
// (cuemu/builtins.h, through cuemu/cuemu.h).
#define __SM_20_ATOMIC_FUNCTIONS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
