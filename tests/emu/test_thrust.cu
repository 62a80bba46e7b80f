// test_thrust.cu - Thrust on the emulator (common/emu/thrust): device_vector
// memory is the emulator's device memory (cudaMalloc's, closed to the host,
// open to kernels), its pointers go into hand-written kernels and back, and
// each algorithm gives what a plain CPU loop gives, at sizes that are not
// multiples of anything (1, 1000, 1023, 100003). Genuine Thrust code: it also
// compiles with nvcc (emu_tests_nvcc_compile_check, with --extended-lambda),
// and uses two things of CUDA 13's Thrust that Debian's 1.17 lacks
// (inclusive_scan with an initial value, structured bindings of a tuple) and
// two its headers bring in (cuda::std::plus, cuda::proclaim_return_type).
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/generate.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "stderr_capture.h"

namespace {

const int sizes[] = {1, 1000, 1023, 100003};

// Fresh values in [-1000, 1000], different for each size.
std::vector<int> random_ints(int n, unsigned salt = 0) {
    std::mt19937 gen(static_cast<unsigned>(n) * 7919u + salt);
    std::uniform_int_distribution<int> value(-1000, 1000);
    std::vector<int> v(n);
    for (int& x : v) x = value(gen);
    return v;
}

std::vector<int> to_std(const thrust::device_vector<int>& d) {
    thrust::host_vector<int> h = d;
    return std::vector<int>(h.begin(), h.end());
}

struct square_plus_one {
    __host__ __device__ long long operator()(int x) const { return 1LL * x * x + 1; }
};
struct is_odd {
    __host__ __device__ bool operator()(int x) const { return x % 2 != 0; }
};
struct weighted_sum {  // a zip_iterator's element: (a, b) -> 3a - b
    __host__ __device__ int operator()(const thrust::tuple<int, int>& t) const {
        return 3 * thrust::get<0>(t) - thrust::get<1>(t);
    }
};

__global__ void add_index(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += i;
}

// The host reading device_vector's memory through a raw pointer is reading
// device memory on the host: the emulator stops it, as a GPU program crashes.
void host_reads_device_vector_memory() {
    thrust::device_vector<int> d(1000, 7);
    const int* raw = thrust::raw_pointer_cast(d.data());
    std::fprintf(stderr, "read %d\n", raw[3]);
}

// A __device__ lambda that reads past the end of the device_vector it was
// given: the algorithm's device work faults, and the report names the
// algorithm, the lambda's line and the buffer.
void lambda_reads_past_the_end() {
    thrust::device_vector<int> d(100, 1);
    const int* raw = thrust::raw_pointer_cast(d.data());
    thrust::transform(d.begin(), d.end(), d.begin(),
                      [=] __device__(int x) { return raw[x + 2000]; });  // 8000 bytes on
    std::fprintf(stderr, "transform returned\n");
}

}  // namespace

// First: run_in_child forks before this process makes any CUDA call.
TEST_CASE("the host reading device_vector memory through a raw pointer is reported") {
    child_result r = run_in_child(host_reads_device_vector_memory);
    CHECK(WIFSIGNALED(r.status));
    CHECK(r.err.find("read 7") == std::string::npos);
#ifdef CUEMU  // the emulator's report; on an H200 the child died of the signal alone
    CHECK(r.err.find("device memory") != std::string::npos);
    CHECK(r.err.find("cudaMalloc") != std::string::npos);
#endif
}

// Emulator-only: on an H200 the read 8000 bytes past the buffer found other
// memory, and the transform returned.
TEST_CASE("an algorithm whose lambda reads past the end of device memory is reported" *
          doctest::test_suite("emulator-only")) {
    child_result r = run_in_child(lambda_reads_past_the_end);
    CHECK(WIFSIGNALED(r.status));
    CHECK(r.err.find("transform returned") == std::string::npos);
    CHECK(r.err.find("thrust::transform faulted") != std::string::npos);
    CHECK(r.err.find("test_thrust.cu") != std::string::npos);
    CHECK(r.err.find("past the end of a 400-byte buffer from cudaMalloc") != std::string::npos);
}

