// thrust_histogram.cu - a Thrust program as a user writes it, built by
// bin/nvcc-emu from an nvcc command line (emu.driver.thrust_histogram): a
// dense histogram by sorting, searching and differencing on the device,
// checked against a loop on the CPU. Left out of the nvcc compile check (its
// CUB sort would cost CI about 10 s more): test_thrust.cu is the Thrust file
// nvcc compiles.
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 10007;
    const int bins = 37;
    thrust::host_vector<int> values(n);
    unsigned state = 12345;
    for (int& v : values) {
        state = state * 1664525u + 1013904223u;
        v = static_cast<int>((state >> 8) % bins);
    }
    std::vector<int> expected(bins, 0);
    for (int v : values) ++expected[v];

    thrust::device_vector<int> data = values;
    thrust::sort(data.begin(), data.end());
    thrust::device_vector<int> counts(bins);
    // The end of each bin's run in the sorted data, then run lengths.
    thrust::upper_bound(data.begin(), data.end(), thrust::make_counting_iterator(0),
                        thrust::make_counting_iterator(bins), counts.begin());
    thrust::adjacent_difference(counts.begin(), counts.end(), counts.begin());

    thrust::host_vector<int> got = counts;
    for (int b = 0; b < bins; ++b)
        if (got[b] != expected[b]) {
            std::printf("thrust_histogram: bin %d holds %d, the CPU counts %d\n", b, got[b],
                        expected[b]);
            return 1;
        }
    std::printf("thrust_histogram %d values in %d bins OK\n", n, bins);
    return 0;
}
