// Lesson 20: training a network - backpropagation and SGD with your own kernels.
//
// Lesson 10 ran a 784 -> 128 -> 10 network forward on random weights. Here it
// learns: it sees pictures of clothes (Fashion-MNIST, 28 x 28 pixels, 10
// classes), measures how wrong its answers are (softmax and cross-entropy),
// works out how each weight should change to be less wrong (the backward
// pass: the chain rule, one layer at a time, each step a kernel), and takes a
// small step that way (stochastic gradient descent), one mini-batch at a time.
// The network's kernels live in mlp.cuh, next to this file (lesson 21 trains
// the same network on several devices); this file loads the data, checks one
// step against the CPU, trains, and reports.
//
// Build and run:   ./tutorial run 20 [--epochs 2] [--batch 32] [--lr 100] [--train 6000]
//                        [--test 2000] [--activation relu|sigmoid] [--data DIR]
//                        [--seed 1] [--out-dir DIR] [--bench]
//                  ./tutorial check 20              (the exercise's test)
//                  ./tutorial solution 20           (the finished version)
// It prints the check of one training step against the CPU (PASS or FAIL),
// then each epoch's mean training loss and test accuracy; --out-dir writes the
// loss curve as loss_curve.png; --bench adds a table of times per epoch.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "cpu_reference_training.h"
#include "fashion_mnist.h"
#include "png_image.h"
#include "random_data.h"
#include "run_limits.h"
#include "timer.h"

#include "mlp.cuh"

#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

// ---- device buffers from host arrays ----

template <typename T>
static T* device_copy_of(const T* h_src, size_t count) {
    T* d_p = nullptr;
    CUDA_CHECK(cudaMalloc(&d_p, count * sizeof(T)));
    if (h_src) CUDA_CHECK(cudaMemcpy(d_p, h_src, count * sizeof(T), cudaMemcpyHostToDevice));
    return d_p;
}

template <typename T>
static void copy_back_and_free(T* h_dst, T* d_src, size_t count) {
    CUDA_CHECK(cudaMemcpy(h_dst, d_src, count * sizeof(T), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_src));
}

// ---- launchers: one backward kernel each, host arrays in and out ----
// act: 0 ReLU, 1 sigmoid. Shapes as in mlp.cuh.

void activation_backward_on_gpu(const float* h_da, const float* h_z, float* h_dz, int n, int act) {
    float* d_da = device_copy_of(h_da, (size_t)n);
    float* d_z = device_copy_of(h_z, (size_t)n);
    float* d_dz = device_copy_of(h_dz, (size_t)n);  // the caller's poison goes along
    mlp_activation_backward(d_da, d_z, d_dz, n, (Activation)act);
    copy_back_and_free(h_dz, d_dz, (size_t)n);
    CUDA_CHECK(cudaFree(d_da));
    CUDA_CHECK(cudaFree(d_z));
}

void weight_grad_on_gpu(const float* h_dz, const float* h_x, float* h_dw, int outputs, int inputs,
                        int batch) {
    float* d_dz = device_copy_of(h_dz, (size_t)outputs * batch);
    float* d_x = device_copy_of(h_x, (size_t)inputs * batch);
    float* d_dw = device_copy_of(h_dw, (size_t)outputs * inputs);
    mlp_weight_grad(d_dz, d_x, d_dw, outputs, inputs, batch);
    copy_back_and_free(h_dw, d_dw, (size_t)outputs * inputs);
    CUDA_CHECK(cudaFree(d_dz));
    CUDA_CHECK(cudaFree(d_x));
}

void bias_grad_on_gpu(const float* h_dz, float* h_db, int outputs, int batch) {
    float* d_dz = device_copy_of(h_dz, (size_t)outputs * batch);
    float* d_db = device_copy_of(h_db, (size_t)outputs);
    mlp_bias_grad(d_dz, d_db, outputs, batch);
    copy_back_and_free(h_db, d_db, (size_t)outputs);
    CUDA_CHECK(cudaFree(d_dz));
}

void input_grad_on_gpu(const float* h_w, const float* h_dz, float* h_dx, int outputs, int inputs,
                       int batch) {
    float* d_w = device_copy_of(h_w, (size_t)outputs * inputs);
    float* d_dz = device_copy_of(h_dz, (size_t)outputs * batch);
    float* d_dx = device_copy_of(h_dx, (size_t)inputs * batch);
    mlp_input_grad(d_w, d_dz, d_dx, outputs, inputs, batch);
    copy_back_and_free(h_dx, d_dx, (size_t)inputs * batch);
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_dz));
}

