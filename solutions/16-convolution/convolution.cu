// Lesson 16: convolution - a filter slid over a signal, then over a picture.
//
// Each output element is a weighted sum of the input elements around it:
// out[i] = sum of w[k] * in[i + k] for k from -radius to radius. Every thread
// computes one output, independently of all the others. Three ideas make it
// fast on a GPU: the weights live in __constant__ memory (filled with
// cudaMemcpyToSymbol; all threads of a warp read the same weight at once,
// which constant memory serves in one go); in 2D, a block first copies its
// input tile into __shared__ memory, HALO included (the radius-wide border
// of neighbours its outputs need), so that each input pixel is read from
// global memory about once instead of (2 radius + 1)^2 times; and edges are
// CLAMPED: outside the picture, the nearest edge pixel is read (the CPU
// reference in cpu_reference_convolution.h does the same).
//
// Applied to a picture: a Gaussian blur and a Sobel edge detector.
//
// Build and run:   ./tutorial run 16 [--n 100000] [--radius 2]
//                  ./tutorial run 16 --out-dir DIR [--input photo.png]
//                  ./tutorial run 16 --bench     (global vs __constant__ vs tiled)
//                  ./tutorial check 16           (the exercise's test)
//                  ./tutorial solution 16        (the finished version)
// It checks the 1D kernels and the three 2D kernels against the CPU (PASS or
// FAIL); with --out-dir it writes input.png, blur.png and edges.png there.
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cli.h"
#include "compare.h"
#include "random_data.h"
#include "run_limits.h"
#include "cpu_reference_convolution.h"
#include "png_image.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <sys/stat.h>  // is_writable_folder
#include <unistd.h>

// ---- filters in __constant__ memory ----

const int kMaxRadius1D = 16;  // up to 33 weights
const int kMaxRadius2D = 3;   // up to 7 x 7 weights
const int kTile = 16;         // 2D blocks: 16 x 16 threads, one output pixel each

// [snippet: constant]
__constant__ float c_filter_1d[2 * kMaxRadius1D + 1];
__constant__ float c_filter_2d[(2 * kMaxRadius2D + 1) * (2 * kMaxRadius2D + 1)];
// [end snippet]

// ---- kernels ----

// Clamp-to-edge: index -2 reads element 0, index n + 1 reads element n - 1.
__device__ int clamp_index(int i, int n) { return min(max(i, 0), n - 1); }

// 1D, the filter read from global memory like the input.
__global__ void convolve_1d_global_kernel(const float* in, const float* filter, float* out, int n,
                                          int radius) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k) sum += filter[k + radius] * in[clamp_index(i + k, n)];
    out[i] = sum;
}

// 1D, the filter in __constant__ memory: no pointer to pass, the kernel
// names the array.
// [snippet: kernel-1d]
__global__ void convolve_1d_constant_kernel(const float* in, float* out, int n, int radius) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k)
        sum += c_filter_1d[k + radius] * in[clamp_index(i + k, n)];
    out[i] = sum;
}
// [end snippet]

// 2D, naive: one thread per output pixel, filter and input from global memory.
__global__ void convolve_2d_global_kernel(const float* in, const float* filter, float* out,
                                          int width, int height, int radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const int side = 2 * radius + 1;
    float sum = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            sum += filter[(dy + radius) * side + dx + radius] *
                   in[clamp_index(y + dy, height) * width + clamp_index(x + dx, width)];
    out[y * width + x] = sum;
}

// 2D, the filter in __constant__ memory; the input still from global memory,
// where neighbouring threads read mostly the same pixels.
__global__ void convolve_2d_constant_kernel(const float* in, float* out, int width, int height,
                                            int radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const int side = 2 * radius + 1;
    float sum = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            sum += c_filter_2d[(dy + radius) * side + dx + radius] *
                   in[clamp_index(y + dy, height) * width + clamp_index(x + dx, width)];
    out[y * width + x] = sum;
}

