// <cublas_api.h> for emulator builds: the declarations <cublas_v2.h> gives.
#include "cublas_v2.h"
