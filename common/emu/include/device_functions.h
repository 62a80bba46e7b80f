// <device_functions.h> for emulator builds: the device functions live in the emulator.
#include "cuemu/cuemu.h"
