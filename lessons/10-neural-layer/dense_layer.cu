// Lesson 10: a neural layer - Y = sigmoid(W X + b) for a batch of inputs.
//
// A dense layer of a neural network turns a sample x (a column of `inputs`
// numbers) into sigmoid(W x + b): one row of weights per output neuron, one
// bias per neuron, and the sigmoid squashing each neuron's sum into (0, 1).
// Put the samples of a batch side by side as the columns of X and the whole
// batch is one matrix product:
//
//     Y (outputs x batch) = sigmoid( W (outputs x inputs) X (inputs x batch) + b )
//
// That is a matrix multiply, an addition and an elementwise function: the
// kernels of lessons 06 to 09, re-stated below. Every output element is
// independent of every other, which is why neural networks suit GPUs so well.
// Then one fused kernel does all three: the tiled matmul whose last step adds
// the bias and applies the sigmoid before its single store. Last, a tiny
// network: two layers back to back, 784 -> 128 -> 10, the second reading the
// first's output where it already is, on the device.
//
// Build and run:   ./tutorial run 10 [--batch 64] [--inputs 784] [--hidden 128]
//                        [--outputs 10] [--tile 16] [--block 256] [--bench]
//                  ./tutorial check 10              (the exercise's test)
//                  ./tutorial solution 10           (the finished version)
// It checks the three-kernel layer, the fused layer and the two-layer forward
// pass against the CPU (PASS or FAIL); --bench adds a timing table.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference.h"
#include "timer.h"

#include <cmath>
#include <cstdio>
#include <vector>

// Matrices are row-major: element (row, col) of a matrix with `cols` columns
// is at [row * cols + col]. The layer's shapes (the same as cpu_dense_layer's):
//   W: outputs x inputs   one row of weights per output neuron
//   X: inputs x batch     one column per sample, so W X is a plain matmul
//   b: outputs            one bias per neuron, added to every column
//   Y: outputs x batch    one column of outputs per sample

// ---- the pieces from lessons 06 to 09, re-stated ----

// The widest tile: a tile x tile block has tile * tile threads, and a block
// holds at most 1024 = 32 x 32. The shared arrays below are sized for it; a
// smaller tile uses their top-left corner.
constexpr int kMaxTile = 32;

// The logistic sigmoid, from lesson 07: __host__ __device__ so that host code
// and kernels share one definition. expf rather than the faster __expf:
// lesson 07 showed __expf's larger error, and here accuracy is the point.
__host__ __device__ inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// One element (row, col) of the product A B, with A m x k and B k x n,
// computed tile by tile through shared memory as in lesson 09. The block is
// tile x tile threads (tile = blockDim.x = blockDim.y) and computes one
// tile x tile square of the result.
// Every thread of the block must call this, including threads whose (row,
// col) lies outside the result: they still load their share of each tile,
// which the others need, and they must reach each __syncthreads (a barrier
// that only part of a block reaches is undefined: a hang or wrong sums).
// [snippet: tiled-dot]
__device__ float tiled_dot(const float* a, const float* b, int m, int n, int k, int row, int col) {
    __shared__ float a_tile[kMaxTile][kMaxTile];
    __shared__ float b_tile[kMaxTile][kMaxTile];
    const int tile = blockDim.x;
    const int tx = threadIdx.x, ty = threadIdx.y;
    float sum = 0.0f;
    for (int start = 0; start < k; start += tile) {
        // Each thread brings in one element of each tile. Past an edge of A or
        // B it stores 0, which adds nothing to the sum: that is how sizes that
        // are not a multiple of the tile come out right.
        a_tile[ty][tx] = (row < m && start + tx < k) ? a[row * k + start + tx] : 0.0f;
        b_tile[ty][tx] = (start + ty < k && col < n) ? b[(start + ty) * n + col] : 0.0f;
        __syncthreads();  // both tiles complete before anyone reads them
        for (int i = 0; i < tile; ++i) sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads();  // everyone done reading before the next loads overwrite them
    }
    return sum;
}
// [end snippet]