// One SGD step on one batch (X 784 x batch): h_params (mlp_param_count()
// floats) is updated in place, h_grads receives the gradients. Returns the
// sum of the batch's sample losses.
float training_step_on_gpu(float* h_params, float* h_grads, const float* h_x, const int* h_labels,
                           int batch, int act, float lr) {
    const size_t count = mlp_param_count();
    MlpTensors params = mlp_tensors_view(device_copy_of(h_params, count));
    MlpTensors grads = mlp_tensors_view(device_copy_of(h_grads, count));
    float* d_x = device_copy_of(h_x, (size_t)kMlpInputs * batch);
    int* d_labels = device_copy_of(h_labels, (size_t)batch);
    MlpWorkspace ws = mlp_alloc_workspace(batch);
    // [snippet: one-step]
    mlp_forward(params, d_x, d_labels, batch, (Activation)act, ws);
    mlp_backward(params, d_x, d_labels, batch, batch, (Activation)act, ws, grads);
    mlp_sgd_step(params, grads, lr);
    // [end snippet]
    const float loss_sum = mlp_read_loss_sum(ws);
    copy_back_and_free(h_params, params.all, count);
    copy_back_and_free(h_grads, grads.all, count);
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_labels));
    mlp_free_workspace(ws);
    return loss_sum;
}

// ---- training ----

struct TrainSettings {
    int epochs = 2;
    int batch = 32;
    float lr = 0.1f;
    int act = 0;
    uint64_t seed = 1;
    bool print = false;  // one line per epoch as it ends
    bool bench = false;  // also time forward, backward and SGD separately
};

struct EpochResult {
    double mean_loss = 0.0;  // over the epoch's training samples
    double test_accuracy = 0.0;
    int test_correct = 0;
    double train_ms = 0.0, test_ms = 0.0;
    double forward_ms = 0.0, backward_ms = 0.0, sgd_ms = 0.0;  // bench only
};

// Samples per forward pass when testing: larger than a training batch, since
// nothing is learned in between.
constexpr int kTestChunk = 500;

// How many of test's pictures the network classifies right.
static int count_correct(const MlpTensors& params, const LabelledImages& test, Activation act,
                         MlpWorkspace& ws, float* d_x, std::vector<int>& order,
                         std::vector<float>& h_x, std::vector<int>& h_labels) {
    int correct = 0;
    std::vector<int> predicted(kTestChunk);
    for (int first = 0; first < test.count; first += kTestChunk) {
        const int count = std::min(kTestChunk, test.count - first);
        mlp_gather_batch(test.pixels.data(), test.labels.data(), order.data(), first, count,
                         h_x.data(), h_labels.data());
        CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), (size_t)kMlpInputs * count * sizeof(float),
                              cudaMemcpyHostToDevice));
        mlp_forward(params, d_x, nullptr, count, act, ws);
        CUDA_CHECK(cudaMemcpy(predicted.data(), ws.predicted, count * sizeof(int),
                              cudaMemcpyDeviceToHost));
        for (int j = 0; j < count; ++j) correct += predicted[j] == h_labels[j];
    }
    return correct;
}

// Fisher-Yates shuffle with the tutorial's seeded generator: the same order
// for a seed on every machine.
static void shuffle(std::vector<int>& order, uint64_t seed) {
    tutorial_rng rng = {seed};
    for (size_t i = order.size() - 1; i > 0; --i) {
        size_t j = (size_t)(tutorial_rng_next(&rng) % (i + 1));
        std::swap(order[i], order[j]);
    }
}

