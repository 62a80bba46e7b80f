// Lesson 21: the batch is shared out exactly, the ring all-reduce leaves the
// CPU's sum on every device (the same bits on each), and training on N
// devices keeps identical weights everywhere and matches training on one.
//
// The tests use as many devices as there are, up to 4: on the emulator,
// CUEMU_DEVICES=N gives N (ctest runs this test with 1, 2 and 4). With one
// device the all-reduce has nothing to add, but the split of the batch and
// the training are still checked against one-device training.
#include "test_support.h"
#include "cpu_reference_data_parallel.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

// From the lesson file.
struct Slice {
    int begin = 0;
    int count = 0;
};
Slice batch_slice(int batch, int devices, int device);
void all_reduce_on_devices(std::vector<std::vector<float>>& buffers, bool peer_access,
                           bool still_being_written);
std::vector<std::vector<float>> train_on_devices(const float* images, const int* labels, int count,
                                                 int batch, int steps, uint64_t seed,
                                                 int num_devices);
std::vector<float> train_on_one_device(const float* images, const int* labels, int count, int batch,
                                       int steps, uint64_t seed);
std::vector<float> starting_params(uint64_t seed);

static const int kImagePixels = 784;

// The devices these tests use: every one there is, up to 4.
static int devices_here() {
    int count = 0;
    REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
    return std::min(count, 4);
}

TEST_CASE("each device takes its own slice of the batch, and together they take all of it") {
    for (int devices = 1; devices <= 4; ++devices) {
        for (int batch : {1, 3, 7, 64, 100, 1023}) {
            CAPTURE(devices);
            CAPTURE(batch);
            int next = 0, smallest = batch, largest = 0;
            for (int d = 0; d < devices; ++d) {
                const Slice s = batch_slice(batch, devices, d);
                CAPTURE(d);
                INFO("device " << d << " got samples [" << s.begin << ", " << s.begin + s.count
                               << "); the slices must follow each other from 0 to the batch size");
                REQUIRE(s.begin == next);
                REQUIRE(s.count >= 0);
                next += s.count;
                smallest = std::min(smallest, s.count);
                largest = std::max(largest, s.count);
            }
            INFO("the slices end at " << next);
            REQUIRE(next == batch);
            INFO("slice sizes from " << smallest << " to " << largest
                                     << ": share the batch as evenly as it goes");
            REQUIRE(largest - smallest <= 1);
        }
    }
}

// Every device's buffer after the all-reduce against the CPU's sum, and
// every device's against device 0's, bit for bit.
// Tolerance: the ring adds the N values of an element in float, starting
// from a different device for each chunk; the CPU adds in double and rounds
// once. N - 1 float additions of values in [-1, 1] are off by at most
// (N - 1) * 2^-24 * N < 1e-6 for N <= 4.
static void check_all_reduce(int devices, int n, bool peer_access,
                             bool still_being_written = false) {
    CAPTURE(devices);
    CAPTURE(n);
    CAPTURE(peer_access);
    CAPTURE(still_being_written);
    std::vector<std::vector<float>> buffers;
    std::vector<const float*> parts;
    for (int d = 0; d < devices; ++d) buffers.push_back(random_floats((size_t)n));
    for (const auto& b : buffers) parts.push_back(b.data());
    std::vector<float> sum = poisoned_floats((size_t)n);
    cpu_sum_over_devices(parts.data(), devices, (size_t)n, sum.data());
    all_reduce_on_devices(buffers, peer_access, still_being_written);
    for (int d = 0; d < devices; ++d) {
        CAPTURE(d);
        INFO("device " << d << "'s buffer after the all-reduce");
        REQUIRE_ALL_CLOSE("your sum", buffers[d].data(), sum.data(), (size_t)n, 1e-6, 1e-6);
        INFO("every device must hold the same bits: each chunk is summed once, then copied");
        REQUIRE(std::memcmp(buffers[d].data(), buffers[0].data(), (size_t)n * sizeof(float)) == 0);
    }
}

TEST_CASE("the ring all-reduce leaves the sum on every device, without peer access") {
    for (int devices = 1; devices <= devices_here(); ++devices)
        for (int n : {1, 3, 1000, 1023, 100003}) check_all_reduce(devices, n, false);
}

