// <sm_30_intrinsics.h> for emulator builds: the warp functions and intrinsics are the
// emulator's (cuemu/builtins.h, through cuemu/cuemu.h); one it lacks is an
// undeclared name at its first use.
#include "cuemu/cuemu.h"
