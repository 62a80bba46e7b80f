// mlp.cuh - lesson 20's network: a 784-128-10 multilayer perceptron, its
// kernels and the host functions that launch them on device buffers.
//
// The network, for a batch of samples side by side as columns (lesson 10):
//     Z1 = W1 X + b1      A1 = act(Z1)        (hidden x batch; act: ReLU or sigmoid)
//     Z2 = W2 A1 + b2     P = softmax(Z2)     (classes x batch; one column per sample)
//     loss = sum over the samples of -log P[label][sample]
// and backward, the chain rule one layer at a time:
//     dZ2 = (P - Y) / total              Y: one-hot labels; total: see "gradients"
//     dW2 = dZ2 A1^T    db2 = sum over columns of dZ2    dA1 = W2^T dZ2
//     dZ1 = dA1 * act'(Z1)  (elementwise)
//     dW1 = dZ1 X^T     db1 = sum over columns of dZ1
// then SGD: every parameter p -= lr * dp.
//
// Each step is its own function on device buffers the caller owns, so a
// caller can compute gradients on part of a batch, combine gradients from
// several parts (lesson 21: several devices), then take the SGD step.
//
// Gradients (the one rule to know when combining them): mlp_backward writes
//     dp = (1 / total) * sum over the samples of THIS call's batch of
//          d(loss of that sample)/dp
// where `total` is a parameter: the size of the WHOLE mini-batch, of which
// this call may see only a slice. With total = batch (one device), dp is the
// mean gradient of the batch. With the batch split into slices, each slice's
// dp passed the same total, the SUM of the slices' dp is the whole batch's
// mean gradient: add them up, do not average them. The loss is kept as a
// plain sum over the call's samples (mlp_loss); divide by the whole batch's
// size for the mean.
//
// Layouts: row-major matrices (element (row, col) at [row * cols + col]).
//   X: 784 x batch (one sample per column), labels: batch ints in 0..9.
//   Parameters: one contiguous array of mlp_param_count() floats, in the order
//   W1 (128 x 784), b1 (128), W2 (10 x 128), b2 (10); gradients the same, so
//   that combining gradients is one loop (or one all-reduce) over one array.
// Every function here is deterministic: no atomics; each sum is taken in a
// fixed order, so the same inputs give the same bits on every run.
#ifndef LESSON20_MLP_CUH
#define LESSON20_MLP_CUH

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "random_data.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// ---- shapes and buffers ----

constexpr int kMlpInputs = 784;  // 28 x 28 pixels
constexpr int kMlpHidden = 128;
constexpr int kMlpClasses = 10;

// The tiled matrix products use tile x tile blocks (lesson 09).
constexpr int kMlpTile = 16;
// Threads per block of the reductions (the loss and the bias gradients): a
// power of two, as the tree reduction of lesson 12 needs.
constexpr int kMlpReduceBlock = 256;

enum class Activation { relu = 0, sigmoid = 1 };

constexpr size_t kMlpW1Count = (size_t)kMlpHidden * kMlpInputs;
constexpr size_t kMlpB1Count = kMlpHidden;
constexpr size_t kMlpW2Count = (size_t)kMlpClasses * kMlpHidden;
constexpr size_t kMlpB2Count = kMlpClasses;
constexpr size_t mlp_param_count() { return kMlpW1Count + kMlpB1Count + kMlpW2Count + kMlpB2Count; }

// Pointers into one array of mlp_param_count() floats (parameters, or their
// gradients: the same layout). `all` owns the memory; the others point into it.
struct MlpTensors {
    float* all = nullptr;
    float* w1 = nullptr;
    float* b1 = nullptr;
    float* w2 = nullptr;
    float* b2 = nullptr;
};

inline MlpTensors mlp_tensors_view(float* all) {
    MlpTensors t;
    t.all = all;
    t.w1 = all;
    t.b1 = t.w1 + kMlpW1Count;
    t.w2 = t.b1 + kMlpB1Count;
    t.b2 = t.w2 + kMlpW2Count;
    return t;
}

// Device memory for the parameters (or the gradients) on the current device.
inline MlpTensors mlp_alloc_tensors() {
    float* d_all = nullptr;
    CUDA_CHECK(cudaMalloc(&d_all, mlp_param_count() * sizeof(float)));
    return mlp_tensors_view(d_all);
}

inline void mlp_free_tensors(MlpTensors& t) {
    CUDA_CHECK(cudaFree(t.all));
    t = MlpTensors{};
}

