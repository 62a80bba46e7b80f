// Lesson 26: beyond one machine - lesson 20's network trained by N processes,
// one GPU each, the way clusters (and PyTorch's DDP) do it.
//
// A launcher (mpirun here, srun on a Slurm cluster) starts the same program N
// times. Each copy is a "rank" of the job: MPI tells it its number and how
// many there are, and it picks its GPU from its rank on its own machine. The
// ranks share nothing but the messages they send each other. Rank 0 makes the
// starting weights and MPI_Bcast gives every rank a copy; then, at each step,
// every rank runs the forward and backward pass on its slice of the
// mini-batch, the ranks sum their gradients (an all-reduce), and each takes
// the same SGD step. The gradient's all-reduce is done three ways:
//   host        cudaMemcpy to host memory, MPI_Allreduce there, copy back;
//   cuda-aware  the device pointer handed to MPI_Allreduce itself, where the
//               MPI says it can read GPU memory (MPIX_Query_cuda_support);
//   nccl        ncclAllReduce on a CUDA stream, GPU to GPU, the ranks found
//               through an id that rank 0 makes and MPI_Bcast hands out.
//
// Build and run:   ./tutorial run 26            (your code, under mpirun -np 2)
//                  TUTORIAL_RANKS=4 ./tutorial run 26
//                  ./tutorial run 26 --all-reduce nccl --epochs 2
//                  ./tutorial run 26 --bench    (time of each all-reduce)
//                  ./tutorial check 26          (the exercise's test, 2 ranks)
//                  ./tutorial solution 26       (the finished version)
//   or by hand:    mpirun -np 4 build/bin/lesson26_solution_emu
// On the emulator every process has its own emulated GPUs: ./tutorial gives
// each four (a node of four GPUs) unless CUEMU_DEVICES is set, and starts
// the number of ranks the next line names:
// tutorial: emulator devices 4
// tutorial: mpirun ranks 2
// It prints each rank's GPU, then for each all-reduce the loss, the test
// accuracy, whether the weights are identical on every rank, how far they are
// from training in one process, and PASS when all of that holds.
#include <cuda_runtime.h>
#include <mpi.h>
// The tutorial's build says whether NCCL is there (an nvcc build may lack
// it); a build by hand (nvcc ... -lnccl) has it.
#ifndef TUTORIAL_HAVE_NCCL
#define TUTORIAL_HAVE_NCCL 1
#endif
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif
#if TUTORIAL_HAVE_NCCL
#include <nccl.h>
#endif

#include "cuda_check.h"
#include "cli.h"
#include "random_data.h"
#include "run_limits.h"
#include "timer.h"
#include "cpu_reference_data_parallel.h"
#include "fashion_mnist.h"
#include "../../solutions/20-training/mlp.cuh"  // lesson 20's network: kernels and launchers

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// An MPI call that fails ends the whole job: one rank alone cannot go on
// while the others wait for it in their next collective.
#define MPI_CHECK(call)                                                                 \
    do {                                                                                \
        int mpi_status_ = (call);                                                       \
        if (mpi_status_ != MPI_SUCCESS) {                                               \
            char text_[MPI_MAX_ERROR_STRING];                                           \
            int length_ = 0;                                                            \
            MPI_Error_string(mpi_status_, text_, &length_);                             \
            std::fprintf(stderr, "MPI error at %s:%d: %s: %s\n", __FILE__, __LINE__,    \
                         #call, text_);                                                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                               \
        }                                                                               \
    } while (0)

#if TUTORIAL_HAVE_NCCL
#define NCCL_CHECK(call)                                                                \
    do {                                                                                \
        ncclResult_t nccl_status_ = (call);                                             \
        if (nccl_status_ != ncclSuccess) {                                              \
            std::fprintf(stderr, "NCCL error at %s:%d: %s: %s\n", __FILE__, __LINE__,   \
                         #call, ncclGetErrorString(nccl_status_));                      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                               \
        }                                                                               \
    } while (0)
#endif

// ---- the job: ranks and GPUs ----

// Which of this machine's GPUs a rank uses. local_rank counts the ranks of
// this machine only (0, 1, ... on every node); the launcher gives the ranks
// of one node consecutive numbers. With more ranks than GPUs, ranks share.
// [snippet: device-for-rank]
int device_for_rank(int local_rank, int device_count) {
    return local_rank % device_count;
}
// [end snippet]

// Where this process stands in the job.
struct Job {
    int rank = 0;          // 0 .. size - 1, across every machine
    int size = 1;          // how many ranks the launcher started
    int local_rank = 0;    // 0 .. (ranks on this machine) - 1
    int device = 0;        // the GPU this rank uses
    int device_count = 1;  // the GPUs this process sees
};

// Asks MPI who we are, and claims this rank's GPU: every CUDA call after
// cudaSetDevice is for that device. MPI must be initialised.
// [snippet: join-job]
Job join_job() {
    Job job;
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &job.rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &job.size));
    // The ranks that share this machine's memory form a communicator of
    // their own; our number in it is the local rank.
    MPI_Comm node;
    MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job.rank, MPI_INFO_NULL,
                                  &node));
    MPI_CHECK(MPI_Comm_rank(node, &job.local_rank));
    MPI_CHECK(MPI_Comm_free(&node));
    CUDA_CHECK(cudaGetDeviceCount(&job.device_count));
    job.device = device_for_rank(job.local_rank, job.device_count);
    CUDA_CHECK(cudaSetDevice(job.device));
    return job;
}
// [end snippet]

