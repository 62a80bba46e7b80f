// warp_vote.cu - the warp vote functions. For each warp of 32 consecutive
// elements: __ballot_sync and __popc count the positive values, __any_sync
// tells whether any value is zero, __all_sync whether all are even. Threads
// past the end still vote (with a neutral answer): every lane named in the
// mask must reach the call.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#define CHECK(x)                                                                         \
    do {                                                                                 \
        cudaError_t rc = (x);                                                            \
        if (rc != cudaSuccess) {                                                         \
            fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorName(rc));                \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

struct WarpVotes {
    unsigned int positiveMask;  // bit k: lane k's value is positive
    int positiveCount;
    int anyZero;
    int allEven;
};

__global__ void vote(const int* values, int n, WarpVotes* votes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool inRange = i < n;
    int v = inRange ? values[i] : 0;
    unsigned int positive = __ballot_sync(0xffffffff, inRange && v > 0);
    int anyZero = __any_sync(0xffffffff, inRange && v == 0);
    int allEven = __all_sync(0xffffffff, !inRange || v % 2 == 0);
    int lane = threadIdx.x % 32, warp = i / 32;
    if (lane == 0 && warp * 32 < n) {
        votes[warp].positiveMask = positive;
        votes[warp].positiveCount = __popc(positive);
        votes[warp].anyZero = anyZero != 0;
        votes[warp].allEven = allEven != 0;
    }
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100005;  // not a multiple of 32: the last warp is partial
    if (n < 1) { fprintf(stderr, "n must be at least 1\n"); return 2; }
    srand((unsigned)time(nullptr));
    std::vector<int> values(n);
    for (int i = 0; i < n; ++i) {
        // Every third warp, and the last (partial) one, gets only even values,
        // so "all even" comes out true for some warps and false for others,
        // and the lanes past the end must vote "true" for the last warp to pass.
        int warp = i / 32;
        bool evenWarp = warp % 3 == 0 || warp == (n - 1) / 32;
        values[i] = evenWarp ? 2 * (rand() % 9) - 8 : rand() % 64 - 32;
    }
    int warps = (n + 31) / 32;

    int* d_values;
    WarpVotes* d_votes;
    CHECK(cudaMalloc(&d_values, n * sizeof(int)));
    CHECK(cudaMalloc(&d_votes, warps * sizeof(WarpVotes)));
    CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_votes, 0xff, warps * sizeof(WarpVotes)));
    int block = 128;
    vote<<<(n + block - 1) / block, block>>>(d_values, n, d_votes);
    CHECK(cudaGetLastError());
    std::vector<WarpVotes> votes(warps);
    CHECK(cudaMemcpy(votes.data(), d_votes, warps * sizeof(WarpVotes), cudaMemcpyDeviceToHost));

    int errors = 0, anyZeroWarps = 0, allEvenWarps = 0;
    for (int w = 0; w < warps; ++w) {
        WarpVotes expected = {0u, 0, 0, 1};
        for (int lane = 0; lane < 32 && w * 32 + lane < n; ++lane) {
            int v = values[w * 32 + lane];
            if (v > 0) { expected.positiveMask |= 1u << lane; expected.positiveCount++; }
            if (v == 0) expected.anyZero = 1;
            if (v % 2 != 0) expected.allEven = 0;
        }
        const WarpVotes& got = votes[w];
        if (got.positiveMask != expected.positiveMask || got.positiveCount != expected.positiveCount ||
            got.anyZero != expected.anyZero || got.allEven != expected.allEven) {
            if (errors < 3)
                fprintf(stderr, "warp %d: got mask %08x count %d any0 %d alleven %d, expected %08x %d %d %d\n",
                        w, got.positiveMask, got.positiveCount, got.anyZero, got.allEven,
                        expected.positiveMask, expected.positiveCount, expected.anyZero, expected.allEven);
            ++errors;
        }
        anyZeroWarps += expected.anyZero;
        allEvenWarps += expected.allEven;
    }
    CHECK(cudaFree(d_values));
    CHECK(cudaFree(d_votes));
    printf("warp_vote n=%d warps=%d (any zero: %d, all even: %d) wrong warps=%d %s\n", n, warps,
           anyZeroWarps, allEvenWarps, errors, errors ? "FAILED" : "OK");
    return errors ? 1 : 0;
}