// C = A B (lessons 08 and 09). Row from the y coordinates, column from the x
// coordinates (lesson 06), so neighbouring threads of a row of the block write
// neighbouring elements of C.
// [snippet: matmul-kernel]
__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = tiled_dot(a, b, m, n, k, row, col);
    if (row < m && col < n) c[row * n + col] = sum;
}
// [end snippet]

// Z += b, in place, with Z rows x cols and b one value per row (2D indexing,
// lesson 06). b is a column, Z is a matrix: the same bias goes to every column
// of its row, that is, to every sample. This is called broadcasting.
// [snippet: add-bias]
__global__ void add_bias_kernel(float* z, const float* bias, int rows, int cols) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols) {
        // TODO(10.1): read this row's bias from `bias`. Which index: the row
        //             (the neuron) or the column (the sample)? As shipped
        //             no bias is added at all.
        float this_neurons_bias = 0.0f;
        z[row * cols + col] += this_neurons_bias;
    }
}
// [end snippet]

// y[i] = sigmoid(y[i]), in place, for n elements (lesson 07). The matrix is
// one contiguous array, so an elementwise function needs no rows or columns.
__global__ void sigmoid_kernel(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = sigmoid(y[i]);
}

// ---- the fused kernel: the whole layer in one launch ----

// Y = sigmoid(W X + b). The matmul part is matmul_tiled_kernel's, with
// m = outputs, n = batch, k = inputs. What changes is the end, the
// "epilogue": the sum W X is still in a register, so finish the layer there
// and store once. The three-kernel version writes Y, reads and rewrites it to
// add b, then reads and rewrites it again for the sigmoid.
// [snippet: fused-kernel]
__global__ void dense_layer_fused_kernel(const float* w, const float* x, const float* bias, float* y,
                                         int outputs, int inputs, int batch) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // which neuron
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // which sample
    float sum = tiled_dot(w, x, outputs, batch, inputs, row, col);
    if (row < outputs && col < batch) {
        // TODO(10.2): the epilogue. Before this single store, add this
        //             neuron's bias (the same for every sample) and apply
        //             sigmoid(). As shipped it stores the bare matmul
        //             result W X.
        y[row * batch + col] = sum;
    }
}
// [end snippet]

// ---- the layer on device buffers ----

// A grid of tile x tile blocks covering a rows x cols result: x counts
// columns, y counts rows, each rounded up (lesson 04).
static dim3 grid_for(int rows, int cols, int tile) {
    return dim3((unsigned)((cols + tile - 1) / tile), (unsigned)((rows + tile - 1) / tile));
}

// Y = sigmoid(W X + b) in three launches: matmul into Y, bias into Y, sigmoid
// of Y. All pointers are device pointers. tile: 1 to 32; block_size: threads
// per block of the sigmoid kernel, 1 to 1024.
static void dense_layer_unfused_on_device(const float* d_w, const float* d_x, const float* d_b,
                                          float* d_y, int outputs, int inputs, int batch, int tile,
                                          int block_size) {
    // [snippet: three-launches]
    dim3 block((unsigned)tile, (unsigned)tile);
    dim3 grid = grid_for(outputs, batch, tile);
    matmul_tiled_kernel<<<grid, block>>>(d_w, d_x, d_y, outputs, batch, inputs);
    CUDA_CHECK(cudaGetLastError());
    add_bias_kernel<<<grid, block>>>(d_y, d_b, outputs, batch);
    CUDA_CHECK(cudaGetLastError());
    int count = outputs * batch;
    sigmoid_kernel<<<(count + block_size - 1) / block_size, block_size>>>(d_y, count);
    CUDA_CHECK(cudaGetLastError());
    // [end snippet]
}

// The same layer in one launch.
static void dense_layer_fused_on_device(const float* d_w, const float* d_x, const float* d_b,
                                        float* d_y, int outputs, int inputs, int batch, int tile) {
    dim3 block((unsigned)tile, (unsigned)tile);
    dense_layer_fused_kernel<<<grid_for(outputs, batch, tile), block>>>(d_w, d_x, d_b, d_y,
                                                                        outputs, inputs, batch);
    CUDA_CHECK(cudaGetLastError());
}