TEST_CASE("the ring all-reduce leaves the sum on every device, with peer access where possible") {
    for (int devices = 1; devices <= devices_here(); ++devices)
        for (int n : {5, 101770}) check_all_reduce(devices, n, true);
}

// In training the gradients are written by the backward pass, on each
// device's own stream, and the ring starts right after it is queued. A peer
// copy waits only for the work of its own stream (the receiving device's),
// so the ring must wait for every device before its first copies.
TEST_CASE("the ring all-reduce waits for the work still queued on every device") {
    INFO("each device's data comes from a kernel that may still be running when the ring "
         "starts: wait for every device (cudaDeviceSynchronize on each) before the first step");
    for (int devices = 2; devices <= devices_here(); ++devices)
        check_all_reduce(devices, 100003, false, true);
}

// Two steps of 13 random "pictures" with random labels (13 does not divide
// by 2, 3 or 4: uneven slices), from the same starting weights, on every
// device there is and on one: training needs no real pictures to show that
// N devices compute what one does.
struct TrainedBothWays {
    std::vector<std::vector<float>> per_device;
    std::vector<float> one_device;
    int devices = 0;
};

static const TrainedBothWays& trained_both_ways() {
    static TrainedBothWays result = [] {
        const int count = 26, batch = 13, steps = 2;
        const std::vector<float> images = random_floats((size_t)count * kImagePixels, 0.0f, 1.0f);
        const std::vector<float> u = random_floats((size_t)count, 0.0f, 10.0f);
        std::vector<int> labels((size_t)count);
        for (int i = 0; i < count; ++i) labels[i] = std::min(9, (int)u[i]);
        TrainedBothWays r;
        r.devices = devices_here();
        r.per_device = train_on_devices(images.data(), labels.data(), count, batch, steps,
                                        test_seed(), r.devices);
        r.one_device = train_on_one_device(images.data(), labels.data(), count, batch, steps,
                                           test_seed());
        // The starting weights must have moved, or nothing was checked.
        const std::vector<float> initial = starting_params(test_seed());
        double moved = 0.0;
        for (size_t i = 0; i < initial.size(); ++i)
            moved = std::max(moved, (double)std::fabs(r.one_device[i] - initial[i]));
        REQUIRE(moved > 1e-4);
        return r;
    }();
    return result;
}

TEST_CASE("after training steps the weights are identical, bit for bit, on every device") {
    const TrainedBothWays& t = trained_both_ways();
    REQUIRE(t.per_device.size() == (size_t)t.devices);
    const size_t n = t.per_device[0].size();
    for (int d = 1; d < t.devices; ++d) {
        CAPTURE(d);
        size_t differ = 0;
        for (size_t i = 0; i < n; ++i)
            if (std::memcmp(&t.per_device[d][i], &t.per_device[0][i], sizeof(float)) != 0) ++differ;
        INFO(differ << " of " << n << " parameters on device " << d
                    << " differ from device 0's: every device must add the same summed gradient");
        REQUIRE(differ == 0);
    }
}

// Tolerance: one device sums each gradient over the whole batch in one
// order; N devices sum over their slices, then the ring adds the slices'
// sums, in another order. Float addition is not associative, so the
// gradients differ in their last bits, and so do the weights after each
// step: by about 1e-7 relative per step. 1e-5 absolute (the weights are
// about 0.1) plus 1e-4 relative leaves room for that and nothing more: a
// missing or doubled slice, or gradients not scaled by the whole batch,
// change weights by 1e-3 and more.
TEST_CASE("training on N devices matches training on one device") {
    const TrainedBothWays& t = trained_both_ways();
    INFO("device 0's parameters after 2 steps on " << t.devices
                                                   << " device(s), against one device's");
    // The reference here is a GPU run too (lesson 20's step on one device),
    // so the report names it so instead of "CPU reference".
    std::string report(8192, '\0');
    tutorial_text out = {&report[0], report.size(), 0};
    const size_t bad = tutorial_compare_report(&out, "your parameters", "your parameters",
                                               "one-device run", t.per_device[0].data(),
                                               t.one_device.data(), t.one_device.size(), 0,
                                               1e-5, 1e-4, 8);
    report.resize(out.length);
    if (!report.empty() && report.back() == '\n') report.pop_back();
    if (bad != 0) FAIL(report);
}
