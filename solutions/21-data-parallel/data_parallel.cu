// Lesson 21: data parallelism - lesson 20's network trained on several GPUs.
//
// Every device holds a full copy of the network, all copies starting from the
// same weights. Each mini-batch is split: every device takes its slice of
// the samples, runs the forward and backward pass on it, and so computes the
// gradient of its slice. The gradients are then summed across the devices
// (an "all-reduce": afterwards every device holds the same sum), and every
// device takes the same SGD step with it. Same weights, same gradient, same
// step: the copies stay identical, and the run computes what one device
// would, only with the batch's work shared out.
//
// The all-reduce here is a ring, written with peer copies: the devices stand
// in a ring, each sends a piece (a "chunk") of its gradient to its right-hand
// neighbour (cudaMemcpyPeerAsync), which adds it to its own (a kernel). After
// N - 1 such steps each device holds the complete sum of one chunk
// (reduce-scatter); N - 1 more steps pass the complete chunks round the ring
// (all-gather). NCCL's ncclAllReduce is the production version of this.
//
// One host thread drives every device: cudaSetDevice(d) chooses which
// device the next calls are for, and launches and async copies return at
// once (lesson 17), so the devices work at the same time while the thread
// goes on to the next one.
//
// Build and run:   ./tutorial run 21 [--devices 4] [--batch 64] [--train 640]
//                  ./tutorial run 21 --no-peer   (peer access left disabled)
//                  ./tutorial run 21 --bench     (time per epoch on 1, 2, 4 devices)
//                  ./tutorial run 21 --list-devices
//                  ./tutorial check 21           (the exercise's test)
//                  ./tutorial solution 21        (the finished version)
// On the emulator, ./tutorial gives this lesson four emulated devices
// (CUEMU_DEVICES=4) unless CUEMU_DEVICES is set; it reads the next line:
// tutorial: emulator devices 4
// It prints the devices and their peer access, the loss and test accuracy
// per epoch, and PASS when the weights are identical on every device and
// match training on one device.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "random_data.h"
#include "run_limits.h"
#include "timer.h"
#include "cpu_reference_data_parallel.h"
#include "fashion_mnist.h"
#include "../../solutions/20-training/mlp.cuh"  // lesson 20's network: kernels and launchers

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

// ---- splitting the work ----

// Samples [begin, begin + count) of something.
struct Slice {
    int begin = 0;
    int count = 0;
};

// Device `device`'s share of a mini-batch of `batch` samples split over
// `devices` devices: consecutive samples, as many for each device as can
// be, the first batch % devices devices taking one more (100 over 3: 34, 33,
// 33). Together the slices cover the batch once; with more devices than
// samples, the last devices get none.
// [snippet: batch-slice]
Slice batch_slice(int batch, int devices, int device) {
    Slice mine;
    const int base = batch / devices, extra = batch % devices;
    mine.count = base + (device < extra ? 1 : 0);
    mine.begin = device * base + std::min(device, extra);
    return mine;
}
// [end snippet]

// Chunk c of a buffer of `count` floats cut into `parts` chunks for the ring:
// from count * c / parts up to count * (c + 1) / parts, so the chunks differ
// in size by one at most (and some are empty when count < parts).
static Slice ring_chunk(int count, int parts, int c) {
    const long long begin = (long long)count * c / parts;
    const long long end = (long long)count * (c + 1) / parts;
    Slice chunk;
    chunk.begin = (int)begin;
    chunk.count = (int)(end - begin);
    return chunk;
}

// ---- the all-reduce: a ring of peer copies and adds ----

// One device's place in the ring: its gradients (`data`, the buffer being
// summed) and an inbox for the chunk its left-hand neighbour sends, both in
// that device's memory.
struct RingMember {
    int device = 0;
    float* data = nullptr;
    float* inbox = nullptr;  // as large as the largest chunk
};

// sum[i] += addend[i]: both in this device's memory.
__global__ void add_into_kernel(float* sum, const float* addend, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sum[i] += addend[i];
}

static const int kAddBlock = 256;

