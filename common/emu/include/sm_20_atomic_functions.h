// <sm_20_atomic_functions.h> for emulator builds: the atomic functions are the emulator's
// (cuemu/builtins.h, through cuemu/cuemu.h).
#include "cuemu/cuemu.h"
