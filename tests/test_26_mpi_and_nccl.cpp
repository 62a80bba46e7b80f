// Lesson 26: a rank picks the GPU of its local rank; each all-reduce leaves
// the sum of every rank's gradients on every rank; training on N ranks keeps
// identical weights everywhere and matches training in one process.
//
// This test is an MPI program: ctest and ./tutorial check start it with
// mpirun -np 2 (and ctest again with -np 4). Started alone it is a job of one
// rank, where an all-reduce has nothing to add. Every check below runs on
// data that every rank holds (gathered with MPI_Allgather), so every rank
// reaches the same verdict and no rank waits in a collective for one that
// stopped; rank 0 speaks for the job (the others' output is silenced).
#include "test_support.h"
#include "cpu_reference_data_parallel.h"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// From the lesson file.
struct Job {
    int rank = 0;
    int size = 1;
    int local_rank = 0;
    int device = 0;
    int device_count = 1;
};
enum class AllReduce { host, cuda_aware, nccl };
int device_for_rank(int local_rank, int device_count);
Job join_job();
bool nccl_available();
bool nccl_runs_here();
std::vector<float> all_reduce_on_ranks(AllReduce how, const std::vector<float>& mine);
std::vector<float> train_job(AllReduce how, const float* images, const int* labels, int count,
                             int batch, int steps, uint64_t seed);
std::vector<float> train_alone(const float* images, const int* labels, int count, int batch,
                               int steps, uint64_t seed);
std::vector<float> starting_weights(uint64_t seed);

// MPI for the whole test run: started before doctest's main, ended after it.
namespace {
struct MpiSession {
    MpiSession() {
        MPI_Init(nullptr, nullptr);
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank != 0 && !std::freopen("/dev/null", "w", stdout)) std::perror("stdout");
    }
    ~MpiSession() { MPI_Finalize(); }
} mpi_session;
}  // namespace

static const int kImagePixels = 784;
static const size_t kParams = 784 * 128 + 128 + 128 * 10 + 10;  // lesson 20's network

