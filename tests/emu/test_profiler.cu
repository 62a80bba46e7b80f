// test_profiler.cu - the profiler's counters (CUEMU_PROFILE) on kernels whose
// counts follow by hand from Nsight Compute's rules (docs/profiler.md):
//   a request is one warp-level execution of one load or store instruction by
//   the warp's active lanes; its sectors are the distinct 32-byte segments it
//   touches; a shared access takes as many wavefronts as the largest number of
//   distinct 4-byte words that fall in one of the 32 banks (8- and 16-byte
//   accesses by half- and quarter-warps); flop_count_sp = fadd_count + fmul_count + 2 ffma_count.
// Each case launches one kernel, then reads the row the profiler wrote for it.
// Run with no arguments; prints "N passed, M failed" and exits 1 on a failure.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#define CHECK_CUDA(call)                                                                  \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));       \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

// ---- kernels ------------------------------------------------------------------------
__global__ void copy_kernel(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

__global__ void strided_read(const float* in, float* out, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}

__global__ void offset_read(const float* in, float* out, int offset) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i + offset];
}

__global__ void broadcast_read(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[0];
}

__global__ void copy_float4(const float4* in, float4* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

// A 32x32 tile written by rows and read by columns, with and without padding.
__global__ void tile_unpadded(const float* in, float* out) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void tile_padded(const float* in, float* out) {
    __shared__ float tile[32][33];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// Every lane reads the same shared word: a broadcast, one wavefront.
__global__ void shared_broadcast(float* out) {
    __shared__ float value[32];
    if (threadIdx.x == 0) value[0] = 3.0f;
    __syncthreads();
    out[threadIdx.x] = value[0];
}

// Lane l reads word 2*l: two words per bank, two wavefronts.
__global__ void shared_stride2(float* out) {
    __shared__ float words[64];
    words[threadIdx.x] = 1.0f;
    words[threadIdx.x + 32] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = words[2 * threadIdx.x];
}

// float4 from shared memory: four quarter-warps of 8 lanes x 16 bytes, one
// wavefront each.
__global__ void shared_float4(float4* out) {
    __shared__ float4 values[32];
    values[threadIdx.x] = make_float4(1, 2, 3, 4);
    __syncthreads();
    out[threadIdx.x] = values[threadIdx.x];
}

// Each thread: k multiply-adds (contracted, as nvcc does) and one add.
__global__ void dot_loop(const float* a, const float* b, float* out, int k) {
    float sum = 0.0f;
    for (int j = 0; j < k; ++j) sum += a[j] * b[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum + 1.0f;
}

__global__ void double_ops(const double* x, double* y) {
    int i = threadIdx.x;
    double v = x[i];
    y[i] = v * v + 2.0 * v - 1.0;  // v*v+... : one dfma_count, 2*v: one dmul_count... see the case
}

__global__ void count_atomics(unsigned* counter) { atomicAdd(counter, 1u); }

// How nvcc's contraction counts each form, per thread (each result stored on
// its own, so no extra addition joins them):
__global__ void flop_forms(const float* in, float* out, int n) {
    int i = threadIdx.x;
    float a = in[0], b = in[1], c = in[2], d = in[3];
    out[0 * n + i] = a * b + c;     // 1 ffma
    out[1 * n + i] = c - a * b;     // 1 ffma
    out[2 * n + i] = -(a * b) + c;  // 1 ffma
    out[3 * n + i] = (a * b) * c;   // 2 fmul
    out[4 * n + i] = a * b + c * d; // 1 fmul, 1 ffma
    out[5 * n + i] = a + b;         // 1 fadd
}

// ---- reading the profile ---------------------------------------------------------------
std::string profile_path;
std::vector<std::string> header;

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) {
            fields.push_back(field);
            field.clear();
        } else field += c;
    }
    fields.push_back(field);
    return fields;
}

// The row of the last launch.
std::map<std::string, std::string> last_row() {
    CHECK_CUDA(cudaDeviceSynchronize());
    std::ifstream in(profile_path);
    std::string line, last;
    header.clear();
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        if (header.empty()) header = split_csv(line);
        else last = line;
    }
    std::map<std::string, std::string> row;
    std::vector<std::string> fields = split_csv(last);
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    return row;
}

