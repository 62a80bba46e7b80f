// Lesson 17: streams, pinned memory and a timeline.
//
// A GPU has engines that work at the same time: the multiprocessors run
// kernels while copy engines move data over the bus. One queue of work (one
// stream) uses one engine at a time: copy in, then compute, then copy out.
// Cut the data into chunks and give each chunk its own stream, and chunk 1
// can be copied in while chunk 0 is computed and chunk -1 copied out: the
// classic three-way overlap. Two things make it possible: pinned host memory
// (cudaMallocHost), which a copy engine can read on its own, so that
// cudaMemcpyAsync really returns at once; and streams other than the default
// one, whose work is not ordered against each other.
//
// This program measures both: the copy bandwidth from pageable (malloc) and
// pinned memory, then the chunked pipeline on 1 stream and on --streams
// streams, timed with events recorded on the default stream (which, being
// the legacy default stream, waits for all the other streams' work).
//
// Build and run:   ./tutorial run 17 [--n 4000000] [--streams 4] [--chunks 8]
//                  ./tutorial run 17 --pageable   (the pipeline from malloc'd memory)
//                  CUEMU_TRACE=trace.json ./tutorial run 17   (a timeline, emulator)
//                  ./tutorial check 17             (the exercise's test)
//                  ./tutorial solution 17          (the finished version)
// It prints the bandwidth table, the pipeline's times, and PASS or FAIL
// against the CPU result.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference_streams.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

// ---- kernel: some arithmetic per element, one thread each ----

__global__ void transform_kernel(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = sqrtf(fabsf(in[i])) + in[i] * in[i];
}

static const int kBlock = 256;

// ---- the pipeline: chunks, each copied in, computed and copied out on one stream ----

// The device buffers and the streams, made once and reused by every run.
struct Pipeline {
    float* d_in = nullptr;
    float* d_out = nullptr;
    std::vector<cudaStream_t> streams;
};

Pipeline make_pipeline(int n, int num_streams) {
    Pipeline p;
    CUDA_CHECK(cudaMalloc(&p.d_in, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.d_out, (size_t)n * sizeof(float)));
    p.streams.resize((size_t)num_streams);
    for (cudaStream_t& s : p.streams) CUDA_CHECK(cudaStreamCreate(&s));
    return p;
}

void free_pipeline(Pipeline& p) {
    for (cudaStream_t s : p.streams) CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(p.d_in));
    CUDA_CHECK(cudaFree(p.d_out));
    p = Pipeline{};
}

// Queues the whole job and returns without waiting. Chunk c goes to stream
// c % streams, its three steps in order there; different chunks' steps are
// free to overlap. With pinned h_in and h_out every call returns at once;
// with pageable ones each copy returns only when it is done (see the README).
// [snippet: issue-chunks]
void issue_chunks(const Pipeline& p, const float* h_in, float* h_out, int n, int num_chunks) {
    const int chunk = (n + num_chunks - 1) / num_chunks;
    for (int c = 0; c < num_chunks; ++c) {
        const int offset = 0;  // TODO(17.1): where chunk c starts
        const int count = std::min(chunk, n - offset);
        if (count <= 0) break;  // more chunks than elements
        cudaStream_t stream = p.streams[0];  // TODO(17.2): spread the chunks over the streams
        const size_t bytes = (size_t)count * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(p.d_in + offset, h_in + offset, bytes,
                                   cudaMemcpyHostToDevice, stream));
        transform_kernel<<<(count + kBlock - 1) / kBlock, kBlock, 0, stream>>>(
            p.d_in + offset, p.d_out + offset, count);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_out + offset, p.d_out + offset, bytes,
                                   cudaMemcpyDeviceToHost, stream));
    }
}
// [end snippet]

// The launcher the test calls: the whole job, finished when it returns.
void transform_in_streams(const float* h_in, float* h_out, int n, int num_streams,
                          int num_chunks) {
    Pipeline p = make_pipeline(n, num_streams);
    issue_chunks(p, h_in, h_out, n, num_chunks);
    CUDA_CHECK(cudaDeviceSynchronize());  // the copies out are asynchronous
    free_pipeline(p);
}

// ---- timing with events on the default stream ----

// Milliseconds of one run of the pipeline. The two events are recorded on
// the legacy default stream (0): work there waits for all earlier work of
// the (blocking) streams, and theirs waits for it, so start is reached
// before any chunk starts and stop after every chunk is done.
// [snippet: time-pipeline]
float time_pipeline(const Pipeline& p, const float* h_in, float* h_out, int n, int num_chunks) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    issue_chunks(p, h_in, h_out, n, num_chunks);
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}
// [end snippet]

// ---- main: bandwidth, then the pipeline on 1 and N streams ----
#ifndef TUTORIAL_TEST_BUILD

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The median time of `reps` copies of `bytes`, timed with events.
static float copy_ms(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, int reps) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> times;
    for (int r = 0; r < reps; ++r) {
        CUDA_CHECK(cudaEventRecord(start, 0));
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, 0));
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return median(times);
}