// Trains from mlp_initial_params(seed) on `train`, testing on `test` after
// each epoch. batch_losses (if not null) receives each mini-batch's mean loss.
std::vector<EpochResult> train_network(const LabelledImages& train, const LabelledImages& test,
                                       const TrainSettings& s, std::vector<float>* batch_losses) {
    const Activation act = (Activation)s.act;
    const int capacity = std::max(s.batch, kTestChunk);
    std::vector<float> h_params = mlp_initial_params(s.seed, act);
    MlpTensors params = mlp_tensors_view(device_copy_of(h_params.data(), h_params.size()));
    MlpTensors grads = mlp_alloc_tensors();
    MlpWorkspace ws = mlp_alloc_workspace(capacity);
    float* d_x = device_copy_of<float>(nullptr, (size_t)kMlpInputs * capacity);
    int* d_labels = device_copy_of<int>(nullptr, (size_t)capacity);
    std::vector<float> h_x((size_t)kMlpInputs * capacity);
    std::vector<int> h_labels(capacity), order(train.count), test_order(test.count);
    for (int i = 0; i < train.count; ++i) order[i] = i;
    for (int i = 0; i < test.count; ++i) test_order[i] = i;

    std::vector<EpochResult> results;
    for (int epoch = 0; epoch < s.epochs; ++epoch) {
        EpochResult r;
        shuffle(order, s.seed + 1000 + epoch);
        double loss_sum = 0.0;
        const double t0 = wall_time_ms();
        // [snippet: training-loop]
        for (int first = 0; first < train.count; first += s.batch) {
            const int count = std::min(s.batch, train.count - first);  // the last may be short
            mlp_gather_batch(train.pixels.data(), train.labels.data(), order.data(), first, count,
                             h_x.data(), h_labels.data());
            CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), (size_t)kMlpInputs * count * sizeof(float),
                                  cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(d_labels, h_labels.data(), count * sizeof(int),
                                  cudaMemcpyHostToDevice));
            double t = s.bench ? wall_time_ms() : 0.0;
            mlp_forward(params, d_x, d_labels, count, act, ws);
            const float batch_loss = mlp_read_loss_sum(ws);  // waits for the forward pass
            if (s.bench) r.forward_ms += wall_time_ms() - t, t = wall_time_ms();
            mlp_backward(params, d_x, d_labels, count, count, act, ws, grads);
            if (s.bench) CUDA_CHECK(cudaDeviceSynchronize()), r.backward_ms += wall_time_ms() - t,
                         t = wall_time_ms();
            mlp_sgd_step(params, grads, s.lr);
            if (s.bench) CUDA_CHECK(cudaDeviceSynchronize()), r.sgd_ms += wall_time_ms() - t;
            loss_sum += batch_loss;
            if (batch_losses) batch_losses->push_back(batch_loss / count);
        }
        // [end snippet]
        CUDA_CHECK(cudaDeviceSynchronize());
        r.train_ms = wall_time_ms() - t0;
        r.mean_loss = loss_sum / train.count;
        const double t1 = wall_time_ms();
        r.test_correct = count_correct(params, test, act, ws, d_x, test_order, h_x, h_labels);
        r.test_ms = wall_time_ms() - t1;
        r.test_accuracy = test.count ? (double)r.test_correct / test.count : 0.0;
        if (s.print) {
            std::printf("  epoch %d of %d: mean training loss %.4f, test accuracy %.1f%% (%d of %d)\n",
                        epoch + 1, s.epochs, r.mean_loss, 100.0 * r.test_accuracy, r.test_correct,
                        test.count);
            std::fflush(stdout);
        }
        results.push_back(r);
    }
    mlp_free_tensors(params);
    mlp_free_tensors(grads);
    mlp_free_workspace(ws);
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_labels));
    return results;
}

// The test accuracy after `epochs` epochs (the launcher the test calls).
double train_and_test_on_gpu(const LabelledImages& train, const LabelledImages& test, int epochs,
                             int batch, float lr, int act, uint64_t seed) {
    TrainSettings s;
    s.epochs = epochs;
    s.batch = batch;
    s.lr = lr;
    s.act = act;
    s.seed = seed;
    return train_network(train, test, s, nullptr).back().test_accuracy;
}

// ---- main: check one step against the CPU, then train ----
#ifndef TUTORIAL_TEST_BUILD

