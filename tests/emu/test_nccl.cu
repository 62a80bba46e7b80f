// test_nccl.cu - NCCL on the emulator (include/nccl.h, src/nccl/): ranks that
// are emulated devices of one process. Collectives give every rank the bits
// of a plain CPU loop over the ranks in rank order; point-to-point rings and
// group calls; stream order (a kernel after a collective sees its result);
// the communicator's queries and the library's strings; and misuse that
// ends in a report naming the ranks and an error code, never a hang.
//
// CTest runs the cases with CUEMU_DEVICES=2 and =4, and each case that ends
// with a sticky error (names starting with "process:") as a process of its
// own with a short CUEMU_WATCHDOG_SECONDS. The file is genuine CUDA: nvcc
// compiles it against the real <nccl.h> (tests/emu/CMakeLists.txt); the
// checks of the emulator's report texts are under #ifdef CUEMU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <nccl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "stderr_capture.h"

namespace {

int devices() {
    int n = 0;
    REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
    REQUIRE(n >= 2);
    return n;
}

// One communicator per device, made the NCCL way for one process: one host
// thread per rank, each with the same unique id.
std::vector<ncclComm_t> comms_by_threads(int n) {
    ncclUniqueId id;
    REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
    std::vector<ncclComm_t> comms(n, nullptr);
    std::vector<ncclResult_t> results(n, ncclInternalError);
    std::vector<std::thread> threads;
    for (int r = 0; r < n; ++r)
        threads.emplace_back([&, r] {
            cudaSetDevice(r);
            results[r] = ncclCommInitRank(&comms[r], n, id, r);
        });
    for (auto& t : threads) t.join();
    for (int r = 0; r < n; ++r) REQUIRE(results[r] == ncclSuccess);
    return comms;
}

std::vector<ncclComm_t> comms_all(int n) {
    std::vector<ncclComm_t> comms(n, nullptr);
    REQUIRE(ncclCommInitAll(comms.data(), n, nullptr) == ncclSuccess);
    return comms;
}

void destroy(std::vector<ncclComm_t>& comms) {
    for (ncclComm_t c : comms) CHECK(ncclCommDestroy(c) == ncclSuccess);
}

// Numbers of very different sizes and both signs, so that a sum in another
// order than rank order gives other bits.
template <class T>
std::vector<T> rank_values(int rank, std::size_t n) {
    std::vector<T> v(n);
    std::uint32_t state = 12345u + 7919u * static_cast<std::uint32_t>(rank);
    for (std::size_t i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        const double unit = (state >> 8) / double(1u << 24) - 0.5;
        const int scale = static_cast<int>((state >> 3) % 8) - 2;
        v[i] = static_cast<T>(unit * std::pow(10.0, scale));
    }
    return v;
}

template <class T>
T* device_copy(int device, const std::vector<T>& values) {
    T* p = nullptr;
    REQUIRE(cudaSetDevice(device) == cudaSuccess);
    REQUIRE(cudaMalloc(&p, values.size() * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemcpy(p, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    return p;
}

template <class T>
std::vector<T> host_copy(int device, const T* p, std::size_t n) {
    std::vector<T> v(n);
    REQUIRE(cudaSetDevice(device) == cudaSuccess);
    REQUIRE(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return v;
}

void synchronize_all(int n) {
    for (int r = 0; r < n; ++r) {
        REQUIRE(cudaSetDevice(r) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    }
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// The CPU reference: rank 0's values, then each next rank's, in rank order.
template <class T>
std::vector<T> cpu_reduce(const std::vector<std::vector<T>>& in, ncclRedOp_t op) {
    std::vector<T> acc = in[0];
    for (std::size_t r = 1; r < in.size(); ++r)
        for (std::size_t i = 0; i < acc.size(); ++i) {
            const T x = in[r][i];
            if (op == ncclSum || op == ncclAvg) acc[i] = acc[i] + x;
            if (op == ncclProd) acc[i] = acc[i] * x;
            if (op == ncclMax) acc[i] = x > acc[i] ? x : acc[i];
            if (op == ncclMin) acc[i] = x < acc[i] ? x : acc[i];
        }
    if (op == ncclAvg)
        for (T& a : acc) a = a / static_cast<T>(in.size());
    return acc;
}

// An all-reduce of T on every device; each rank's result against the CPU's, bit for bit.
template <class T>
void check_all_reduce(std::vector<ncclComm_t>& comms, ncclDataType_t type, ncclRedOp_t op) {
    const int n = static_cast<int>(comms.size());
    const std::size_t count = 1000;
    std::vector<std::vector<T>> in;
    std::vector<T*> send, recv;
    for (int r = 0; r < n; ++r) {
        in.push_back(rank_values<T>(r, count));
        send.push_back(device_copy(r, in[r]));
        recv.push_back(device_copy(r, std::vector<T>(count)));
    }
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r)
        REQUIRE(ncclAllReduce(send[r], recv[r], count, type, op, comms[r], 0) == ncclSuccess);
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    synchronize_all(n);
    const std::vector<T> expected = cpu_reduce(in, op);
    for (int r = 0; r < n; ++r) {
        CAPTURE(r);
        CHECK(same_bits(host_copy(r, recv[r], count), expected));
        cudaSetDevice(r);
        cudaFree(send[r]);
        cudaFree(recv[r]);
    }
}

// Half and bfloat16: the CPU sums in rank order, rounding to the format after
// each step (each step exact in double, then rounded once).
template <class H, class ToDouble, class FromDouble>
void check_narrow_all_reduce(std::vector<ncclComm_t>& comms, ncclDataType_t type, ToDouble to_double,
                             FromDouble from_double) {
    const int n = static_cast<int>(comms.size());
    const std::size_t count = 1000;
    std::vector<std::vector<H>> in;
    std::vector<H*> send, recv;
    for (int r = 0; r < n; ++r) {
        std::vector<H> values;
        for (double v : rank_values<double>(r, count)) values.push_back(from_double(v * 1e-3));
        in.push_back(values);
        send.push_back(device_copy(r, in[r]));
        recv.push_back(device_copy(r, std::vector<H>(count)));
    }
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r)
        REQUIRE(ncclAllReduce(send[r], recv[r], count, type, ncclSum, comms[r], 0) == ncclSuccess);
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    synchronize_all(n);
    std::vector<H> expected = in[0];
    for (int r = 1; r < n; ++r)
        for (std::size_t i = 0; i < count; ++i)
            expected[i] = from_double(to_double(expected[i]) + to_double(in[r][i]));
    for (int r = 0; r < n; ++r) CHECK(same_bits(host_copy(r, recv[r], count), expected));
}

__global__ void scale(float* data, int n, float by) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= by;
}

// Slow on purpose: what is queued after it on the stream must wait for it.
__global__ void slow_fill(float* data, int n, float value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    volatile int spin = 0;
    for (int k = 0; k < 20000; ++k) spin = spin + 1;
    if (i < n) data[i] = value + (spin - spin);
}

}  // namespace

TEST_CASE("all-reduce-sum-threads") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_by_threads(n);
    check_all_reduce<float>(comms, ncclFloat, ncclSum);
    destroy(comms);
}

TEST_CASE("all-reduce-ops-and-types") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    for (ncclRedOp_t op : {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg}) {
        CAPTURE(op);
        check_all_reduce<float>(comms, ncclFloat, op);
        check_all_reduce<double>(comms, ncclDouble, op);
    }
    check_all_reduce<int>(comms, ncclInt, ncclSum);
    check_all_reduce<std::int64_t>(comms, ncclInt64, ncclMax);
    destroy(comms);
}

TEST_CASE("all-reduce-half-and-bfloat16") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    check_narrow_all_reduce<__half>(
        comms, ncclHalf, [](__half h) { return double(__half2float(h)); },
        [](double d) { return __double2half(d); });
    check_narrow_all_reduce<__nv_bfloat16>(
        comms, ncclBfloat16, [](__nv_bfloat16 h) { return double(__bfloat162float(h)); },
        [](double d) { return __double2bfloat16(d); });
    destroy(comms);
}