// Rank `rank`'s share of a mini-batch of `batch` samples: from
// batch * rank / size up to batch * (rank + 1) / size, so that the slices
// follow each other and differ in size by one at most (100 over 3: 33, 33,
// 34). With more ranks than samples some ranks get none.
struct Slice {
    int begin = 0;
    int count = 0;
};
Slice batch_slice(int batch, int size, int rank) {
    Slice mine;
    mine.begin = batch * rank / size;
    mine.count = batch * (rank + 1) / size - mine.begin;
    return mine;
}

// ---- three ways to sum the gradients ----

enum class AllReduce { host, cuda_aware, nccl };

const char* all_reduce_name(AllReduce how) {
    switch (how) {
    case AllReduce::host: return "host";
    case AllReduce::cuda_aware: return "cuda-aware";
    case AllReduce::nccl: return "nccl";
    }
    return "?";
}

// Whether this MPI reads and writes GPU memory given to it directly. Open
// MPI answers twice: MPIX_CUDA_AWARE_SUPPORT says whether it was BUILT with
// CUDA support, MPIX_Query_cuda_support() whether that support is on in this
// run. Another MPI that cannot say is taken as not CUDA-aware: handing a
// device pointer to an MPI that reads it as a host address crashes or,
// worse, sends garbage.
// [snippet: cuda-aware-query]
bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}
// [end snippet]

// What the all-reduces need, made once per training run.
struct Collectives {
    AllReduce how = AllReduce::host;
    bool cuda_aware = false;     // mpi_is_cuda_aware(), asked once
    std::vector<float> staging;  // host memory for the "host" path
    cudaStream_t stream = nullptr;
#if TUTORIAL_HAVE_NCCL
    ncclComm_t nccl = nullptr;
#endif
};

