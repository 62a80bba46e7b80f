// cpu_reference_training.h - lesson 20's network on the CPU, in plain loops,
// adding in the same order as the kernels of lessons/20-training/mlp.cuh.
//
// Same layouts as there: row-major, samples as columns (X: inputs x batch),
// one parameter array W1 (hidden x inputs), b1, W2 (classes x hidden), b2.
// Same order of additions, so that on the emulator (the same compiler, the
// same expf, no fused multiply-add) the results are the same bits:
//   - a matrix product sums k = 0, 1, 2, ... into one float, then adds the bias;
//   - a sum over a batch (the loss, a bias gradient) is the kernels' tree:
//     256 running sums (element s goes to sum s % 256), then halved pairwise.
#ifndef TUTORIAL_CPU_REFERENCE_TRAINING_H
#define TUTORIAL_CPU_REFERENCE_TRAINING_H

#include <cmath>
#include <cstddef>
#include <vector>

const int kCpuReduceBlock = 256;  // the kernels' kMlpReduceBlock

inline float cpu_sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

// act: 0 ReLU, 1 sigmoid (the values of mlp.cuh's Activation).
inline float cpu_activate(float z, int act) {
    return act == 0 ? (z > 0.0f ? z : 0.0f) : cpu_sigmoid(z);
}

inline float cpu_activation_slope(float z, int act) {
    if (act == 0) return z > 0.0f ? 1.0f : 0.0f;
    float s = cpu_sigmoid(z);
    return s * (1.0f - s);
}

// x[0] + x[stride] + ... + x[(n-1) stride], in the tree order of the kernels.
inline float cpu_tree_sum(const float* x, int n, int stride) {
    float partial[kCpuReduceBlock];
    for (int t = 0; t < kCpuReduceBlock; ++t) {
        float v = 0.0f;
        for (int i = t; i < n; i += kCpuReduceBlock) v += x[(size_t)i * stride];
        partial[t] = v;
    }
    for (int half = kCpuReduceBlock / 2; half > 0; half /= 2)
        for (int t = 0; t < half; ++t) partial[t] += partial[t + half];
    return partial[0];
}

// Z = W X + b; A = act(Z) when a is not null.
inline void cpu_dense_forward(const float* w, const float* x, const float* b, float* z, float* a,
                              int outputs, int inputs, int batch, int act) {
    for (int o = 0; o < outputs; ++o)
        for (int s = 0; s < batch; ++s) {
            float sum = 0.0f;
            for (int i = 0; i < inputs; ++i) sum += w[(size_t)o * inputs + i] * x[(size_t)i * batch + s];
            float pre = sum + b[o];
            z[(size_t)o * batch + s] = pre;
            if (a) a[(size_t)o * batch + s] = cpu_activate(pre, act);
        }
}

// Softmax of each column of the logits, and each sample's -log P[label].
inline void cpu_softmax_cross_entropy(const float* logits, const int* labels, float* probs,
                                      float* sample_loss, int classes, int batch) {
    for (int s = 0; s < batch; ++s) {
        float largest = logits[s];
        for (int c = 1; c < classes; ++c) largest = std::fmax(largest, logits[(size_t)c * batch + s]);
        float sum = 0.0f;
        for (int c = 0; c < classes; ++c) sum += expf(logits[(size_t)c * batch + s] - largest);
        for (int c = 0; c < classes; ++c)
            probs[(size_t)c * batch + s] = expf(logits[(size_t)c * batch + s] - largest) / sum;
        sample_loss[s] = logf(sum) - (logits[(size_t)labels[s] * batch + s] - largest);
    }
}

// dZ = dA * act'(Z), elementwise.
inline void cpu_activation_backward(const float* da, const float* z, float* dz, int n, int act) {
    for (int i = 0; i < n; ++i) dz[i] = da[i] * cpu_activation_slope(z[i], act);
}

// dW = dZ X^T (dZ outputs x batch, X inputs x batch): the sum over samples.
inline void cpu_weight_grad(const float* dz, const float* x, float* dw, int outputs, int inputs,
                            int batch) {
    for (int o = 0; o < outputs; ++o)
        for (int i = 0; i < inputs; ++i) {
            float sum = 0.0f;
            for (int s = 0; s < batch; ++s) sum += dz[(size_t)o * batch + s] * x[(size_t)i * batch + s];
            dw[(size_t)o * inputs + i] = sum;
        }
}

// db = the sum of each row of dZ.
inline void cpu_bias_grad(const float* dz, float* db, int outputs, int batch) {
    for (int o = 0; o < outputs; ++o) db[o] = cpu_tree_sum(dz + (size_t)o * batch, batch, 1);
}

// dX = W^T dZ (W outputs x inputs): the sum over neurons.
inline void cpu_input_grad(const float* w, const float* dz, float* dx, int outputs, int inputs,
                           int batch) {
    for (int i = 0; i < inputs; ++i)
        for (int s = 0; s < batch; ++s) {
            float sum = 0.0f;
            for (int o = 0; o < outputs; ++o) sum += w[(size_t)o * inputs + i] * dz[(size_t)o * batch + s];
            dx[(size_t)i * batch + s] = sum;
        }
}

// One SGD step of the whole network on one batch, as mlp_forward,
// mlp_backward (total = batch) and mlp_sgd_step do it. params: the parameter
// array (updated in place); grads: receives the gradients; returns the sum of
// the batch's sample losses.
inline float cpu_training_step(float* params, float* grads, const float* x, const int* labels,
                               int inputs, int hidden, int classes, int batch, int act, float lr) {
    float* w1 = params;
    float* b1 = w1 + (size_t)hidden * inputs;
    float* w2 = b1 + hidden;
    float* b2 = w2 + (size_t)classes * hidden;
    float* dw1 = grads;
    float* db1 = dw1 + (size_t)hidden * inputs;
    float* dw2 = db1 + hidden;
    float* db2 = dw2 + (size_t)classes * hidden;
    const size_t h = (size_t)hidden * batch, c = (size_t)classes * batch;
    std::vector<float> z1(h), a1(h), z2(c), probs(c), loss(batch), dz2(c), da1(h), dz1(h);
    cpu_dense_forward(w1, x, b1, z1.data(), a1.data(), hidden, inputs, batch, act);
    cpu_dense_forward(w2, a1.data(), b2, z2.data(), nullptr, classes, hidden, batch, act);
    cpu_softmax_cross_entropy(z2.data(), labels, probs.data(), loss.data(), classes, batch);
    const float loss_sum = cpu_tree_sum(loss.data(), batch, 1);
    const float inv_total = 1.0f / (float)batch;
    for (int k = 0; k < classes; ++k)
        for (int s = 0; s < batch; ++s)
            dz2[(size_t)k * batch + s] =
                (probs[(size_t)k * batch + s] - (labels[s] == k ? 1.0f : 0.0f)) * inv_total;
    cpu_weight_grad(dz2.data(), a1.data(), dw2, classes, hidden, batch);
    cpu_bias_grad(dz2.data(), db2, classes, batch);
    cpu_input_grad(w2, dz2.data(), da1.data(), classes, hidden, batch);
    cpu_activation_backward(da1.data(), z1.data(), dz1.data(), (int)h, act);
    cpu_weight_grad(dz1.data(), x, dw1, hidden, inputs, batch);
    cpu_bias_grad(dz1.data(), db1, hidden, batch);
    const size_t count = (size_t)hidden * inputs + hidden + (size_t)classes * hidden + classes;
    for (size_t p = 0; p < count; ++p) params[p] -= lr * grads[p];
    return loss_sum;
}

#endif