// 2D with shared-memory tiles. A block of kTile x kTile threads makes a
// kTile x kTile tile of the output. Those outputs need an input tile that
// is larger by the radius on every side (the halo): (kTile + 2 radius)
// squared pixels, more than the block has threads, so each thread loads
// several, striding through the tile by the block's size. Its size depends
// on the radius, known only at run time: the launch passes it as the third
// <<< >>> argument (dynamic shared memory, the extern array below).
// [snippet: tiled]
__global__ void convolve_2d_tiled_kernel(const float* in, float* out, int width, int height,
                                         int radius) {
    extern __shared__ float tile[];  // (kTile + 2 radius)^2 input pixels, row-major
    const int tile_side = kTile + 2 * radius;
    const int first_x = blockIdx.x * kTile, first_y = blockIdx.y * kTile;  // block's 1st output

    // 1. Load the input tile, halo included. Tile element (tile_x, tile_y)
    //    holds input pixel (first_x - radius + tile_x, first_y - radius + tile_y).
    const int thread_rank = threadIdx.y * kTile + threadIdx.x;
    for (int t = thread_rank; t < tile_side * tile_side; t += kTile * kTile) {
        const int tile_x = t % tile_side, tile_y = t / tile_side;
        int src_x = clamp_index(first_x - radius + tile_x, width);
        int src_y = clamp_index(first_y - radius + tile_y, height);
        tile[t] = in[src_y * width + src_x];
    }
    // Wait until the whole tile is there: the sums below read pixels that
    // other threads loaded.
    __syncthreads();

    // 2. Each thread's weighted sum, from shared memory only. Only now may the
    //    threads past the picture's right or bottom edge leave: they had to
    //    help load the tile and reach the barrier.
    const int x = first_x + threadIdx.x, y = first_y + threadIdx.y;
    if (x >= width || y >= height) return;
    const int side = 2 * radius + 1;
    float sum = 0.0f;
    for (int dy = 0; dy < side; ++dy)
        for (int dx = 0; dx < side; ++dx) {
            sum += c_filter_2d[dy * side + dx] * tile[(threadIdx.y + dy) * tile_side + threadIdx.x + dx];
        }
    out[y * width + x] = sum;
}
// [end snippet]

// ---- launching ----

enum class Kernel2D { global, constant, tiled };

static int blocks_for(int count, int block_size) {
    return (count + block_size - 1) / block_size;
}

// Copies a (2 radius + 1)^2 filter into __constant__ memory, where the
// constant and tiled kernels read it.
static void upload_filter_2d(const float* h_filter, int radius) {
    const int side = 2 * radius + 1;
    // [snippet: upload]
    CUDA_CHECK(cudaMemcpyToSymbol(c_filter_2d, h_filter, (size_t)side * side * sizeof(float)));
    // [end snippet]
}

// Launches one 2D kernel on device arrays; the filter must be uploaded (and,
// for the global kernel, be in d_filter).
static void launch_2d(Kernel2D kernel, const float* d_in, const float* d_filter, float* d_out,
                      int width, int height, int radius) {
    dim3 block(kTile, kTile);
    dim3 grid(blocks_for(width, kTile), blocks_for(height, kTile));
    switch (kernel) {
        case Kernel2D::global:
            convolve_2d_global_kernel<<<grid, block>>>(d_in, d_filter, d_out, width, height, radius);
            break;
        case Kernel2D::constant:
            convolve_2d_constant_kernel<<<grid, block>>>(d_in, d_out, width, height, radius);
            break;
        case Kernel2D::tiled: {
            // [snippet: launch-tiled]
            const int tile_side = kTile + 2 * radius;
            const size_t shared_bytes = (size_t)tile_side * tile_side * sizeof(float);
            convolve_2d_tiled_kernel<<<grid, block, shared_bytes>>>(d_in, d_out, width, height,
                                                                    radius);
            // [end snippet]
            break;
        }
    }
    CUDA_CHECK(cudaGetLastError());
}

struct DevicePicture {
    float* d_in = nullptr;
    float* d_out = nullptr;
    float* d_filter = nullptr;
};

static DevicePicture device_picture(const float* h_in, const float* h_filter, int width,
                                    int height, int radius) {
    const size_t bytes = (size_t)width * height * sizeof(float);
    const size_t filter_bytes = (size_t)(2 * radius + 1) * (2 * radius + 1) * sizeof(float);
    DevicePicture dev;
    CUDA_CHECK(cudaMalloc(&dev.d_in, bytes));
    CUDA_CHECK(cudaMalloc(&dev.d_out, bytes));
    CUDA_CHECK(cudaMalloc(&dev.d_filter, filter_bytes));
    CUDA_CHECK(cudaMemcpy(dev.d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dev.d_filter, h_filter, filter_bytes, cudaMemcpyHostToDevice));
    upload_filter_2d(h_filter, radius);
    return dev;
}