// Sets up `how` for every rank of the job (a collective call: every rank
// makes it). For NCCL: rank 0 makes the communicator's unique id, MPI_Bcast
// hands the same bytes to every rank, and each joins as its own rank.
// [snippet: open-collectives]
Collectives open_collectives(const Job& job, AllReduce how) {
    Collectives c;
    c.how = how;
    c.cuda_aware = mpi_is_cuda_aware();
    c.staging.resize(mlp_param_count());
    // A blocking stream: it waits for the backward pass queued on the default
    // stream, and the SGD step queued there after it waits for the all-reduce.
    CUDA_CHECK(cudaStreamCreate(&c.stream));
#if TUTORIAL_HAVE_NCCL
    if (how == AllReduce::nccl) {
        ncclUniqueId id;
        if (job.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
        MPI_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
        NCCL_CHECK(ncclCommInitRank(&c.nccl, job.size, id, job.rank));
    }
#else
    (void)job;
#endif
    return c;
}
// [end snippet]

void close_collectives(Collectives& c) {
#if TUTORIAL_HAVE_NCCL
    if (c.nccl) NCCL_CHECK(ncclCommDestroy(c.nccl));
#endif
    CUDA_CHECK(cudaStreamDestroy(c.stream));
    c = Collectives{};
}

// 1. Through host memory: works with any MPI. Every byte crosses the PCIe
//    bus twice more than it must, and the GPU idles while MPI works.
// [snippet: all-reduce-host]
void all_reduce_through_host(Collectives& c, const MlpTensors& grads) {
    const size_t n = mlp_param_count();
    float* host = c.staging.data();
    // cudaMemcpy waits for the backward pass that wrote the gradients.
    CUDA_CHECK(cudaMemcpy(host, grads.all, n * sizeof(float), cudaMemcpyDeviceToHost));
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, host, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    CUDA_CHECK(cudaMemcpy(grads.all, host, n * sizeof(float), cudaMemcpyHostToDevice));
}
// [end snippet]

// 2. CUDA-aware MPI: the device pointer goes to MPI, which moves GPU memory
//    itself (GPUDirect RDMA between nodes, peer copies within one). MPI knows
//    nothing of CUDA streams, so the GPU must be done writing first. Where
//    this MPI is not CUDA-aware the gradients go through host memory.
// [snippet: all-reduce-cuda-aware]
void all_reduce_cuda_aware(Collectives& c, const MlpTensors& grads) {
    if (!c.cuda_aware) {
        all_reduce_through_host(c, grads);
        return;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, grads.all, (int)mlp_param_count(), MPI_FLOAT, MPI_SUM,
                            MPI_COMM_WORLD));
}
// [end snippet]

// 3. NCCL: one all-reduce per tensor of the network (as frameworks reduce
//    each layer's gradient as soon as the backward pass has it), grouped so
//    that NCCL starts them as one operation. The calls return at once; the
//    work is queued on the stream, after the backward pass.
// [snippet: all-reduce-nccl]
void all_reduce_nccl(Collectives& c, const MlpTensors& grads) {
#if TUTORIAL_HAVE_NCCL
    float* tensors[] = {grads.w1, grads.b1, grads.w2, grads.b2};
    const size_t counts[] = {kMlpW1Count, kMlpB1Count, kMlpW2Count, kMlpB2Count};
    // [snippet: nccl-group]
    NCCL_CHECK(ncclGroupStart());
    for (int t = 0; t < 4; ++t) {
        NCCL_CHECK(ncclAllReduce(tensors[t], tensors[t], counts[t], ncclFloat, ncclSum,
                                 c.nccl, c.stream));
    }
    NCCL_CHECK(ncclGroupEnd());
    // [end snippet]
#else
    (void)c;
    (void)grads;
#endif
}
// [end snippet]

void all_reduce_gradients(Collectives& c, const MlpTensors& grads) {
    switch (c.how) {
    case AllReduce::host: all_reduce_through_host(c, grads); break;
    case AllReduce::cuda_aware: all_reduce_cuda_aware(c, grads); break;
    case AllReduce::nccl: all_reduce_nccl(c, grads); break;
    }
}

// ---- training: every rank its slice, the same step everywhere ----

struct Samples {
    const float* images = nullptr;  // count pictures of 784 floats
    const int* labels = nullptr;
    int count = 0;
};

struct TrainingPlan {
    int batch = 64;
    int steps = 1;  // mini-batches per epoch
    int epochs = 1;
    float learning_rate = 0.1f;
    uint64_t seed = 1;
};

// This rank's network and what its slice of a batch needs.
struct Replica {
    MlpTensors params, grads;
    MlpWorkspace workspace;
    float* d_x = nullptr;
    int* d_labels = nullptr;
    std::vector<float> h_x;
    std::vector<int> h_labels;
};

Replica make_replica(int capacity) {
    Replica r;
    r.params = mlp_alloc_tensors();
    r.grads = mlp_alloc_tensors();
    r.workspace = mlp_alloc_workspace(capacity);
    CUDA_CHECK(cudaMalloc(&r.d_x, (size_t)kMlpInputs * capacity * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&r.d_labels, (size_t)capacity * sizeof(int)));
    r.h_x.resize((size_t)kMlpInputs * capacity);
    r.h_labels.resize((size_t)capacity);
    return r;
}