// What one forward and backward pass keeps, for batches of up to `capacity`
// samples, on the current device.
struct MlpWorkspace {
    int capacity = 0;
    float* z1 = nullptr;           // hidden x batch: W1 X + b1
    float* a1 = nullptr;           // hidden x batch: act(Z1)
    float* z2 = nullptr;           // classes x batch: W2 A1 + b2, the logits
    float* probs = nullptr;        // classes x batch: softmax of each column of Z2
    float* sample_loss = nullptr;  // batch: -log P[label] of each sample
    float* loss_sum = nullptr;     // 1 float: the sum of sample_loss (mlp_loss)
    float* dz2 = nullptr;          // classes x batch
    float* da1 = nullptr;          // hidden x batch
    float* dz1 = nullptr;          // hidden x batch
    int* predicted = nullptr;      // batch: the class with the largest logit
};

inline MlpWorkspace mlp_alloc_workspace(int capacity) {
    MlpWorkspace ws;
    ws.capacity = capacity;
    const size_t h = (size_t)kMlpHidden * capacity, c = (size_t)kMlpClasses * capacity;
    float** hidden_sized[] = {&ws.z1, &ws.a1, &ws.da1, &ws.dz1};
    for (float** p : hidden_sized) CUDA_CHECK(cudaMalloc(p, h * sizeof(float)));
    float** class_sized[] = {&ws.z2, &ws.probs, &ws.dz2};
    for (float** p : class_sized) CUDA_CHECK(cudaMalloc(p, c * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ws.sample_loss, (size_t)capacity * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ws.loss_sum, sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ws.predicted, (size_t)capacity * sizeof(int)));
    return ws;
}

inline void mlp_free_workspace(MlpWorkspace& ws) {
    for (float* p : {ws.z1, ws.a1, ws.z2, ws.probs, ws.sample_loss, ws.loss_sum, ws.dz2, ws.da1,
                     ws.dz1})
        CUDA_CHECK(cudaFree(p));
    CUDA_CHECK(cudaFree(ws.predicted));
    ws = MlpWorkspace{};
}

// ---- host side: initial weights and batches ----

// The starting parameters, the same for a seed on every machine: weights
// uniform in +-sqrt(6 / fan_in) for ReLU (He), +-sqrt(3 / fan_in) for the
// sigmoid (so that sums start in its steep middle, not its flat ends);
// biases 0. Random starting weights matter: with all weights equal, every
// hidden neuron would compute and learn the same thing.
inline std::vector<float> mlp_initial_params(uint64_t seed, Activation act) {
    std::vector<float> params(mlp_param_count(), 0.0f);
    const float gain = act == Activation::relu ? 6.0f : 3.0f;
    const float r1 = std::sqrt(gain / kMlpInputs), r2 = std::sqrt(gain / kMlpHidden);
    fill_random(params.data(), kMlpW1Count, seed, -r1, r1);
    fill_random(params.data() + kMlpW1Count + kMlpB1Count, kMlpW2Count, seed + 1, -r2, r2);
    return params;
}

// Puts `count` samples into a batch: sample order[first + j] of `images`
// (one image of 784 floats per row, as the data files store them) becomes
// column j of x (784 x count), its label labels_out[j].
inline void mlp_gather_batch(const float* images, const int* labels, const int* order, int first,
                             int count, float* x, int* labels_out) {
    for (int j = 0; j < count; ++j) {
        const int sample = order[first + j];
        const float* image = images + (size_t)sample * kMlpInputs;
        for (int i = 0; i < kMlpInputs; ++i) x[(size_t)i * count + j] = image[i];
        labels_out[j] = labels[sample];
    }
}

// ---- forward kernels ----

__host__ __device__ inline float mlp_sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

__host__ __device__ inline float mlp_activate(float z, Activation act) {
    return act == Activation::relu ? (z > 0.0f ? z : 0.0f) : mlp_sigmoid(z);
}

