// cuda_pipeline.h on the emulator: the asynchronous-copy primitives
// (cuda_pipeline_primitives.h). CUDA's header also has
// nvcuda::experimental::pipeline, deprecated; it is not here (undeclared).
#ifndef CUEMU_CUDA_PIPELINE_H
#define CUEMU_CUDA_PIPELINE_H
#define _CUDA_PIPELINE_H_  // the toolkit's include guard, which programs test (tests/emu/check_header_guards.py)

#include "cuda_pipeline_primitives.h"

#endif
