// <cublasLt.h> for emulator builds: cuBLASLt (cublasLtMatmul, layouts,
// heuristics) is not emulated; the build stops here, naming it.
#error "cuemu does not emulate cuBLASLt (<cublasLt.h>); use cublasSgemm from <cublas_v2.h>, or build this program with nvcc for a GPU"