static double gb_per_s(size_t bytes, float ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

// out against the CPU; prints a summary and PASS or FAIL.
static bool check(const char* label, const float* in, const float* out, int n) {
    std::vector<float> ref((size_t)n);
    cpu_stream_transform(in, ref.data(), n);
    // The device and the CPU both compute in float; sqrtf is correctly
    // rounded on both, the product and sum round alike unless the compiler
    // fuses them (one rounding less): 1e-6 relative covers that.
    size_t bad = compare_floats(label, out, ref.data(), (size_t)n, 1e-6, 1e-6, 5);
    std::printf("  %s: %s\n", label, bad == 0 ? "PASS" : "FAIL");
    return bad == 0;
}

int main(int argc, char** argv) {
    long long n = 4000000, num_streams = 4, num_chunks = 8, reps = 5, pageable = 0;
    cli_option options[] = {
        {"--n", "number of elements", CLI_INT, &n, 1, 100000000},
        {"--streams", "streams for the pipeline", CLI_INT, &num_streams, 1, 32},
        {"--chunks", "chunks the data is cut into", CLI_INT, &num_chunks, 1, 1024},
        {"--reps", "timed runs of each measurement (the median is shown)", CLI_INT, &reps, 1, 100},
        {"--pageable", "run the pipeline from malloc'd (pageable) host memory", CLI_FLAG,
         &pageable, 0, 1},
    };
    cli_parse(argc, argv,
              "Copy bandwidth from pageable and pinned memory, then a chunked\n"
              "copy-compute-copy pipeline on 1 stream and on N streams.",
              options, 5);
    // Host: pageable in and out, pinned in and out, the CPU reference.
    // Device: in and out. Time grows with n like memory: no duration check.
    run_limits_require_memory(5.0 * 4.0 * (double)n, 2.0 * 4.0 * (double)n);

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s, %d copy engine(s) beside the kernels\n", prop.name,
                prop.asyncEngineCount);

    const int count = (int)n;
    const size_t bytes = (size_t)count * sizeof(float);
    std::vector<float> pageable_in((size_t)count), pageable_out((size_t)count);
    fill_random(pageable_in.data(), pageable_in.size(), 17, -4.0f, 4.0f);
    float *pinned_in = nullptr, *pinned_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&pinned_in, bytes));
    CUDA_CHECK(cudaMallocHost(&pinned_out, bytes));
    std::copy(pageable_in.begin(), pageable_in.end(), pinned_in);

    // The one-stream pipeline is made first: it is stream 1 on a timeline,
    // the others 2 and up.
    Pipeline serial = make_pipeline(count, 1);
    Pipeline p = make_pipeline(count, (int)num_streams);

    // 1. Copy bandwidth: the same bytes, from and to pageable or pinned memory.
    std::printf("\n1. copy bandwidth, %.1f MB each way, median of %d (events on stream 0)\n",
                bytes / 1e6, (int)reps);
    std::printf("  %-9s %12s %12s\n", "host", "to device", "to host");
    const int r = (int)reps;
    const float pageable_h2d = copy_ms(p.d_in, pageable_in.data(), bytes, cudaMemcpyHostToDevice, r);
    const float pageable_d2h = copy_ms(pageable_out.data(), p.d_in, bytes, cudaMemcpyDeviceToHost, r);
    const float pinned_h2d = copy_ms(p.d_in, pinned_in, bytes, cudaMemcpyHostToDevice, r);
    const float pinned_d2h = copy_ms(pinned_out, p.d_in, bytes, cudaMemcpyDeviceToHost, r);
    std::printf("  %-9s %7.2f GB/s %7.2f GB/s\n", "pageable", gb_per_s(bytes, pageable_h2d),
                gb_per_s(bytes, pageable_d2h));
    std::printf("  %-9s %7.2f GB/s %7.2f GB/s\n", "pinned", gb_per_s(bytes, pinned_h2d),
                gb_per_s(bytes, pinned_d2h));

    // 2. The pipeline on one stream, then on num_streams streams.
    const float* in = pageable ? pageable_in.data() : pinned_in;
    float* out = pageable ? pageable_out.data() : pinned_out;
    std::printf("\n2. pipeline: %d elements in %lld chunks, copy in + kernel + copy out each,\n"
                "   host memory %s, median of %d\n",
                count, num_chunks, pageable ? "pageable (malloc)" : "pinned (cudaMallocHost)",
                (int)reps);
    std::vector<float> one_stream, many_streams;
    for (int i = 0; i < r; ++i) {
        one_stream.push_back(time_pipeline(serial, in, out, count, (int)num_chunks));
        many_streams.push_back(time_pipeline(p, in, out, count, (int)num_chunks));
    }
    free_pipeline(serial);
    const float t1 = median(one_stream), tn = median(many_streams);
    std::printf("  %2d stream:  %8.3f ms\n", 1, t1);
    std::printf("  %2lld streams: %8.3f ms  (%.2f times the speed of one stream)\n", num_streams,
                tn, tn > 0 ? t1 / tn : 0.0);

    // 3. The last run's result against the CPU.
    fill_poison(out, (size_t)count);
    issue_chunks(p, in, out, count, (int)num_chunks);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("\n3. result\n");
    const bool passed = check("out", in, out, count);
    free_pipeline(p);
    CUDA_CHECK(cudaFreeHost(pinned_in));
    CUDA_CHECK(cudaFreeHost(pinned_out));
    std::printf("\n%s\n", passed ? "PASS" : "FAIL");
    return passed ? 0 : 1;
}
#endif  // TUTORIAL_TEST_BUILD
