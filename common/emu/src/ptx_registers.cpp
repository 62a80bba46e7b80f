// ptx_registers.cpp - the special registers of cuemu/ptx_registers.h that
// need the device: its SM count, and which SM a block runs on.
#include "cuemu/cuemu.h"
#include "block_state.h"
#include "internal.h"

namespace cuemu::ptx {

unsigned nsmid() { return static_cast<unsigned>(detail::worker_count()); }

// A GPU places blocks as it likes; blocks taken round-robin over the SMs is
// one placement it may choose.
unsigned smid() { return static_cast<unsigned>(detail::tls_linear_block % nsmid()); }

// maxThreadsPerMultiProcessor (device.cpp) in warps.
unsigned nwarpid() { return 1024 / 32; }

}  // namespace cuemu::ptx