// ---- device memory for one layer ----

struct LayerBuffers {
    float* d_w = nullptr;
    float* d_x = nullptr;
    float* d_b = nullptr;
    float* d_y = nullptr;
};

static float* device_floats(size_t count) {
    float* d_p = nullptr;
    CUDA_CHECK(cudaMalloc(&d_p, count * sizeof(float)));
    return d_p;
}

static void copy_to_device(float* d_dst, const float* h_src, size_t count) {
    CUDA_CHECK(cudaMemcpy(d_dst, h_src, count * sizeof(float), cudaMemcpyHostToDevice));
}

static void copy_to_host(float* h_dst, const float* d_src, size_t count) {
    CUDA_CHECK(cudaMemcpy(h_dst, d_src, count * sizeof(float), cudaMemcpyDeviceToHost));
}

static LayerBuffers allocate_layer(int outputs, int inputs, int batch) {
    LayerBuffers buf;
    buf.d_w = device_floats((size_t)outputs * inputs);
    buf.d_x = device_floats((size_t)inputs * batch);
    buf.d_b = device_floats((size_t)outputs);
    buf.d_y = device_floats((size_t)outputs * batch);
    return buf;
}

static void upload_layer(const LayerBuffers& buf, const float* h_w, const float* h_x,
                         const float* h_b, int outputs, int inputs, int batch) {
    copy_to_device(buf.d_w, h_w, (size_t)outputs * inputs);
    copy_to_device(buf.d_x, h_x, (size_t)inputs * batch);
    copy_to_device(buf.d_b, h_b, (size_t)outputs);
}

static void free_layer(LayerBuffers& buf) {
    CUDA_CHECK(cudaFree(buf.d_w));
    CUDA_CHECK(cudaFree(buf.d_x));
    CUDA_CHECK(cudaFree(buf.d_b));
    CUDA_CHECK(cudaFree(buf.d_y));
    buf = LayerBuffers{};
}

// ---- launchers: host arrays in, host array out ----

// Y = sigmoid(W X + b) with three kernels. Host arrays in the layout above;
// any sizes >= 1; tile 1 to 32; block_size 1 to 1024.
void dense_layer_unfused_on_gpu(const float* h_w, const float* h_x, const float* h_b, float* h_y,
                                int outputs, int inputs, int batch, int tile, int block_size) {
    LayerBuffers buf = allocate_layer(outputs, inputs, batch);
    upload_layer(buf, h_w, h_x, h_b, outputs, inputs, batch);
    dense_layer_unfused_on_device(buf.d_w, buf.d_x, buf.d_b, buf.d_y, outputs, inputs, batch,
                                  tile, block_size);
    copy_to_host(h_y, buf.d_y, (size_t)outputs * batch);
    free_layer(buf);
}

// The same with the fused kernel.
void dense_layer_fused_on_gpu(const float* h_w, const float* h_x, const float* h_b, float* h_y,
                              int outputs, int inputs, int batch, int tile) {
    LayerBuffers buf = allocate_layer(outputs, inputs, batch);
    upload_layer(buf, h_w, h_x, h_b, outputs, inputs, batch);
    dense_layer_fused_on_device(buf.d_w, buf.d_x, buf.d_b, buf.d_y, outputs, inputs, batch, tile);
    copy_to_host(h_y, buf.d_y, (size_t)outputs * batch);
    free_layer(buf);
}

// ---- two layers: a tiny network's forward pass ----

// H = sigmoid(W1 X + b1)   H: hidden x batch, layer 1's output
// Y = sigmoid(W2 H + b2)   Y: outputs x batch
struct NetworkBuffers {
    float* d_x = nullptr;
    float* d_w1 = nullptr;
    float* d_b1 = nullptr;
    float* d_h = nullptr;
    float* d_w2 = nullptr;
    float* d_b2 = nullptr;
    float* d_y = nullptr;
};

