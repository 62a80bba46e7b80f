// mtgp32.h - the raw numbers of cuRAND's host-API MTGP32 generator
// (CURAND_RNG_PSEUDO_MTGP32), in libcurand's order (mtgp32.cpp).
//
// Measured against libcurand 10.4 (CUDA 13.0) with its host generator: 192
// MTGP32 states, state i with cuRAND's parameter set i, seeded as
// curandMakeMTGP32KernelState seeds block i ((seed ^ seed >> 32) + i + 1 in
// 32 bits); a round is 256 numbers of each state in turn, so numbers
// 49152 r + 256 i to 49152 r + 256 i + 255 are round r of state i, in
// thread order (what a kernel of 192 blocks of 256 threads calling curand
// once writes, thread by thread).
#ifndef CUEMU_CURAND_MTGP32_GENERATORS_H
#define CUEMU_CURAND_MTGP32_GENERATORS_H

#include <cstdint>
#include <memory>
#include <vector>

#include "curand_mtgp32.h"

namespace cuemu {
// Whether the emulator was built with cuRAND's MTGP32 table (src/curand_mtgp32_parameters.cpp).
bool mtgp32_table_available();
}  // namespace cuemu

namespace cuemu::curand_host {

class mtgp32_generators {
public:
    explicit mtgp32_generators(unsigned long long seed);
    // Raw number `position` of the generator's output (0 is the first after
    // the seed was set); positions must be asked for in increasing order.
    std::uint32_t at(unsigned long long position);

    static constexpr unsigned states = 192;
    static constexpr unsigned per_round = 256;  // numbers of one state in a round

private:
    void next_round();
    std::unique_ptr<mtgp32_kernel_params_t> params_;
    std::vector<curandStateMtgp32_t> states_;
    std::vector<std::uint32_t> round_;  // the last round made, states_ * per_round numbers
    unsigned long long rounds_made_ = 0;
};

}  // namespace cuemu::curand_host

#endif