int passed = 0, failed = 0;
void expect(const std::map<std::string, std::string>& row, const std::string& column, double want,
            const char* what) {
    auto it = row.find(column);
    const double got = it == row.end() ? -1 : std::atof(it->second.c_str());
    const bool ok = it != row.end() && got > want - 1e-6 && got < want + 1e-6;
    (ok ? passed : failed)++;
    if (!ok)
        std::printf("FAIL %s: %s = %s, expected %g\n", what, column.c_str(),
                    it == row.end() ? "(missing)" : it->second.c_str(), want);
}

const std::string ld_req = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
const std::string ld_sec = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const std::string st_req = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
const std::string st_sec = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
const std::string atom_req = "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum";
const std::string atom_sec = "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum";
const std::string sh_ld = "smsp__inst_executed_op_shared_ld.sum";
const std::string sh_st = "smsp__inst_executed_op_shared_st.sum";
const std::string wf_ld = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
const std::string wf_st = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
const std::string bc_ld = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const std::string bc_st = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
const std::string ffma_count = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
const std::string fadd_count = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum";
const std::string fmul_count = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum";
const std::string dfma_count = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum";
const std::string dadd_count = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum";
const std::string dmul_count = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum";

int main(int argc, char** argv) {
    // The profile goes to a file of this test's own (argv[1] or a temporary name).
    profile_path = argc > 1 ? argv[1] : "/tmp/cuemu_test_profiler.csv";
    setenv("CUEMU_PROFILE", profile_path.c_str(), 1);

    const int n = 4096;
    float *d_in, *d_out;
    CHECK_CUDA(cudaMalloc(&d_in, (n * 32 + 64) * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(d_in, 0, (n * 32 + 64) * sizeof(float)));

    // 1024 threads, 32 warps, each warp 128 contiguous bytes: 4 sectors.
    copy_kernel<<<4, 256>>>(d_in, d_out, 1024);
    auto row = last_row();
    expect(row, ld_req, 32, "coalesced copy");
    expect(row, ld_sec, 128, "coalesced copy");
    expect(row, st_req, 32, "coalesced copy");
    expect(row, st_sec, 128, "coalesced copy");
    expect(row, "cuemu__active_lanes_per_request", 32, "coalesced copy");

    // A tail: 1000 of 1024 threads active; the last warp has 8 lanes (32 bytes: 1 sector).
    copy_kernel<<<4, 256>>>(d_in, d_out, 1000);
    row = last_row();
    expect(row, ld_req, 32, "tail");
    expect(row, ld_sec, 31 * 4 + 1, "tail");
    expect(row, "cuemu__active_lanes_per_request", 1000.0 / 32, "tail");

    // Stride 2 floats: a warp spans 256 bytes, 8 sectors; stride 32: 32 sectors.
    strided_read<<<2, 64>>>(d_in, d_out, 2);
    row = last_row();
    expect(row, ld_req, 4, "stride 2");
    expect(row, ld_sec, 4 * 8, "stride 2");
    expect(row, st_sec, 4 * 4, "stride 2");
    strided_read<<<2, 64>>>(d_in, d_out, 32);
    row = last_row();
    expect(row, ld_sec, 4 * 32, "stride 32");

    // Off by one float: each warp's 128 bytes straddle 5 sectors.
    offset_read<<<1, 128>>>(d_in, d_out, 1);
    row = last_row();
    expect(row, ld_req, 4, "offset");
    expect(row, ld_sec, 4 * 5, "offset");

    // Every lane reads in[0]: one sector per request.
    broadcast_read<<<1, 128>>>(d_in, d_out);
    row = last_row();
    expect(row, ld_req, 4, "broadcast");
    expect(row, ld_sec, 4, "broadcast");

    // float4: one request per warp of 512 bytes, 16 sectors.
    copy_float4<<<1, 64>>>(reinterpret_cast<const float4*>(d_in), reinterpret_cast<float4*>(d_out));
    row = last_row();
    expect(row, ld_req, 2, "float4");
    expect(row, ld_sec, 2 * 16, "float4");
    expect(row, st_req, 2, "float4");
    expect(row, st_sec, 2 * 16, "float4");

    // 32x32 tiles: rows conflict-free, columns of the unpadded tile 32-way.
    tile_unpadded<<<1, dim3(32, 32)>>>(d_in, d_out);
    row = last_row();
    expect(row, sh_st, 32, "unpadded tile");
    expect(row, wf_st, 32, "unpadded tile");
    expect(row, bc_st, 0, "unpadded tile");
    expect(row, sh_ld, 32, "unpadded tile");
    expect(row, wf_ld, 32 * 32, "unpadded tile");
    expect(row, bc_ld, 32 * 31, "unpadded tile");
    expect(row, "static_shared_bytes", 32 * 32 * 4, "unpadded tile");
    tile_padded<<<1, dim3(32, 32)>>>(d_in, d_out);
    row = last_row();
    expect(row, wf_st, 32, "padded tile");
    expect(row, wf_ld, 32, "padded tile");
    expect(row, bc_ld, 0, "padded tile");
    expect(row, "static_shared_bytes", 32 * 33 * 4, "padded tile");

    shared_broadcast<<<1, 32>>>(d_out);
    row = last_row();
    expect(row, sh_ld, 1, "shared broadcast");
    expect(row, wf_ld, 1, "shared broadcast");
    expect(row, sh_st, 1, "shared broadcast (one lane stores)");

    shared_stride2<<<1, 32>>>(d_out);
    row = last_row();
    expect(row, sh_st, 2, "shared stride 2");
    expect(row, wf_st, 2, "shared stride 2");
    expect(row, wf_ld, 2, "shared stride 2");
    expect(row, bc_ld, 1, "shared stride 2");

    shared_float4<<<1, 32>>>(reinterpret_cast<float4*>(d_out));
    row = last_row();
    expect(row, sh_ld, 1, "shared float4");
    expect(row, wf_ld, 4, "shared float4");
    expect(row, bc_ld, 0, "shared float4");

    // 2 blocks x 64 threads, k = 10: 10 ffma_count and 1 fadd_count each; the loads of
    // a[j] and b[j] are the same address for every lane (1 sector).
    dot_loop<<<2, 64>>>(d_in, d_in + 16, d_out, 10);
    row = last_row();
    expect(row, ffma_count, 128 * 10, "dot loop");
    expect(row, fadd_count, 128, "dot loop");
    expect(row, fmul_count, 0, "dot loop");
    expect(row, "flop_count_sp", 128 * (2 * 10 + 1), "dot loop");
    expect(row, ld_req, 4 * 10 * 2, "dot loop");
    expect(row, ld_sec, 4 * 10 * 2, "dot loop");

    // y = v*v + 2*v - 1: nvcc makes 2*v (dmul_count) and v*v + that (dfma_count) and - 1 (dadd_count).
    double_ops<<<1, 32>>>(reinterpret_cast<const double*>(d_in), reinterpret_cast<double*>(d_out));
    row = last_row();
    expect(row, dfma_count, 32, "double");
    expect(row, dmul_count, 32, "double");
    expect(row, dadd_count, 32, "double");
    expect(row, "flop_count_dp", 32 * 4, "double");
    expect(row, ld_sec, 8, "double (32 lanes x 8 bytes)");

    unsigned* d_counter;
    CHECK_CUDA(cudaMalloc(&d_counter, sizeof(unsigned)));
    CHECK_CUDA(cudaMemset(d_counter, 0, sizeof(unsigned)));
    count_atomics<<<2, 128>>>(d_counter);
    row = last_row();
    expect(row, atom_req, 8, "atomics");
    expect(row, atom_sec, 8, "atomics");
    expect(row, ld_req, 0, "atomics (not loads)");
    unsigned counted = 0;
    CHECK_CUDA(cudaMemcpy(&counted, d_counter, sizeof counted, cudaMemcpyDeviceToHost));
    (counted == 256 ? passed : failed)++;

    flop_forms<<<1, 64>>>(d_in, d_out, 64);
    row = last_row();
    expect(row, ffma_count, 64 * 4, "flop forms");
    expect(row, fmul_count, 64 * 3, "flop forms");
    expect(row, fadd_count, 64 * 1, "flop forms");
    expect(row, "flop_count_sp", 64 * (2 * 4 + 3 + 1), "flop forms");

    // The estimate: a kernel row names its GPU and a limiter.
    (row["gpu"] == "H100" ? passed : failed)++;

    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaFree(d_counter));
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
