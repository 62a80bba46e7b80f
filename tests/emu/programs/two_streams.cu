// two_streams.cu - overlap copies and kernels with two streams: the array is
// cut into chunks, and each chunk's copy in, kernel and copy out go to one of
// two streams in turn. Pinned host memory (cudaMallocHost) is what lets
// cudaMemcpyAsync run asynchronously on a GPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

static void check(cudaError_t result, const char* what) {
    if (result != cudaSuccess) {
        fprintf(stderr, "%s: %s (%s)\n", what, cudaGetErrorString(result), cudaGetErrorName(result));
        exit(1);
    }
}

__global__ void square_root(float* data, int offset, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[offset + i] = sqrtf(data[offset + i]);
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1000001;
    const int numChunks = 8;  // the last chunk is shorter when n is not a multiple
    if (n < numChunks) { fprintf(stderr, "n must be at least %d\n", numChunks); return 2; }
    const int chunk = (n + numChunks - 1) / numChunks;

    float *h_data, *h_result, *d_data;
    check(cudaMallocHost(&h_data, n * sizeof(float)), "cudaMallocHost");
    check(cudaMallocHost(&h_result, n * sizeof(float)), "cudaMallocHost");
    check(cudaMalloc(&d_data, n * sizeof(float)), "cudaMalloc");
    srand(time(0));
    for (int i = 0; i < n; ++i) {
        h_data[i] = 1000.0f * rand() / RAND_MAX;
        h_result[i] = -1.0f;  // poison: an element never copied back stays negative
    }

    cudaStream_t streams[2];
    check(cudaStreamCreate(&streams[0]), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking), "cudaStreamCreateWithFlags");

    for (int c = 0; c < numChunks; ++c) {
        int offset = c * chunk;
        int count = (offset + chunk <= n) ? chunk : n - offset;
        if (count <= 0) break;
        cudaStream_t s = streams[c % 2];
        size_t bytes = count * sizeof(float);
        check(cudaMemcpyAsync(d_data + offset, h_data + offset, bytes, cudaMemcpyHostToDevice, s),
              "cudaMemcpyAsync to device");
        square_root<<<(count + 255) / 256, 256, 0, s>>>(d_data, offset, count);
        check(cudaGetLastError(), "square_root launch");
        check(cudaMemcpyAsync(h_result + offset, d_data + offset, bytes, cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync to host");
    }
    check(cudaStreamSynchronize(streams[0]), "cudaStreamSynchronize 0");
    check(cudaStreamSynchronize(streams[1]), "cudaStreamSynchronize 1");

    int errors = 0;
    for (int i = 0; i < n; ++i)
        // sqrtf is correctly rounded on both sides; allow one ulp of 32
        if (fabsf(h_result[i] - sqrtf(h_data[i])) > 4e-6f) ++errors;

    check(cudaStreamDestroy(streams[0]), "cudaStreamDestroy");
    check(cudaStreamDestroy(streams[1]), "cudaStreamDestroy");
    check(cudaFreeHost(h_data), "cudaFreeHost");
    check(cudaFreeHost(h_result), "cudaFreeHost");
    check(cudaFree(d_data), "cudaFree");
    printf("two_streams n=%d chunks=%d errors=%d %s\n", n, numChunks, errors, errors ? "FAILED" : "OK");
    return errors ? 1 : 0;
}
