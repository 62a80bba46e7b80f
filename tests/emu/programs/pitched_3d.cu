// pitched_3d.cu - a volume in 3D pitched memory, as the programming guide's
// 3D-memory example walks it: cudaMalloc3D for the slices, cudaMemset3D to
// clear it, a kernel that fills each voxel through the pitch and the slice
// pitch, cudaMemcpy3D back into a packed host volume; and managed memory
// attached to one stream (cudaStreamAttachMemAsync) for a kernel of that
// stream, with the calls the runtime refuses. Sizes are not multiples of the
// block. Prints "pitched_3d ... OK" when everything matches the CPU.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

__device__ float voxel_value(int x, int y, int z) { return x + 100.0f * y + 10000.0f * z; }

__global__ void fill(cudaPitchedPtr volume, int width, int height, int depth) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    char* base = (char*)volume.ptr;
    size_t slice_pitch = volume.pitch * height;
    for (int z = 0; z < depth; ++z) {
        float* row = (float*)(base + z * slice_pitch + y * volume.pitch);
        // Every other slice left as cudaMemset3D cleared it.
        if (z % 2 == 0) row[x] = voxel_value(x, y, z);
    }
}

__global__ void twice(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= 2;
}

int main() {
    const int width = 37, height = 19, depth = 7;
    cudaExtent extent = make_cudaExtent(width * sizeof(float), height, depth);
    cudaPitchedPtr d_volume;
    CHECK(cudaMalloc3D(&d_volume, extent));
    bool ok = d_volume.pitch >= width * sizeof(float) && d_volume.xsize == width * sizeof(float) &&
              d_volume.ysize == height;
    // Bytes of 0x3f: fresh memory is often zero already, this is not.
    CHECK(cudaMemset3D(d_volume, 0x3f, extent));
    dim3 block(16, 8), grid((width + 15) / 16, (height + 7) / 8);
    fill<<<grid, block>>>(d_volume, width, height, depth);
    CHECK(cudaGetLastError());

    std::vector<float> h_volume(width * height * depth, -1.0f);
    cudaMemcpy3DParms copy = {0};
    copy.srcPtr = d_volume;
    copy.dstPtr = make_cudaPitchedPtr(h_volume.data(), width * sizeof(float), width * sizeof(float), height);
    copy.extent = extent;
    copy.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&copy));
    const unsigned int set_bits = 0x3f3f3f3fu;
    float set_value;
    memcpy(&set_value, &set_bits, sizeof set_value);
    int wrong = 0;
    for (int z = 0; z < depth; ++z)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                float want = z % 2 == 0 ? x + 100.0f * y + 10000.0f * z : set_value;
                if (h_volume[(z * height + y) * width + x] != want) ++wrong;
            }
    ok = ok && wrong == 0;

    // Managed memory attached to one stream, then used by a kernel of it.
    const int n = 1003;
    int* managed;
    CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
    for (int i = 0; i < n; ++i) managed[i] = i;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamAttachMemAsync(stream, managed, 0, cudaMemAttachSingle));
    twice<<<(n + 255) / 256, 256, 0, stream>>>(managed, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; ++i) ok = ok && managed[i] == 2 * i;
    // What the runtime refuses: singly to the NULL stream, part of the
    // allocation, memory that is not managed.
    int* device_only;
    CHECK(cudaMalloc(&device_only, n * sizeof(int)));
    ok = ok && cudaStreamAttachMemAsync(0, managed, 0, cudaMemAttachSingle) == cudaErrorInvalidValue;
    ok = ok && cudaStreamAttachMemAsync(stream, managed, sizeof(int), cudaMemAttachSingle) == cudaErrorInvalidValue;
    ok = ok && cudaStreamAttachMemAsync(stream, device_only, 0, cudaMemAttachSingle) == cudaErrorInvalidValue;
    cudaGetLastError();  // the refusals above are not sticky
    CHECK(cudaStreamAttachMemAsync(stream, managed, n * sizeof(int), cudaMemAttachGlobal));
    CHECK(cudaStreamSynchronize(stream));

    CHECK(cudaFree(device_only));
    CHECK(cudaFree(managed));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_volume.ptr));
    printf("pitched_3d %d x %d x %d, pitch %zu, %d wrong voxels: %s\n", width, height, depth,
           d_volume.pitch, wrong, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
