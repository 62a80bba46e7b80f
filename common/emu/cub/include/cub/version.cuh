// version.cuh - CUB_VERSION: the emulator's CUB answers as CUDA 13's (3.0.1),
// whose interface it follows (emu_common.cuh defines the numbers).
#pragma once

#include <cub/detail/emu_common.cuh>