TEST_CASE("device_vector memory is device memory; its pointer goes into a kernel and back") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n);
        thrust::device_vector<int> d(input.begin(), input.end());
        int* raw = thrust::raw_pointer_cast(d.data());

        cudaPointerAttributes attributes{};
        REQUIRE(cudaPointerGetAttributes(&attributes, raw) == cudaSuccess);
        CHECK(attributes.type == cudaMemoryTypeDevice);

        add_index<<<(n + 255) / 256, 256>>>(raw, n);
        REQUIRE(cudaGetLastError() == cudaSuccess);
        std::vector<int> expected(input);
        for (int i = 0; i < n; ++i) expected[i] += i;
        CHECK(to_std(d) == expected);

        // Memory from cudaMalloc, used by Thrust through a device_ptr.
        int* plain = nullptr;
        REQUIRE(cudaMalloc(&plain, n * sizeof(int)) == cudaSuccess);
        REQUIRE(cudaMemcpy(plain, input.data(), n * sizeof(int), cudaMemcpyHostToDevice) ==
                cudaSuccess);
        thrust::device_ptr<int> p = thrust::device_pointer_cast(plain);
        long long sum = 0;
        for (int x : input) sum += x;
        CHECK(thrust::reduce(p, p + n, 0LL) == sum);
        CHECK(cudaFree(plain) == cudaSuccess);
    }
}

TEST_CASE("element access, resize and copies between host and device") {
    thrust::device_vector<int> d(5, 1);
    d[2] = 40;
    CHECK(d[2] == 40);
    CHECK(d[1] == 1);
    d.resize(1023, 9);
    CHECK(d.size() == 1023u);
    CHECK(d[1022] == 9);
    std::vector<int> from_std(1023);
    thrust::copy(d.begin(), d.end(), from_std.begin());
    CHECK(from_std[2] == 40);
    CHECK(from_std[700] == 9);
    thrust::host_vector<int> h(3);
    h[0] = 5, h[1] = 6, h[2] = 7;
    thrust::copy(h.begin(), h.end(), d.begin() + 100);
    CHECK(d[101] == 6);
}

TEST_CASE("reduce, transform_reduce, inner_product, count_if and extrema equal CPU loops") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n), other = random_ints(n, 1);
        thrust::device_vector<int> d(input.begin(), input.end()), e(other.begin(), other.end());
        long long sum = 0, squares = 0, dot = 0;
        int odd = 0, smallest = input[0], largest = input[0];
        for (int i = 0; i < n; ++i) {
            sum += input[i];
            squares += 1LL * input[i] * input[i] + 1;
            dot += 1LL * input[i] * other[i];
            odd += input[i] % 2 != 0;
            smallest = std::min(smallest, input[i]);
            largest = std::max(largest, input[i]);
        }
        CHECK(thrust::reduce(d.begin(), d.end(), 0LL) == sum);
        CHECK(thrust::reduce(thrust::device, d.begin(), d.end(), smallest,
                             thrust::maximum<int>()) == largest);
        CHECK(thrust::transform_reduce(d.begin(), d.end(), square_plus_one(), 0LL,
                                       thrust::plus<long long>()) == squares);
        CHECK(thrust::inner_product(d.begin(), d.end(), e.begin(), 0LL) == dot);
        CHECK(thrust::count_if(d.begin(), d.end(), is_odd()) == odd);
        CHECK(*thrust::min_element(d.begin(), d.end()) == smallest);
        CHECK(*thrust::max_element(d.begin(), d.end()) == largest);
    }
}