// Waits until every device of the ring has done what was queued for it. A
// step's copies read chunks that the previous step's adds wrote on other
// devices, so no step may start before the last one is done everywhere.
static void wait_for_ring(const std::vector<RingMember>& ring) {
    for (const RingMember& member : ring) {
        CUDA_CHECK(cudaSetDevice(member.device));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
}

// Sums `count` floats over the devices of the ring, in place: afterwards
// every member's data holds data(0) + data(1) + ... + data(N-1), element by
// element, the same bits on every device. Each device's work goes to its
// own default stream (stream 0 while it is the current device).
// [snippet: ring-all-reduce]
void ring_all_reduce(const std::vector<RingMember>& ring, int count) {
    const int n = (int)ring.size();
    // 0. A peer copy waits only for the work queued before it on ITS stream,
    //    the receiving device's; the sender's backward pass, on the sender's
    //    stream, may still be writing the data. Every device finishes first.
    wait_for_ring(ring);
    // 1. Reduce-scatter. In step s, member r receives chunk (r - 1 - s) from
    //    its left-hand neighbour, which has summed s + 1 devices' share of it
    //    so far, and adds it into its own: now s + 2. After N - 1 steps,
    //    member r holds the complete sum of chunk (r + 1) mod N.
    for (int step = 0; step < n - 1; ++step) {
        // [snippet: reduce-scatter-step]
        for (int r = 0; r < n; ++r) {
            const RingMember& me = ring[r];
            const RingMember& left = ring[(r + n - 1) % n];
            const Slice chunk = ring_chunk(count, n, (r - 1 - step + 2 * n) % n);
            if (chunk.count == 0) continue;
            CUDA_CHECK(cudaSetDevice(me.device));
            CUDA_CHECK(cudaMemcpyPeerAsync(me.inbox, me.device, left.data + chunk.begin,
                                           left.device, chunk.count * sizeof(float), 0));
            add_into_kernel<<<(chunk.count + kAddBlock - 1) / kAddBlock, kAddBlock>>>(
                me.data + chunk.begin, me.inbox, chunk.count);
            CUDA_CHECK(cudaGetLastError());
        }
        wait_for_ring(ring);
        // [end snippet]
    }
    // 2. All-gather. In step s, member r receives the complete chunk (r - s)
    //    from its left-hand neighbour and copies it over its own. After N - 1
    //    steps every member has every complete chunk.
    for (int step = 0; step < n - 1; ++step) {
        for (int r = 0; r < n; ++r) {
            const RingMember& me = ring[r];
            const RingMember& left = ring[(r + n - 1) % n];
            const Slice chunk = ring_chunk(count, n, (r - step + n) % n);
            if (chunk.count == 0) continue;
            CUDA_CHECK(cudaSetDevice(me.device));
            CUDA_CHECK(cudaMemcpyPeerAsync(me.data + chunk.begin, me.device,
                                           left.data + chunk.begin, left.device,
                                           chunk.count * sizeof(float), 0));
        }
        wait_for_ring(ring);
    }
}
// [end snippet]

// Turns peer access between every pair of the devices on (where
// cudaDeviceCanAccessPeer says the hardware allows it) or off. Returns how
// many ordered pairs (a, b) have it on: kernels on a may then read and write
// b's memory, and copies between them may go directly. The ring needs none
// of it: cudaMemcpyPeer works without peer access, only more slowly on a GPU.
int set_peer_access(const std::vector<int>& devices, bool enable) {
    int enabled = 0;
    for (int a : devices) {
        for (int b : devices) {
            if (a == b) continue;
            int possible = 0;
            CUDA_CHECK(cudaDeviceCanAccessPeer(&possible, a, b));
            if (!possible) continue;
            CUDA_CHECK(cudaSetDevice(a));
            cudaError_t status = enable ? cudaDeviceEnablePeerAccess(b, 0)
                                        : cudaDeviceDisablePeerAccess(b);
            // Asking for the state it is already in is harmless; the error it
            // returns is not sticky, and cudaGetLastError clears it.
            if (status == cudaErrorPeerAccessAlreadyEnabled ||
                status == cudaErrorPeerAccessNotEnabled) {
                (void)cudaGetLastError();
                status = cudaSuccess;
            }
            CUDA_CHECK(status);
            if (enable) ++enabled;
        }
    }
    return enabled;
}

// Sleeps 50 ms: queued in a stream, it holds back what comes after it there.
static void CUDART_CB hold_back_50ms(void*) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// The launcher the all-reduce test calls: buffers[d] (host memory, all the
// same length) is put on device d, for d < buffers.size(); the ring sums
// them; each device's result is copied back into buffers[d]. With
// still_being_written, the data is written on each device by a kernel that
// is still queued when the ring starts (on a stream of its own, behind a
// 50 ms pause): as the gradients are in training, only later. The ring must
// wait for every device before its first copies.
void all_reduce_on_devices(std::vector<std::vector<float>>& buffers, bool peer_access,
                           bool still_being_written) {
    const int n = (int)buffers.size();
    const int count = (int)buffers[0].size();
    const size_t bytes = (size_t)count * sizeof(float);
    std::vector<int> devices;
    for (int d = 0; d < n; ++d) devices.push_back(d);
    set_peer_access(devices, peer_access);
    std::vector<RingMember> ring((size_t)n);
    std::vector<float*> staging((size_t)n, nullptr);
    std::vector<cudaStream_t> writers((size_t)n, nullptr);
    const size_t inbox = (size_t)count / (size_t)n + 1;
    for (int d = 0; d < n; ++d) {
        ring[d].device = d;
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaMalloc(&ring[d].data, bytes));
        CUDA_CHECK(cudaMalloc(&ring[d].inbox, inbox * sizeof(float)));
        if (!still_being_written) {
            CUDA_CHECK(cudaMemcpy(ring[d].data, buffers[d].data(), bytes, cudaMemcpyHostToDevice));
            continue;
        }
        CUDA_CHECK(cudaMalloc(&staging[d], bytes));
        CUDA_CHECK(cudaMemcpy(staging[d], buffers[d].data(), bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(ring[d].data, 0, bytes));
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaStreamCreateWithFlags(&writers[d], cudaStreamNonBlocking));
        CUDA_CHECK(cudaLaunchHostFunc(writers[d], hold_back_50ms, nullptr));
        add_into_kernel<<<(count + kAddBlock - 1) / kAddBlock, kAddBlock, 0, writers[d]>>>(
            ring[d].data, staging[d], count);
        CUDA_CHECK(cudaGetLastError());
    }
    ring_all_reduce(ring, count);
    for (int d = 0; d < n; ++d) {
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaMemcpy(buffers[d].data(), ring[d].data, bytes, cudaMemcpyDeviceToHost));
        if (still_being_written) {
            CUDA_CHECK(cudaStreamSynchronize(writers[d]));
            CUDA_CHECK(cudaStreamDestroy(writers[d]));
            CUDA_CHECK(cudaFree(staging[d]));
        }
        CUDA_CHECK(cudaFree(ring[d].data));
        CUDA_CHECK(cudaFree(ring[d].inbox));
    }
    CUDA_CHECK(cudaSetDevice(0));
}

