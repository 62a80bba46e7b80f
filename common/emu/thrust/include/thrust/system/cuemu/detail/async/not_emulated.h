// thrust::async and thrust::future: CUDA 13's Thrust (3.0) removed them, and
// the emulator does not have them either.
#pragma once

#error "thrust::async and thrust::future are not emulated (CUDA 13's Thrust removed them): call the algorithm with thrust::cuda::par_nosync.on(stream) and synchronize the stream"
