// <sm_61_intrinsics.h> for emulator builds: the warp functions and intrinsics are the
// emulator's (cuemu/builtins.h, through cuemu/cuemu.h); one it lacks is an
// undeclared name at its first use.
#define __SM_61_INTRINSICS_H__  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#include "cuemu/cuemu.h"
