// <cublasXt.h> for emulator builds: cuBLASXt (several GPUs, host data) is not
// emulated; the build stops here, naming it.
#error "cuemu does not emulate cuBLASXt (<cublasXt.h>); use <cublas_v2.h>, or build this program with nvcc for a GPU"
