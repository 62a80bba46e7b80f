// all_reduce_one_process.cu - the usual NCCL program of one process and
// several GPUs: one communicator per device from ncclCommInitAll, a buffer
// and a stream per device, the all-reduce of every rank issued in one group,
// then a kernel on each stream that uses the result. Prints
// "all_reduce_one_process ... OK" when every device holds the CPU's sums.
// Built with `nvcc ... -lnccl` (bin/nvcc-emu ... -lnccl on the emulator,
// with CUEMU_DEVICES=N for N devices). Kept out of programs/*.cu, which
// every nvcc build compiles: this one needs an installed NCCL there.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "checked_calls.h"

[[noreturn]] void stop_program() { std::exit(1); }

__global__ void add_one(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1.0f;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
    if (n <= 0) {
        std::fprintf(stderr, "usage: all_reduce_one_process [elements > 0]\n");
        return 2;
    }
    int ranks = 0;
    CUDA_OK(cudaGetDeviceCount(&ranks));
    std::vector<ncclComm_t> comms(ranks);
    NCCL_OK(ncclCommInitAll(comms.data(), ranks, nullptr));

    std::vector<float*> buffers(ranks);
    std::vector<cudaStream_t> streams(ranks);
    std::vector<float> host(n);
    for (int r = 0; r < ranks; ++r) {
        CUDA_OK(cudaSetDevice(r));
        for (int i = 0; i < n; ++i) host[i] = float((i % 97) * (r + 1));
        CUDA_OK(cudaMalloc(&buffers[r], n * sizeof(float)));
        CUDA_OK(cudaMemcpy(buffers[r], host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_OK(cudaStreamCreate(&streams[r]));
    }
    NCCL_OK(ncclGroupStart());
    for (int r = 0; r < ranks; ++r)
        NCCL_OK(ncclAllReduce(buffers[r], buffers[r], n, ncclFloat, ncclSum, comms[r], streams[r]));
    NCCL_OK(ncclGroupEnd());
    for (int r = 0; r < ranks; ++r) {
        CUDA_OK(cudaSetDevice(r));
        add_one<<<(n + 255) / 256, 256, 0, streams[r]>>>(buffers[r], n);
    }

    long long errors = 0;
    const float rank_sum = ranks * (ranks + 1) / 2.0f;
    for (int r = 0; r < ranks; ++r) {
        CUDA_OK(cudaSetDevice(r));
        CUDA_OK(cudaStreamSynchronize(streams[r]));
        CUDA_OK(cudaMemcpy(host.data(), buffers[r], n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i)
            if (host[i] != float(i % 97) * rank_sum + 1.0f) ++errors;
        CUDA_OK(cudaFree(buffers[r]));
        CUDA_OK(cudaStreamDestroy(streams[r]));
        NCCL_OK(ncclCommDestroy(comms[r]));
    }
    std::printf("all_reduce_one_process n=%d ranks=%d errors=%lld %s\n", n, ranks, errors,
                errors == 0 ? "OK" : "FAILED");
    return errors == 0 ? 0 : 1;
}