void free_replica(Replica& r) {
    mlp_free_tensors(r.params);
    mlp_free_tensors(r.grads);
    mlp_free_workspace(r.workspace);
    CUDA_CHECK(cudaFree(r.d_x));
    CUDA_CHECK(cudaFree(r.d_labels));
    r = Replica{};
}

std::vector<float> read_params(const Replica& r) {
    std::vector<float> params(mlp_param_count());
    CUDA_CHECK(cudaMemcpy(params.data(), r.params.all, params.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    return params;
}

// Every rank starts from rank 0's weights: rank 0 makes them, MPI_Bcast
// copies them into every other rank's buffer. (Each rank could make them
// from the seed itself; a real program loads a checkpoint on one rank, or
// its ranks draw different random numbers, and broadcasts anyway.)
// [snippet: broadcast-weights]
void broadcast_initial_weights(const Job& job, const TrainingPlan& plan, Replica& r) {
    std::vector<float> initial(mlp_param_count(), 0.0f);
    if (job.rank == 0) initial = mlp_initial_params(plan.seed, Activation::relu);
    MPI_CHECK(MPI_Bcast(initial.data(), (int)initial.size(), MPI_FLOAT, 0, MPI_COMM_WORLD));
    CUDA_CHECK(cudaMemcpy(r.params.all, initial.data(), initial.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
}
// [end snippet]

// The forward and backward pass of samples order[first .. first + count),
// part of a mini-batch of `total`: the gradients, scaled by the whole
// batch, into r.grads. Returns the summed loss of these samples.
float forward_backward(Replica& r, const Samples& data, const int* order, int first, int count,
                       int total) {
    mlp_gather_batch(data.images, data.labels, order, first, count, r.h_x.data(),
                     r.h_labels.data());
    CUDA_CHECK(cudaMemcpy(r.d_x, r.h_x.data(), (size_t)kMlpInputs * count * sizeof(float),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(r.d_labels, r.h_labels.data(), (size_t)count * sizeof(int),
                          cudaMemcpyHostToDevice));
    mlp_forward(r.params, r.d_x, r.d_labels, count, Activation::relu, r.workspace);
    mlp_backward(r.params, r.d_x, r.d_labels, count, total, Activation::relu, r.workspace, r.grads);
    return mlp_read_loss_sum(r.workspace);
}

// One SGD step on samples order[first .. first + batch): this rank's slice
// forward and backward, the gradients summed over the ranks, the step.
// Returns the loss summed over the whole batch (every rank gets it).
// [snippet: training-step]
float training_step(const Job& job, Collectives& c, Replica& r, const Samples& data,
                    const int* order, int first, const TrainingPlan& plan) {
    const Slice mine = batch_slice(plan.batch, job.size, job.rank);
    float loss = 0.0f;
    if (mine.count == 0) {  // more ranks than samples: this one adds zeros
        CUDA_CHECK(cudaMemset(r.grads.all, 0, mlp_param_count() * sizeof(float)));
    } else {
        // Scaled by the WHOLE batch: the sum over the ranks is its mean gradient.
        loss = forward_backward(r, data, order, first + mine.begin, mine.count, plan.batch);
    }
    all_reduce_gradients(c, r.grads);
    mlp_sgd_step(r.params, r.grads, plan.learning_rate);
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &loss, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    return loss;
}
// [end snippet]

// The plan on every rank of the job, the gradients summed `how`. Returns
// this rank's weights at the end; mean_loss, when given, gets the last
// epoch's mean loss per sample.
std::vector<float> train_on_ranks(const Job& job, AllReduce how, const Samples& data,
                                  const TrainingPlan& plan, float* mean_loss = nullptr,
                                  double* all_reduce_ms = nullptr) {
    Collectives c = open_collectives(job, how);
    // Room for the largest slice: the batch over the ranks, rounded up.
    Replica r = make_replica(std::max(1, (plan.batch + job.size - 1) / job.size));
    broadcast_initial_weights(job, plan, r);
    std::vector<int> order((size_t)data.count);
    for (int epoch = 0; epoch < plan.epochs; ++epoch) {
        cpu_shuffled_order(order.data(), data.count, plan.seed, epoch);  // the same on every rank
        float loss = 0.0f;
        for (int step = 0; step < plan.steps; ++step)
            loss += training_step(job, c, r, data, order.data(), step * plan.batch, plan);
        if (mean_loss) *mean_loss = loss / ((float)plan.steps * plan.batch);
    }
    if (all_reduce_ms) {  // the all-reduce alone, on gradients already computed
        CUDA_CHECK(cudaDeviceSynchronize());
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        const double start = wall_time_ms();
        const int repeats = 5;
        for (int i = 0; i < repeats; ++i) all_reduce_gradients(c, r.grads);
        CUDA_CHECK(cudaDeviceSynchronize());
        MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        *all_reduce_ms = (wall_time_ms() - start) / repeats;
    }
    std::vector<float> params = read_params(r);
    free_replica(r);
    close_collectives(c);
    return params;
}

// The same plan in this process alone, on the whole batch: lesson 20's
// training, what the job is compared with.
std::vector<float> train_one_process(const Samples& data, const TrainingPlan& plan) {
    Replica r = make_replica(plan.batch);
    const std::vector<float> initial = mlp_initial_params(plan.seed, Activation::relu);
    CUDA_CHECK(cudaMemcpy(r.params.all, initial.data(), initial.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
    std::vector<int> order((size_t)data.count);
    for (int epoch = 0; epoch < plan.epochs; ++epoch) {
        cpu_shuffled_order(order.data(), data.count, plan.seed, epoch);
        for (int step = 0; step < plan.steps; ++step) {
            forward_backward(r, data, order.data(), step * plan.batch, plan.batch, plan.batch);
            mlp_sgd_step(r.params, r.grads, plan.learning_rate);
        }
    }
    std::vector<float> params = read_params(r);
    free_replica(r);
    return params;
}

// Every rank's copy of `mine`, in rank order (a collective call).
std::vector<float> gather_from_every_rank(const Job& job, const std::vector<float>& mine) {
    std::vector<float> all(mine.size() * (size_t)job.size);
    MPI_CHECK(MPI_Allgather(mine.data(), (int)mine.size(), MPI_FLOAT, all.data(), (int)mine.size(),
                            MPI_FLOAT, MPI_COMM_WORLD));
    return all;
}

// Whether NCCL is in this build: the nvcc build without NCCL skips it.
bool nccl_available() { return TUTORIAL_HAVE_NCCL != 0; }

// NCCL wants a GPU of its own for every rank: it refuses two ranks on one GPU
// (ncclCommInitRank answers "invalid usage"; with NCCL_DEBUG=WARN it says
// "Duplicate GPU detected", as NCCL 2.28 did for 2 ranks on a one-GPU machine).
// True when some machine of the job runs more ranks than it has GPUs; then the
// NCCL way is skipped, saying so. A collective call: every rank makes it.
bool ranks_share_gpus(const Job& job) {
    MPI_Comm node;
    MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job.rank, MPI_INFO_NULL,
                                  &node));
    int ranks_here = 1;
    MPI_CHECK(MPI_Comm_size(node, &ranks_here));
    MPI_CHECK(MPI_Comm_free(&node));
    int shared_here = ranks_here > job.device_count ? 1 : 0, shared_anywhere = 0;
    MPI_CHECK(MPI_Allreduce(&shared_here, &shared_anywhere, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    return shared_anywhere != 0;
}

// For the tests: can the NCCL way run in this job, on these machines?
bool nccl_runs_here() { return nccl_available() && !ranks_share_gpus(join_job()); }

// ---- the launchers the tests call ----

// Every rank hands in its own gradients (host memory, mlp_param_count()
// floats); each gets back the sum over the ranks, computed on its GPU `how`.
std::vector<float> all_reduce_on_ranks(AllReduce how, const std::vector<float>& mine) {
    const Job job = join_job();
    Collectives c = open_collectives(job, how);
    MlpTensors grads = mlp_alloc_tensors();
    CUDA_CHECK(cudaMemcpy(grads.all, mine.data(), mine.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
    all_reduce_gradients(c, grads);
    std::vector<float> sum(mine.size());
    // cudaMemcpy on the default stream waits for the NCCL stream's work too.
    CUDA_CHECK(cudaMemcpy(sum.data(), grads.all, sum.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    mlp_free_tensors(grads);
    close_collectives(c);
    return sum;
}

// `steps` mini-batches of `batch` of the `count` samples (one epoch),
// learning rate 0.1, lesson 20's starting weights for `seed`: by every rank
// of the job (this rank's weights at the end), and by this process alone.
std::vector<float> train_job(AllReduce how, const float* images, const int* labels, int count,
                             int batch, int steps, uint64_t seed) {
    const TrainingPlan plan{batch, steps, 1, 0.1f, seed};
    return train_on_ranks(join_job(), how, Samples{images, labels, count}, plan);
}

std::vector<float> train_alone(const float* images, const int* labels, int count, int batch,
                               int steps, uint64_t seed) {
    return train_one_process(Samples{images, labels, count}, TrainingPlan{batch, steps, 1, 0.1f, seed});
}

// Lesson 20's starting weights for a seed (the tests compare with them).
std::vector<float> starting_weights(uint64_t seed) {
    return mlp_initial_params(seed, Activation::relu);
}

// ---- main: train three ways, check every rank against one process ----
#ifndef TUTORIAL_TEST_BUILD

// Test accuracy of the weights `params`: one forward pass of every test
// picture at once, on this rank's GPU.
static int count_correct(const std::vector<float>& params, const LabelledImages& test) {
    Replica r = make_replica(test.count);
    CUDA_CHECK(cudaMemcpy(r.params.all, params.data(), params.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
    std::vector<int> everyone((size_t)test.count), predicted((size_t)test.count);
    for (int i = 0; i < test.count; ++i) everyone[i] = i;
    mlp_gather_batch(test.pixels.data(), test.labels.data(), everyone.data(), 0, test.count,
                     r.h_x.data(), r.h_labels.data());
    CUDA_CHECK(cudaMemcpy(r.d_x, r.h_x.data(), r.h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
    mlp_forward(r.params, r.d_x, nullptr, test.count, Activation::relu, r.workspace);
    CUDA_CHECK(cudaMemcpy(predicted.data(), r.workspace.predicted, predicted.size() * sizeof(int),
                          cudaMemcpyDeviceToHost));
    free_replica(r);
    int correct = 0;
    for (int j = 0; j < test.count; ++j) correct += predicted[j] == test.labels[j];
    return correct;
}

// Every rank says where it runs; rank 0 prints the lines in rank order.
static void print_ranks(const Job& job) {
    char line[160];
    char host[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_CHECK(MPI_Get_processor_name(host, &length));
    cudaDeviceProp prop = {};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, job.device));
    std::snprintf(line, sizeof line, "  rank %d: local rank %d, GPU %d of %d (%s)", job.rank,
                  job.local_rank, job.device, job.device_count, prop.name);
    std::vector<char> lines(sizeof line * (size_t)job.size);
    MPI_CHECK(MPI_Gather(line, sizeof line, MPI_CHAR, lines.data(), sizeof line, MPI_CHAR, 0,
                         MPI_COMM_WORLD));
    if (job.rank != 0) return;
    std::printf("%d rank%s, started by the launcher:\n", job.size, job.size == 1 ? "" : "s");
    for (int r = 0; r < job.size; ++r) std::printf("%s\n", lines.data() + sizeof line * r);
}

// Ends the job with `code` on every rank, MPI shut down first.
static int finish(int code) {
    MPI_Finalize();
    return code;
}

int main(int argc, char** argv) {
    long long train_count = 320, test_count = 500, batch = 64, epochs = 1, lr_thousandths = 100,
              seed = 1, bench = 0;
    const char* data_dir = kFashionMnistDefaultDir;
    const char* which = "all";
    cli_option options[] = {
        {"--train", "training pictures used (the first N of 60000)", CLI_INT, &train_count, 1, 60000},
        {"--test", "test pictures used (the first N of 10000)", CLI_INT, &test_count, 1, 10000},
        {"--batch", "pictures per mini-batch, shared out over the ranks", CLI_INT, &batch, 1, 4096},
        {"--epochs", "passes over the training pictures", CLI_INT, &epochs, 1, 100},
        {"--lr", "learning rate in thousandths: 100 means 0.1", CLI_INT, &lr_thousandths, 1, 10000},
        {"--seed", "seed of the starting weights and the shuffles", CLI_INT, &seed, 0, 1000000000},
        {"--all-reduce", "host, cuda-aware, nccl or all (each in turn)", CLI_TEXT, nullptr, 0, 0,
         &which},
        {"--data", "folder of Fashion-MNIST's .gz files", CLI_TEXT, nullptr, 0, 0, &data_dir},
        {"--bench", "also time each all-reduce of the gradients", CLI_FLAG, &bench, 0, 1},
    };
    cli_parse(argc, argv,
              "Trains lesson 20's 784-128-10 network with one process per GPU (start it with\n"
              "mpirun -np N): each rank takes a slice of every mini-batch, and the ranks sum\n"
              "their gradients through host memory, with CUDA-aware MPI, or with NCCL.",
              options, 9);
    std::vector<AllReduce> ways;
    const std::string chosen = which;
    if (chosen == "host" || chosen == "all") ways.push_back(AllReduce::host);
    if (chosen == "cuda-aware" || chosen == "all") ways.push_back(AllReduce::cuda_aware);
    if (chosen == "nccl" || chosen == "all") ways.push_back(AllReduce::nccl);
    if (ways.empty()) {
        std::fprintf(stderr, "error: --all-reduce %s: expected host, cuda-aware, nccl or all\n",
                     which);
        return 2;
    }
    if (batch > train_count) {
        std::fprintf(stderr, "error: --batch %lld is more than the %lld training pictures\n", batch,
                     train_count);
        return 2;
    }
    const int steps = (int)(train_count / batch);  // a last, partial batch is left out
    {
        // Memory: the pictures as floats; on the GPU the parameters, gradients
        // and a batch's buffers, twice (the job's run and the one-process
        // run), and a forward pass of every test picture. Time, measured
        // for this program on the 2-core machine (emulator, 2 ranks): about
        // 0.05 s per step and 0.003 s per picture for each way, and as much
        // again for the one-process run.
        const double pictures = (double)train_count + (double)test_count;
        const double per_run = 4.0 * (3.0 * mlp_param_count() +
                                      (6.0 * kMlpHidden + kMlpInputs) * (double)batch);
        const double test_pass = 4.0 * (kMlpInputs + 6.0 * kMlpHidden) * (double)test_count;
        run_limits_require_memory(4.0 * pictures * kMlpInputs, 2.0 * per_run + test_pass);
        const double runs = (double)ways.size() + 1.0;
        const double work = runs * epochs * (steps * 0.05 + train_count * 0.003) +
                            (double)ways.size() * test_count * 0.001;
        run_limits_check_duration(work, 1.0, 0.0, "--epochs, --train or --test");
    }

    MPI_CHECK(MPI_Init(&argc, &argv));
    const Job job = join_job();
    print_ranks(job);

    LabelledImages train, test;
    std::string error;
    if (!load_fashion_mnist(data_dir, "train", (int)train_count, &train, &error) ||
        !load_fashion_mnist(data_dir, "t10k", (int)test_count, &test, &error)) {
        if (job.rank == 0)
            std::fprintf(stderr, "error: Fashion-MNIST not readable (%s): %s\n", error.c_str(),
                         kFashionMnistInstallHint);
        return finish(2);
    }
    standardize_pixels(&train);
    standardize_pixels(&test);

    const TrainingPlan plan{(int)batch, steps, (int)epochs, (float)lr_thousandths / 1000.0f,
                            (uint64_t)seed};
    const Samples data{train.pixels.data(), train.labels.data(), train.count};
    if (job.rank == 0) {
        std::printf("\nFashion-MNIST: %d training and %d test pictures; mini-batches of %d, "
                    "slices of", train.count, test.count, plan.batch);
        for (int r = 0; r < job.size; ++r)
            std::printf("%s %d", r == 0 ? "" : ",", batch_slice(plan.batch, job.size, r).count);
        std::printf(", %d steps per epoch, %d epoch%s\n", plan.steps, plan.epochs,
                    plan.epochs == 1 ? "" : "s");
        std::printf("CUDA-aware MPI (MPIX_Query_cuda_support): %s\n",
                    mpi_is_cuda_aware() ? "yes, device pointers go to MPI_Allreduce"
                                        : "no, the cuda-aware way stages through host memory");
    }

    // What every way is compared with: the same training in one process.
    const std::vector<float> reference = job.rank == 0 ? train_one_process(data, plan)
                                                       : std::vector<float>();
    const double atol = 1e-5, rtol = 1e-4;
    bool passed = true;
    std::vector<double> all_reduce_ms;
    for (AllReduce how : ways) {
        if (how == AllReduce::nccl && !nccl_available()) {
            if (job.rank == 0)
                std::printf("\nall-reduce nccl: SKIPPED, this build has no NCCL (the nvcc build "
                            "links it where CMake finds nccl.h and libnccl)\n");
            all_reduce_ms.push_back(-1.0);
            continue;
        }
        if (how == AllReduce::nccl && ranks_share_gpus(job)) {
            if (job.rank == 0)
                std::printf("\nall-reduce nccl: SKIPPED, NCCL needs a GPU of its own for each rank, "
                            "and ranks share GPUs here (%d GPU(s) on this machine: start at most "
                            "that many ranks on it)\n", job.device_count);
            all_reduce_ms.push_back(-1.0);
            continue;
        }
        float loss = 0.0f;
        double ms = 0.0;
        const double start = wall_time_ms();
        const std::vector<float> mine =
            train_on_ranks(job, how, data, plan, &loss, bench ? &ms : nullptr);
        const double seconds = (wall_time_ms() - start) / 1000.0;
        all_reduce_ms.push_back(ms);
        const std::vector<float> everyone = gather_from_every_rank(job, mine);
        int verdict = 1;
        if (job.rank == 0) {
            const size_t n = mine.size();
            int differing = 0;
            for (int r = 1; r < job.size; ++r)
                if (std::memcmp(everyone.data() + n * r, mine.data(), n * sizeof(float)) != 0)
                    ++differing;
            double largest = 0.0;
            size_t beyond = 0;
            for (size_t i = 0; i < n; ++i) {
                const double difference = std::fabs((double)mine[i] - reference[i]);
                largest = std::max(largest, difference);
                if (difference > atol + rtol * std::fabs(reference[i])) ++beyond;
            }
            const int correct = count_correct(mine, test);
            std::printf("\nall-reduce %s: mean training loss %.4f, test accuracy %.1f%% (%d of %d), "
                        "%.2f s\n",
                        all_reduce_name(how), loss, 100.0 * correct / test.count, correct,
                        test.count, seconds);
            if (differing == 0)
                std::printf("  the weights on the %d rank%s: identical, bit for bit\n", job.size,
                            job.size == 1 ? "" : "s");
            else
                std::printf("  the weights on the %d ranks: NOT identical (%d of the other "
                            "ranks differ from rank 0)\n", job.size, differing);
            std::printf("  against one process: at most %.1e apart (allowed: %g + %g x |weight|; "
                        "%zu of %zu beyond)\n", largest, atol, rtol, beyond, n);
            verdict = differing == 0 && beyond == 0;
        }
        MPI_CHECK(MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD));
        passed = passed && verdict;
    }

    if (bench && job.rank == 0) {
        std::printf("\ntime of one all-reduce of the %zu gradients (%.2f MB) on %d ranks, %s\n",
                    mlp_param_count(), mlp_param_count() * 4.0 / 1e6, job.size,
#ifdef CUEMU
                    "on the emulator: every rank's GPU is this machine's CPU"
#else
                    "on the GPUs"
#endif
        );
        for (size_t w = 0; w < ways.size(); ++w) {
            if (all_reduce_ms[w] < 0.0) continue;
            std::printf("  %-11s %8.2f ms\n", all_reduce_name(ways[w]), all_reduce_ms[w]);
        }
    }
    if (job.rank == 0) std::printf("\n%s\n", passed ? "PASS" : "FAIL");
    return finish(passed ? 0 : 1);
}
#endif  // TUTORIAL_TEST_BUILD