TEST_CASE("transform with a functor and a __device__ lambda, sequence and fill") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n);
        thrust::device_vector<int> d(input.begin(), input.end()), out(n, -1);
        thrust::transform(thrust::cuda::par, d.begin(), d.end(), out.begin(),
                          [] __host__ __device__(int x) { return 2 * x - 3; });
        std::vector<int> expected(n);
        for (int i = 0; i < n; ++i) expected[i] = 2 * input[i] - 3;
        CHECK(to_std(out) == expected);

        thrust::transform(d.begin(), d.end(), out.begin(), out.begin(), thrust::plus<int>());
        for (int i = 0; i < n; ++i) expected[i] += input[i];
        CHECK(to_std(out) == expected);

        thrust::sequence(out.begin(), out.end(), 5, 3);
        for (int i = 0; i < n; ++i) expected[i] = 5 + 3 * i;
        CHECK(to_std(out) == expected);

        thrust::fill(out.begin(), out.end(), 11);
        CHECK(to_std(out) == std::vector<int>(n, 11));
    }
}

// A __host__ __device__ functor that tests __CUDA_ARCH__ takes its device
// branch when a device algorithm calls it, as in the Thrust kernels a GPU runs,
// and sees a sensible thread index there; on the host, its host branch.
struct which_side {
    int calls = 0;
    __host__ __device__ int operator()() {
#ifdef __CUDA_ARCH__
        int side = threadIdx.x < blockDim.x && blockIdx.x < gridDim.x ? 1 : -1;
        calls += blockDim.x * gridDim.x;
#else
        int side = 2;
#endif
        return side;
    }
};

TEST_CASE("a functor's #ifdef __CUDA_ARCH__ takes the device branch in device algorithms") {
    thrust::device_vector<int> d(1000, 0);
    thrust::generate(d.begin(), d.end(), which_side{});
    CHECK(to_std(d) == std::vector<int>(1000, 1));
    thrust::host_vector<int> h(10, 0);
    thrust::generate(h.begin(), h.end(), which_side{});
    CHECK(std::vector<int>(h.begin(), h.end()) == std::vector<int>(10, 2));
    which_side on_host;
    CHECK(on_host() == 2);
}

// CUDA 13's Thrust brings in libcu++'s function objects and
// cuda::proclaim_return_type (a __device__ lambda's result type told to Thrust).
TEST_CASE("cuda::std function objects and cuda::proclaim_return_type with Thrust") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n);
        thrust::device_vector<int> d(input.begin(), input.end());
        thrust::device_vector<float> halves(n);
        thrust::transform(d.begin(), d.end(), halves.begin(),
                          cuda::proclaim_return_type<float>([] __device__(int x) { return 0.5f * x; }));
        std::vector<float> expected(n);
        for (int i = 0; i < n; ++i) expected[i] = 0.5f * input[i];
        thrust::host_vector<float> got = halves;
        CHECK(std::vector<float>(got.begin(), got.end()) == expected);
        long long sum = 0;
        for (int x : input) sum += x;
        CHECK(thrust::reduce(d.begin(), d.end(), 0LL, cuda::std::plus<long long>()) == sum);
    }
}

TEST_CASE("inclusive and exclusive scans equal CPU loops") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n);
        thrust::device_vector<int> d(input.begin(), input.end()), out(n, -1);
        std::vector<int> inclusive(n), exclusive(n);
        int running = 0;
        for (int i = 0; i < n; ++i) {
            exclusive[i] = running + 10;
            running += input[i];
            inclusive[i] = running;
        }
        thrust::inclusive_scan(d.begin(), d.end(), out.begin());
        CHECK(to_std(out) == inclusive);
        thrust::exclusive_scan(d.begin(), d.end(), out.begin(), 10);
        CHECK(to_std(out) == exclusive);
        // With an initial value (newer Thrust; the emulator adds it to 1.17).
        thrust::inclusive_scan(d.begin(), d.end(), out.begin(), 7, thrust::plus<int>());
        std::vector<int> from_seven(n);
        for (int i = 0, sum = 7; i < n; ++i) from_seven[i] = sum += input[i];
        CHECK(to_std(out) == from_seven);
        thrust::inclusive_scan(d.begin(), d.end(), d.begin());  // in place
        CHECK(to_std(d) == inclusive);
    }
}

