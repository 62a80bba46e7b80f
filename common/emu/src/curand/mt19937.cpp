// mt19937.cpp - cuRAND's host-API MT19937: 8192 Mersenne Twisters 2^2048
// steps apart, read in libcurand's order (mt19937.h says which). The twister
// is Matsumoto and Nishimura's MT19937; the jump is computed here, not read
// from any table: Berlekamp-Massey finds the characteristic polynomial p of
// degree 19937 from 2 x 19937 output bits, x^(2^2048) mod p comes from 2048
// squarings, and a state moves on by that polynomial q as
// state'[k] = XOR of x[i + k] over the i where q has a 1, x being the
// untempered sequence from the state.
#include "mt19937.h"

#include <cstring>
#include <mutex>

namespace cuemu::curand_host {
namespace {

constexpr unsigned words_per_state = 624, middle = 397;
constexpr unsigned degree = 19937;  // of the characteristic polynomial
constexpr unsigned jump_log2 = 2048;
using word = std::uint64_t;  // polynomials over GF(2), 64 coefficients a word

std::uint32_t twisted(std::uint32_t current, std::uint32_t next, std::uint32_t far) {
    const std::uint32_t y = (current & 0x80000000u) | (next & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}
std::uint32_t tempered(std::uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}
std::vector<std::uint32_t> seeded(std::uint32_t seed) {
    std::vector<std::uint32_t> state(words_per_state);
    state[0] = seed;
    for (unsigned i = 1; i < words_per_state; ++i)
        state[i] = 1812433253u * (state[i - 1] ^ (state[i - 1] >> 30)) + i;
    return state;
}
// The untempered sequence x[0 .. length) that starts with the state's words.
std::vector<std::uint32_t> untempered(const std::vector<std::uint32_t>& state, std::size_t length) {
    std::vector<std::uint32_t> x(length);
    std::memcpy(x.data(), state.data(), words_per_state * sizeof(std::uint32_t));
    for (std::size_t i = words_per_state; i < length; ++i)
        x[i] = twisted(x[i - words_per_state], x[i - words_per_state + 1],
                       x[i - words_per_state + middle]);
    return x;
}
// The next 624 words, in place.
void next_block(std::vector<std::uint32_t>& w) {
    for (unsigned i = 0; i < words_per_state; ++i)
        w[i] = twisted(w[i], w[(i + 1) % words_per_state], w[(i + middle) % words_per_state]);
}

// into[i] ^= from[i]: the inner loop of the jump's squarings, vectorised wider where the CPU can.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void add_words(word* into, const word* from, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) into[i] ^= from[i];
}

bool bit(const std::vector<word>& v, std::size_t i) { return (v[i / 64] >> (i % 64)) & 1u; }
// 64 bits of v from bit `at` on (v padded with a zero word).
word bits_from(const std::vector<word>& v, std::size_t at) {
    const std::size_t w = at / 64, s = at % 64;
    return s ? (v[w] >> s) | (v[w + 1] << (64 - s)) : v[w];
}
// target ^= source * x^shift, for source's first `words` words.
void add_shifted(std::vector<word>& target, const std::vector<word>& source, std::size_t words,
                 std::size_t shift) {
    const std::size_t w = shift / 64, s = shift % 64;
    for (std::size_t i = 0; i < words && i + w < target.size(); ++i) {
        target[i + w] ^= source[i] << s;
        if (s && i + w + 1 < target.size()) target[i + w + 1] ^= source[i] >> (64 - s);
    }
}

// MT19937's characteristic polynomial: the shortest linear recurrence of the
// low bit of its untempered words (Berlekamp-Massey, bits packed in words).
std::vector<word> characteristic_polynomial() {
    // From the first twisted word on: the seed's first word is not all state.
    const std::size_t length = 2 * degree + 64, words = length / 64 + 4;
    const std::vector<std::uint32_t> x = untempered(seeded(5489u), words_per_state + length);
    std::vector<word> reversed(words, 0);  // bit k is the low bit of x[624 + length - 1 - k]
    for (std::size_t k = 0; k < length; ++k)
        if (x[words_per_state + length - 1 - k] & 1u) reversed[k / 64] |= word(1) << (k % 64);
    std::vector<word> c(words, 0), b(words, 0);
    c[0] = b[0] = 1;
    std::size_t found = 0, since = 1;
    for (std::size_t n = 0; n < length; ++n) {
        // The discrepancy: sum over i <= found of c_i * s[n - i].
        word sum = 0;
        for (std::size_t q = 0; q <= found / 64; ++q) sum ^= c[q] & bits_from(reversed, length - 1 - n + 64 * q);
        if (!(__builtin_popcountll(sum) & 1)) {
            ++since;
            continue;
        }
        if (2 * found <= n) {
            const std::vector<word> before = c;
            add_shifted(c, b, words, since);
            found = n + 1 - found;
            b = before;
            since = 1;
        } else {
            add_shifted(c, b, words, since);
            ++since;
        }
    }
    // p_i = c_(found - i); found is the degree, 19937.
    std::vector<word> p(degree / 64 + 2, 0);
    for (std::size_t i = 0; i <= found; ++i)
        if (bit(c, found - i)) p[i / 64] |= word(1) << (i % 64);
    return p;
}

// x^(2^2048) mod p. A square's coefficients above the degree are folded back
// a byte at a time with tables of byte * x^(64 * reduced_from + 8j) mod p.
std::vector<word> jump_polynomial() {
    const std::vector<word> p = characteristic_polynomial();
    constexpr std::size_t words = (degree + 63) / 64;  // 312: a polynomial of degree < 19937
    constexpr std::size_t reduced_from = words;         // first word wholly above the degree
    // powers[e] = x^(degree + e) mod p for e < 31 + 64 + 1.
    std::vector<std::vector<word>> powers;
    std::vector<word> t(words + 1, 0);
    t[(degree - 1) / 64] = word(1) << ((degree - 1) % 64);
    for (unsigned e = 0; e < 31 + 64; ++e) {
        for (std::size_t i = words; i > 0; --i) t[i] = (t[i] << 1) | (t[i - 1] >> 63);
        t[0] <<= 1;
        if (bit(t, degree))
            for (std::size_t i = 0; i < p.size() && i < t.size(); ++i) t[i] ^= p[i];
        powers.push_back(std::vector<word>(t.begin(), t.begin() + words));
    }
    // byte_table[j][v] = v(x) * x^(64 * reduced_from + 8j) mod p.
    std::vector<std::vector<word>> byte_table(8 * 256, std::vector<word>(words, 0));
    for (unsigned j = 0; j < 8; ++j)
        for (unsigned v = 1; v < 256; ++v) {
            const unsigned low = v & (0u - v), low_bit = __builtin_ctz(low);
            std::vector<word>& entry = byte_table[j * 256 + v];
            entry = byte_table[j * 256 + (v ^ low)];
            const std::vector<word>& power = powers[64 * reduced_from + 8 * j + low_bit - degree];
            for (std::size_t i = 0; i < words; ++i) entry[i] ^= power[i];
        }
    auto spread = [](std::uint32_t half) {
        word v = half;
        v = (v | (v << 16)) & 0x0000FFFF0000FFFFull;
        v = (v | (v << 8)) & 0x00FF00FF00FF00FFull;
        v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0Full;
        v = (v | (v << 2)) & 0x3333333333333333ull;
        return (v | (v << 1)) & 0x5555555555555555ull;
    };
    std::vector<word> q(words, 0), square(2 * words, 0);
    q[0] = 2;  // x
    for (unsigned step = 0; step < jump_log2; ++step) {
        for (std::size_t i = 0; i < words; ++i) {
            square[2 * i] = spread(static_cast<std::uint32_t>(q[i]));
            square[2 * i + 1] = spread(static_cast<std::uint32_t>(q[i] >> 32));
        }
        for (std::size_t w = 2 * words - 1; w >= reduced_from; --w) {
            const word high = square[w];
            square[w] = 0;
            for (unsigned j = 0; j < 8; ++j)
                if (const unsigned v = (high >> (8 * j)) & 0xff)
                    add_words(&square[w - reduced_from], byte_table[j * 256 + v].data(), words);
        }
        for (unsigned e = 64 * reduced_from - degree; e-- > 0;)
            if (bit(square, degree + e)) {
                square[(degree + e) / 64] ^= word(1) << ((degree + e) % 64);
                for (std::size_t i = 0; i < words; ++i) square[i] ^= powers[e][i];
            }
        std::copy(square.begin(), square.begin() + words, q.begin());
    }
    return q;
}

const std::vector<word>& jump() {
    static std::once_flag once;
    static std::vector<word> q;
    std::call_once(once, [] { q = jump_polynomial(); });
    return q;
}

// The state 2^2048 steps on. Four coefficients of q at a time: sums of
// x[m + j] over each set of j < 4 are made once, then each group of four adds
// one of them.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
std::vector<std::uint32_t>
jumped(const std::vector<std::uint32_t>& state) {
    const std::vector<word>& q = jump();
    const std::size_t length = degree + words_per_state + 4;
    const std::vector<std::uint32_t> x = untempered(state, length);
    std::vector<std::uint32_t> sums(16 * length, 0);
    for (unsigned set = 1; set < 16; ++set) {
        const unsigned low = set & (0u - set), j = __builtin_ctz(low);
        const std::uint32_t* rest = &sums[(set ^ low) * length];
        std::uint32_t* into = &sums[set * length];
        for (std::size_t m = 0; m + j < length; ++m) into[m] = rest[m] ^ x[m + j];
    }
    std::vector<std::uint32_t> result(words_per_state, 0);
    for (std::size_t i = 0; i < degree; i += 4) {
        const unsigned set = (q[i / 64] >> (i % 64)) & 0xf;
        if (!set) continue;
        const std::uint32_t* from = &sums[set * length + i];
        for (unsigned k = 0; k < words_per_state; ++k) result[k] ^= from[k];
    }
    return result;
}

// Where each round of eight of a 624-word block reads (see mt19937.h).
constexpr unsigned first_round[8] = {0, 113, 170, 283, 340, 397, 510, 567};
constexpr unsigned run_starts[11] = {1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568};
constexpr unsigned rounds_per_block = words_per_state / mt19937_generators::per_turn;  // 78

}  // namespace

mt19937_generators::mt19937_generators(unsigned long long seed)
    : last_start_(seeded(static_cast<std::uint32_t>(seed))) {
    made_.push_back({last_start_, 0});
}

mt19937_generators::twister& mt19937_generators::generator(unsigned index) {
    while (made_.size() <= index) {
        last_start_ = jumped(last_start_);
        made_.push_back({last_start_, 0});
    }
    return made_[index];
}

std::uint32_t mt19937_generators::at(unsigned long long position) {
    const unsigned long long round = position / (per_turn * count);
    const unsigned thread = position % per_turn;
    twister& g = generator(static_cast<unsigned>((position / per_turn) % count));
    const unsigned long long block = round / rounds_per_block + 1;
    const unsigned in_block = round % rounds_per_block;
    const unsigned index = in_block == 0 ? first_round[thread]
                                         : run_starts[(in_block - 1) / 7] + 7 * thread + (in_block - 1) % 7;
    while (g.block < block) next_block(g.words), ++g.block;
    return tempered(g.words[index]);
}

}  // namespace cuemu::curand_host
