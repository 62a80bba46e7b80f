// sobol_directions.cpp - the direction vectors of cuRAND's Sobol generators
// (CURAND_DIRECTION_VECTORS_32_JOEKUO6 and _64_JOEKUO6), made from Joe and
// Kuo's primitive polynomials and initial direction numbers as Boost.Random
// ships them (<boost/random/detail/sobol_table.hpp>, "new-joe-kuo-6").
//
// Nothing is copied from cuRAND: each dimension's vectors follow from its
// polynomial by Sobol's recurrence (below). Checked against libcurand 10.4's
// curandGetDirectionVectors32/64: equal for every one of Boost's 3667
// dimensions, 32- and 64-bit (emu.curand.vs-libcurand prints a hash of them).
// libcurand's sets go on to 20000 dimensions; the emulator stops where
// Boost's table does, and says so.
#include "sobol_directions.h"

#include "scrambled_sobol.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if __has_include(<boost/random/detail/sobol_table.hpp>)
#include <boost/random/detail/sobol_table.hpp>
#define CUEMU_HAVE_SOBOL_TABLE 1
#endif

namespace cuemu::curand_host {
namespace {

#ifdef CUEMU_HAVE_SOBOL_TABLE
using joe_kuo_table = boost::random::detail::qrng_tables::sobol;

// Direction number m_k (an odd number below 2^(k+1)) for k = 0..Bits-1 of one
// dimension. Dimension 0 has m_k = 1 (van der Corput). Dimension d > 0 has a
// primitive polynomial x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1 (Boost keeps it
// as the bits of its coefficients, highest first) and s initial numbers; the
// rest follow Sobol's recurrence
//   m_k = m_(k-s) ^ (m_(k-s) << s) ^ XOR_(i=1..s-1) a_i (m_(k-i) << i).
template <int Bits>
void direction_numbers(unsigned int dimension, std::uint64_t (&m)[Bits]) {
    if (dimension == 0) {
        for (int k = 0; k < Bits; ++k) m[k] = 1;
        return;
    }
    const unsigned int polynomial = joe_kuo_table::polynomial(dimension - 1);
    int degree = 0;
    while (polynomial >> (degree + 1)) ++degree;
    for (int k = 0; k < degree && k < Bits; ++k) m[k] = joe_kuo_table::minit(dimension - 1, k);
    for (int k = degree; k < Bits; ++k) {
        std::uint64_t next = m[k - degree] ^ (m[k - degree] << degree);
        for (int i = 1; i < degree; ++i)
            if ((polynomial >> (degree - i)) & 1) next ^= m[k - i] << i;
        m[k] = next;
    }
}
constexpr unsigned int table_dimensions = joe_kuo_table::max_dimension;
#else
constexpr unsigned int table_dimensions = 0;
#endif

// Room for libcurand's 20000 dimensions of which only the first `readable`
// can be read: the array ends where a PROT_NONE reservation begins.
template <class Vectors>
Vectors* reserve_with_unreadable_tail(unsigned int readable) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t readable_bytes = (readable * sizeof(Vectors) + page - 1) / page * page;
    const std::size_t tail_bytes =
        ((curand_sobol_dimensions - readable) * sizeof(Vectors) + page - 1) / page * page;
    void* base = mmap(nullptr, readable_bytes + tail_bytes, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED ||
        (readable_bytes && mprotect(base, readable_bytes, PROT_READ | PROT_WRITE) != 0)) {
        std::fprintf(stderr, "cuemu: cuRAND: no memory for the Sobol direction vectors\n");
        std::abort();
    }
    char* end_of_readable = static_cast<char*>(base) + readable_bytes;
    return reinterpret_cast<Vectors*>(end_of_readable - readable * sizeof(Vectors));
}

template <class Vectors, class Word, int Bits>
const Vectors* make_directions() {
    Vectors* vectors = reserve_with_unreadable_tail<Vectors>(table_dimensions);
#ifdef CUEMU_HAVE_SOBOL_TABLE
    for (unsigned int d = 0; d < table_dimensions; ++d) {
        std::uint64_t m[Bits];
        direction_numbers<Bits>(d, m);
        // v_k = m_k / 2^(k+1) as a binary fraction of Bits bits.
        for (int k = 0; k < Bits; ++k) vectors[d][k] = static_cast<Word>(m[k] << (Bits - 1 - k));
    }
#endif
    return vectors;
}

}  // namespace