TEST_CASE("sort, sort_by_key and stable_sort_by_key equal std::sort") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n);
        thrust::device_vector<int> d(input.begin(), input.end());
        std::vector<int> expected(input);
        std::sort(expected.begin(), expected.end());
        thrust::sort(d.begin(), d.end());
        CHECK(to_std(d) == expected);
        thrust::sort(thrust::device, d.begin(), d.end(), thrust::greater<int>());
        std::reverse(expected.begin(), expected.end());
        CHECK(to_std(d) == expected);

        // Keys with repeats, values their original places: a stable sort
        // keeps equal keys in that order.
        std::vector<std::pair<int, int>> pairs(n);
        for (int i = 0; i < n; ++i) pairs[i] = {input[i] / 10, i};
        thrust::host_vector<int> host_keys(n);
        for (int i = 0; i < n; ++i) host_keys[i] = pairs[i].first;
        thrust::device_vector<int> keys = host_keys, values(n);
        thrust::sequence(values.begin(), values.end());
        std::stable_sort(pairs.begin(), pairs.end(),
                         [](auto a, auto b) { return a.first < b.first; });
        thrust::stable_sort_by_key(keys.begin(), keys.end(), values.begin());
        std::vector<int> sorted_keys(n), sorted_values(n);
        for (int i = 0; i < n; ++i) sorted_keys[i] = pairs[i].first, sorted_values[i] = pairs[i].second;
        CHECK(to_std(keys) == sorted_keys);
        CHECK(to_std(values) == sorted_values);

        // Distinct keys (a permutation): sort_by_key's order is the only one.
        std::vector<int> permutation(n);
        for (int i = 0; i < n; ++i) permutation[i] = i;
        std::shuffle(permutation.begin(), permutation.end(), std::mt19937(n));
        thrust::device_vector<int> distinct(permutation.begin(), permutation.end());
        thrust::device_vector<int> payload(n);
        thrust::transform(distinct.begin(), distinct.end(), payload.begin(),
                          [] __device__(int k) { return 100 * k + 1; });
        thrust::sort_by_key(distinct.begin(), distinct.end(), payload.begin());
        std::vector<int> expected_payload(n);
        for (int i = 0; i < n; ++i) expected_payload[i] = 100 * i + 1;
        CHECK(to_std(payload) == expected_payload);
    }
}

TEST_CASE("copy_if, remove_if and unique equal CPU loops") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n);
        thrust::device_vector<int> d(input.begin(), input.end()), out(n, -1);
        std::vector<int> odd, even;
        for (int x : input) (x % 2 != 0 ? odd : even).push_back(x);

        auto end = thrust::copy_if(d.begin(), d.end(), out.begin(), is_odd());
        CHECK(end - out.begin() == static_cast<long>(odd.size()));
        out.resize(end - out.begin());
        CHECK(to_std(out) == odd);

        thrust::device_vector<int> kept = d;
        kept.erase(thrust::remove_if(kept.begin(), kept.end(), is_odd()), kept.end());
        CHECK(to_std(kept) == even);

        std::vector<int> runs(input);
        for (int& x : runs) x /= 100;  // long runs of equal values
        thrust::device_vector<int> u(runs.begin(), runs.end());
        runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
        u.erase(thrust::unique(u.begin(), u.end()), u.end());
        CHECK(to_std(u) == runs);
    }
}