// One element (row, col) of A B, A m x k and B k x n, tile by tile through
// shared memory (lessons 09 and 10). Every thread of the block calls it, also
// those outside the result: they load their share of each tile and reach each
// barrier. The sum runs over k in order 0, 1, 2, ...: the CPU reference adds
// in the same order.
__device__ inline float mlp_tiled_dot(const float* a, const float* b, int m, int n, int k, int row,
                                      int col) {
    __shared__ float a_tile[kMlpTile][kMlpTile];
    __shared__ float b_tile[kMlpTile][kMlpTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    float sum = 0.0f;
    for (int start = 0; start < k; start += kMlpTile) {
        a_tile[ty][tx] = (row < m && start + tx < k) ? a[row * k + start + tx] : 0.0f;
        b_tile[ty][tx] = (start + ty < k && col < n) ? b[(start + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < kMlpTile; ++i) sum += a_tile[ty][i] * b_tile[i][tx];
        __syncthreads();
    }
    return sum;
}

// Z = W X + b and A = act(Z): lesson 10's fused layer, keeping Z as well,
// because the backward pass needs act'(Z).
// [snippet: forward-kernel]
__global__ void dense_forward_kernel(const float* w, const float* x, const float* bias, float* z,
                                     float* a, int outputs, int inputs, int batch,
                                     Activation act) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // which neuron
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // which sample
    float sum = mlp_tiled_dot(w, x, outputs, batch, inputs, row, col);
    if (row < outputs && col < batch) {
        float pre = sum + bias[row];
        z[row * batch + col] = pre;
        if (a) a[row * batch + col] = mlp_activate(pre, act);
    }
}
// [end snippet]

// One thread per sample (column): softmax of the column of logits, then that
// sample's loss -log P[label], and the predicted class (the largest logit).
// Subtracting the column's largest logit first keeps expf from overflowing;
// it cancels in the ratio. The loss is log(sum) - (z[label] - max), which is
// -log P[label] without taking the log of a number that may round to 0.
__global__ void softmax_cross_entropy_kernel(const float* logits, const int* labels, float* probs,
                                             float* sample_loss, int* predicted, int classes,
                                             int batch) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= batch) return;
    float largest = logits[col];
    int best = 0;
    for (int c = 1; c < classes; ++c) {
        float v = logits[c * batch + col];
        if (v > largest) { largest = v; best = c; }
    }
    float sum = 0.0f;
    for (int c = 0; c < classes; ++c) sum += expf(logits[c * batch + col] - largest);
    for (int c = 0; c < classes; ++c)
        probs[c * batch + col] = expf(logits[c * batch + col] - largest) / sum;
    if (labels) sample_loss[col] = logf(sum) - (logits[labels[col] * batch + col] - largest);
    predicted[col] = best;
}

// sum = x[0] + ... + x[n-1] with one block (lesson 12's tree, sequential
// addressing): each thread first adds every blockDim.x-th element, then the
// block halves the partial sums until one is left. One block, so the order of
// the additions is fixed: the same bits on every run (atomicAdd from many
// blocks would add in whatever order they finish).
// [snippet: loss-sum]
__global__ void block_sum_kernel(const float* x, float* sum, int n) {
    __shared__ float partial[kMlpReduceBlock];
    const int tid = threadIdx.x;
    float v = 0.0f;
    for (int i = tid; i < n; i += blockDim.x) v += x[i];
    partial[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) *sum = partial[0];
}
// [end snippet]

// ---- backward kernels ----

// dZ = (P - Y) / total: the gradient of the summed cross-entropy, scaled to
// the whole batch's mean (see "gradients" at the top). Y is one-hot, so only
// the label's row has a 1 to subtract.
// [snippet: softmax-backward]
__global__ void softmax_cross_entropy_backward_kernel(const float* probs, const int* labels,
                                                      float* dz, int classes, int batch,
                                                      float inv_total) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // which class
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // which sample
    if (row < classes && col < batch) {
        float target = (labels[col] == row) ? 1.0f : 0.0f;
        dz[row * batch + col] = (probs[row * batch + col] - target) * inv_total;
    }
}
// [end snippet]

// dZ = dA * act'(Z), elementwise: the chain rule through the activation.
// ReLU' is 1 where Z > 0, else 0; sigmoid' is s (1 - s) with s = sigmoid(Z).
// [snippet: activation-backward]
__global__ void activation_backward_kernel(const float* da, const float* z, float* dz, int n,
                                           Activation act) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float slope = 0.0f;
        if (act == Activation::relu) {
            slope = z[i] > 0.0f ? 1.0f : 0.0f;
        } else {
            float s = mlp_sigmoid(z[i]);
            slope = s * (1.0f - s);
        }
        dz[i] = da[i] * slope;
    }
}
// [end snippet]

