// config.cuh - CUB's configuration header: here only the version and the
// namespace macros (emu_common.cuh).
#pragma once

#include <cub/detail/emu_common.cuh>