static NetworkBuffers allocate_network(int inputs, int hidden, int outputs, int batch) {
    NetworkBuffers net;
    net.d_x = device_floats((size_t)inputs * batch);
    net.d_w1 = device_floats((size_t)hidden * inputs);
    net.d_b1 = device_floats((size_t)hidden);
    net.d_h = device_floats((size_t)hidden * batch);
    net.d_w2 = device_floats((size_t)outputs * hidden);
    net.d_b2 = device_floats((size_t)outputs);
    net.d_y = device_floats((size_t)outputs * batch);
    // Fresh device memory holds whatever was there before, possibly an
    // earlier run's right answer. All 0xFF bytes is a NaN in every float, so
    // an output that no kernel writes cannot pass the check by luck.
    CUDA_CHECK(cudaMemset(net.d_h, 0xFF, (size_t)hidden * batch * sizeof(float)));
    CUDA_CHECK(cudaMemset(net.d_y, 0xFF, (size_t)outputs * batch * sizeof(float)));
    return net;
}

static void upload_network(const NetworkBuffers& net, const float* h_x, const float* h_w1,
                           const float* h_b1, const float* h_w2, const float* h_b2, int inputs,
                           int hidden, int outputs, int batch) {
    copy_to_device(net.d_x, h_x, (size_t)inputs * batch);
    copy_to_device(net.d_w1, h_w1, (size_t)hidden * inputs);
    copy_to_device(net.d_b1, h_b1, (size_t)hidden);
    copy_to_device(net.d_w2, h_w2, (size_t)outputs * hidden);
    copy_to_device(net.d_b2, h_b2, (size_t)outputs);
}

static void free_network(NetworkBuffers& net) {
    for (float* d_p : {net.d_x, net.d_w1, net.d_b1, net.d_h, net.d_w2, net.d_b2, net.d_y})
        CUDA_CHECK(cudaFree(d_p));
    net = NetworkBuffers{};
}

// Both layers, fused kernels, all on the device. Layer 1 writes H into
// device memory and layer 2 reads it from there: no copy to the host and
// back in between. Launches on one stream run in order, so layer 2 starts
// only after layer 1 has finished writing H.
// [snippet: two-layers]
static void two_layer_forward_on_device(const NetworkBuffers& net, int inputs, int hidden,
                                        int outputs, int batch, int tile) {
    dense_layer_fused_on_device(net.d_w1, net.d_x, net.d_b1, net.d_h, hidden, inputs, batch, tile);
    // TODO(10.3): layer 2, Y = sigmoid(W2 H + b2), with the same
    //             dense_layer_fused_on_device: its input is net.d_h, its
    //             output net.d_y. Mind the shapes: layer 2 has `outputs`
    //             neurons and `hidden` inputs. As shipped Y is never written
    //             and stays NaN.
}
// [end snippet]

// The forward pass from host arrays to a host array: X (inputs x batch) in,
// Y (outputs x batch) out; W1 hidden x inputs, b1 hidden, W2 outputs x hidden,
// b2 outputs.
void two_layer_forward_on_gpu(const float* h_x, const float* h_w1, const float* h_b1,
                              const float* h_w2, const float* h_b2, float* h_y, int inputs,
                              int hidden, int outputs, int batch, int tile) {
    NetworkBuffers net = allocate_network(inputs, hidden, outputs, batch);
    upload_network(net, h_x, h_w1, h_b1, h_w2, h_b2, inputs, hidden, outputs, batch);
    two_layer_forward_on_device(net, inputs, hidden, outputs, batch, tile);
    copy_to_host(h_y, net.d_y, (size_t)outputs * batch);
    free_network(net);
}

// ---- main: each version against the CPU, then an optional timing table ----
#ifndef TUTORIAL_TEST_BUILD

