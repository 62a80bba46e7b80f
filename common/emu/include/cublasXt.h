// <cublasXt.h> for emulator builds: cuBLASXt (several GPUs, host data) is not
// emulated; the build stops here, naming it.
#define CUBLAS_XT_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)
#error "cuemu does not emulate cuBLASXt (<cublasXt.h>); use <cublas_v2.h>, or build this program with nvcc for a GPU"