TEST_CASE("all-reduce-in-place-and-thread-per-rank-calls") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_by_threads(n);
    const std::size_t count = 777;
    std::vector<std::vector<float>> in;
    std::vector<float*> data;
    for (int r = 0; r < n; ++r) {
        in.push_back(rank_values<float>(r, count));
        data.push_back(device_copy(r, in[r]));
    }
    // Each rank's own thread issues its call and waits for its stream, as
    // programs with one thread per GPU do.
    std::vector<std::thread> threads;
    std::vector<ncclResult_t> results(n, ncclInternalError);
    std::vector<cudaError_t> synced(n, cudaErrorUnknown);
    for (int r = 0; r < n; ++r)
        threads.emplace_back([&, r] {
            cudaSetDevice(r);
            results[r] = ncclAllReduce(data[r], data[r], count, ncclFloat, ncclSum, comms[r], 0);
            synced[r] = cudaDeviceSynchronize();
        });
    for (auto& t : threads) t.join();
    const std::vector<float> expected = cpu_reduce(in, ncclSum);
    for (int r = 0; r < n; ++r) {
        CHECK(results[r] == ncclSuccess);
        CHECK(synced[r] == cudaSuccess);
        CHECK(same_bits(host_copy(r, data[r], count), expected));
    }
    destroy(comms);
}

