// cache_hints.cu - loads and stores with cache hints, in the style of tuned
// kernels such as llm.c's: 16-byte packets of bfloat16 values read with
// __ldcs (streaming) and written with __stcs, the other hints on ints, and
// __nv_bfloat16 used with no header but <cublas_v2.h> (the toolkit's
// cublas_api.h includes cuda_bf16.h, so such programs never include it).
// On a GPU the hints change only where the data is cached; every result must
// be the plain load's or store's. Prints "cache_hints ... OK".
//
// usage: cache_hints [n]   (n a multiple of 8, the bfloat16 values of one packet)
#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                 \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),   \
                    __FILE__, __LINE__);                                            \
            exit(EXIT_FAILURE);                                                     \
        }                                                                           \
    } while (0)

// Eight bfloat16 values moved as one int4, as llm.c's Packed128 does.
constexpr int kPerPacket = sizeof(int4) / sizeof(__nv_bfloat16);

// out = 2 * in, a packet per thread: streaming load, arithmetic in float,
// streaming store.
__global__ void double_packets(__nv_bfloat16* out, const __nv_bfloat16* in, int packets) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= packets) return;
    int4 bits = __ldcs(reinterpret_cast<const int4*>(in) + i);
    __nv_bfloat16 values[kPerPacket];
    memcpy(values, &bits, sizeof bits);
    for (int k = 0; k < kPerPacket; ++k) values[k] = __float2bfloat16(2.0f * __bfloat162float(values[k]));
    memcpy(&bits, values, sizeof bits);
    __stcs(reinterpret_cast<int4*>(out) + i, bits);
}

// Every other hint, on plain ints: out[i] = the sum of five hinted loads of
// in[i], written by one of four hinted stores.
__global__ void hinted_ints(int* out, const int* in, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int sum = __ldca(in + i) + __ldcg(in + i) + __ldlu(in + i) + __ldcv(in + i) + __ldg(in + i);
    switch (i % 4) {
        case 0: __stwb(out + i, sum); break;
        case 1: __stcg(out + i, sum); break;
        case 2: __stcs(out + i, sum); break;
        default: __stwt(out + i, sum); break;
    }
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
    if (n <= 0 || n % kPerPacket != 0 || n > (1 << 26)) {
        fprintf(stderr, "usage: %s [n: a positive multiple of %d, at most 67108864]\n", argv[0], kPerPacket);
        return 2;
    }
    std::vector<__nv_bfloat16> h_in(n);
    std::vector<int> h_ints(n);
    for (int i = 0; i < n; ++i) {
        h_in[i] = __float2bfloat16(static_cast<float>((i * 37) % 201 - 100) / 8.0f);  // exact in bfloat16
        h_ints[i] = (i * 7919) % 1000 - 500;
    }
    __nv_bfloat16 *d_in = nullptr, *d_out = nullptr;
    int *d_ints = nullptr, *d_sums = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_out, n * sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&d_ints, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_ints, h_ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    const int block_size = 128, packets = n / kPerPacket;
    double_packets<<<(packets + block_size - 1) / block_size, block_size>>>(d_out, d_in, packets);
    CHECK(cudaGetLastError());
    hinted_ints<<<(n + block_size - 1) / block_size, block_size>>>(d_sums, d_ints, n);
    CHECK(cudaGetLastError());
    std::vector<__nv_bfloat16> h_out(n);
    std::vector<int> h_sums(n);
    CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_sums.data(), d_sums, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        const float expected = 2.0f * __bfloat162float(h_in[i]);
        if (__bfloat162float(h_out[i]) != expected || h_sums[i] != 5 * h_ints[i]) {
            if (wrong++ < 5)
                fprintf(stderr, "element %d: %g and %d, expected %g and %d\n", i, __bfloat162float(h_out[i]),
                        h_sums[i], expected, 5 * h_ints[i]);
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_ints));
    CHECK(cudaFree(d_sums));
    if (wrong) {
        printf("cache_hints n=%d: %d wrong\n", n, wrong);
        return 1;
    }
    printf("cache_hints n=%d OK\n", n);
    return 0;
}
