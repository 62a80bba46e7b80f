// sample_helpers.h - error checking and device selection in the style of the
// helper headers that ship with NVIDIA's CUDA samples (written here from
// scratch): everything that needs the runtime's types is defined only when
// the runtime's headers have been seen, tested through the guards they
// define, as such headers do, so that a plain C++ file can include this one
// too. Used by sample_matrix_mul.cu.
#ifndef SAMPLE_HELPERS_H
#define SAMPLE_HELPERS_H

#include <cstdio>
#include <cstdlib>

#ifdef __DRIVER_TYPES_H__
// The enumerator's own name for an error, as the samples print it.
static const char* sampleErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }

template <typename T>
void sampleCheck(T result, char const* const func, const char* const file, int const line) {
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line,
                static_cast<unsigned int>(result), sampleErrorEnum(result), func);
        exit(EXIT_FAILURE);
    }
}
#define checkCudaErrors(val) sampleCheck((val), #val, __FILE__, __LINE__)

// Reports (and stops on) an error left by an earlier launch.
#define getLastCudaError(msg) sampleLastError(msg, __FILE__, __LINE__)
inline void sampleLastError(const char* message, const char* file, const int line) {
    cudaError_t err = cudaGetLastError();
    if (cudaSuccess != err) {
        fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line,
                message, static_cast<int>(err), cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}
#endif

#ifdef __CUDA_RUNTIME_H__
// Cores per multiprocessor for a few architectures, 128 for any other.
inline int sampleCoresPerSM(int major, int minor) {
    struct arch { int sm; int cores; };
    const arch table[] = {{0x70, 64}, {0x72, 64}, {0x75, 64}, {0x80, 64},
                          {0x86, 128}, {0x89, 128}, {0x90, 128}};
    for (const arch& a : table)
        if (a.sm == ((major << 4) + minor)) return a.cores;
    return 128;
}

// Picks the first device that is not prohibited from running kernels, makes
// it current and prints what it is; exits when there is none.
inline int findCudaDevice() {
    int count = 0;
    checkCudaErrors(cudaGetDeviceCount(&count));
    for (int dev = 0; dev < count; ++dev) {
        int mode = -1, major = 0, minor = 0, sms = 0, clock_khz = 0;
        checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
        if (mode == cudaComputeModeProhibited) continue;
        checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
        checkCudaErrors(cudaSetDevice(dev));
        cudaDeviceProp prop;
        checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
        printf("GPU Device %d: \"%s\" with compute capability %d.%d, %d SMs x %d cores, %d MHz\n",
               dev, prop.name, major, minor, sms, sampleCoresPerSM(major, minor), clock_khz / 1000);
        return dev;
    }
    fprintf(stderr, "findCudaDevice: no CUDA device can run kernels\n");
    exit(EXIT_FAILURE);
}
#endif

#endif
