// texture_internal.h - what textures.cpp and cuda_arrays.cpp share: a CUDA
// array's storage and the checked form of a channel format; and the sides of
// a 3D copy, which graphs.cpp's memcpy nodes use too.
#ifndef CUEMU_SRC_TEXTURE_INTERNAL_H
#define CUEMU_SRC_TEXTURE_INTERNAL_H

#include <cstddef>
#include <vector>

#include "cuemu/textures.h"

namespace cuemu::detail {

// A channel format the emulator can read: 1, 2 or 4 channels of the same
// size (8, 16 or 32 bits; floats 16 (half) or 32 bits).
struct texel_format {
    cudaChannelFormatKind kind;
    int channel_bytes;
    int channels;
    int element_bytes() const { return channel_bytes * channels; }
};

// The error for a descriptor no format matches (cudaErrorInvalidChannelDescriptor),
// or cudaSuccess with *out filled.
cudaError_t check_channel_format(const cudaChannelFormatDesc& desc, texel_format* out);

// One side of a 3D copy (cudaMemcpy3D, a graph's memcpy node): where its
// rows start, and whether it is device memory.
struct copy_side {
    unsigned char* first;  // the byte at the copy's position
    std::size_t row_pitch;
    std::size_t slice_pitch;
    bool on_device;
};
// The side's first byte and pitches: an array's (element_bytes its own), or
// a pitched pointer's (x counted in element_bytes), device memory by the
// copy's kind (cudaMemcpyDefault: by the pointer). False where the position
// and extent do not fit an array, or the pointer is null.
bool describe_side(cudaArray* array, const cudaPos& pos, const cudaPitchedPtr& ptr,
                   const cudaExtent& extent, std::size_t element_bytes, cudaMemcpyKind kind,
                   bool is_source, copy_side* out);

// A live CUDA array, or nullptr (arrays are checked against the live set).
cudaArray* find_array(cudaArray_const_t array);

// Marks the texture and surface objects over a freed array, so that a fetch
// through one is reported instead of reading freed memory (textures.cpp).
void forget_array(const cudaArray* array);

}  // namespace cuemu::detail

// The opaque cudaArray_t of the runtime: rows of width elements, height rows
// a slice, depth slices (height and depth 1 where the extent says 0).
struct cudaArray {
    cudaChannelFormatDesc desc;
    cuemu::detail::texel_format format;
    std::size_t width;
    std::size_t height;
    std::size_t depth;
    int dimensions;
    unsigned int flags;
    std::vector<unsigned char> bytes;
    std::size_t row_bytes() const { return width * format.element_bytes(); }
    std::size_t slice_bytes() const { return row_bytes() * height; }
};

#endif
