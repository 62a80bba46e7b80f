// <curand_mtgp32_host.h> for emulator builds: the host-side set-up of
// cuRAND's MTGP32 device API, as in the toolkit: curandMakeMTGP32Constants
// copies parameter sets into the device's layout, curandMakeMTGP32KernelState
// seeds one state per block (block i with parameter set i and seed
// (seed ^ seed >> 32) + i + 1, truncated to 32 bits), and mtgp32_init_state /
// mtgp32_init_by_array / mtgp32_init_by_str seed one state's words as MTGP's
// reference code does (an MT19937-style recurrence over the state, mixed with
// a word hidden in the parameter set). The host generator
// (src/curand/mtgp32.cpp) seeds its states with mtgp32_seed_states too.
#ifndef CUEMU_CURAND_MTGP32_HOST_H
#define CUEMU_CURAND_MTGP32_HOST_H
#define CURAND_MTGP32_HOST_H  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_runtime.h"
#include "curand.h"
#include "curand_mtgp32.h"
#include "curand_mtgp32dc_p_11213.h"

namespace cuemu {
namespace curand_detail {

// The words a state of Mersenne exponent mexp uses.
inline int mtgp32_words(const mtgp32_params_fast_t* para) { return para->mexp / 32 + 1; }

// Every state of a parameter set starts from a word the set hides in its
// recursion matrix, and from that word's byte sum in every byte.
inline unsigned int mtgp32_hidden_seed(const mtgp32_params_fast_t* para) {
    return para->tbl[4] ^ (para->tbl[8] << 16);
}
inline void mtgp32_fill_background(unsigned int state[], const mtgp32_params_fast_t* para) {
    unsigned int sum = mtgp32_hidden_seed(para);
    sum += sum >> 16;
    sum += sum >> 8;
    std::memset(state, sum & 0xff, sizeof(unsigned int) * mtgp32_words(para));
}

// MTGP's array seeding (init_by_array and init_by_str): the key's words are
// mixed into the state at a lag, twice round it. `key(j)` is word j.
template <class Key>
void mtgp32_seed_by_key(unsigned int state[], const mtgp32_params_fast_t* para, int length,
                        Key key) {
    const int size = mtgp32_words(para);
    const int lag = size >= 623 ? 11 : size >= 68 ? 7 : size >= 39 ? 5 : 3;
    const int mid = (size - lag) / 2;
    const auto mix1 = [](unsigned int x) { return (x ^ (x >> 27)) * 1664525u; };
    const auto mix2 = [](unsigned int x) { return (x ^ (x >> 27)) * 1566083941u; };
    mtgp32_fill_background(state, para);
    state[0] = mtgp32_hidden_seed(para);
    const int count = (length + 1 > size ? length + 1 : size) - 1;
    unsigned int r = mix1(state[0] ^ state[mid] ^ state[size - 1]);
    state[mid] += r;
    r += static_cast<unsigned int>(length);
    state[(mid + lag) % size] += r;
    state[0] = r;
    int i = 1;
    for (int j = 0; j < count; ++j) {
        r = mix1(state[i] ^ state[(i + mid) % size] ^ state[(i + size - 1) % size]);
        state[(i + mid) % size] += r;
        r += (j < length ? key(j) : 0u) + static_cast<unsigned int>(i);
        state[(i + mid + lag) % size] += r;
        state[i] = r;
        i = (i + 1) % size;
    }
    for (int j = 0; j < size; ++j) {
        r = mix2(state[i] + state[(i + mid) % size] + state[(i + size - 1) % size]);
        state[(i + mid) % size] ^= r;
        r -= static_cast<unsigned int>(i);
        state[(i + mid + lag) % size] ^= r;
        state[i] = r;
        i = (i + 1) % size;
    }
    if (state[size - 1] == 0) state[size - 1] = 0x4d544750u;  // "MTGP": never all zeros
}

}  // namespace curand_detail
}  // namespace cuemu

// One state's words from a 32-bit seed: the seed and the hidden word, then
// MT19937's initialisation recurrence over the rest.
static inline void mtgp32_init_state(unsigned int state[], const mtgp32_params_fast_t* para,
                                     unsigned int seed) {
    using namespace cuemu::curand_detail;
    const int size = mtgp32_words(para);
    mtgp32_fill_background(state, para);
    state[0] = seed;
    state[1] = mtgp32_hidden_seed(para);
    for (int i = 1; i < size; ++i)
        state[i] ^= 1812433253u * (state[i - 1] ^ (state[i - 1] >> 30)) + static_cast<unsigned int>(i);
}
static inline int mtgp32_init_by_array(unsigned int state[], const mtgp32_params_fast_t* para,
                                       unsigned int* array, int length) {
    cuemu::curand_detail::mtgp32_seed_by_key(state, para, length,
                                             [&](int j) { return array[j]; });
    return 0;
}
static inline int mtgp32_init_by_str(unsigned int state[], const mtgp32_params_fast_t* para,
                                     unsigned char* array) {
    const int length = static_cast<int>(std::strlen(reinterpret_cast<char*>(array)));
    cuemu::curand_detail::mtgp32_seed_by_key(state, para, length,
                                             [&](int j) { return static_cast<unsigned int>(array[j]); });
    return 0;
}

