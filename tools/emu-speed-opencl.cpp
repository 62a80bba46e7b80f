// emu-speed-opencl.cpp - the emulator's benchmark (tools/emu-speed.cu) run on
// PoCL instead: the same kernels in OpenCL C (tools/emu-speed-opencl.cl), the
// same sizes and inputs (tools/emu-speed-common.h), timed the same way.
//
//   tools/emu-speed.sh                 # builds and runs this beside the emulator
//   POCL_MAX_PTHREAD_COUNT=1 ./emu-speed-opencl --source tools/emu-speed-opencl.cl
//
// Built by tools/emu-speed.sh with plain g++ against the system's OpenCL ICD
// loader (Debian: apt-get install pocl-opencl-icd ocl-icd-opencl-dev
// opencl-c-headers). It uses the first OpenCL CPU device it finds; with none it
// says so and exits with status 3, which the script reports as "skipped".
//
// PoCL 3.1's CPU ("pthread") device runs work-groups on a thread pool whose
// size POCL_MAX_PTHREAD_COUNT sets, and reports that number as its compute
// units; POCL_CPU_MAX_CU_NUM, the variable of later PoCL versions, does
// nothing in 3.1 (its library does not contain the name). The script sets
// both, and this program prints the compute units it got and the threads the
// process has after the first launch, so the pinning can be seen.
//
// Each figure is the wall-clock time around clEnqueueNDRangeKernel and
// clFinish, per launch, the median over --rounds rounds: "sync", each launch
// followed by clFinish, and "batch", --batch launches and one clFinish, as
// tools/emu-speed.cu times cudaDeviceSynchronize. The sum and the histogram
// start from zero, so each of their launches is a clEnqueueFillBuffer of the
// result and the kernel, as the emulator's is a cudaMemsetAsync and the
// kernel. Every result is checked against the serial loop first.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "compare.h"
#include "emu-speed-common.h"

static void check(cl_int status, const char* what) {
    if (status == CL_SUCCESS) return;
    std::fprintf(stderr, "emu-speed-opencl: %s failed with OpenCL error %d\n", what, status);
    std::exit(1);
}

// The first CPU device of any platform, or nullptr.
static cl_device_id find_cpu_device() {
    cl_uint platforms = 0;
    if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return nullptr;
    std::vector<cl_platform_id> ids(platforms);
    check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
    for (cl_platform_id platform : ids) {
        cl_device_id device;
        if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) == CL_SUCCESS)
            return device;
    }
    return nullptr;
}

static int threads_of_this_process() {
    int count = 0;
    if (DIR* tasks = opendir("/proc/self/task")) {
        while (dirent* entry = readdir(tasks))
            if (entry->d_name[0] != '.') ++count;
        closedir(tasks);
    }
    return count;
}

// Sets the kernel's arguments in order, each by its type's size.
template <class... Args>
static void set_args(cl_kernel kernel, const Args&... args) {
    cl_uint index = 0;
    (check(clSetKernelArg(kernel, index++, sizeof(Args), &args), "clSetKernelArg"), ...);
}

struct Buffer {
    cl_mem mem;
    Buffer(cl_context context, size_t bytes) {
        cl_int status;
        mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
        check(status, "clCreateBuffer");
    }
    ~Buffer() { clReleaseMemObject(mem); }
};

// The sync and batch medians of one kernel, over the rounds.
struct Times {
    double sync, batch;
};

