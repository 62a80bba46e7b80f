// cuda_pipeline.h on the emulator: the asynchronous-copy primitives
// (cuda_pipeline_primitives.h). CUDA's header also has
// nvcuda::experimental::pipeline, deprecated; it is not here (undeclared).
#ifndef CUEMU_CUDA_PIPELINE_H
#define CUEMU_CUDA_PIPELINE_H

#include "cuda_pipeline_primitives.h"

#endif