// One training step on the GPU and on the CPU (cpu_training_step, the same
// order of additions), from the same parameters and batch. The tolerance:
// on the emulator the two are the same bits; a GPU may fuse multiplies and
// adds (one rounding instead of two) and its expf may differ in the last bit,
// which leaves differences of a few units in the last place of each sum,
// far below 1e-5 of the largest updated weight.
static bool check_one_step(const LabelledImages& train, int batch, Activation act, float lr,
                           uint64_t seed) {
    batch = std::min(batch, train.count);
    std::vector<float> params = mlp_initial_params(seed, act), ref_params = params;
    std::vector<float> grads(params.size()), ref_grads(params.size());
    fill_poison(grads.data(), grads.size());
    std::vector<int> order(batch), labels(batch);
    for (int i = 0; i < batch; ++i) order[i] = i;
    std::vector<float> x((size_t)kMlpInputs * batch);
    mlp_gather_batch(train.pixels.data(), train.labels.data(), order.data(), 0, batch, x.data(),
                     labels.data());
    const float loss = training_step_on_gpu(params.data(), grads.data(), x.data(), labels.data(),
                                            batch, (int)act, lr);
    const float ref_loss = cpu_training_step(ref_params.data(), ref_grads.data(), x.data(),
                                             labels.data(), kMlpInputs, kMlpHidden, kMlpClasses,
                                             batch, (int)act, lr);
    std::printf("one training step on the first %d pictures, against cpu_training_step:\n", batch);
    std::printf("  loss of the batch: %.6f (CPU %.6f)\n", loss / batch, ref_loss / batch);
    size_t bad_grads = compare_floats("gradients", grads.data(), ref_grads.data(), grads.size(),
                                      1e-6, 1e-4, 3);
    size_t bad_params = compare_floats("updated parameters", params.data(), ref_params.data(),
                                       params.size(), 1e-6, 1e-5, 3);
    if (bad_grads == 0 && bad_params == 0)
        std::printf("  all %zu gradients and updated parameters match\n", grads.size());
    return bad_grads == 0 && bad_params == 0;
}

static bool write_loss_curve(const char* dir, const std::vector<float>& batch_losses) {
    GreyPicture chart = draw_line_chart(batch_losses, 640, 320);
    std::string path = std::string(dir) + "/loss_curve.png", error;
    if (!write_png_grey(path.c_str(), chart, &error)) {
        std::fprintf(stderr, "error: %s\n", error.c_str());
        return false;
    }
    std::printf("wrote %s: the mean loss of each mini-batch, left to right, from 0 (bottom)\n"
                "  to the largest (top)\n", path.c_str());
    return true;
}