TEST_CASE("broadcast-and-reduce") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    const std::size_t count = 500;
    const int root = n - 1;
    std::vector<std::vector<float>> in;
    std::vector<float*> send, recv;
    for (int r = 0; r < n; ++r) {
        in.push_back(rank_values<float>(r, count));
        send.push_back(device_copy(r, in[r]));
        recv.push_back(device_copy(r, std::vector<float>(count, -1.0f)));
    }
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r)
        REQUIRE(ncclBroadcast(send[r], recv[r], count, ncclFloat, 1, comms[r], 0) == ncclSuccess);
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    synchronize_all(n);
    for (int r = 0; r < n; ++r) CHECK(same_bits(host_copy(r, recv[r], count), in[1]));

    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r)
        REQUIRE(ncclReduce(send[r], recv[r], count, ncclFloat, ncclSum, root, comms[r], 0) == ncclSuccess);
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    synchronize_all(n);
    CHECK(same_bits(host_copy(root, recv[root], count), cpu_reduce(in, ncclSum)));
    // Only the root receives: the others keep the broadcast's values.
    for (int r = 0; r < root; ++r) CHECK(same_bits(host_copy(r, recv[r], count), in[1]));
    destroy(comms);
}

TEST_CASE("all-gather-and-reduce-scatter") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    const std::size_t block = 300;
    std::vector<std::vector<float>> small, big;
    std::vector<float*> small_dev, big_dev, gathered, scattered;
    for (int r = 0; r < n; ++r) {
        small.push_back(rank_values<float>(r, block));
        big.push_back(rank_values<float>(r + 100, block * n));
        small_dev.push_back(device_copy(r, small[r]));
        big_dev.push_back(device_copy(r, big[r]));
        gathered.push_back(device_copy(r, std::vector<float>(block * n)));
        scattered.push_back(device_copy(r, std::vector<float>(block)));
    }
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r) {
        REQUIRE(ncclAllGather(small_dev[r], gathered[r], block, ncclFloat, comms[r], 0) == ncclSuccess);
        REQUIRE(ncclReduceScatter(big_dev[r], scattered[r], block, ncclFloat, ncclSum, comms[r], 0) ==
                ncclSuccess);
    }
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    synchronize_all(n);
    std::vector<float> expected_gather;
    for (int r = 0; r < n; ++r) expected_gather.insert(expected_gather.end(), small[r].begin(), small[r].end());
    const std::vector<float> reduced = cpu_reduce(big, ncclSum);
    for (int r = 0; r < n; ++r) {
        CAPTURE(r);
        CHECK(same_bits(host_copy(r, gathered[r], block * n), expected_gather));
        std::vector<float> mine(reduced.begin() + r * block, reduced.begin() + (r + 1) * block);
        CHECK(same_bits(host_copy(r, scattered[r], block), mine));
    }
    destroy(comms);
}

