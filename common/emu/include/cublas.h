// <cublas.h> for emulator builds: the legacy cuBLAS API (cublasInit, calls
// without a handle) is not emulated; the build stops here, naming it.
#define CUBLAS_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#error "cuemu does not emulate the legacy cuBLAS API (<cublas.h>); include <cublas_v2.h> (handles: cublasCreate), or build this program with nvcc for a GPU"
