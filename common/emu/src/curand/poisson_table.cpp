// poisson_table.cpp - owns the square-histogram table of the host API's
// Poisson numbers: how libcurand builds it for a lambda and how a raw number
// draws from it. Which generator uses it below which lambda is in
// host_layouts.cpp.
//
// The rule was found by measurement against libcurand 10.4 (CUDA 13.0): the
// table was read off from the raw numbers and Poisson numbers of the same
// seed, and Sobol32's points, which can be chosen one by one, put a raw
// number on each side of every column's edge. Nothing is copied from
// libcurand; the steps are Marsaglia, Tsang and Wang's square histogram
// ("Fast generation of discrete random variables", J. Stat. Software 2004)
// with libcurand's choices:
//   - the columns: one per value k whose probability
//     exp(k ln lambda - lambda - lgamma(k + 1)) is not 0 in double, from the
//     first such k to the last (at lambda 5: 0 to 252, 253 columns);
//   - the pairing: the columns holding at least a width are the donors, the
//     highest-numbered one giving first. Sweeps over the columns in
//     increasing order fill each column still short of a width from the
//     current donor; a donor left short is filled by a later sweep (or by
//     this one, if the sweep has not passed it yet). Sweeps end when a sweep
//     fills nothing or no donor is left.
#include "poisson_table.h"

#include <cmath>
#include <cstddef>

namespace cuemu::curand_host {

poisson_table make_poisson_table(double lambda) {
    poisson_table table;
    std::vector<double> mass;
    bool started = false;
    for (unsigned int k = 0;; ++k) {
        const double p = std::exp(k * std::log(lambda) - lambda - std::lgamma(k + 1.0));
        if (p > 0) {
            if (!started) table.first = k;
            started = true;
            mass.push_back(p);
        } else if (started) {
            break;
        }
    }
    const std::size_t n = mass.size();
    const double width = 1.0 / static_cast<double>(n);
    table.keep.resize(n);
    table.other.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
        table.keep[j] = static_cast<double>(j + 1) * width;
        table.other[j] = static_cast<unsigned int>(j);
    }
    std::vector<std::size_t> donors;
    for (std::size_t j = 0; j < n; ++j)
        if (mass[j] >= width) donors.push_back(j);
    std::vector<bool> filled(n, false);
    for (bool any = true; any && !donors.empty();) {
        any = false;
        for (std::size_t j = 0; j < n && !donors.empty(); ++j) {
            if (filled[j] || mass[j] >= width) continue;
            const std::size_t donor = donors.back();
            table.other[j] = static_cast<unsigned int>(donor);
            table.keep[j] = static_cast<double>(j) * width + mass[j];
            mass[donor] -= width - mass[j];
            mass[j] = width;
            filled[j] = true;
            any = true;
            if (mass[donor] < width) donors.pop_back();
        }
    }
    return table;
}

unsigned int poisson_from_table_at(const poisson_table& table, double u) {
    const std::size_t n = table.keep.size();
    const auto j = static_cast<std::size_t>(std::floor(static_cast<double>(n) * u));
    // Only u = 1 (bits 0xffffffff at + 2^-32) lies past the last column:
    // libcurand gives the table's first value there (measured with XORWOW at
    // lambdas 0.5 to 1999, the first value 0 to 549).
    if (j >= n) return table.first;
    return table.first + (u < table.keep[j] ? static_cast<unsigned int>(j) : table.other[j]);
}

unsigned int poisson_from_table(const poisson_table& table, unsigned int bits) {
    return poisson_from_table_at(table, bits * 0x1p-32 + 0x1p-32);
}

unsigned int poisson_from_table_mt19937(const poisson_table& table, unsigned int bits) {
    return poisson_from_table_at(table, bits * 0x1p-32 + 0x1p-33);
}

}  // namespace cuemu::curand_host