static int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static int world_size() {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

// One seed for the whole job: rank 0's (each process chose its own).
static uint64_t job_seed() {
    unsigned long long seed = test_seed();
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    return seed;
}

// Every rank's copy of `mine`, in rank order.
static std::vector<float> from_every_rank(const std::vector<float>& mine) {
    std::vector<float> all(mine.size() * (size_t)world_size());
    MPI_Allgather(mine.data(), (int)mine.size(), MPI_FLOAT, all.data(), (int)mine.size(), MPI_FLOAT,
                  MPI_COMM_WORLD);
    return all;
}

static std::string name_of(AllReduce how) {
    return how == AllReduce::host ? "host" : how == AllReduce::cuda_aware ? "cuda-aware" : "nccl";
}

TEST_CASE("a rank uses the GPU of its rank on its machine, wrapping round when ranks outnumber GPUs") {
    const int cases[][3] = {{0, 4, 0}, {1, 4, 1}, {3, 4, 3}, {4, 4, 0}, {6, 4, 2}, {2, 1, 0},
                            {5, 8, 5}};
    for (const auto& c : cases) {
        INFO("local rank " << c[0] << " on a machine with " << c[1] << " GPU(s) should use GPU "
                           << c[2] << ": each rank of a node its own GPU");
        REQUIRE(device_for_rank(c[0], c[1]) == c[2]);
    }
    // And join_job makes it this rank's device.
    const Job job = join_job();
    int current = -1;
    REQUIRE(cudaGetDevice(&current) == cudaSuccess);
    INFO("rank " << job.rank << " (local rank " << job.local_rank << ", " << job.device_count
                 << " GPUs) is on GPU " << current);
    REQUIRE(current == job.local_rank % job.device_count);
    REQUIRE(job.size == world_size());
}

// Each rank's gradients are random numbers every rank can make (the job's
// seed and the rank), so every rank knows the sum it must get.
// Tolerance: the ranks' N values of an element are added in float in an
// order of the library's; the CPU adds in double and rounds once. N - 1
// float additions of values in [-1, 1] are off by at most (N - 1) * 2^-24 * N,
// under 1e-6 for N <= 4.
static void check_all_reduce(AllReduce how) {
    const std::string way = name_of(how);
    CAPTURE(way);
    const int size = world_size(), rank = world_rank();
    const uint64_t seed = job_seed();
    std::vector<std::vector<float>> parts((size_t)size, std::vector<float>(kParams));
    std::vector<const float*> pointers;
    for (int r = 0; r < size; ++r) {
        fill_random(parts[r].data(), kParams, seed * 31 + (uint64_t)r + 1, -1.0f, 1.0f);
        pointers.push_back(parts[r].data());
    }
    std::vector<float> sum = poisoned_floats(kParams);
    cpu_sum_over_devices(pointers.data(), size, kParams, sum.data());
    const std::vector<float> got = from_every_rank(all_reduce_on_ranks(how, parts[rank]));
    for (int r = 0; r < size; ++r) {
        INFO("rank " << r << "'s gradients after the all-reduce, of a job of " << size
                     << " rank(s)");
        REQUIRE_ALL_CLOSE("your sum", got.data() + kParams * r, sum.data(), kParams, 1e-6, 1e-6);
        INFO("every rank must hold the same bits, or the copies of the network drift apart");
        REQUIRE(std::memcmp(got.data() + kParams * r, got.data(), kParams * sizeof(float)) == 0);
    }
}

// The nvcc build without NCCL skips its NCCL part, and says so; so does a job
// with more ranks on a machine than it has GPUs (NCCL refuses ranks sharing one).
static bool skipped_without_nccl() {
    if (!nccl_available()) {
        MESSAGE("SKIPPED: this build has no NCCL");
        return true;
    }
    if (!nccl_runs_here()) {
        MESSAGE("SKIPPED: NCCL needs a GPU of its own for each rank, and ranks share a GPU here");
        return true;
    }
    return false;
}

// The CUDA-aware way is the host way where MPI cannot take device pointers
// (Debian's Open MPI, the emulator): one test case, one report for both.
TEST_CASE("the all-reduce through host memory, and with CUDA-aware MPI, leaves every rank's sum on every rank") {
    check_all_reduce(AllReduce::host);
    check_all_reduce(AllReduce::cuda_aware);
}

TEST_CASE("the NCCL all-reduce leaves every rank's sum on every rank") {
    if (skipped_without_nccl()) return;
    check_all_reduce(AllReduce::nccl);
}

// Two steps of 13 random "pictures" with random labels (13 does not divide
// by 2, 3 or 4: uneven slices), on every rank of the job and in one process.
// The pictures come from the job's seed, so every rank has the same ones.
static void check_training(AllReduce how) {
    const std::string way = name_of(how);
    CAPTURE(way);
    const int count = 26, batch = 13, steps = 2, size = world_size();
    const uint64_t seed = job_seed();
    std::vector<float> images((size_t)count * kImagePixels), u((size_t)count);
    fill_random(images.data(), images.size(), seed + 7, 0.0f, 1.0f);
    fill_random(u.data(), u.size(), seed + 8, 0.0f, 10.0f);
    std::vector<int> labels((size_t)count);
    for (int i = 0; i < count; ++i) labels[i] = std::min(9, (int)u[i]);
    const std::vector<float> everyone =
        from_every_rank(train_job(how, images.data(), labels.data(), count, batch, steps, seed));
    const std::vector<float> alone =
        train_alone(images.data(), labels.data(), count, batch, steps, seed);
    // The starting weights must have moved, or nothing was checked.
    const std::vector<float> initial = starting_weights(seed);
    double moved = 0.0;
    for (size_t i = 0; i < kParams; ++i)
        moved = std::max(moved, (double)std::fabs(alone[i] - initial[i]));
    REQUIRE(moved > 1e-4);

    for (int r = 1; r < size; ++r) {
        size_t differ = 0;
        for (size_t i = 0; i < kParams; ++i)
            if (std::memcmp(&everyone[kParams * r + i], &everyone[i], sizeof(float)) != 0) ++differ;
        INFO(differ << " of " << kParams << " weights on rank " << r
                    << " differ from rank 0's: every rank must add the same summed gradient");
        REQUIRE(differ == 0);
    }
    // Tolerance: one process sums each gradient over the whole batch in one
    // order; the job sums over slices, then across ranks, in another. The
    // weights (about 0.1) differ by about 1e-7 relative per step; a missing
    // or doubled slice changes them by 1e-3 and more.
    INFO("rank 0's weights after 2 steps on " << size << " rank(s), against one process's");
    std::string report(8192, '\0');
    tutorial_text out = {&report[0], report.size(), 0};
    const size_t bad = tutorial_compare_report(&out, "your weights", "your weights",
                                               "one-process run", everyone.data(), alone.data(),
                                               kParams, 0, 1e-5, 1e-4, 8);
    report.resize(out.length);
    if (!report.empty() && report.back() == '\n') report.pop_back();
    if (bad != 0) FAIL(report);
}

TEST_CASE("training on N ranks, with the host all-reduce and with NCCL: identical weights on every rank, equal to one process") {
    check_training(AllReduce::host);
    if (!skipped_without_nccl()) check_training(AllReduce::nccl);
}