static void free_device_picture(DevicePicture& dev) {
    CUDA_CHECK(cudaFree(dev.d_in));
    CUDA_CHECK(cudaFree(dev.d_out));
    CUDA_CHECK(cudaFree(dev.d_filter));
    dev = DevicePicture{};
}

static bool convolve_2d_with(Kernel2D kernel, const float* h_in, const float* h_filter,
                             float* h_out, int width, int height, int radius) {
    if (radius < 0 || radius > kMaxRadius2D || width < 1 || height < 1) return false;
    DevicePicture dev = device_picture(h_in, h_filter, width, height, radius);
    launch_2d(kernel, dev.d_in, dev.d_filter, dev.d_out, width, height, radius);
    CUDA_CHECK(cudaMemcpy(h_out, dev.d_out, (size_t)width * height * sizeof(float),
                          cudaMemcpyDeviceToHost));
    free_device_picture(dev);
    return true;
}

static bool convolve_1d_with(bool constant, const float* h_in, const float* h_filter,
                             float* h_out, int n, int radius) {
    if (radius < 0 || radius > kMaxRadius1D || n < 1) return false;
    const size_t bytes = (size_t)n * sizeof(float), filter_bytes = (2 * radius + 1) * sizeof(float);
    float *d_in, *d_out, *d_filter;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_filter, filter_bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_filter, h_filter, filter_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(c_filter_1d, h_filter, filter_bytes));
    const int block = 256;
    if (constant)
        convolve_1d_constant_kernel<<<blocks_for(n, block), block>>>(d_in, d_out, n, radius);
    else
        convolve_1d_global_kernel<<<blocks_for(n, block), block>>>(d_in, d_filter, d_out, n, radius);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_filter));
    return true;
}

// ---- launchers: host arrays in, host array out ----
// Filters have 2 radius + 1 weights (1D) or (2 radius + 1)^2, row-major (2D);
// edges are clamped. Each returns false, and leaves out alone, for a radius
// over its limit (16 in 1D, 3 in 2D) or an empty input.

bool convolve_1d_global_on_gpu(const float* in, const float* filter, float* out, int n,
                               int radius) {
    return convolve_1d_with(false, in, filter, out, n, radius);
}
bool convolve_1d_constant_on_gpu(const float* in, const float* filter, float* out, int n,
                                 int radius) {
    return convolve_1d_with(true, in, filter, out, n, radius);
}
bool convolve_2d_global_on_gpu(const float* in, const float* filter, float* out, int width,
                               int height, int radius) {
    return convolve_2d_with(Kernel2D::global, in, filter, out, width, height, radius);
}
bool convolve_2d_constant_on_gpu(const float* in, const float* filter, float* out, int width,
                                 int height, int radius) {
    return convolve_2d_with(Kernel2D::constant, in, filter, out, width, height, radius);
}
bool convolve_2d_tiled_on_gpu(const float* in, const float* filter, float* out, int width,
                              int height, int radius) {
    return convolve_2d_with(Kernel2D::tiled, in, filter, out, width, height, radius);
}

// ---- the picture: filters, a scene, blur and edges ----

// A Gaussian blur of the given radius: weights exp(-d^2 / (2 sigma^2)) with
// sigma = radius / 2 + 0.5, scaled to add up to 1 (the picture keeps its
// brightness). side * side weights.
std::vector<float> gaussian_filter(int radius) {
    const int side = 2 * radius + 1;
    const double sigma = radius / 2.0 + 0.5;
    std::vector<float> w((size_t)side * side);
    double total = 0.0;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            total += std::exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            w[(dy + radius) * side + dx + radius] =
                (float)(std::exp(-(dx * dx + dy * dy) / (2 * sigma * sigma)) / total);
    return w;
}