int main(int argc, char** argv) {
    long long rounds = 9, batch = 4, small = 0;
    const char* source_path = "tools/emu-speed-opencl.cl";
    cli_option opts[] = {
        {"--rounds", "rounds of measurement; each figure is their median", CLI_INT, &rounds, 1, 1000},
        {"--batch", "launches back to back in the batched measurement", CLI_INT, &batch, 1, 1000},
        {"--small", "2^16 elements and 128x128 matrices: only shows that it works", CLI_FLAG, &small, 0, 0},
        {"--source", "the kernels' OpenCL C file", CLI_TEXT, nullptr, 0, 0, &source_path},
    };
    cli_parse(argc, argv,
              "Times tools/emu-speed.cu's kernels on an OpenCL CPU device (PoCL).\n"
              "Set POCL_MAX_PTHREAD_COUNT=N to give PoCL N threads.",
              opts, 4);

    cl_device_id device = find_cpu_device();
    if (!device) {
        std::printf("emu-speed-opencl: no OpenCL CPU device (is pocl-opencl-icd installed?)\n");
        return 3;
    }
    char name[256] = "", version[256] = "";
    cl_uint units = 0;
    check(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, nullptr), "CL_DEVICE_NAME");
    check(clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version, version, nullptr), "CL_DEVICE_VERSION");
    check(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr),
          "CL_DEVICE_MAX_COMPUTE_UNITS");
    cl_int status;
    cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
    check(status, "clCreateCommandQueue");

    std::ifstream file(source_path);
    if (!file) {
        std::fprintf(stderr, "emu-speed-opencl: cannot read %s\n", source_path);
        return 1;
    }
    std::stringstream text;
    text << file.rdbuf();
    const std::string source = text.str();
    const char* source_text = source.c_str();
    cl_program program = clCreateProgramWithSource(context, 1, &source_text, nullptr, &status);
    check(status, "clCreateProgramWithSource");
    if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
        size_t length = 0;
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &length);
        std::string log(length, '\0');
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, length, &log[0], nullptr);
        std::fprintf(stderr, "emu-speed-opencl: %s does not build:\n%s\n", source_path, log.c_str());
        return 1;
    }
    auto kernel = [&](const char* kernel_name) {
        cl_kernel k = clCreateKernel(program, kernel_name, &status);
        check(status, kernel_name);
        return k;
    };
    auto enqueue = [&](cl_kernel k, cl_uint dims, const size_t* global, const size_t* local) {
        check(clEnqueueNDRangeKernel(queue, k, dims, nullptr, global, local, 0, nullptr, nullptr),
              "clEnqueueNDRangeKernel");
    };
    auto write = [&](cl_mem to, const void* from, size_t bytes) {
        check(clEnqueueWriteBuffer(queue, to, CL_TRUE, 0, bytes, from, 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
    };
    auto read = [&](void* to, cl_mem from, size_t bytes) {
        check(clEnqueueReadBuffer(queue, from, CL_TRUE, 0, bytes, to, 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
    };
    auto zero = [&](cl_mem buffer, size_t bytes) {
        const cl_uint nothing = 0;
        check(clEnqueueFillBuffer(queue, buffer, &nothing, sizeof nothing, 0, bytes, 0, nullptr, nullptr),
              "clEnqueueFillBuffer");
    };
    auto finish = [&] { check(clFinish(queue), "clFinish"); };
    auto measure = [&](const std::function<void()>& launch) {
        std::vector<double> s, b;
        for (int r = 0; r < int(rounds); ++r) {
            s.push_back(sync_seconds(int(batch), launch, finish));
            b.push_back(batch_seconds(int(batch), launch, finish));
        }
        return Times{median(s), median(b)};
    };
    const Sizes size = problem_sizes(small);
    const int n = size.vector, m = size.matrix;
    Buffer a(context, n * sizeof(float)), b(context, n * sizeof(float)), c(context, n * sizeof(float));

    // ---- 1. vector add ----------------------------------------------------------
    std::vector<float> h_a(n), h_b(n), h_c(n), h_ref(n);
    fill_random(h_a.data(), n, 1, -1.0f, 1.0f);
    fill_random(h_b.data(), n, 2, -1.0f, 1.0f);
    write(a.mem, h_a.data(), n * sizeof(float));
    write(b.mem, h_b.data(), n * sizeof(float));
    cl_kernel vector_add = kernel("vector_add");
    set_args(vector_add, a.mem, b.mem, c.mem, n);
    const size_t vector_global = size_t(n + BLOCK - 1) / BLOCK * BLOCK, vector_local = BLOCK;
    auto add = [&] { enqueue(vector_add, 1, &vector_global, &vector_local); };
    add();  // warm-up (PoCL compiles the work-group function here), and the checked launch
    read(h_c.data(), c.mem, n * sizeof(float));
    const int threads = threads_of_this_process();
    serial_vector_add(h_a.data(), h_b.data(), h_ref.data(), n);
    if (compare_floats("vector add, PoCL", h_c.data(), h_ref.data(), n, 0.0, 0.0, 5) != 0) return 1;
    const Times vadd = measure(add);

    // ---- 2. tiled matmul ----------------------------------------------------------
    std::vector<float> h_x(m * m), h_y(m * m), h_z(m * m), h_zref(m * m);
    fill_random(h_x.data(), h_x.size(), 3, -1.0f, 1.0f);
    fill_random(h_y.data(), h_y.size(), 4, -1.0f, 1.0f);
    write(a.mem, h_x.data(), m * m * sizeof(float));
    write(b.mem, h_y.data(), m * m * sizeof(float));
    cl_kernel tiled_matmul = kernel("tiled_matmul");
    set_args(tiled_matmul, a.mem, b.mem, c.mem, m);
    const size_t matrix_global[2] = {size_t(m), size_t(m)}, tile[2] = {TILE, TILE};
    auto matmul = [&] { enqueue(tiled_matmul, 2, matrix_global, tile); };
    matmul();
    read(h_z.data(), c.mem, m * m * sizeof(float));
    serial_matmul(h_x.data(), h_y.data(), h_zref.data(), m);
    // The tolerance of tools/emu-speed.cu, for the same reason.
    if (compare_floats("tiled matmul, PoCL", h_z.data(), h_zref.data(), h_z.size(), 1e-3, 1e-4, 5))
        return 1;
    const Times mm = measure(matmul);

    // ---- 3. sum reduction -----------------------------------------------------------
    const std::vector<int> h_ints = sum_input(n);
    write(a.mem, h_ints.data(), n * sizeof(int));
    cl_kernel sum_reduction = kernel("sum_reduction");
    set_args(sum_reduction, a.mem, n, c.mem);
    auto reduce = [&] {
        zero(c.mem, sizeof(int));
        enqueue(sum_reduction, 1, &vector_global, &vector_local);
    };
    reduce();
    int total = 0;
    read(&total, c.mem, sizeof(int));
    if (total != serial_sum(h_ints.data(), n)) {
        std::printf("sum, PoCL: %d, serial loop %d\n", total, serial_sum(h_ints.data(), n));
        return 1;
    }
    const Times sum = measure(reduce);

    // ---- 4. histogram ---------------------------------------------------------------
    const std::vector<unsigned char> h_bytes = histogram_input(n);
    write(a.mem, h_bytes.data(), n);
    cl_kernel histogram = kernel("histogram");
    set_args(histogram, a.mem, n, c.mem);
    const size_t histogram_global = size_t(n + BINS * HISTOGRAM_ITEMS - 1) / (BINS * HISTOGRAM_ITEMS) * BINS;
    const size_t histogram_local = BINS;
    auto count = [&] {
        zero(c.mem, BINS * sizeof(unsigned));
        enqueue(histogram, 1, &histogram_global, &histogram_local);
    };
    count();
    std::vector<unsigned> h_counts(BINS), h_counts_ref(BINS);
    read(h_counts.data(), c.mem, BINS * sizeof(unsigned));
    serial_histogram(h_bytes.data(), n, h_counts_ref.data());
    for (int v = 0; v < BINS; ++v)
        if (h_counts[v] != h_counts_ref[v]) {
            std::printf("histogram, PoCL, bin %d: %u, serial loop %u\n", v, h_counts[v], h_counts_ref[v]);
            return 1;
        }
    const Times histo = measure(count);

    // ---- 5. the fixed cost of a launch ----------------------------------------------
    cl_kernel empty_kernel = kernel("empty_kernel");
    const size_t one = 1;
    auto empty = [&] { enqueue(empty_kernel, 1, &one, &one); };
    empty();
    finish();
    const int empties = 200;
    std::vector<double> each;
    for (int r = 0; r < int(rounds); ++r) each.push_back(sync_seconds(empties, empty, finish));
    const double empty_s = median(each);

    std::printf("PoCL device: %s (%s), %u compute units, %d threads in this process\n", name,
                version, units, threads);
    std::printf("  ms per launch, sync / batch: vector add %.3f / %.3f, tiled matmul %.3f / %.3f,"
                " sum %.3f / %.3f, histogram %.3f / %.3f; empty launch+finish %.1f us\n",
                vadd.sync * 1e3, vadd.batch * 1e3, mm.sync * 1e3, mm.batch * 1e3, sum.sync * 1e3,
                sum.batch * 1e3, histo.sync * 1e3, histo.batch * 1e3, empty_s * 1e6);
    // One line for scripts (tools/emu-speed.sh reads it).
    std::printf("emu-speed: pocl_units=%u pocl_vadd_sync_s=%.6g pocl_vadd_batch_s=%.6g "
                "pocl_matmul_sync_s=%.6g pocl_matmul_batch_s=%.6g pocl_sum_sync_s=%.6g "
                "pocl_sum_batch_s=%.6g pocl_histo_sync_s=%.6g pocl_histo_batch_s=%.6g "
                "pocl_empty_launch_s=%.6g\n",
                units, vadd.sync, vadd.batch, mm.sync, mm.batch, sum.sync, sum.batch, histo.sync,
                histo.batch, empty_s);
    for (cl_kernel k : {vector_add, tiled_matmul, sum_reduction, histogram, empty_kernel})
        clReleaseKernel(k);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return 0;
}
