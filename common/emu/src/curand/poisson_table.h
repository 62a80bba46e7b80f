// poisson_table.h - the table libcurand's host generators draw Poisson
// numbers from at small lambda (poisson_table.cpp builds it and draws from it).
#ifndef CUEMU_CURAND_POISSON_TABLE_H
#define CUEMU_CURAND_POISSON_TABLE_H

#include <vector>

namespace cuemu::curand_host {

// A square histogram (an alias table): n columns of width 1/n, column j
// standing for the value first + j. A uniform u in column j gives first + j
// below keep[j], and first + other[j] from keep[j] on.
struct poisson_table {
    unsigned int first = 0;
    std::vector<double> keep;
    std::vector<unsigned int> other;
};

poisson_table make_poisson_table(double lambda);

// The draw at a uniform u in (0, 1].
unsigned int poisson_from_table_at(const poisson_table& table, double u);
// The draw from one raw 32-bit number at the uniform bits 2^-32 + 2^-32, as
// every generator's but MT19937's (measured).
unsigned int poisson_from_table(const poisson_table& table, unsigned int bits);
// MT19937's draw: at bits 2^-32 + 2^-33, its uniform doubles' value (measured:
// the other reading differs from libcurand's about once in 8 million draws at
// lambda 747 to 1999, where a number falls between the two readings of a
// column's edge).
unsigned int poisson_from_table_mt19937(const poisson_table& table, unsigned int bits);

}  // namespace cuemu::curand_host

#endif
