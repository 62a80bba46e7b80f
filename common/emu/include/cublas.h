// <cublas.h> for emulator builds: the legacy cuBLAS API (cublasInit, calls
// without a handle) is not emulated; the build stops here, naming it.
#error "cuemu does not emulate the legacy cuBLAS API (<cublas.h>); include <cublas_v2.h> (handles: cublasCreate), or build this program with nvcc for a GPU"