TEST_CASE("send-recv-ring") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    const std::size_t count = 256;
    std::vector<std::vector<float>> in;
    std::vector<float*> send, recv;
    for (int r = 0; r < n; ++r) {
        in.push_back(rank_values<float>(r, count));
        send.push_back(device_copy(r, in[r]));
        recv.push_back(device_copy(r, std::vector<float>(count)));
    }
    // Every rank sends to the next and receives from the previous: one
    // group, or the sends would wait on each other all round the ring.
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r) {
        REQUIRE(ncclSend(send[r], count, ncclFloat, (r + 1) % n, comms[r], 0) == ncclSuccess);
        REQUIRE(ncclRecv(recv[r], count, ncclFloat, (r + n - 1) % n, comms[r], 0) == ncclSuccess);
    }
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    synchronize_all(n);
    for (int r = 0; r < n; ++r) CHECK(same_bits(host_copy(r, recv[r], count), in[(r + n - 1) % n]));
    destroy(comms);
}

TEST_CASE("group-init-from-one-thread") {
    const int n = devices();
    ncclUniqueId id;
    REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
    std::vector<ncclComm_t> comms(n);
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r) {
        REQUIRE(cudaSetDevice(r) == cudaSuccess);
        REQUIRE(ncclCommInitRank(&comms[r], n, id, r) == ncclSuccess);
    }
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    for (int r = 0; r < n; ++r) {
        int count = 0, device = -1, rank = -1;
        CHECK(ncclCommCount(comms[r], &count) == ncclSuccess);
        CHECK(ncclCommCuDevice(comms[r], &device) == ncclSuccess);
        CHECK(ncclCommUserRank(comms[r], &rank) == ncclSuccess);
        CHECK(count == n);
        CHECK(device == r);
        CHECK(rank == r);
    }
    check_all_reduce<float>(comms, ncclFloat, ncclSum);
    destroy(comms);
}

TEST_CASE("stream-order") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    const int count = 4096;
    std::vector<float*> data(n);
    std::vector<cudaStream_t> streams(n);
    for (int r = 0; r < n; ++r) {
        data[r] = device_copy(r, std::vector<float>(count, 0.0f));
        REQUIRE(cudaStreamCreate(&streams[r]) == cudaSuccess);
    }
    // fill (slow) -> all-reduce -> scale, all on each rank's stream, no
    // synchronization between them: the all-reduce must wait for the fill,
    // the scale for the all-reduce.
    for (int r = 0; r < n; ++r) {
        cudaSetDevice(r);
        slow_fill<<<(count + 255) / 256, 256, 0, streams[r]>>>(data[r], count, float(r + 1));
    }
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r)
        REQUIRE(ncclAllReduce(data[r], data[r], count, ncclFloat, ncclSum, comms[r], streams[r]) == ncclSuccess);
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    for (int r = 0; r < n; ++r) {
        cudaSetDevice(r);
        scale<<<(count + 255) / 256, 256, 0, streams[r]>>>(data[r], count, 2.0f);
    }
    const float sum = n * (n + 1) / 2.0f;
    for (int r = 0; r < n; ++r) {
        cudaSetDevice(r);
        REQUIRE(cudaStreamSynchronize(streams[r]) == cudaSuccess);
        std::vector<float> out = host_copy(r, data[r], count);
        CHECK(out[0] == 2 * sum);
        CHECK(out[count - 1] == 2 * sum);
        cudaStreamDestroy(streams[r]);
    }
    destroy(comms);
}

TEST_CASE("library-strings-and-version") {
    int version = 0;
    CHECK(ncclGetVersion(&version) == ncclSuccess);
    CHECK(version == NCCL_VERSION_CODE);
    CHECK(NCCL_VERSION_CODE == NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH));
    CHECK(std::string(ncclGetErrorString(ncclSuccess)) == "no error");
    CHECK(std::string(ncclGetErrorString(ncclInvalidArgument)).find("invalid argument") == 0);
    CHECK(std::string(ncclGetErrorString(ncclInvalidUsage)).find("invalid usage") == 0);
}

