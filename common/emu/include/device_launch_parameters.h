// <device_launch_parameters.h> for emulator builds: the built-ins live in the emulator.
#include "cuemu/cuemu.h"