// Thrust 1.17 moves these elements with its own thrust::identity, which the
// emulator renames where Thrust reads it (thrust::identity itself refuses programs).
TEST_CASE("gather_if, scatter and scatter_if equal CPU loops") {
    for (int n : sizes) {
        CAPTURE(n);
        std::vector<int> input = random_ints(n), map(n), stencil(n);
        for (int i = 0; i < n; ++i) map[i] = (i * 7 + 3) % n, stencil[i] = input[i] % 2 != 0;
        thrust::device_vector<int> d(input.begin(), input.end()), d_map(map.begin(), map.end()),
            d_stencil(stencil.begin(), stencil.end());
        std::vector<int> gathered(n, -1), scattered(n, -1), scattered_if(n, -1);
        for (int i = 0; i < n; ++i) {
            if (stencil[i]) gathered[i] = input[map[i]];
            scattered[map[i]] = input[i];
            if (stencil[i]) scattered_if[map[i]] = input[i];
        }
        thrust::device_vector<int> out(n, -1);
        thrust::gather_if(d_map.begin(), d_map.end(), d_stencil.begin(), d.begin(), out.begin());
        CHECK(to_std(out) == gathered);
        thrust::fill(out.begin(), out.end(), -1);
        thrust::scatter(d.begin(), d.end(), d_map.begin(), out.begin());
        CHECK(to_std(out) == scattered);
        thrust::fill(out.begin(), out.end(), -1);
        thrust::scatter_if(d.begin(), d.end(), d_map.begin(), d_stencil.begin(), out.begin());
        CHECK(to_std(out) == scattered_if);
    }
}

TEST_CASE("counting, transform and zip iterators") {
    for (int n : sizes) {
        CAPTURE(n);
        auto squares = thrust::make_transform_iterator(thrust::make_counting_iterator(0),
                                                       square_plus_one());
        long long expected = 0;
        for (int i = 0; i < n; ++i) expected += 1LL * i * i + 1;
        CHECK(thrust::reduce(thrust::device, squares, squares + n, 0LL) == expected);

        std::vector<int> a = random_ints(n), b = random_ints(n, 2);
        thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), out(n);
        auto pairs = thrust::make_zip_iterator(thrust::make_tuple(da.begin(), db.begin()));
        thrust::transform(pairs, pairs + n, out.begin(), weighted_sum());
        std::vector<int> combined(n);
        for (int i = 0; i < n; ++i) combined[i] = 3 * a[i] - b[i];
        CHECK(to_std(out) == combined);
        // A zip element taken apart with a structured binding, as programs
        // written for CUDA 13's Thrust do.
        thrust::transform(pairs, pairs + n, out.begin(),
                          [] __host__ __device__(thrust::tuple<int, int> t) {
                              auto [x, y] = t;
                              return x - 2 * y;
                          });
        for (int i = 0; i < n; ++i) combined[i] = a[i] - 2 * b[i];
        CHECK(to_std(out) == combined);

        thrust::device_vector<int> indices(n);
        thrust::copy(thrust::make_counting_iterator(7), thrust::make_counting_iterator(7 + n),
                     indices.begin());
        CHECK(indices[n - 1] == 6 + n);
    }
}

TEST_CASE("thrust::cuda::par.on(stream) runs after the stream's earlier kernel") {
    const int n = 1023;
    cudaStream_t stream;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    thrust::device_vector<int> d(n, 0);
    add_index<<<(n + 127) / 128, 128, 0, stream>>>(thrust::raw_pointer_cast(d.data()), n);
    CHECK(thrust::reduce(thrust::cuda::par.on(stream), d.begin(), d.end()) == n * (n - 1) / 2);
    thrust::inclusive_scan(thrust::cuda::par.on(stream), d.begin(), d.end(), d.begin());
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(d[n - 1] == n * (n - 1) / 2);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("a device_vector larger than the device is thrust's bad_alloc") {
    bool thrown = false;
    {
        stderr_capture quiet;
        try {
            thrust::device_vector<char> huge(std::size_t(1) << 50);
        } catch (const std::bad_alloc&) {
            thrown = true;
        }
        (void)quiet.finish();
    }
    CHECK(thrown);
    CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
}