// Refused at the call with ncclInvalidArgument or ncclInvalidUsage, a report
// naming what is wrong, and nothing queued: the communicator goes on working.
TEST_CASE("bad-arguments") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    float* mine = device_copy(0, std::vector<float>(64, 1.0f));
    float* other = device_copy(1, std::vector<float>(64, 1.0f));
    std::vector<float> host(64, 1.0f);
    cudaSetDevice(0);
    {
        stderr_capture capture;
        CHECK(ncclAllReduce(other, mine, 64, ncclFloat, ncclSum, comms[0], 0) == ncclInvalidArgument);
        CHECK(ncclAllReduce(host.data(), mine, 64, ncclFloat, ncclSum, comms[0], 0) == ncclInvalidArgument);
        CHECK(ncclAllReduce(mine, mine, 65, ncclFloat, ncclSum, comms[0], 0) == ncclInvalidArgument);
        CHECK(ncclAllReduce(mine, mine, 64, ncclFloat, ncclRedOp_t(17), comms[0], 0) == ncclInvalidArgument);
        CHECK(ncclAllReduce(mine, mine, 64, ncclDataType_t(40), ncclSum, comms[0], 0) == ncclInvalidArgument);
        CHECK(ncclBroadcast(mine, mine, 64, ncclFloat, n, comms[0], 0) == ncclInvalidArgument);
        CHECK(ncclSend(mine, 64, ncclFloat, -1, comms[0], 0) == ncclInvalidArgument);
        CHECK(ncclAllReduce(mine, mine, 64, ncclFloat, ncclSum, nullptr, 0) == ncclInvalidArgument);
        CHECK(ncclGroupEnd() == ncclInvalidUsage);
        std::vector<ncclComm_t> twice(2);
        const int same_device[2] = {0, 0};
        CHECK(ncclCommInitAll(twice.data(), 2, same_device) == ncclInvalidUsage);
        std::string report = capture.finish();
#ifdef CUEMU
        CHECK(report.find("recvbuff") == std::string::npos);  // the first bad buffer is named
        CHECK(report.find("sendbuff 0x") != std::string::npos);
        CHECK(report.find("is memory of device 1, but the communicator's rank 0 uses device 0") != std::string::npos);
        CHECK(report.find("is not device memory") != std::string::npos);
        CHECK(report.find("does not hold the 260 bytes") != std::string::npos);
        CHECK(report.find("root " + std::to_string(n) + " is not a rank") != std::string::npos);
        CHECK(report.find("the communicator is NULL") != std::string::npos);
        CHECK(report.find("no ncclGroupStart before it") != std::string::npos);
        CHECK(report.find("rank 0 and rank 1 would both use device 0") != std::string::npos);
#endif
    }
    // Nothing was queued: a correct all-reduce still matches.
    check_all_reduce<float>(comms, ncclFloat, ncclSum);
    destroy(comms);
}

// ---- misuse that fails the collective on every rank (a process each) ------------------

// An all-reduce of 100 floats on every device, issued in one group with the
// count and datatype each rank's `part` gives (or not at all by a rank it
// leaves out): every rank's stream must end with `expected` and every
// communicator say ncclInvalidUsage. Returns what the emulator printed.
struct rank_part {
    bool calls = true;
    std::size_t count = 100;
    ncclDataType_t type = ncclFloat;
};
template <class Part>
std::string failing_all_reduce(Part part, cudaError_t expected) {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    std::vector<float*> data;
    for (int r = 0; r < n; ++r) data.push_back(device_copy(r, std::vector<float>(100, 1.0f)));
    stderr_capture capture;
    REQUIRE(ncclGroupStart() == ncclSuccess);
    for (int r = 0; r < n; ++r) {
        const rank_part mine = part(r, n);
        if (mine.calls)
            REQUIRE(ncclAllReduce(data[r], data[r], mine.count, mine.type, ncclSum, comms[r], 0) == ncclSuccess);
    }
    REQUIRE(ncclGroupEnd() == ncclSuccess);
    for (int r = 0; r < n; ++r) {
        if (!part(r, n).calls) continue;
        CAPTURE(r);
        cudaSetDevice(r);
        CHECK(cudaDeviceSynchronize() == expected);
        ncclResult_t async = ncclSuccess;
        CHECK(ncclCommGetAsyncError(comms[r], &async) == ncclSuccess);
        CHECK(async == ncclInvalidUsage);
    }
    return capture.finish();
}

