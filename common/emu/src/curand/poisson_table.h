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

// The draw from one raw 32-bit number (its uniform is bits 2^-32 + 2^-32).
unsigned int poisson_from_table(const poisson_table& table, unsigned int bits);

}  // namespace cuemu::curand_host

#endif