unsigned int sobol_dimensions() { return table_dimensions; }

const curandDirectionVectors32_t* sobol_directions32() {
    static const curandDirectionVectors32_t* vectors =
        make_directions<curandDirectionVectors32_t, unsigned int, 32>();
    return vectors;
}
const curandDirectionVectors64_t* sobol_directions64() {
    static const curandDirectionVectors64_t* vectors =
        make_directions<curandDirectionVectors64_t, unsigned long long, 64>();
    return vectors;
}

void report_missing_dimensions(const char* call, unsigned int asked) {
    if (table_dimensions == 0)
        std::fprintf(stderr,
                     "cuemu: %s: the emulator's cuRAND was built without Boost.Random's table of "
                     "Joe and Kuo's Sobol numbers (<boost/random/detail/sobol_table.hpp>), so it "
                     "has no Sobol dimensions; the call returns CURAND_STATUS_OUT_OF_RANGE\n",
                     call);
    else
        std::fprintf(stderr,
                     "cuemu: %s: %u dimensions asked; the emulator's Sobol generators have only "
                     "%u (Boost.Random's table of Joe and Kuo's numbers), libcurand's 20000; the "
                     "call returns CURAND_STATUS_OUT_OF_RANGE\n",
                     call, asked, table_dimensions);
}

}  // namespace cuemu::curand_host

using namespace cuemu::curand_host;

namespace {
// What each width's call answers to.
template <class Vectors>
struct vector_set;
template <>
struct vector_set<curandDirectionVectors32_t> {
    static constexpr curandDirectionVectorSet_t plain = CURAND_DIRECTION_VECTORS_32_JOEKUO6;
    static constexpr curandDirectionVectorSet_t scrambled = CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6;
    static constexpr const char* scrambled_name = "CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6";
    static const curandDirectionVectors32_t* vectors() { return sobol_directions32(); }
    static const curandDirectionVectors32_t* scrambled_vectors() { return scrambled_directions32(); }
};
template <>
struct vector_set<curandDirectionVectors64_t> {
    static constexpr curandDirectionVectorSet_t plain = CURAND_DIRECTION_VECTORS_64_JOEKUO6;
    static constexpr curandDirectionVectorSet_t scrambled = CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6;
    static constexpr const char* scrambled_name = "CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6";
    static const curandDirectionVectors64_t* vectors() { return sobol_directions64(); }
    static const curandDirectionVectors64_t* scrambled_vectors() { return scrambled_directions64(); }
};

template <class Vectors>
curandStatus_t get_directions(const char* call, Vectors* vectors[], curandDirectionVectorSet_t set) {
    using known = vector_set<Vectors>;
    // The scrambled vectors are cuRAND's table, all 20000 dimensions (scrambled_sobol.cpp).
    if (set == known::scrambled) {
        if (!scrambled_sobol_available()) {
            report_no_scrambled_tables(call, known::scrambled_name, "CURAND_STATUS_OUT_OF_RANGE");
            return CURAND_STATUS_OUT_OF_RANGE;
        }
        *vectors = const_cast<Vectors*>(known::scrambled_vectors());
        return CURAND_STATUS_SUCCESS;
    }
    if (set != known::plain) return CURAND_STATUS_OUT_OF_RANGE;  // as libcurand answers the other width
    if (sobol_dimensions() == 0) {
        report_missing_dimensions(call, 1);
        return CURAND_STATUS_OUT_OF_RANGE;
    }
    *vectors = const_cast<Vectors*>(known::vectors());
    return CURAND_STATUS_SUCCESS;
}
}  // namespace

curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t* vectors[],
                                           curandDirectionVectorSet_t set) {
    return get_directions("curandGetDirectionVectors32", vectors, set);
}
curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t* vectors[],
                                           curandDirectionVectorSet_t set) {
    return get_directions("curandGetDirectionVectors64", vectors, set);
}