// The device sums W X in float, tile by tile; the CPU reference sums in
// double. Through the sigmoid (slope at most 1/4) the outputs, all in (0, 1),
// differ by about 3e-7 for 784 inputs and 1.5e-6 for 16384 (measured on the
// emulator). 1e-5 absolute covers every size the flags allow, while a real
// bug (a missing bias, a missing sigmoid) moves outputs by 1e-3 or far more.
// No output exceeds 1, so the relative part adds little and is kept as small.
static const double kAtol = 1e-5, kRtol = 1e-5;

static bool report(const char* label, const std::vector<float>& got, const std::vector<float>& ref,
                   int cols) {
    size_t mismatches = compare_matrix(label, got.data(), ref.data(), got.size() / (size_t)cols,
                                       (size_t)cols, kAtol, kRtol, 5);
    std::printf("  %s: %s\n", label, mismatches == 0 ? "PASS" : "FAIL");
    return mismatches == 0;
}

// Weights and biases uniform in +-1/sqrt(inputs), the usual default for a
// linear layer, with inputs in [-1, 1]: each neuron's sum W x + b then stays
// around +-1 however many inputs there are, where the sigmoid is curved. With
// plain [-1, 1] weights and 784 inputs the sums reach +-20 and the sigmoid
// saturates: nearly every output is 0 or 1, whatever the bugs.
static void random_layer(std::vector<float>& w, std::vector<float>& b, int outputs, int inputs,
                         uint64_t seed) {
    const float scale = 1.0f / std::sqrt((float)inputs);
    w.resize((size_t)outputs * inputs);
    b.resize((size_t)outputs);
    fill_random(w.data(), w.size(), seed, -scale, scale);
    fill_random(b.data(), b.size(), seed + 1, -scale, scale);
}

// The share of outputs the sigmoid has not flattened, in percent.
static double percent_unsaturated(const std::vector<float>& y) {
    size_t inside = 0;
    for (float v : y) inside += (v > 0.05f && v < 0.95f);
    return 100.0 * (double)inside / (double)y.size();
}

// Mean time of one call of work(), in milliseconds, measured with CUDA events
// over `reps` calls after one warm-up call (the first call pays for one-time
// setup). The events bracket everything the work does, copies included if it
// makes any.
template <class Work>
static double mean_ms(int reps, Work work) {
    work();
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r) work();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float total_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&total_ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return total_ms / reps;
}

// One line of the timing table: time and GFLOP/s, kernels only, then the time
// with copies (copies_ms < 0: no such column for this line).
static void print_row(const char* label, double kernel_ms, double copies_ms, double flops) {
    std::printf("  %-31s %9.3f ms %7.2f GFLOP/s", label, kernel_ms, flops / (kernel_ms * 1e6));
    if (copies_ms >= 0.0) std::printf(" %11.3f ms", copies_ms);
    std::printf("\n");
}

