// mt19937.h - the raw numbers of cuRAND's host-API MT19937 generator
// (CURAND_RNG_PSEUDO_MT19937), in libcurand's order (mt19937.cpp).
//
// Measured against libcurand 10.4 (CUDA 13.0) with its host generator:
//   - 8192 Mersenne Twisters, generator g started g * 2^2048 steps after the
//     first, which is the reference MT19937 (std::mt19937) seeded with the
//     seed's low 32 bits;
//   - eight numbers at a time from each generator in turn (numbers o to o + 7,
//     o a multiple of 8, come from generator (o / 8) mod 8192), taken from
//     each 624-number block of a generator in the order eight cooperating
//     threads compute it: first the block's numbers 0, 113, 170, 283, 340,
//     397, 510 and 567, then, in 77 rounds of eight, number s + 7t + j for
//     thread t, where s runs through 1, 57, 114, 171, 227, 284, 341, 398, 454,
//     511 and 568 and j through 0 to 6 (this is also the order rocRAND
//     documents for its MT19937).
// The jump of 2^2048 steps is the polynomial x^(2^2048) modulo MT19937's
// characteristic polynomial, both computed at the first use (the polynomial
// by Berlekamp-Massey from the generator's own output); each generator's state
// is then made from the one before it as it is first needed.
#ifndef CUEMU_CURAND_MT19937_H
#define CUEMU_CURAND_MT19937_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuemu::curand_host {

class mt19937_generators {
public:
    explicit mt19937_generators(unsigned long long seed);
    // Raw number `position` of the generator's whole output (0 is the first
    // after the seed was set). Positions must be asked for in increasing order
    // within each generator (they are, when asked for in increasing order).
    std::uint32_t at(unsigned long long position);

    static constexpr unsigned count = 8192;  // generators
    static constexpr unsigned per_turn = 8;  // numbers from one generator in a row

private:
    struct twister {
        std::vector<std::uint32_t> words;  // the current block's 624 untempered words
        unsigned long long block = 0;      // how many blocks were made from the state
    };
    twister& generator(unsigned index);
    std::vector<twister> made_;  // generators 0 .. made_.size() - 1
    std::vector<std::uint32_t> last_start_;  // the last made generator's first state
};

}  // namespace cuemu::curand_host

#endif
