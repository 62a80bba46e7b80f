// cpu_reference_graphs.h - lesson 25's small network and its diamond, on the CPU.
//
// Plain loops that add in the kernels' order (a row's products summed k = 0,
// 1, 2, ... into one float), so that on the emulator (the same compiler, no
// fused multiply-add) the results are the same bits, and on a GPU within a
// few roundings.
//
// The step: the input goes through `layers` layers of width `width`, each
// x <- leaky_relu(W x + b); then every layer's bias takes a small step
// against that layer's output, b <- b - rate * x (the parameters change
// every step, as a training step's would).
#ifndef TUTORIAL_CPU_REFERENCE_GRAPHS_H
#define TUTORIAL_CPU_REFERENCE_GRAPHS_H

#include <cstddef>
#include <vector>

const float kCpuGraphLeak = 0.1f;  // the slope of the leaky ReLU below zero (the kernels' kLeak)

// y = W x for a row-major width x width matrix W.
inline void cpu_graph_matvec(const float* w, const float* x, float* y, int width) {
    for (int row = 0; row < width; ++row) {
        float sum = 0.0f;
        for (int k = 0; k < width; ++k) sum += w[(size_t)row * width + k] * x[k];
        y[row] = sum;
    }
}

// One step. weights: layers x width x width; biases: layers x width, updated
// in place; output: the last layer's width values.
inline void cpu_graph_step(const float* weights, float* biases, int width, int layers, float rate,
                           const float* input, float* output) {
    std::vector<float> act((size_t)(layers + 1) * width), pre((size_t)width);
    for (int i = 0; i < width; ++i) act[i] = input[i];
    for (int l = 0; l < layers; ++l) {
        const float* x = &act[(size_t)l * width];
        float* next = &act[(size_t)(l + 1) * width];
        cpu_graph_matvec(weights + (size_t)l * width * width, x, pre.data(), width);
        for (int i = 0; i < width; ++i) {
            const float v = pre[i] + biases[(size_t)l * width + i];
            next[i] = v > 0.0f ? v : kCpuGraphLeak * v;
        }
    }
    for (int l = 0; l < layers; ++l)
        for (int i = 0; i < width; ++i)
            biases[(size_t)l * width + i] -= rate * act[(size_t)(l + 1) * width + i];
    for (int i = 0; i < width; ++i) output[i] = act[(size_t)layers * width + i];
}

// The diamond: y = scale * (Wa x + Wb x), the two products apart.
inline void cpu_graph_diamond(const float* wa, const float* wb, const float* x, int width,
                              float scale, float* y) {
    std::vector<float> a((size_t)width), b((size_t)width);
    cpu_graph_matvec(wa, x, a.data(), width);
    cpu_graph_matvec(wb, x, b.data(), width);
    for (int i = 0; i < width; ++i) y[i] = scale * (a[i] + b[i]);
}

#endif
