// Lesson 25: replaying a captured step gives what launching its kernels one
// by one gives, and what the CPU computes, over several steps whose inputs,
// biases (updated by the step itself) and learning rate (updated in the
// executable graph) change; a graph built by hand computes its diamond, and
// a new argument set in its executable graph takes effect.
#include "test_support.h"
#include "cpu_reference_graphs.h"

#include <cmath>
#include <vector>

// The launchers from the lesson file.
void run_steps_on_gpu(const float* weights, float* biases, int width, int layers,
                      const float* inputs, const float* rates, float* outputs, int steps,
                      bool use_graph);
void diamond_on_gpu(const float* wa, const float* wb, const float* x, int width, float scale_first,
                    float scale_second, float* y_first, float* y_second);

// The kernels add in the CPU reference's order; on the emulator the results
// are the same bits. On a GPU a fused multiply-add rounds once less per
// product: a few roundings per layer of values around 1, far below 1e-4.
static const double kAtol = 1e-4, kRtol = 1e-4;

struct Run {
    std::vector<float> outputs, biases;
};

static Run run(const std::vector<float>& weights, const std::vector<float>& biases, int width,
               int layers, const std::vector<float>& inputs, const std::vector<float>& rates,
               bool use_graph) {
    Run r;
    const int steps = (int)rates.size();
    r.outputs = poisoned_floats((size_t)steps * width);
    r.biases = biases;
    run_steps_on_gpu(weights.data(), r.biases.data(), width, layers, inputs.data(), rates.data(),
                     r.outputs.data(), steps, use_graph);
    return r;
}

// Both ways against the CPU, step after step.
static void check_steps(int width, int layers, const std::vector<float>& rates) {
    CAPTURE(width);
    CAPTURE(layers);
    const int steps = (int)rates.size();
    const float spread = std::sqrt(3.0f / (float)width);  // activations keep their size
    auto weights = random_floats((size_t)layers * width * width, -spread, spread);
    auto biases = random_floats((size_t)layers * width, -0.1f, 0.1f);
    auto inputs = random_floats((size_t)steps * width);

    std::vector<float> ref_out((size_t)steps * width), ref_bias = biases;
    for (int s = 0; s < steps; ++s)
        cpu_graph_step(weights.data(), ref_bias.data(), width, layers, rates[s],
                       &inputs[(size_t)s * width], &ref_out[(size_t)s * width]);

    const Run plain = run(weights, biases, width, layers, inputs, rates, false);
    REQUIRE_ALL_CLOSE("the plain launches' outputs", plain.outputs.data(), ref_out.data(),
                      ref_out.size(), kAtol, kRtol);
    const Run graph = run(weights, biases, width, layers, inputs, rates, true);
    REQUIRE_ALL_CLOSE("your graph's outputs (step after step)", graph.outputs.data(),
                      ref_out.data(), ref_out.size(), kAtol, kRtol);
    REQUIRE_ALL_CLOSE("your graph's final biases", graph.biases.data(), ref_bias.data(),
                      ref_bias.size(), kAtol, kRtol);
}

TEST_CASE("graph replays match plain launches and the CPU over steps with new inputs") {
    check_steps(100, 3, std::vector<float>(5, 0.02f));
    check_steps(1, 2, std::vector<float>(3, 0.05f));
    check_steps(130, 5, std::vector<float>(4, 0.01f));
}

TEST_CASE("a new learning rate reaches the executable graph") {
    check_steps(70, 4, {0.02f, 0.02f, 0.05f, 0.05f, 0.01f, 0.03f});
}

TEST_CASE("a diamond built by hand: two products, their scaled sum, a new scale") {
    for (int width : {1, 100, 257}) {
        CAPTURE(width);
        auto wa = random_floats((size_t)width * width), wb = random_floats((size_t)width * width);
        auto x = random_floats((size_t)width);
        auto first = poisoned_floats((size_t)width), second = poisoned_floats((size_t)width);
        std::vector<float> ref_first((size_t)width), ref_second((size_t)width);
        cpu_graph_diamond(wa.data(), wb.data(), x.data(), width, 1.5f, ref_first.data());
        cpu_graph_diamond(wa.data(), wb.data(), x.data(), width, -0.25f, ref_second.data());
        diamond_on_gpu(wa.data(), wb.data(), x.data(), width, 1.5f, -0.25f, first.data(),
                       second.data());
        REQUIRE_ALL_CLOSE("y, the first launch", first.data(), ref_first.data(), (size_t)width,
                          kAtol, kRtol);
        REQUIRE_ALL_CLOSE("y, after the new scale", second.data(), ref_second.data(),
                          (size_t)width, kAtol, kRtol);
    }
}