namespace cuemu {
namespace curand_detail {
// The first `blocks` parameter sets in the device's layout.
inline void mtgp32_lay_out(const mtgp32_params_fast_t params[], int blocks,
                           mtgp32_kernel_params_t& out) {
    std::memset(&out, 0, sizeof out);
    out.mask[0] = params[0].mask;
    for (int i = 0; i < blocks; ++i) {
        out.pos_tbl[i] = static_cast<unsigned int>(params[i].pos);
        out.sh1_tbl[i] = static_cast<unsigned int>(params[i].sh1);
        out.sh2_tbl[i] = static_cast<unsigned int>(params[i].sh2);
        for (int j = 0; j < TBL_SIZE; ++j) {
            out.param_tbl[i][j] = params[i].tbl[j];
            out.temper_tbl[i][j] = params[i].tmp_tbl[j];
            out.single_temper_tbl[i][j] = params[i].flt_tmp_tbl[j];
        }
    }
}
}  // namespace curand_detail
}  // namespace cuemu

namespace cuemu {
namespace curand_detail {
// States 0 to n - 1 as cuRAND seeds them: state i with parameter set i and
// the seed (seed ^ seed >> 32) + i + 1, in 32 bits; k is the device-layout
// parameter sets they will read. curandMakeMTGP32KernelState and the host
// generator (src/curand/mtgp32.cpp) both seed this way.
inline void mtgp32_seed_states(curandStateMtgp32_t* states, const mtgp32_params_fast_t params[],
                               mtgp32_kernel_params_t* k, int n, unsigned long long seed) {
    const unsigned int base = static_cast<unsigned int>(seed ^ (seed >> 32));
    for (int i = 0; i < n; ++i) {
        std::memset(states[i].s, 0, sizeof states[i].s);
        mtgp32_init_state(states[i].s, &params[i], base + static_cast<unsigned int>(i) + 1);
        states[i].offset = 0;
        states[i].pIdx = i;
        states[i].k = k;
    }
}
}  // namespace curand_detail
}  // namespace cuemu

// Copies the first `blocks` parameter sets into the device's layout at p
// (device memory), as curandMakeMTGP32Constants does for all 200.
static inline curandStatus_t curandMakeMTGP32ConstantsImpl(const mtgp32_params_fast_t params[],
                                                           mtgp32_kernel_params_t* p, int blocks) {
    mtgp32_kernel_params_t host;
    cuemu::curand_detail::mtgp32_lay_out(params, blocks, host);
    return cudaMemcpy(p, &host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess
               ? CURAND_STATUS_SUCCESS
               : CURAND_STATUS_INITIALIZATION_FAILED;
}
static inline curandStatus_t curandMakeMTGP32Constants(const mtgp32_params_fast_t params[],
                                                       mtgp32_kernel_params_t* p) {
    return curandMakeMTGP32ConstantsImpl(params, p, CURAND_NUM_MTGP32_PARAMS);
}

// Seeds n states (one per block; n at most 200) in device memory at s.
static inline curandStatus_t curandMakeMTGP32KernelState(curandStateMtgp32_t* s,
                                                         mtgp32_params_fast_t params[],
                                                         mtgp32_kernel_params_t* k, int n,
                                                         unsigned long long seed) {
    if (n < 0 || n > CURAND_NUM_MTGP32_PARAMS) {
        // The toolkit's would read past the table; say so instead.
        std::fprintf(stderr,
                     "cuemu: curandMakeMTGP32KernelState: %d states asked for; cuRAND's table has "
                     "200 parameter sets, one per state (block); the call returns "
                     "CURAND_STATUS_OUT_OF_RANGE\n", n);
        return CURAND_STATUS_OUT_OF_RANGE;
    }
    std::vector<curandStateMtgp32_t> host(static_cast<std::size_t>(n));
    cuemu::curand_detail::mtgp32_seed_states(host.data(), params, k, n, seed);
    return cudaMemcpy(s, host.data(), sizeof(curandStateMtgp32_t) * host.size(),
                      cudaMemcpyHostToDevice) == cudaSuccess
               ? CURAND_STATUS_SUCCESS
               : CURAND_STATUS_INITIALIZATION_FAILED;
}

#endif