TEST_CASE("process: mismatched counts") {
    std::string report = failing_all_reduce(
        [](int r, int) {
            rank_part part;
            if (r == 1) part.count = 50;
            return part;
        },
        cudaErrorLaunchFailure);
#ifdef CUEMU
    CHECK(report.find("does not match between ranks") != std::string::npos);
    CHECK(report.find("ncclAllReduce of 50 x ncclFloat32") != std::string::npos);
    CHECK(report.find("rank 1 (device 1)") != std::string::npos);
#endif
}

TEST_CASE("process: mismatched datatypes") {
    std::string report = failing_all_reduce(
        [](int r, int n) {
            rank_part part;
            if (r == n - 1) part.type = ncclInt;
            return part;
        },
        cudaErrorLaunchFailure);
#ifdef CUEMU
    const int n = devices();
    CHECK(report.find("ncclAllReduce of 100 x ncclInt32") != std::string::npos);
    CHECK(report.find("rank " + std::to_string(n - 1) + " (device " + std::to_string(n - 1) + ")") !=
          std::string::npos);
#endif
}

// The last rank never calls the all-reduce: the others' watchdog reports
// (CTest sets CUEMU_WATCHDOG_SECONDS=2) instead of waiting for ever.
TEST_CASE("process: rank never joins") {
    std::string report = failing_all_reduce(
        [](int r, int n) {
            rank_part part;
            part.calls = r != n - 1;
            return part;
        },
        cudaErrorLaunchTimeout);
#ifdef CUEMU
    const int n = devices();
    CHECK(report.find("waited 2 s (CUEMU_WATCHDOG_SECONDS)") != std::string::npos);
    std::string arrived = "arrived: rank(s) 0";
    for (int r = 1; r < n - 1; ++r) arrived += ", " + std::to_string(r);
    CHECK(report.find(arrived + "\n") != std::string::npos);
    CHECK(report.find("rank " + std::to_string(n - 1) + " (device " + std::to_string(n - 1) +
                      "): never called it") != std::string::npos);
#endif
}

// A send without a group whose receive never comes.
TEST_CASE("process: send without receive") {
    devices();
    std::vector<ncclComm_t> comms = comms_all(devices());
    float* data = device_copy(0, std::vector<float>(10, 1.0f));
    stderr_capture capture;
    REQUIRE(ncclSend(data, 10, ncclFloat, 1, comms[0], 0) == ncclSuccess);
    cudaSetDevice(0);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchTimeout);
    std::string report = capture.finish();
#ifdef CUEMU
    CHECK(report.find("rank 1 (device 1): never called the matching ncclRecv") != std::string::npos);
#endif
}

// ncclCommInitRank of two ranks, but only rank 0 calls it.
TEST_CASE("process: init with a missing rank") {
    devices();
    ncclUniqueId id;
    REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
    ncclComm_t comm = nullptr;
    stderr_capture capture;
    CHECK(ncclCommInitRank(&comm, 2, id, 0) == ncclInvalidUsage);
    std::string report = capture.finish();
#ifdef CUEMU
    CHECK(report.find("joined: rank(s) 0\n  never joined: rank(s) 1") != std::string::npos);
#endif
}

// ncclCommAbort of one rank frees the others' parts that wait for it: they
// fail at once (cudaErrorLaunchFailure), not after the watchdog's wait.
TEST_CASE("process: abort releases waiting ranks") {
    const int n = devices();
    std::vector<ncclComm_t> comms = comms_all(n);
    float* data = device_copy(0, std::vector<float>(10, 1.0f));
    REQUIRE(ncclAllReduce(data, data, 10, ncclFloat, ncclSum, comms[0], 0) == ncclSuccess);
    REQUIRE(ncclCommAbort(comms[1]) == ncclSuccess);
    cudaSetDevice(0);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}
