// device_partition.cuh - cub::DevicePartition: If and Flagged put the picked
// items, in order, at the front of d_out and the others, in reverse order, at
// its back (detail/selection.cuh).
#pragma once

#include <cub/detail/selection.cuh>

namespace cub {

struct DevicePartition : emu::selection<true> {};

}  // namespace cub
