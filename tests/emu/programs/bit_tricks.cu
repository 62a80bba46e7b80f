// bit_tricks.cu - the course assignment on integer intrinsics: per element,
// reverse the byte order with __byte_perm, count set bits with __popc, find
// the highest set bit with __clz, and clamp a 32-bit product's high half with
// umin. The program also has its own host helper called umin, taking ints,
// as course code often does; nvcc accepts it beside CUDA's umin(unsigned,
// unsigned), and calls pick by argument types.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char* file, int line) {
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        exit(code);
    }
}

// The course's own helper (host only, signed).
int umin(int a, int b) { return a < b ? a : b; }

struct Bits {
    unsigned swapped;
    int ones;
    int top;  // index of the highest set bit, -1 for 0
    unsigned clampedHigh;
};

__global__ void bitTricks(const unsigned* in, Bits* out, int n, unsigned limit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    out[i].swapped = __byte_perm(v, 0, 0x0123);
    out[i].ones = __popc(v);
    out[i].top = 31 - __clz(v);
    out[i].clampedHigh = umin(__umulhi(v, v), limit);
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 65537;
    if (n <= 0 || n > (1 << 26)) {
        fprintf(stderr, "usage: %s [n], 1..2^26\n", argv[0]);
        return 1;
    }
    srand((unsigned)time(NULL));
    unsigned* h_in = (unsigned*)malloc(n * sizeof(unsigned));
    Bits* h_out = (Bits*)malloc(n * sizeof(Bits));
    for (int i = 0; i < n; i++) h_in[i] = ((unsigned)rand() << 16) ^ (unsigned)rand();
    h_in[0] = 0;
    const unsigned limit = 1u << 20;

    unsigned* d_in;
    Bits* d_out;
    gpuErrchk(cudaMalloc(&d_in, n * sizeof(unsigned)));
    gpuErrchk(cudaMalloc(&d_out, n * sizeof(Bits)));
    gpuErrchk(cudaMemcpy(d_in, h_in, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    bitTricks<<<(n + 255) / 256, 256>>>(d_in, d_out, n, limit);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaMemcpy(h_out, d_out, n * sizeof(Bits), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int i = 0; i < n; i++) {
        unsigned v = h_in[i];
        unsigned swapped = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
        int ones = 0, top = -1;
        for (int b = 0; b < 32; b++)
            if (v >> b & 1u) { ones++; top = b; }
        unsigned high = (unsigned)(((unsigned long long)v * v) >> 32);
        unsigned clamped = high < limit ? high : limit;
        if (h_out[i].swapped != swapped || h_out[i].ones != ones || h_out[i].top != top ||
            h_out[i].clampedHigh != clamped)
            bad++;
    }
    // The host helper is the program's own: signed.
    if (umin(-1, 1) != -1) bad++;
    printf("bit_tricks n=%d mismatches=%d %s\n", n, bad, bad ? "FAILED" : "OK");
    gpuErrchk(cudaFree(d_in));
    gpuErrchk(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return bad ? 1 : 0;
}
