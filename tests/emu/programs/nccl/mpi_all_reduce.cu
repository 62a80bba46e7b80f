// mpi_all_reduce.cu - NCCL with MPI, one process per GPU, the way NCCL's own
// documentation starts a multi-process program: MPI gives each process its
// rank, rank 0 makes the unique id and MPI_Bcast hands it to the others,
// each process picks its GPU from its rank on this machine, and the ranks
// all-reduce on a stream. Each checks the sum (in rank order, bit for bit)
// and prints "mpi_all_reduce rank=R of N OK".
//
//   mpirun -np 4 ./mpi_all_reduce
//
// On the emulator each process has its own emulated devices (CUEMU_DEVICES),
// and the ranks meet in shared memory (common/emu/README.md, "NCCL").
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "checked_calls.h"

[[noreturn]] void stop_program() {
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::exit(1);  // MPI_Abort does not return; the compiler cannot know
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // The rank among the processes of this machine picks the GPU.
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    int local_rank = 0, devices = 0;
    MPI_Comm_rank(local, &local_rank);
    CUDA_OK(cudaGetDeviceCount(&devices));
    CUDA_OK(cudaSetDevice(local_rank % devices));

    ncclUniqueId id;
    if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    NCCL_OK(ncclCommInitRank(&comm, size, id, rank));

    const int n = 1 << 16;
    std::vector<float> mine(n);
    for (int i = 0; i < n; ++i) mine[i] = 0.1f * float((i * 7 + rank * 13) % 101) / float(rank + 1);
    float* data = nullptr;
    cudaStream_t stream;
    CUDA_OK(cudaMalloc(&data, n * sizeof(float)));
    CUDA_OK(cudaStreamCreate(&stream));
    CUDA_OK(cudaMemcpy(data, mine.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    NCCL_OK(ncclAllReduce(data, data, n, ncclFloat, ncclSum, comm, stream));
    CUDA_OK(cudaStreamSynchronize(stream));

    // The expected sum, in rank order, from every rank's numbers.
    std::vector<float> expected(n, 0.0f), theirs(n);
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < n; ++i) {
            theirs[i] = 0.1f * float((i * 7 + r * 13) % 101) / float(r + 1);
            expected[i] = r == 0 ? theirs[i] : expected[i] + theirs[i];
        }
    std::vector<float> got(n);
    CUDA_OK(cudaMemcpy(got.data(), data, n * sizeof(float), cudaMemcpyDeviceToHost));
    const bool same = std::memcmp(got.data(), expected.data(), n * sizeof(float)) == 0;
    std::printf("mpi_all_reduce rank=%d of %d %s\n", rank, size, same ? "OK" : "FAILED");

    NCCL_OK(ncclCommDestroy(comm));
    CUDA_OK(cudaFree(data));
    MPI_Comm_free(&local);
    MPI_Finalize();
    return same ? 0 : 1;
}
