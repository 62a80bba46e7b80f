// ranks_as_processes.cu - one rank of an NCCL communicator per process, as
// programs started by mpirun have it: rank 0 makes the unique id and hands it
// to the others (here through a file; MPI programs broadcast it with
// MPI_Bcast), every process uses its device 0, and the ranks do an
// all-reduce, an all-gather, a broadcast, and a ring of sends and receives
// in a group. Each checks its results against
// the CPU, bit for bit (sums in rank order), and prints
// "ranks_as_processes rank=R of N OK".
//
//   ranks_as_processes RANK NRANKS IDFILE [mismatch|quits|unreceived]
//
// "mismatch": rank 1 asks for half the count of the others; "quits": the
// last rank leaves right after joining; "unreceived": the last rank never
// receives what the rank before it sends. Each must end in a report and an
// error, not a hang.
// tests/emu/nccl_processes.sh starts the processes.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "checked_calls.h"

[[noreturn]] void stop_program() { std::exit(1); }

// Numbers of very different sizes, so that another summation order gives other bits.
static std::vector<float> rank_values(int rank, int n) {
    std::vector<float> v(n);
    unsigned state = 12345u + 7919u * static_cast<unsigned>(rank);
    for (int i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        const double unit = (state >> 8) / double(1u << 24) - 0.5;
        v[i] = static_cast<float>(unit * std::pow(10.0, int((state >> 3) % 8) - 2));
    }
    return v;
}

static bool exchange_id(int rank, const std::string& path, ncclUniqueId* id) {
    if (rank == 0) {
        if (ncclGetUniqueId(id) != ncclSuccess) return false;
        const std::string partial = path + ".partial";
        FILE* f = std::fopen(partial.c_str(), "wb");
        if (!f || std::fwrite(id, sizeof *id, 1, f) != 1) return false;
        std::fclose(f);
        return std::rename(partial.c_str(), path.c_str()) == 0;
    }
    for (int tries = 0; tries < 2000; ++tries) {
        if (FILE* f = std::fopen(path.c_str(), "rb")) {
            const bool read = std::fread(id, sizeof *id, 1, f) == 1;
            std::fclose(f);
            return read;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: ranks_as_processes RANK NRANKS IDFILE [mismatch|quits|unreceived]\n");
        return 2;
    }
    const int rank = std::atoi(argv[1]);
    const int nranks = std::atoi(argv[2]);
    const bool mismatch = argc > 4 && std::strcmp(argv[4], "mismatch") == 0;
    const bool quits = argc > 4 && std::strcmp(argv[4], "quits") == 0 && rank == nranks - 1;
    const bool skips_receive = argc > 4 && std::strcmp(argv[4], "unreceived") == 0 && rank == nranks - 1;
    ncclUniqueId id;
    if (!exchange_id(rank, argv[3], &id)) {
        std::fprintf(stderr, "rank %d: no unique id in %s\n", rank, argv[3]);
        return 1;
    }
    CUDA_OK(cudaSetDevice(0));
    ncclComm_t comm;
    NCCL_OK(ncclCommInitRank(&comm, nranks, id, rank));
    if (quits) {
        std::printf("ranks_as_processes rank=%d of %d quits\n", rank, nranks);
        return 0;
    }

    const int n = 1000;
    std::vector<std::vector<float>> all;
    for (int r = 0; r < nranks; ++r) all.push_back(rank_values(r, n));
    float *send, *sum, *gathered, *kept, *from_previous;
    CUDA_OK(cudaMalloc(&send, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&kept, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&from_previous, n * sizeof(float)));
    CUDA_OK(cudaMemcpy(kept, all[rank].data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&sum, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&gathered, size_t(n) * nranks * sizeof(float)));
    CUDA_OK(cudaMemcpy(send, all[rank].data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));
    NCCL_OK(ncclAllReduce(send, sum, mismatch && rank == 1 ? n / 2 : n, ncclFloat, ncclSum, comm, stream));
    NCCL_OK(ncclAllGather(send, gathered, n, ncclFloat, comm, stream));
    NCCL_OK(ncclBroadcast(send, send, n, ncclFloat, 0, comm, stream));
    NCCL_OK(ncclGroupStart());
    NCCL_OK(ncclSend(kept, n, ncclFloat, (rank + 1) % nranks, comm, stream));
    if (!skips_receive)
        NCCL_OK(ncclRecv(from_previous, n, ncclFloat, (rank + nranks - 1) % nranks, comm, stream));
    NCCL_OK(ncclGroupEnd());
    CUDA_OK(cudaStreamSynchronize(stream));

    std::vector<float> expected_sum = all[0];
    for (int r = 1; r < nranks; ++r)
        for (int i = 0; i < n; ++i) expected_sum[i] += all[r][i];
    std::vector<float> got(size_t(n) * nranks);
    int errors = 0;
    CUDA_OK(cudaMemcpy(got.data(), sum, n * sizeof(float), cudaMemcpyDeviceToHost));
    errors += std::memcmp(got.data(), expected_sum.data(), n * sizeof(float)) != 0;
    CUDA_OK(cudaMemcpy(got.data(), gathered, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < nranks; ++r)
        errors += std::memcmp(got.data() + size_t(r) * n, all[r].data(), n * sizeof(float)) != 0;
    CUDA_OK(cudaMemcpy(got.data(), send, n * sizeof(float), cudaMemcpyDeviceToHost));
    errors += std::memcmp(got.data(), all[0].data(), n * sizeof(float)) != 0;
    CUDA_OK(cudaMemcpy(got.data(), from_previous, n * sizeof(float), cudaMemcpyDeviceToHost));
    errors += std::memcmp(got.data(), all[(rank + nranks - 1) % nranks].data(), n * sizeof(float)) != 0;
    NCCL_OK(ncclCommDestroy(comm));
    std::printf("ranks_as_processes rank=%d of %d %s\n", rank, nranks, errors == 0 ? "OK" : "FAILED");
    return errors == 0 ? 0 : 1;
}
