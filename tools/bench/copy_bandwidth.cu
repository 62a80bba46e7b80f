// copy_bandwidth.cu - device-to-device copy bandwidth: the ceiling for a
// memory-bound kernel such as vector add (./tutorial bench plots it).
//
// A cudaMemcpy from one device buffer to another reads and writes every byte
// once, so GB/s counts 2 x bytes per copy, as vector add's 12 bytes per
// element count its two reads and one write. Timed with CUDA events after a
// warm-up copy; the median of --repeats copies. Prints one line:
//   copy_bandwidth bytes=<size> ms=<median> GBps=<bandwidth> device=<name>
//
// Usage: copy_bandwidth [--mib 256] [--repeats 20]
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "cli.h"
#include "cuda_check.h"

int main(int argc, char** argv) {
    long long mib = 256, repeats = 20;
    cli_option options[] = {
        {"--mib", "size of each buffer in MiB", CLI_INT, &mib, 1, 4096},
        {"--repeats", "timed copies; the median is reported", CLI_INT, &repeats, 1, 1000},
    };
    cli_parse(argc, argv, "Device-to-device copy bandwidth (cudaMemcpy, CUDA events).", options, 2);

    const size_t bytes = (size_t)mib << 20;
    void *d_src = nullptr, *d_dst = nullptr;
    CUDA_CHECK(cudaMalloc(&d_src, bytes));
    CUDA_CHECK(cudaMalloc(&d_dst, bytes));
    CUDA_CHECK(cudaMemset(d_src, 1, bytes));
    CUDA_CHECK(cudaMemcpy(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice));  // warm-up

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> times;
    for (long long i = 0; i < repeats; ++i) {
        CUDA_CHECK(cudaEventRecord(start));
        CUDA_CHECK(cudaMemcpy(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    const float median_ms = times[times.size() / 2];

    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("copy_bandwidth bytes=%zu ms=%.4f GBps=%.2f device=%s\n", bytes, median_ms,
                2.0 * (double)bytes / (median_ms * 1e6), prop.name);

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_src));
    CUDA_CHECK(cudaFree(d_dst));
    return 0;
}