// Sobel: the change from left to right (x) and from top to bottom (y),
// smoothed across; both are zero where the picture is flat.
const float kSobelX[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
const float kSobelY[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};

// The built-in picture: shapes, stripes and gradients, the same on every run
// (no download, nothing random).
GreyPicture make_scene(int width, int height) {
    GreyPicture p;
    p.width = width;
    p.height = height;
    p.pixels.resize((size_t)width * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float u = (x + 0.5f) / width, v = (y + 0.5f) / height;  // 0..1 across
            float value = 0.25f + 0.3f * u;                              // a soft gradient
            const float du = u - 0.32f, dv = v - 0.35f;
            const float r2 = du * du + dv * dv;
            if (r2 < 0.04f) value = 0.9f;                                // a bright disc
            if (r2 < 0.012f) value = 0.55f;                              // ... with a hole
            if (u > 0.58f && u < 0.9f && v > 0.15f && v < 0.45f) value = 0.08f;  // a dark box
            if (v > 0.6f && v < 0.88f) {                                 // stripes, finer to the right
                const float period = 0.08f - 0.065f * u;
                value = std::fmod(u, period) < period / 2 ? 0.85f : 0.2f;
            }
            if (v > 0.9f && ((x / 8 + y / 8) % 2 == 0)) value = 1.0f;   // a checkerboard strip
            p.pixels[(size_t)y * width + x] = value;
        }
    return p;
}

// The pictures the lesson shows: a Gaussian blur of the given radius and the
// Sobel edge strength sqrt(gx^2 + gy^2) / 4 (for grey levels in [0, 1] it
// stays below about 1.4; /4 keeps most edges short of pure white), all with
// the tiled kernel. Returns false for a radius the kernel does not take.
bool blur_and_edges_on_gpu(const GreyPicture& in, int radius, GreyPicture* blur,
                           GreyPicture* edges) {
    const int w = in.width, h = in.height;
    *blur = GreyPicture{w, h, std::vector<float>((size_t)w * h)};
    *edges = GreyPicture{w, h, std::vector<float>((size_t)w * h)};
    std::vector<float> gx((size_t)w * h), gy((size_t)w * h);
    if (!convolve_2d_tiled_on_gpu(in.pixels.data(), gaussian_filter(radius).data(),
                                  blur->pixels.data(), w, h, radius))
        return false;
    convolve_2d_tiled_on_gpu(in.pixels.data(), kSobelX, gx.data(), w, h, 1);
    convolve_2d_tiled_on_gpu(in.pixels.data(), kSobelY, gy.data(), w, h, 1);
    for (size_t i = 0; i < gx.size(); ++i)
        edges->pixels[i] = std::sqrt(gx[i] * gx[i] + gy[i] * gy[i]) / 4.0f;
    return true;
}

// ---- main: 1D and 2D against the CPU, the pictures, or the timing table ----
#ifndef TUTORIAL_TEST_BUILD
// The scene's default size is not a multiple of the 16 x 16 tile either way,
// so the edge blocks always have threads outside it. The test draws the same
// size to check the README's pictures.
const int kSceneWidth = 250, kSceneHeight = 200;

// Milliseconds per launch, kernel only (CUDA events), after one warm-up
// launch; averaged over enough launches to last about 0.2 s.
static float time_kernel_ms(Kernel2D kernel, const DevicePicture& dev, int width, int height,
                            int radius) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float ms = 0.0f;
    int repeats = 1;
    launch_2d(kernel, dev.d_in, dev.d_filter, dev.d_out, width, height, radius);  // warm-up
    for (int attempt = 0; attempt < 2; ++attempt) {
        CUDA_CHECK(cudaEventRecord(start));
        for (int r = 0; r < repeats; ++r)
            launch_2d(kernel, dev.d_in, dev.d_filter, dev.d_out, width, height, radius);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        ms /= repeats;
        repeats = std::clamp((int)(200.0f / std::max(ms, 0.001f)), 1, 1000);
        if (repeats == 1) break;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

static int run_bench(int radius) {
    const int side = 2 * radius + 1;
    std::printf("Gaussian blur %d x %d on the built-in scene, N x N pixels\n", side, side);
    std::printf("kernel only (CUDA events), no copies, after one warm-up launch;\n"
                "averaged over enough launches to last about 0.2 s\n\n");
    const Kernel2D kernels[3] = {Kernel2D::global, Kernel2D::constant, Kernel2D::tiled};
    std::printf("%6s %18s %18s %18s\n", "", "filter in global", "__constant__", "tiled + halo");
    std::printf("%6s", "N");
    for (int i = 0; i < 3; ++i) std::printf(" %8s %9s", "ms", "Mpixel/s");
    std::printf("\n");
    const std::vector<float> filter = gaussian_filter(radius);
    for (int size = 250; size <= 8000; size *= 2) {
        GreyPicture scene = make_scene(size, size);
        DevicePicture dev = device_picture(scene.pixels.data(), filter.data(), size, size, radius);
        std::printf("%6d", size);
        float slowest = 0.0f;
        for (Kernel2D kernel : kernels) {
            float ms = time_kernel_ms(kernel, dev, size, size, radius);
            std::printf(" %8.3f %9.1f", ms, (double)size * size / (ms * 1e3));
            std::fflush(stdout);
            slowest = std::max(slowest, ms);
        }
        std::printf("\n");
        free_device_picture(dev);
        if (slowest > 250.0f) {
            std::printf("(stopped: the next size would take 4 times as long)\n");
            break;
        }
    }
#ifndef CUEMU
    std::printf("\nmeasured on the GPU named above.\n");
#else
    std::printf("\nmeasured on the emulator: CPU times, not GPU ones. On a GPU the filter in\n"
                "__constant__ memory and the shared-memory tile may each save memory traffic;\n"
                "only a run there shows how much.\n");
#endif
    return 0;
}

// One check against the CPU reference, printed as one line.
static bool check(const char* label, const std::vector<float>& got, const std::vector<float>& ref,
                  const float* filter, int taps) {
    // Tolerance: see cpu_convolution_tolerance (inputs here are in [0, 1]).
    double atol = cpu_convolution_tolerance(filter, taps, 1.0);
    bool passed = compare_floats(label, got.data(), ref.data(), got.size(), atol, 0.0, 5) == 0;
    std::printf("  %-34s %s\n", label, passed ? "PASS" : "FAIL");
    return passed;
}

static bool is_writable_folder(const char* path) {
    struct stat info;
    return stat(path, &info) == 0 && S_ISDIR(info.st_mode) && access(path, W_OK) == 0;
}

static bool write_picture(const std::string& dir, const char* name, const GreyPicture& picture) {
    std::string error, path = dir + "/" + name;
    if (!write_png_grey(path.c_str(), picture, &error)) {
        std::fprintf(stderr, "error: %s\n", error.c_str());
        return false;
    }
    std::printf("  wrote %s (%d x %d)\n", path.c_str(), picture.width, picture.height);
    return true;
}

int main(int argc, char** argv) {
    long long n = 100000, radius = 2, bench = 0, width = kSceneWidth, height = kSceneHeight;
    const char* input = nullptr;
    const char* out_dir = nullptr;
    cli_option options[] = {
        {"--n", "elements of the 1D signal", CLI_INT, &n, 1, 100000000, nullptr},
        {"--radius", "filter radius: 2 radius + 1 weights per side", CLI_INT, &radius, 1,
         kMaxRadius2D, nullptr},
        {"--width", "width of the built-in scene", CLI_INT, &width, 1, kMaxPictureSide, nullptr},
        {"--height", "height of the built-in scene", CLI_INT, &height, 1, kMaxPictureSide,
         nullptr},
        {"--input", "a PNG to filter instead of the scene, made grey", CLI_TEXT, nullptr, 0, 0,
         &input},
        {"--out-dir", "write input.png, blur.png and edges.png into this folder", CLI_TEXT,
         nullptr, 0, 0, &out_dir},
        {"--bench", "time the three 2D kernels for growing pictures", CLI_FLAG, &bench, 0, 1,
         nullptr},
    };
    cli_parse(argc, argv,
              "Convolves a 1D signal and a picture on the GPU: filter in global memory, in\n"
              "__constant__ memory, and with shared-memory tiles; checks each against the CPU.",
              options, 7);

    GreyPicture picture;
    if (input) {
        std::string error;
        if (!read_png_grey(input, &picture, &error)) {
            std::fprintf(stderr, "error: %s\n", error.c_str());
            return 2;
        }
    }
    const double pixels = input ? (double)picture.width * picture.height : (double)width * height;
    // Memory: the signal (in, out, reference) and 8 pictures' worth of floats
    // on the host, 3 of each on the device. Time, measured for this program
    // at radius 3 on a 2-core machine: on the emulator 3 us per pixel (1024 x
    // 1024, everything) and 0.2 us per 1D element (10 million); the CPU
    // references alone 0.19 us per pixel and 0.04 us per element.
    run_limits_require_memory(4.0 * (3.0 * n + 8.0 * pixels), 4.0 * (3.0 * n + 3.0 * pixels));
    run_limits_check_duration(pixels + n / 15.0, 3e-6, 0.2e-6,
                              "--width, --height, --input or --n");
    if (out_dir && !is_writable_folder(out_dir)) {
        std::fprintf(stderr, "error: --out-dir %s is not a folder this program can write to\n",
                     out_dir);
        return 2;
    }
    if (!input) picture = make_scene((int)width, (int)height);

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);
    if (bench) return run_bench((int)radius);

    const int r = (int)radius, side = 2 * r + 1;
    bool all_passed = true;

    // 1D: a random signal and a random filter.
    std::printf("1D: %lld elements, %d weights (radius %d), edges clamped\n", n, side, r);
    std::vector<float> signal((size_t)n), weights(side), got((size_t)n), ref((size_t)n);
    fill_random(signal.data(), signal.size(), 1, 0.0f, 1.0f);
    fill_random(weights.data(), weights.size(), 2, -1.0f, 1.0f);
    cpu_convolve_1d(signal.data(), weights.data(), ref.data(), (int)n, r);
    fill_poison(got.data(), got.size());
    convolve_1d_global_on_gpu(signal.data(), weights.data(), got.data(), (int)n, r);
    all_passed &= check("filter in global memory", got, ref, weights.data(), side);
    fill_poison(got.data(), got.size());
    convolve_1d_constant_on_gpu(signal.data(), weights.data(), got.data(), (int)n, r);
    all_passed &= check("filter in __constant__ memory", got, ref, weights.data(), side);

    // 2D: the blur on the picture, with each kernel.
    const int w = picture.width, h = picture.height;
    std::printf("2D: %s, %d x %d pixels, Gaussian blur %d x %d, edges clamped\n",
                input ? input : "the built-in scene", w, h, side, side);
    const std::vector<float> blur = gaussian_filter(r);
    std::vector<float> got2((size_t)w * h), ref2((size_t)w * h);
    cpu_convolve_2d(picture.pixels.data(), blur.data(), ref2.data(), w, h, r);
    struct {
        const char* label;
        bool (*launcher)(const float*, const float*, float*, int, int, int);
    } runs[3] = {{"naive, filter in global memory", convolve_2d_global_on_gpu},
                 {"naive, filter in __constant__", convolve_2d_constant_on_gpu},
                 {"tiled, 16 x 16 + halo in shared", convolve_2d_tiled_on_gpu}};
    for (const auto& run : runs) {
        fill_poison(got2.data(), got2.size());
        run.launcher(picture.pixels.data(), blur.data(), got2.data(), w, h, r);
        all_passed &= check(run.label, got2, ref2, blur.data(), side * side);
    }
    // The edge detector's x part, tiled, against the CPU.
    cpu_convolve_2d(picture.pixels.data(), kSobelX, ref2.data(), w, h, 1);
    fill_poison(got2.data(), got2.size());
    convolve_2d_tiled_on_gpu(picture.pixels.data(), kSobelX, got2.data(), w, h, 1);
    all_passed &= check("tiled, Sobel x (3 x 3)", got2, ref2, kSobelX, 9);

    GreyPicture blurred, edges;
    blur_and_edges_on_gpu(picture, r, &blurred, &edges);
    if (out_dir) {
        std::printf("pictures:\n");
        if (!write_picture(out_dir, "input.png", picture) ||
            !write_picture(out_dir, "blur.png", blurred) ||
            !write_picture(out_dir, "edges.png", edges))
            return 2;
    } else {
        std::printf("(--out-dir DIR writes the input, the blur and the edges as PNG files)\n");
    }
    std::printf("\n%s\n", all_passed ? "PASS" : "FAIL");
    return all_passed ? 0 : 1;
}
#endif
