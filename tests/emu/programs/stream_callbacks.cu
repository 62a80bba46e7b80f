// stream_callbacks.cu - a pipeline over several streams in the style of a
// course exercise on streams: each chunk is copied in, scaled and copied
// back on its own stream, and cudaStreamAddCallback reports the chunk done to
// the host (the callback must not call CUDA, so it only records); a final
// stream waits on every chunk's event (cudaEventCreateWithFlags with timing
// off, cudaStreamWaitEvent) before a cudaLaunchHostFunc marks the end. Checks
// that every callback saw cudaSuccess, ran after its chunk's copy back, and
// came before the final host function. Prints "stream_callbacks ... OK".
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK_CUDA(call)                                                              \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

constexpr int kStreams = 4;

struct ChunkInfo {
    int index;
    const float* result;  // the chunk's host output, filled by the copy back
    float expected_first;
    std::atomic<int>* order;
    int done_at = -1;
    bool first_ok = false;
    cudaError_t status = cudaErrorUnknown;
};

void CUDART_CB chunkDone(cudaStream_t, cudaError_t status, void* data) {
    ChunkInfo* info = static_cast<ChunkInfo*>(data);
    info->status = status;
    info->first_ok = info->result[0] == info->expected_first;
    info->done_at = (*info->order)++;
}

void CUDART_CB allDone(void* data) { *static_cast<int*>(data) = 1; }

__global__ void scale(float* x, int n, float factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000003;
    if (n < kStreams || n > (1 << 26)) {
        fprintf(stderr, "usage: %s [%d <= n <= 67108864]\n", argv[0], kStreams);
        return 2;
    }
    float *h_in, *h_out, *d;
    CHECK_CUDA(cudaMallocHost(&h_in, n * sizeof(float)));
    CHECK_CUDA(cudaMallocHost(&h_out, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d, n * sizeof(float)));
    std::mt19937 gen(std::random_device{}());
    std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
    for (int i = 0; i < n; ++i) h_in[i] = dist(gen);

    cudaStream_t streams[kStreams], final_stream;
    cudaEvent_t chunk_done[kStreams];
    for (int s = 0; s < kStreams; ++s) {
        CHECK_CUDA(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        CHECK_CUDA(cudaEventCreateWithFlags(&chunk_done[s], cudaEventDisableTiming));
    }
    CHECK_CUDA(cudaStreamCreateWithFlags(&final_stream, cudaStreamNonBlocking));

    std::atomic<int> order{0};
    std::vector<ChunkInfo> info;
    const int chunk = (n + kStreams - 1) / kStreams;
    for (int s = 0; s < kStreams; ++s) {
        const int begin = s * chunk, count = begin + chunk > n ? n - begin : chunk;
        info.push_back(ChunkInfo{s, h_out + begin, h_in[begin] * 2.0f, &order});
        CHECK_CUDA(cudaMemcpyAsync(d + begin, h_in + begin, count * sizeof(float),
                                   cudaMemcpyHostToDevice, streams[s]));
        scale<<<(count + 255) / 256, 256, 0, streams[s]>>>(d + begin, count, 2.0f);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaMemcpyAsync(h_out + begin, d + begin, count * sizeof(float),
                                   cudaMemcpyDeviceToHost, streams[s]));
        CHECK_CUDA(cudaEventRecord(chunk_done[s], streams[s]));
    }
    for (int s = 0; s < kStreams; ++s)
        CHECK_CUDA(cudaStreamAddCallback(streams[s], chunkDone, &info[s], 0));
    int finished = 0;
    for (int s = 0; s < kStreams; ++s) CHECK_CUDA(cudaStreamWaitEvent(final_stream, chunk_done[s], 0));
    CHECK_CUDA(cudaLaunchHostFunc(final_stream, allDone, &finished));
    CHECK_CUDA(cudaDeviceSynchronize());

    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (h_out[i] != 2.0f * h_in[i]) ++errors;
    for (const ChunkInfo& c : info)
        if (c.status != cudaSuccess || !c.first_ok || c.done_at < 0) ++errors;
    if (!finished || order.load() != kStreams) ++errors;

    for (int s = 0; s < kStreams; ++s) {
        CHECK_CUDA(cudaStreamDestroy(streams[s]));
        CHECK_CUDA(cudaEventDestroy(chunk_done[s]));
    }
    CHECK_CUDA(cudaStreamDestroy(final_stream));
    CHECK_CUDA(cudaFreeHost(h_in));
    CHECK_CUDA(cudaFreeHost(h_out));
    CHECK_CUDA(cudaFree(d));
    printf("stream_callbacks n=%d streams=%d errors=%d %s\n", n, kStreams, errors,
           errors == 0 ? "OK" : "FAILED");
    return errors == 0 ? 0 : 1;
}