// ---- the network on every device ----

// Training samples: `count` pictures of 784 floats, one per row, and labels.
struct Samples {
    const float* images = nullptr;
    const int* labels = nullptr;
    int count = 0;
};

// What a training run does: `epochs` passes of `steps` mini-batches of
// `batch` samples each (steps * batch <= the samples there are), the
// samples of each epoch in its own shuffled order (cpu_shuffled_order).
struct TrainingPlan {
    int batch = 100;
    int steps = 1;
    int epochs = 1;
    float learning_rate = 0.1f;
    uint64_t seed = 1;
    Activation activation = Activation::relu;
};

// One device's copy of the network and what its share of a batch needs.
struct Replica {
    int device = 0;
    MlpTensors params, grads;
    MlpWorkspace workspace;
    float* d_x = nullptr;      // 784 x slice: this device's samples
    int* d_labels = nullptr;
    float* d_inbox = nullptr;  // the ring's inbox
    std::vector<float> h_x;    // the slice, gathered on the host before the copy
    std::vector<int> h_labels;
};

struct DataParallel {
    std::vector<Replica> replicas;
    std::vector<RingMember> ring;  // the replicas' gradients
};

// A replica of the network on each of devices 0 .. num_devices - 1, every
// one starting from the parameters `initial`, with room for slices of up to
// `max_slice` samples.
// [snippet: make-replicas]
DataParallel make_data_parallel(int num_devices, int max_slice, const std::vector<float>& initial) {
    DataParallel dp;
    const size_t bytes = mlp_param_count() * sizeof(float);
    const size_t inbox = mlp_param_count() / (size_t)num_devices + 1;
    for (int d = 0; d < num_devices; ++d) {
        Replica r;
        r.device = d;
        CUDA_CHECK(cudaSetDevice(d));  // what follows is allocated on device d
        r.params = mlp_alloc_tensors();
        r.grads = mlp_alloc_tensors();
        r.workspace = mlp_alloc_workspace(max_slice);
        CUDA_CHECK(cudaMalloc(&r.d_x, (size_t)kMlpInputs * max_slice * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&r.d_labels, (size_t)max_slice * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&r.d_inbox, inbox * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(r.params.all, initial.data(), bytes, cudaMemcpyHostToDevice));
        r.h_x.resize((size_t)kMlpInputs * max_slice);
        r.h_labels.resize((size_t)max_slice);
        dp.ring.push_back(RingMember{d, r.grads.all, r.d_inbox});
        dp.replicas.push_back(std::move(r));
    }
    return dp;
}
// [end snippet]

void free_data_parallel(DataParallel& dp) {
    for (Replica& r : dp.replicas) {
        CUDA_CHECK(cudaSetDevice(r.device));
        mlp_free_tensors(r.params);
        mlp_free_tensors(r.grads);
        mlp_free_workspace(r.workspace);
        CUDA_CHECK(cudaFree(r.d_x));
        CUDA_CHECK(cudaFree(r.d_labels));
        CUDA_CHECK(cudaFree(r.d_inbox));
    }
    CUDA_CHECK(cudaSetDevice(0));
    dp = DataParallel{};
}

// Device d's parameters, copied to the host.
std::vector<float> replica_params(const DataParallel& dp, int d) {
    std::vector<float> params(mlp_param_count());
    CUDA_CHECK(cudaSetDevice(dp.replicas[d].device));
    CUDA_CHECK(cudaMemcpy(params.data(), dp.replicas[d].params.all, params.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    return params;
}

// One SGD step on the mini-batch order[first .. first + batch), shared out
// over the replicas. Returns the batch's summed loss. all_reduce_ms, when
// given, gets the time the gradients' all-reduce took added to it.
// [snippet: data-parallel-step]
float data_parallel_step(DataParallel& dp, const Samples& data, const int* order, int first,
                         const TrainingPlan& plan, double* all_reduce_ms = nullptr) {
    const int n = (int)dp.replicas.size();
    // 1. Every device: forward and backward on its slice of the batch. The
    //    gradients are scaled by the WHOLE batch's size (lesson 20's
    //    mlp_backward takes it), so that their sum over the devices is the
    //    batch's mean gradient.
    for (int d = 0; d < n; ++d) {
        Replica& r = dp.replicas[d];
        const Slice mine = batch_slice(plan.batch, n, d);
        CUDA_CHECK(cudaSetDevice(r.device));
        if (mine.count == 0) {  // more devices than samples: this one adds zeros
            CUDA_CHECK(cudaMemset(r.grads.all, 0, mlp_param_count() * sizeof(float)));
            continue;
        }
        mlp_gather_batch(data.images, data.labels, order, first + mine.begin, mine.count,
                         r.h_x.data(), r.h_labels.data());
        CUDA_CHECK(cudaMemcpy(r.d_x, r.h_x.data(), (size_t)kMlpInputs * mine.count * sizeof(float),
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(r.d_labels, r.h_labels.data(), (size_t)mine.count * sizeof(int),
                              cudaMemcpyHostToDevice));
        mlp_forward(r.params, r.d_x, r.d_labels, mine.count, plan.activation, r.workspace);
        mlp_backward(r.params, r.d_x, r.d_labels, mine.count, plan.batch, plan.activation,
                     r.workspace, r.grads);
    }
    // 2. Sum the gradients: afterwards every device holds the same sum.
    double start = 0.0;
    if (all_reduce_ms) {  // time the all-reduce alone: the backward passes first
        wait_for_ring(dp.ring);
        start = wall_time_ms();
    }
    ring_all_reduce(dp.ring, (int)mlp_param_count());
    if (all_reduce_ms) *all_reduce_ms += wall_time_ms() - start;
    // 3. Every device takes the same step from the same weights.
    float loss = 0.0f;
    for (int d = 0; d < n; ++d) {
        Replica& r = dp.replicas[d];
        CUDA_CHECK(cudaSetDevice(r.device));
        mlp_sgd_step(r.params, r.grads, plan.learning_rate);
        if (batch_slice(plan.batch, n, d).count > 0) loss += mlp_read_loss_sum(r.workspace);
    }
    return loss;
}
// [end snippet]

// Epoch `epoch` of the plan on the replicas: plan.steps steps. Returns the
// summed loss of its samples.
float data_parallel_epoch(DataParallel& dp, const Samples& data, const TrainingPlan& plan,
                          int epoch, double* all_reduce_ms = nullptr) {
    std::vector<int> order((size_t)data.count);
    cpu_shuffled_order(order.data(), data.count, plan.seed, epoch);
    float loss = 0.0f;
    for (int step = 0; step < plan.steps; ++step)
        loss += data_parallel_step(dp, data, order.data(), step * plan.batch, plan, all_reduce_ms);
    return loss;
}

// The largest slice of a batch: device 0's.
static int largest_slice(int batch, int devices) {
    return std::max(1, batch_slice(batch, devices, 0).count);
}

// The whole plan on devices 0 .. num_devices - 1 from the parameters
// `initial`. Returns every device's parameters at the end.
std::vector<std::vector<float>> train_data_parallel(const Samples& data, const TrainingPlan& plan,
                                                    int num_devices, const std::vector<float>& initial) {
    DataParallel dp = make_data_parallel(num_devices, largest_slice(plan.batch, num_devices), initial);
    for (int epoch = 0; epoch < plan.epochs; ++epoch) data_parallel_epoch(dp, data, plan, epoch);
    std::vector<std::vector<float>> params;
    for (int d = 0; d < num_devices; ++d) params.push_back(replica_params(dp, d));
    free_data_parallel(dp);
    return params;
}

// The same plan on device 0 alone, with lesson 20's functions and no slices:
// what the data-parallel run is compared with.
std::vector<float> train_one_device(const Samples& data, const TrainingPlan& plan,
                                    const std::vector<float>& initial) {
    CUDA_CHECK(cudaSetDevice(0));
    MlpTensors params = mlp_alloc_tensors(), grads = mlp_alloc_tensors();
    MlpWorkspace ws = mlp_alloc_workspace(plan.batch);
    float* d_x = nullptr;
    int* d_labels = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, (size_t)kMlpInputs * plan.batch * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_labels, (size_t)plan.batch * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(params.all, initial.data(), mlp_param_count() * sizeof(float),
                          cudaMemcpyHostToDevice));
    std::vector<float> h_x((size_t)kMlpInputs * plan.batch);
    std::vector<int> h_labels((size_t)plan.batch), order((size_t)data.count);
    for (int epoch = 0; epoch < plan.epochs; ++epoch) {
        cpu_shuffled_order(order.data(), data.count, plan.seed, epoch);
        for (int step = 0; step < plan.steps; ++step) {
            mlp_gather_batch(data.images, data.labels, order.data(), step * plan.batch, plan.batch,
                             h_x.data(), h_labels.data());
            CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(d_labels, h_labels.data(), h_labels.size() * sizeof(int),
                                  cudaMemcpyHostToDevice));
            mlp_forward(params, d_x, d_labels, plan.batch, plan.activation, ws);
            mlp_backward(params, d_x, d_labels, plan.batch, plan.batch, plan.activation, ws, grads);
            mlp_sgd_step(params, grads, plan.learning_rate);
        }
    }
    std::vector<float> result(mlp_param_count());
    CUDA_CHECK(cudaMemcpy(result.data(), params.all, result.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    mlp_free_tensors(params);
    mlp_free_tensors(grads);
    mlp_free_workspace(ws);
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_labels));
    return result;
}

// The launchers the training tests call: `steps` mini-batches of `batch`
// of the `count` samples (one epoch), learning rate 0.1, from lesson 20's
// starting parameters for `seed`: on devices 0 .. num_devices - 1 (every
// device's parameters at the end), and on one device alone.
std::vector<std::vector<float>> train_on_devices(const float* images, const int* labels, int count,
                                                 int batch, int steps, uint64_t seed,
                                                 int num_devices) {
    TrainingPlan plan;
    plan.batch = batch;
    plan.steps = steps;
    plan.seed = seed;
    return train_data_parallel(Samples{images, labels, count}, plan, num_devices,
                               mlp_initial_params(seed, plan.activation));
}

std::vector<float> train_on_one_device(const float* images, const int* labels, int count, int batch,
                                       int steps, uint64_t seed) {
    TrainingPlan plan;
    plan.batch = batch;
    plan.steps = steps;
    plan.seed = seed;
    return train_one_device(Samples{images, labels, count}, plan,
                            mlp_initial_params(seed, plan.activation));
}

// Lesson 20's starting parameters for a seed (the tests compare with them).
std::vector<float> starting_params(uint64_t seed) {
    return mlp_initial_params(seed, Activation::relu);
}

// ---- main: train on N devices, check, compare with one device ----
#ifndef TUTORIAL_TEST_BUILD

// How many of the test pictures the network on device d classifies right
// (forward passes of up to the workspace's capacity at a time).
static int count_correct(Replica& r, const LabelledImages& test) {
    CUDA_CHECK(cudaSetDevice(r.device));
    std::vector<int> order((size_t)test.count), predicted((size_t)r.workspace.capacity);
    for (int i = 0; i < test.count; ++i) order[i] = i;
    int correct = 0;
    for (int first = 0; first < test.count; first += r.workspace.capacity) {
        const int count = std::min(r.workspace.capacity, test.count - first);
        mlp_gather_batch(test.pixels.data(), test.labels.data(), order.data(), first, count,
                         r.h_x.data(), r.h_labels.data());
        CUDA_CHECK(cudaMemcpy(r.d_x, r.h_x.data(), (size_t)kMlpInputs * count * sizeof(float),
                              cudaMemcpyHostToDevice));
        mlp_forward(r.params, r.d_x, nullptr, count, Activation::relu, r.workspace);
        CUDA_CHECK(cudaMemcpy(predicted.data(), r.workspace.predicted, count * sizeof(int),
                              cudaMemcpyDeviceToHost));
        for (int j = 0; j < count; ++j) correct += predicted[j] == r.h_labels[j];
    }
    return correct;
}

// Prints the devices and whether each can reach each other's memory.
static void print_devices(int count) {
    std::printf("%d device%s:\n", count, count == 1 ? "" : "s");
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop = {};
        CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
        std::printf("  device %d: %s, %.1f GiB\n", d, prop.name,
                    prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    }
    if (count > 1) {
        std::printf("peer access possible (cudaDeviceCanAccessPeer), row: from, column: to\n      ");
        for (int b = 0; b < count; ++b) std::printf(" %3d", b);
        std::printf("\n");
        for (int a = 0; a < count; ++a) {
            std::printf("  %3d ", a);
            for (int b = 0; b < count; ++b) {
                int possible = 0;
                if (a != b) CUDA_CHECK(cudaDeviceCanAccessPeer(&possible, a, b));
                std::printf(" %3s", a == b ? "-" : possible ? "yes" : "no");
            }
            std::printf("\n");
        }
    }
#ifdef CUEMU
    if (count == 1)
        std::printf("(the emulator makes more: CUEMU_DEVICES=4 ./tutorial run 21 gives it four)\n");
#endif
}

int main(int argc, char** argv) {
    long long devices_wanted = 0, train_count = 640, test_count = 500, batch = 64, epochs = 1,
              lr_thousandths = 100, seed = 1, no_peer = 0, bench = 0, list_only = 0;
    const char* data_dir = kFashionMnistDefaultDir;
    cli_option options[] = {
        {"--devices", "devices to train on; 0: every device, up to 4", CLI_INT, &devices_wanted, 0, 16},
        {"--train", "training pictures used (the first N of 60000)", CLI_INT, &train_count, 1, 60000},
        {"--test", "test pictures used (the first N of 10000)", CLI_INT, &test_count, 1, 10000},
        {"--batch", "pictures per mini-batch, shared out over the devices", CLI_INT, &batch, 1, 4096},
        {"--epochs", "passes over the training pictures", CLI_INT, &epochs, 1, 100},
        {"--lr", "learning rate in thousandths: 100 means 0.1", CLI_INT, &lr_thousandths, 1, 10000},
        {"--seed", "seed of the starting weights and the shuffles", CLI_INT, &seed, 0, 1000000000},
        {"--data", "folder of Fashion-MNIST's .gz files", CLI_TEXT, nullptr, 0, 0, &data_dir},
        {"--no-peer", "leave peer access disabled (the peer copies work without it)", CLI_FLAG,
         &no_peer, 0, 1},
        {"--bench", "time an epoch on 1, 2 and 4 devices (as many as there are)", CLI_FLAG, &bench,
         0, 1},
        {"--list-devices", "show the devices and their peer access, then stop", CLI_FLAG, &list_only,
         0, 1},
    };
    cli_parse(argc, argv,
              "Trains lesson 20's 784-128-10 network on several devices at once: each takes a\n"
              "slice of every mini-batch, a ring all-reduce of peer copies sums the gradients.",
              options, 11);
    if (batch > train_count) {
        std::fprintf(stderr, "error: --batch %lld is more than the %lld training pictures\n", batch,
                     train_count);
        return 2;
    }

    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    print_devices(count);
    if (list_only) return 0;
    const int n = devices_wanted == 0 ? std::min(count, 4) : (int)devices_wanted;
    if (n > count) {
        std::fprintf(stderr, "error: --devices %d, but there %s only %d\n", n,
                     count == 1 ? "is" : "are", count);
        return 2;
    }
    const int steps = (int)(train_count / batch);  // a last, partial batch is left out
    {
        // Memory: the pictures as floats on the host; on each device the
        // parameters, gradients, inbox and a slice's buffers, and one more
        // set for the one-device run. Time: each device's step costs about
        // the same whatever its slice (the weight gradients are 784 x 128
        // either way) plus a share per picture; measured for this program
        // on the 2-core machine (emulator, mlp.cuh's kernels instrumented
        // for the race check, other jobs running): about 0.03 s per
        // device-step and 0.002 s per picture; the forward passes on the
        // test pictures about 0.001 s each.
        const double pictures = (double)train_count + (double)test_count;
        const double per_device = 4.0 * (3.5 * mlp_param_count() +
                                         (6.0 * kMlpHidden + kMlpInputs) * (double)batch);
        run_limits_require_memory(4.0 * pictures * kMlpInputs, (n + 1) * per_device);
        const double device_steps = (double)epochs * steps * (n + 1) * (bench ? 2 : 1);
        const double work = device_steps * 0.03 + (double)epochs * train_count * 2 * 0.002 +
                            (double)epochs * test_count * 0.001;
        run_limits_check_duration(work, 1.0, 0.0, "--epochs, --train or --test");
    }

    LabelledImages train, test;
    std::string error;
    if (!load_fashion_mnist(data_dir, "train", (int)train_count, &train, &error) ||
        !load_fashion_mnist(data_dir, "t10k", (int)test_count, &test, &error)) {
        std::fprintf(stderr, "error: Fashion-MNIST not readable (%s): %s\n", error.c_str(),
                     kFashionMnistInstallHint);
        return 2;
    }
    standardize_pixels(&train);  // as lesson 20 does: inputs around 0, spread 1
    standardize_pixels(&test);
    std::printf("\nFashion-MNIST from %s: %d training and %d test pictures\n", data_dir,
                train.count, test.count);

    std::vector<int> devices;
    for (int d = 0; d < n; ++d) devices.push_back(d);
    const int peer_pairs = set_peer_access(devices, no_peer == 0);
    if (n > 1 && no_peer)
        std::printf("peer access: left disabled (--no-peer); the peer copies work without it\n");
    else if (n > 1)
        std::printf("peer access: enabled for %d of the %d ordered pairs of devices\n", peer_pairs,
                    n * (n - 1));

    TrainingPlan plan;
    plan.batch = (int)batch;
    plan.steps = steps;
    plan.epochs = (int)epochs;
    plan.learning_rate = (float)lr_thousandths / 1000.0f;
    plan.seed = (uint64_t)seed;
    const Samples data{train.pixels.data(), train.labels.data(), train.count};
    const std::vector<float> initial = mlp_initial_params(plan.seed, plan.activation);

    std::printf("\ntraining on %d device%s: mini-batches of %d pictures, slices of", n,
                n == 1 ? "" : "s", plan.batch);
    for (int d = 0; d < n; ++d)
        std::printf("%s %d", d == 0 ? "" : ",", batch_slice(plan.batch, n, d).count);
    std::printf(", learning rate %g, %d steps per epoch\n", plan.learning_rate, plan.steps);
    // The test pictures go through device 0 in forward passes of up to 500.
    DataParallel dp = make_data_parallel(n, std::max(largest_slice(plan.batch, n), 500), initial);
    for (int epoch = 0; epoch < plan.epochs; ++epoch) {
        const double start = wall_time_ms();
        const float loss = data_parallel_epoch(dp, data, plan, epoch);
        wait_for_ring(dp.ring);
        const double seconds = (wall_time_ms() - start) / 1000.0;
        const int correct = count_correct(dp.replicas[0], test);
        std::printf("  epoch %d of %d: mean training loss %.4f, test accuracy %.1f%% (%d of %d), "
                    "%.2f s\n",
                    epoch + 1, plan.epochs, loss / ((double)plan.steps * plan.batch),
                    100.0 * correct / test.count, correct, test.count, seconds);
    }

    // Check 1: every device holds the same weights, bit for bit.
    const std::vector<float> weights = replica_params(dp, 0);
    int differing = 0;
    for (int d = 1; d < n; ++d) {
        const std::vector<float> other = replica_params(dp, d);
        if (std::memcmp(other.data(), weights.data(), weights.size() * sizeof(float)) != 0)
            ++differing;
    }
    free_data_parallel(dp);
    if (differing == 0)
        std::printf("\nthe weights on the %d device%s: identical, bit for bit\n", n, n == 1 ? "" : "s");
    else
        std::printf("\nthe weights on the %d devices: %d of devices 1 to %d differ from device 0's\n",
                    n, differing, n - 1);

    // Check 2: the same training on one device, lesson 20's way. The sums
    // are taken in another order (over the whole batch at once, not slice
    // by slice), so the weights may differ in their last bits.
    const std::vector<float> reference = train_one_device(data, plan, initial);
    const double atol = 1e-5, rtol = 1e-4;
    double largest = 0.0;
    size_t beyond = 0;
    for (size_t i = 0; i < reference.size(); ++i) {
        const double difference = std::fabs((double)weights[i] - reference[i]);
        largest = std::max(largest, difference);
        if (difference > atol + rtol * std::fabs(reference[i])) ++beyond;
    }
    std::printf("the same training on one device: the weights differ from device 0's by at most "
                "%.1e\n  (allowed: %g + %g x |weight|; %zu of %zu weights beyond that)\n",
                largest, atol, rtol, beyond, reference.size());
    const bool passed = differing == 0 && beyond == 0;

    if (bench) {
        std::printf("\ntime per epoch of %d steps, %s\n", plan.steps,
#ifdef CUEMU
                    "on the emulator: every emulated device runs on this machine's CPU cores"
#else
                    "on the GPUs"
#endif
        );
        std::printf("  %7s %10s %14s %12s\n", "devices", "epoch", "all-reduce", "pictures/s");
        for (int devs : {1, 2, 4}) {
            if (devs > count) break;
            DataParallel timed = make_data_parallel(devs, largest_slice(plan.batch, devs), initial);
            double all_reduce_ms = 0.0;
            const double start = wall_time_ms();
            data_parallel_epoch(timed, data, plan, 0, &all_reduce_ms);
            wait_for_ring(timed.ring);
            const double ms = wall_time_ms() - start;
            free_data_parallel(timed);
            std::printf("  %7d %7.2f s %11.1f ms %12.1f\n", devs, ms / 1000.0, all_reduce_ms,
                        plan.steps * plan.batch / (ms / 1000.0));
        }
    }
    std::printf("\n%s\n", passed ? "PASS" : "FAIL");
    return passed ? 0 : 1;
}
#endif  // TUTORIAL_TEST_BUILD