int main(int argc, char** argv) {
    long long epochs = 2, batch = 32, lr_thousandths = 100, train_count = 6000,
              test_count = 2000, seed = 1, bench = 0;
    const char* activation = "relu";
    const char* data_dir = kFashionMnistDefaultDir;
    const char* out_dir = nullptr;
    cli_option options[] = {
        {"--epochs", "passes over the training pictures", CLI_INT, &epochs, 1, 100},
        {"--batch", "pictures per mini-batch", CLI_INT, &batch, 1, 4096},
        {"--lr", "learning rate in thousandths: 100 means 0.1", CLI_INT, &lr_thousandths, 1, 10000},
        {"--train", "training pictures used (the first N of 60000)", CLI_INT, &train_count, 1, 60000},
        {"--test", "test pictures used (the first N of 10000)", CLI_INT, &test_count, 1, 10000},
        {"--seed", "seed of the starting weights and the shuffles", CLI_INT, &seed, 0, 1000000000},
        {"--activation", "relu or sigmoid, after the hidden layer", CLI_TEXT, nullptr, 0, 0, &activation},
        {"--data", "folder of Fashion-MNIST's .gz files", CLI_TEXT, nullptr, 0, 0, &data_dir},
        {"--out-dir", "write the loss curve there as loss_curve.png", CLI_TEXT, nullptr, 0, 0, &out_dir},
        {"--bench", "also time forward, backward and SGD per epoch", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Trains a 784-128-10 network on Fashion-MNIST with kernels from mlp.cuh:\n"
              "forward, softmax and cross-entropy, backward, SGD; reports loss and accuracy.",
              options, 10);
    Activation act = Activation::relu;
    if (std::strcmp(activation, "sigmoid") == 0) {
        act = Activation::sigmoid;
    } else if (std::strcmp(activation, "relu") != 0) {
        std::fprintf(stderr, "error: --activation must be relu or sigmoid, got '%s'\n", activation);
        return 2;
    }
    struct stat info;
    if (out_dir && (stat(out_dir, &info) != 0 || !S_ISDIR(info.st_mode))) {
        std::fprintf(stderr, "error: --out-dir %s is not a folder\n", out_dir);
        return 2;
    }

    // Memory: the pictures as floats, and the device buffers for a batch.
    // Time: multiply-adds per training picture (forward 784*128 + 128*10,
    // backward the same twice less the input layer's dX, about 3 x 101 000
    // in all) and per test picture (forward only). Seconds per multiply-add
    // measured for this program on the emulator, 2-core machine shared with
    // other jobs (load average about 7): 23 ns (the default run, 4.1e9
    // multiply-adds in 95 and 101 s; mlp.cuh's __shared__ kernels are built
    // with the race check's instrumentation, which costs about 40 %). On a
    // GPU the host's share is gathering each batch; 1 ns is a generous guess
    // (not measured: no GPU was at hand).
    {
        const double pictures = (double)train_count + (double)test_count;
        const int capacity = (int)std::max<long long>(batch, 500);
        const double device = 4.0 * (2.0 * mlp_param_count() + 6.0 * kMlpHidden * capacity +
                                     (double)kMlpInputs * capacity);
        run_limits_require_memory(4.0 * pictures * kMlpInputs + device, device);
        const double per_picture = (double)kMlpInputs * kMlpHidden + kMlpHidden * kMlpClasses;
        const double work = (double)epochs * (3.0 * per_picture * train_count +
                                              per_picture * test_count);
        run_limits_check_duration(work, 23e-9, 1e-9, "--epochs, --train or --test");
    }

    LabelledImages train, test;
    std::string error;
    if (!load_fashion_mnist(data_dir, "train", (int)train_count, &train, &error) ||
        !load_fashion_mnist(data_dir, "t10k", (int)test_count, &test, &error)) {
        std::fprintf(stderr, "error: Fashion-MNIST not readable (%s): %s\n", error.c_str(),
                     kFashionMnistInstallHint);
        return 2;
    }
    standardize_pixels(&train);
    standardize_pixels(&test);

    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    std::printf("Fashion-MNIST from %s: %d training and %d test pictures of 28 x 28\n", data_dir,
                train.count, test.count);
    const float lr = (float)lr_thousandths / 1000.0f;

    if (!check_one_step(train, (int)batch, act, lr, (uint64_t)seed)) {
        std::printf("\nFAIL\n");
        return 1;
    }

    TrainSettings settings;
    settings.epochs = (int)epochs;
    settings.batch = (int)batch;
    settings.lr = lr;
    settings.act = (int)act;
    settings.seed = (uint64_t)seed;
    settings.print = true;
    settings.bench = bench != 0;
    std::printf("\ntraining 784 -> %d (%s) -> 10, mini-batches of %lld, learning rate %g, seed %lld\n",
                kMlpHidden, activation, batch, lr, seed);
    std::vector<float> batch_losses;
    const double t0 = wall_time_ms();
    std::vector<EpochResult> results = train_network(train, test, settings, &batch_losses);
    const double total_s = (wall_time_ms() - t0) / 1000.0;
    std::printf("trained in %.1f s; test accuracy %.1f%% after %lld epochs (guessing: 10%%)\n",
                total_s, 100.0 * results.back().test_accuracy, epochs);

    if (bench) {
        std::printf("\ntime per epoch on %s (%d training, %d test pictures)\n", prop.name,
                    train.count, test.count);
        std::printf("  %-6s %10s %10s %10s %10s %12s %12s\n", "epoch", "forward", "backward",
                    "SGD", "training", "testing", "pictures/s");
        for (size_t e = 0; e < results.size(); ++e) {
            const EpochResult& r = results[e];
            std::printf("  %-6zu %7.0f ms %7.0f ms %7.0f ms %8.2f s %10.2f s %12.0f\n", e + 1,
                        r.forward_ms, r.backward_ms, r.sgd_ms, r.train_ms / 1000.0,
                        r.test_ms / 1000.0, train.count / (r.train_ms / 1000.0));
        }
        std::printf("  forward includes the loss; training includes copying each batch in.\n");
    }
    if (out_dir && !write_loss_curve(out_dir, batch_losses)) return 1;
    if (!out_dir) std::printf("(--out-dir DIR writes the loss curve as loss_curve.png)\n");
    std::printf("\nPASS\n");
    return 0;
}
#endif
