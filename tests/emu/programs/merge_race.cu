// merge_race.cu - merging sorted runs with one barrier missing, a program whose
// only shared memory is dynamic (extern __shared__).
//
// Each block merges two sorted runs of `tile` keys. Its threads first copy both
// runs into dynamic shared memory, then each finds where its own key goes by a
// binary search in the other run. The __syncthreads() between the copy and the
// search is missing: a thread may search elements other threads have not
// written yet. On a GPU the answer depends on timing; on the emulator, which
// runs the threads of a block one after another, it is wrong every time.
// The race check, on by default because the source uses __shared__, stops the
// kernel with a report naming both lines instead of letting the wrong merge
// through. With --fixed the barrier is there and the program prints OK.
//
//   nvcc -O2 merge_race.cu -o merge_race && ./merge_race [runs] [--fixed]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,      \
                         cudaGetErrorString(err_));                                        \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

constexpr int tile = 128;  // keys per run; a block has 2 * tile threads

// How many keys of run[0, n) are less than key (or, when `after_equal`, not
// greater): the key's place among them.
__device__ int rank_in(const int* run, int n, int key, bool after_equal) {
    int low = 0, high = n;
    while (low < high) {
        const int mid = (low + high) / 2;
        if (run[mid] < key || (after_equal && run[mid] == key)) low = mid + 1;
        else high = mid;
    }
    return low;
}

__global__ void merge_pairs(const int* in, int* out, bool with_barrier) {
    extern __shared__ int runs[];  // run a, then run b
    const int t = threadIdx.x;
    const int* block_in = in + blockIdx.x * 2 * tile;
    runs[t] = block_in[t];
    if (with_barrier) __syncthreads();
    // A key of run a goes before equal keys of run b, so that equal keys keep
    // their order (a stable merge) and no two threads pick the same place.
    const bool from_a = t < tile;
    const int own = from_a ? t : t - tile;
    const int* other = from_a ? runs + tile : runs;
    const int place = own + rank_in(other, tile, runs[t], !from_a);
    out[blockIdx.x * 2 * tile + place] = runs[t];
}

int main(int argc, char** argv) {
    int pairs = 64;
    bool fixed = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--fixed") == 0) fixed = true;
        else if ((pairs = std::atoi(argv[i])) <= 0 || pairs > 65535) {
            std::fprintf(stderr, "usage: merge_race [pairs, 1..65535] [--fixed]\n");
            return 2;
        }
    }
    const int n = pairs * 2 * tile;
    std::vector<int> h_in(n), h_out(n), expected(n);
    unsigned seed = 12345;
    for (int p = 0; p < 2 * pairs; ++p) {  // each run sorted, with repeated keys
        int key = 0;
        for (int i = 0; i < tile; ++i) {
            seed = seed * 1103515245u + 12345u;
            key += (seed >> 16) % 3;
            h_in[p * tile + i] = key;
        }
    }
    for (int p = 0; p < pairs; ++p) {  // the CPU's merge of each pair
        const int* a = &h_in[p * 2 * tile];
        const int* b = a + tile;
        int i = 0, j = 0, k = p * 2 * tile;
        while (i < tile || j < tile) expected[k++] = (j == tile || (i < tile && a[i] <= b[j])) ? a[i++] : b[j++];
    }
    int *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0, n * sizeof(int)));
    merge_pairs<<<pairs, 2 * tile, 2 * tile * sizeof(int)>>>(d_in, d_out, fixed);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += h_out[i] != expected[i];
    std::printf("merge_race %d pairs of %d keys%s: %s (%d of %d keys misplaced)\n", pairs, tile,
                fixed ? ", with the barrier" : "", wrong ? "WRONG" : "OK", wrong, n);
    return wrong ? 1 : 0;
}