int main(int argc, char** argv) {
    long long batch = 64, inputs = 784, hidden = 128, outputs = 10;
    long long tile = 16, block_size = 256, bench = 0;
    cli_option options[] = {
        {"--batch", "samples per batch: the columns of X", CLI_INT, &batch, 1, 16384},
        {"--inputs", "inputs per sample; 784 = 28 x 28 pixels", CLI_INT, &inputs, 1, 16384},
        {"--hidden", "neurons of layer 1", CLI_INT, &hidden, 1, 16384},
        {"--outputs", "neurons of layer 2, the network's outputs", CLI_INT, &outputs, 1, 16384},
        {"--tile", "tile width: matmul blocks are tile x tile threads", CLI_INT, &tile, 1, kMaxTile},
        {"--block", "threads per block of the sigmoid kernel", CLI_INT, &block_size, 1, 1024},
        {"--bench", "also time each version: kernels only, and with copies", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "A dense layer Y = sigmoid(W X + b) on the GPU: three kernels, then one fused\n"
              "kernel, then a two-layer forward pass, each checked against the CPU.",
              options, 7);

    // Sizes this machine cannot hold, or finish in a few minutes, are refused
    // up front (run_limits.h). The work is the two layers' multiply-adds.
    // Seconds per multiply-add, measured for this program on a 2-core machine:
    // all of it on the emulator, 18.5 ns (every size 1024), 30 times that with
    // --bench (every size 512); the CPU reference alone, 4 ns, 11 times that
    // with --bench (it is timed over 10 runs).
    {
        const double in = (double)inputs, hid = (double)hidden, out = (double)outputs,
                     b = (double)batch;
        const double weights = hid * in + hid + out * hid + out;
        run_limits_require_memory(4.0 * (in * b + weights + 2.0 * hid * b + 2.0 * out * b),
                                  4.0 * (in * b + weights + 2.0 * hid * b + out * b));
        const double multiply_adds = hid * in * b + out * hid * b;
        run_limits_check_duration(multiply_adds, bench ? 30 * 18.5e-9 : 18.5e-9,
                                  bench ? 11 * 4e-9 : 4e-9,
                                  "--batch, --inputs, --hidden or --outputs");
    }

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);

    const int n_in = (int)inputs, n_hidden = (int)hidden, n_out = (int)outputs, n_batch = (int)batch;
    std::vector<float> h_x((size_t)n_in * n_batch);
    fill_random(h_x.data(), h_x.size(), 1, -1.0f, 1.0f);
    std::vector<float> h_w1, h_b1, h_w2, h_b2;
    random_layer(h_w1, h_b1, n_hidden, n_in, 10);
    random_layer(h_w2, h_b2, n_out, n_hidden, 20);
    bool all_passed = true;

    // 1. One layer (the network's first), two ways.
    std::printf("\none layer: H = sigmoid(W1 X + b1), against cpu_dense_layer\n");
    std::printf("  W1 %d x %d, X %d x %d (one sample per column), b1 %d, H %d x %d\n", n_hidden,
                n_in, n_in, n_batch, n_hidden, n_hidden, n_batch);
    std::printf("  three kernels: tiled matmul (%lld x %lld tiles), add bias, sigmoid (%lld threads per block)\n",
                tile, tile, block_size);
    std::printf("  fused kernel:  tiled matmul whose epilogue adds b1 and applies sigmoid\n");
    std::vector<float> h_ref((size_t)n_hidden * n_batch), h_got(h_ref.size());
    cpu_dense_layer(h_w1.data(), h_x.data(), h_b1.data(), h_ref.data(), n_hidden, n_in, n_batch);

    fill_poison(h_got.data(), h_got.size());  // NaN: an element nobody wrote cannot pass
    dense_layer_unfused_on_gpu(h_w1.data(), h_x.data(), h_b1.data(), h_got.data(), n_hidden, n_in,
                               n_batch, (int)tile, (int)block_size);
    all_passed &= report("three kernels", h_got, h_ref, n_batch);

    fill_poison(h_got.data(), h_got.size());
    dense_layer_fused_on_gpu(h_w1.data(), h_x.data(), h_b1.data(), h_got.data(), n_hidden, n_in,
                             n_batch, (int)tile);
    all_passed &= report("fused kernel", h_got, h_ref, n_batch);
    std::printf("  outputs between 0.05 and 0.95: %.1f%% (near 0 or 1 the sigmoid is flat\n"
                "  and hides errors; random weights are scaled by 1/sqrt(inputs) to avoid that)\n",
                percent_unsaturated(h_ref));

    // 2. Two layers, chained on the device.
    std::printf("\ntwo layers on the device: %d -> %d -> %d, batch %d, fused kernels\n", n_in,
                n_hidden, n_out, n_batch);
    std::printf("  layer 1's output H (%d x %d) stays on the device; layer 2 reads it there\n",
                n_hidden, n_batch);
    std::printf("  Y = sigmoid(W2 H + b2), %d x %d, against two chained cpu_dense_layer calls\n",
                n_out, n_batch);
    std::vector<float> h_y_ref((size_t)n_out * n_batch), h_y((size_t)n_out * n_batch);
    cpu_dense_layer(h_w2.data(), h_ref.data(), h_b2.data(), h_y_ref.data(), n_out, n_hidden, n_batch);
    fill_poison(h_y.data(), h_y.size());
    two_layer_forward_on_gpu(h_x.data(), h_w1.data(), h_b1.data(), h_w2.data(), h_b2.data(),
                             h_y.data(), n_in, n_hidden, n_out, n_batch, (int)tile);
    all_passed &= report("two layers", h_y, h_y_ref, n_batch);
    const int shown = n_out < 10 ? n_out : 10;
    std::printf("  sample 0, first %d of %d outputs:", shown, n_out);
    for (int o = 0; o < shown; ++o) std::printf(" %.4f", h_y[(size_t)o * n_batch]);  // column 0
    std::printf("\n");

    // 3. Timing, when asked.
    if (bench) {
        const int reps = 10;
        const double flops1 = 2.0 * n_hidden * n_in * n_batch;  // one multiply and one add per term
        const double flops2 = flops1 + 2.0 * n_out * n_hidden * n_batch;
        std::printf("\ntiming on %s, mean of %d runs after a warm-up\n", prop.name, reps);
        std::printf("  %-31s %-28s %14s\n", "", "kernels only", "with copies");

        double cpu_ms = 0.0;
        {
            double t0 = wall_time_ms();
            for (int r = 0; r < reps; ++r)
                cpu_dense_layer(h_w1.data(), h_x.data(), h_b1.data(), h_ref.data(), n_hidden,
                                n_in, n_batch);
            cpu_ms = (wall_time_ms() - t0) / reps;
        }
        print_row("layer 1 on the CPU (reference)", cpu_ms, -1.0, flops1);

        LayerBuffers buf = allocate_layer(n_hidden, n_in, n_batch);
        upload_layer(buf, h_w1.data(), h_x.data(), h_b1.data(), n_hidden, n_in, n_batch);
        auto unfused = [&] {
            dense_layer_unfused_on_device(buf.d_w, buf.d_x, buf.d_b, buf.d_y, n_hidden, n_in,
                                          n_batch, (int)tile, (int)block_size);
        };
        auto fused = [&] {
            dense_layer_fused_on_device(buf.d_w, buf.d_x, buf.d_b, buf.d_y, n_hidden, n_in,
                                        n_batch, (int)tile);
        };
        auto upload = [&] {
            upload_layer(buf, h_w1.data(), h_x.data(), h_b1.data(), n_hidden, n_in, n_batch);
        };
        auto download = [&] { copy_to_host(h_got.data(), buf.d_y, h_got.size()); };
        print_row("layer 1, three kernels", mean_ms(reps, unfused),
                  mean_ms(reps, [&] { upload(); unfused(); download(); }), flops1);
        print_row("layer 1, one fused kernel", mean_ms(reps, fused),
                  mean_ms(reps, [&] { upload(); fused(); download(); }), flops1);
        free_layer(buf);

        NetworkBuffers net = allocate_network(n_in, n_hidden, n_out, n_batch);
        upload_network(net, h_x.data(), h_w1.data(), h_b1.data(), h_w2.data(), h_b2.data(), n_in,
                       n_hidden, n_out, n_batch);
        auto forward = [&] { two_layer_forward_on_device(net, n_in, n_hidden, n_out, n_batch, (int)tile); };
        auto forward_with_copies = [&] {
            upload_network(net, h_x.data(), h_w1.data(), h_b1.data(), h_w2.data(), h_b2.data(),
                           n_in, n_hidden, n_out, n_batch);
            forward();
            copy_to_host(h_y.data(), net.d_y, h_y.size());
        };
        print_row("both layers, fused", mean_ms(reps, forward), mean_ms(reps, forward_with_copies),
                  flops2);
        free_network(net);
        std::printf("  kernels only: the layer's launches on data already on the device.\n"
                    "  with copies: also W, X and b copied in and the output copied back, each run\n"
                    "  (a real network keeps its weights on the device). Allocation not included.\n");
    }

    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
