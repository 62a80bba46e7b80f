// mtgp32.cpp - cuRAND's host-API MTGP32 generator: 192 device-API MTGP32
// states run a round at a time (the order is in mtgp32.h). The recursion is
// the device API's own (mtgp32_step in <curand_mtgp32_kernel.h>), so a
// kernel drawing from states made by curandMakeMTGP32KernelState with the
// same seed gets these numbers.
#include "mtgp32.h"

#include <cstdio>
#include <cstdlib>

#include "curand_kernel.h"
#include "curand_mtgp32_host.h"

namespace cuemu::curand_host {

mtgp32_generators::mtgp32_generators(unsigned long long seed)
    : params_(std::make_unique<mtgp32_kernel_params_t>()), states_(states),
      round_(std::size_t{states} * per_round) {
    mtgp32_params_fast_t* sets = ::cuemu::mtgp32_parameter_sets();
    cuemu::curand_detail::mtgp32_lay_out(sets, states, *params_);
    cuemu::curand_detail::mtgp32_seed_states(states_.data(), sets, params_.get(), states, seed);
}

void mtgp32_generators::next_round() {
    for (unsigned i = 0; i < states; ++i) {
        curandStateMtgp32_t& s = states_[i];
        for (unsigned t = 0; t < per_round; ++t)
            round_[i * per_round + t] = cuemu::curand_detail::mtgp32_step(&s, t);
        s.offset = (s.offset + per_round) & MTGP32_STATE_MASK;
    }
    ++rounds_made_;
}

std::uint32_t mtgp32_generators::at(unsigned long long position) {
    const unsigned long long size = round_.size();
    const unsigned long long round = position / size;
    if (round + 1 < rounds_made_) {
        std::fprintf(stderr, "cuemu: internal error: MTGP32 number %llu asked for after round %llu\n",
                     position, rounds_made_ - 1);
        std::abort();
    }
    while (rounds_made_ < round + 1) next_round();
    return round_[position % size];
}

}  // namespace cuemu::curand_host