// dW = dZ X^T: dZ is outputs x batch, X inputs x batch, dW outputs x inputs.
// dW[o][i] = sum over samples s of dZ[o][s] X[i][s]: each sample adds its
// share, which is why the batch is the dimension summed over. X^T is never
// built: the tile of X^T at (s, i) is read from X at (i, s).
// [snippet: weight-grad]
__global__ void weight_grad_kernel(const float* dz, const float* x, float* dw, int outputs,
                                   int inputs, int batch) {
    __shared__ float dz_tile[kMlpTile][kMlpTile];
    __shared__ float xt_tile[kMlpTile][kMlpTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kMlpTile + ty;  // o: which neuron
    const int col = blockIdx.x * kMlpTile + tx;  // i: which input
    float sum = 0.0f;
    for (int start = 0; start < batch; start += kMlpTile) {
        dz_tile[ty][tx] = (row < outputs && start + tx < batch) ? dz[row * batch + start + tx] : 0.0f;
        xt_tile[ty][tx] = (start + ty < batch && col < inputs) ? x[col * batch + start + ty] : 0.0f;
        __syncthreads();
        for (int s = 0; s < kMlpTile; ++s) sum += dz_tile[ty][s] * xt_tile[s][tx];
        __syncthreads();
    }
    if (row < outputs && col < inputs) dw[row * inputs + col] = sum;
}
// [end snippet]

// db = the sum of each row of dZ (over the samples): one block per neuron,
// a tree reduction as in block_sum_kernel. Many threads add into one db[row],
// so they must combine through shared memory (or atomics), never by each
// doing db[row] += ... on its own.
// [snippet: bias-grad]
__global__ void bias_grad_kernel(const float* dz, float* db, int outputs, int batch) {
    __shared__ float partial[kMlpReduceBlock];
    const int row = blockIdx.x;  // which neuron
    const int tid = threadIdx.x;
    float v = 0.0f;
    for (int s = tid; s < batch; s += blockDim.x) v += dz[row * batch + s];
    partial[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) db[row] = partial[0];
}
// [end snippet]

// dX = W^T dZ: W is outputs x inputs, dZ outputs x batch, dX inputs x batch.
// dX[i][s] = sum over neurons o of W[o][i] dZ[o][s]: each input feeds every
// neuron, so its gradient gathers from all of them. W^T's element (i, o) is
// read from W at (o, i).
// [snippet: input-grad]
__global__ void input_grad_kernel(const float* w, const float* dz, float* dx, int outputs,
                                  int inputs, int batch) {
    __shared__ float wt_tile[kMlpTile][kMlpTile];
    __shared__ float dz_tile[kMlpTile][kMlpTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kMlpTile + ty;  // i: which input
    const int col = blockIdx.x * kMlpTile + tx;  // s: which sample
    float sum = 0.0f;
    for (int start = 0; start < outputs; start += kMlpTile) {
        wt_tile[ty][tx] = (row < inputs && start + tx < outputs) ? w[(start + tx) * inputs + row] : 0.0f;
        dz_tile[ty][tx] = (start + ty < outputs && col < batch) ? dz[(start + ty) * batch + col] : 0.0f;
        __syncthreads();
        for (int o = 0; o < kMlpTile; ++o) sum += wt_tile[ty][o] * dz_tile[o][tx];
        __syncthreads();
    }
    if (row < inputs && col < batch) dx[row * batch + col] = sum;
}
// [end snippet]

// p -= lr * dp for n parameters: plain stochastic gradient descent.
// [snippet: sgd]
__global__ void sgd_update_kernel(float* param, const float* grad, float lr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) param[i] -= lr * grad[i];
}
// [end snippet]

// ---- launchers on device buffers (all pointers are device pointers) ----

inline dim3 mlp_tile_grid(int rows, int cols) {
    return dim3((unsigned)((cols + kMlpTile - 1) / kMlpTile),
                (unsigned)((rows + kMlpTile - 1) / kMlpTile));
}

inline dim3 mlp_linear_grid(size_t n) { return dim3((unsigned)((n + 255) / 256)); }

// Z = W X + b, A = act(Z) (A may be null: then only Z).
inline void mlp_dense_forward(const float* d_w, const float* d_x, const float* d_b, float* d_z,
                              float* d_a, int outputs, int inputs, int batch, Activation act) {
    dense_forward_kernel<<<mlp_tile_grid(outputs, batch), dim3(kMlpTile, kMlpTile)>>>(
        d_w, d_x, d_b, d_z, d_a, outputs, inputs, batch, act);
    CUDA_CHECK(cudaGetLastError());
}

inline void mlp_activation_backward(const float* d_da, const float* d_z, float* d_dz, int n,
                                    Activation act) {
    activation_backward_kernel<<<mlp_linear_grid((size_t)n), 256>>>(d_da, d_z, d_dz, n, act);
    CUDA_CHECK(cudaGetLastError());
}

inline void mlp_weight_grad(const float* d_dz, const float* d_x, float* d_dw, int outputs,
                            int inputs, int batch) {
    weight_grad_kernel<<<mlp_tile_grid(outputs, inputs), dim3(kMlpTile, kMlpTile)>>>(
        d_dz, d_x, d_dw, outputs, inputs, batch);
    CUDA_CHECK(cudaGetLastError());
}

inline void mlp_bias_grad(const float* d_dz, float* d_db, int outputs, int batch) {
    bias_grad_kernel<<<outputs, kMlpReduceBlock>>>(d_dz, d_db, outputs, batch);
    CUDA_CHECK(cudaGetLastError());
}

inline void mlp_input_grad(const float* d_w, const float* d_dz, float* d_dx, int outputs,
                           int inputs, int batch) {
    input_grad_kernel<<<mlp_tile_grid(inputs, batch), dim3(kMlpTile, kMlpTile)>>>(
        d_w, d_dz, d_dx, outputs, inputs, batch);
    CUDA_CHECK(cudaGetLastError());
}

// Softmax, per-sample losses and predictions of the logits in ws.z2 (d_labels
// may be null: predictions only). Then, with labels, ws.loss_sum = the sum of
// the batch's sample losses (not divided by anything).
inline void mlp_loss(const int* d_labels, int batch, MlpWorkspace& ws) {
    softmax_cross_entropy_kernel<<<mlp_linear_grid((size_t)batch), 256>>>(
        ws.z2, d_labels, ws.probs, ws.sample_loss, ws.predicted, kMlpClasses, batch);
    CUDA_CHECK(cudaGetLastError());
    if (!d_labels) return;
    block_sum_kernel<<<1, kMlpReduceBlock>>>(ws.sample_loss, ws.loss_sum, batch);
    CUDA_CHECK(cudaGetLastError());
}

// The forward pass of `batch` samples (d_x: 784 x batch, batch <= ws.capacity)
// into ws.z1, ws.a1, ws.z2; then mlp_loss.
inline void mlp_forward(const MlpTensors& params, const float* d_x, const int* d_labels, int batch,
                        Activation act, MlpWorkspace& ws) {
    mlp_dense_forward(params.w1, d_x, params.b1, ws.z1, ws.a1, kMlpHidden, kMlpInputs, batch, act);
    mlp_dense_forward(params.w2, ws.a1, params.b2, ws.z2, nullptr, kMlpClasses, kMlpHidden, batch,
                      act);
    mlp_loss(d_labels, batch, ws);
}

// The backward pass, after mlp_forward of the same d_x and d_labels: writes
// every gradient into grads (overwrites; never accumulates). total: the size
// of the whole mini-batch this batch is a slice of (= batch on one device);
// see "gradients" at the top for what the result means.
// [snippet: backward]
inline void mlp_backward(const MlpTensors& params, const float* d_x, const int* d_labels, int batch,
                         int total, Activation act, MlpWorkspace& ws, const MlpTensors& grads) {
    softmax_cross_entropy_backward_kernel<<<mlp_tile_grid(kMlpClasses, batch),
                                            dim3(kMlpTile, kMlpTile)>>>(
        ws.probs, d_labels, ws.dz2, kMlpClasses, batch, 1.0f / (float)total);
    CUDA_CHECK(cudaGetLastError());
    // Layer 2: its input was A1.
    mlp_weight_grad(ws.dz2, ws.a1, grads.w2, kMlpClasses, kMlpHidden, batch);
    mlp_bias_grad(ws.dz2, grads.b2, kMlpClasses, batch);
    mlp_input_grad(params.w2, ws.dz2, ws.da1, kMlpClasses, kMlpHidden, batch);
    // Through the activation, then layer 1: its input was X. No dX: nothing
    // before layer 1 learns.
    mlp_activation_backward(ws.da1, ws.z1, ws.dz1, kMlpHidden * batch, act);
    mlp_weight_grad(ws.dz1, d_x, grads.w1, kMlpHidden, kMlpInputs, batch);
    mlp_bias_grad(ws.dz1, grads.b1, kMlpHidden, batch);
}
// [end snippet]

// params -= lr * grads, every parameter at once (one contiguous array).
inline void mlp_sgd_step(const MlpTensors& params, const MlpTensors& grads, float lr) {
    const size_t n = mlp_param_count();
    sgd_update_kernel<<<mlp_linear_grid(n), 256>>>(params.all, grads.all, lr, (int)n);
    CUDA_CHECK(cudaGetLastError());
}

// ws.loss_sum, copied to the host (waits for the work before it).
inline float mlp_read_loss_sum(const MlpWorkspace& ws) {
    float sum = 0.0f;
    CUDA_CHECK(cudaMemcpy(&sum, ws.loss_sum, sizeof(float), cudaMemcpyDeviceToHost));
    return sum;
}

#endif
