// cuda_arrays.cpp - CUDA arrays (cudaMallocArray, the copies into and out of
// them, cudaArrayGetInfo) and the channel formats textures and arrays share.
//
// An array's layout is opaque in CUDA (a GPU stores it in tiles), so here it
// is plain rows in host memory that only the copies, textures and surfaces
// reach. The copies (2D, and cudaMemcpy3D between arrays and pitched memory)
// are the runtime's own cudaMemcpy, row by row, so they wait for the work
// before them; the Async forms are as strictly ordered.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "cuemu/runtime.h"
#include "dynamic_parallelism.h"
#include "internal.h"
#include "texture_internal.h"

namespace cuemu::detail {
namespace {

std::mutex arrays_lock;
// Never destroyed: arrays a program did not free stay reachable until the
// process ends (a leak checker at exit sees them held), and a kernel still
// running at exit finds the set whole.
std::set<const cudaArray*>& live_arrays() {
    static auto* arrays = new std::set<const cudaArray*>;
    return *arrays;
}

bool is_device_kind_for_source(cudaMemcpyKind kind, const void* p) {
    return kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
           (kind == cudaMemcpyDefault && is_device_pointer(p));
}
bool is_device_kind_for_destination(cudaMemcpyKind kind, const void* p) {
    return kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
           (kind == cudaMemcpyDefault && is_device_pointer(p));
}

// The linear side of a copy as a rectangle; device memory must hold all of it.
bool linear_side_fits(const void* p, std::size_t pitch, std::size_t width, std::size_t height,
                      bool on_device, const char* call) {
    if (!on_device) return true;
    const std::size_t span = pitch * (height - 1) + width;
    if (is_device_range(p, span)) return true;
    std::fprintf(stderr,
                 "cuemu: %s refused: %zu rows of %zu bytes (pitch %zu) from %p are not inside "
                 "one live device allocation\n",
                 call, height, width, pitch, p);
    return false;
}

// Checks a copy between an array's rectangle and linear memory, waits for the
// device, then copies row by row in the direction asked.
cudaError_t copy_rectangle(cudaArray* array, std::size_t w_offset, std::size_t h_offset,
                           void* linear, std::size_t pitch, std::size_t width, std::size_t height,
                           cudaMemcpyKind kind, bool into_array, const char* call) {
    if (cudaError_t e = context_status()) return e;
    if (!array) return record(cudaErrorInvalidValue);
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    if (width > pitch) return record(cudaErrorInvalidPitchValue);
    if (w_offset + width > array->row_bytes() || h_offset + height > array->height)
        return record(cudaErrorInvalidValue);
    if (width == 0 || height == 0) return cudaSuccess;
    if (!linear) return record(cudaErrorInvalidValue);
    const bool linear_on_device = into_array ? is_device_kind_for_source(kind, linear)
                                             : is_device_kind_for_destination(kind, linear);
    if (!linear_side_fits(linear, pitch, width, height, linear_on_device, call))
        return record(cudaErrorInvalidValue);
    // The array lives in host memory; the runtime's own copy moves each row,
    // in order with the work before it, from or to the linear side.
    const bool host_to_host = !linear_on_device;
    for (std::size_t row = 0; row < height; ++row) {
        unsigned char* in_array = array->bytes.data() + (h_offset + row) * array->row_bytes() +
                                  w_offset;
        unsigned char* in_linear = static_cast<unsigned char*>(linear) + row * pitch;
        cudaError_t e =
            into_array ? cudaMemcpy(in_array, in_linear, width,
                                    host_to_host ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
                       : cudaMemcpy(in_linear, in_array, width,
                                    host_to_host ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

// The deprecated 1D copies fill rows from (w_offset, h_offset) on: count bytes
// in all, which must end inside the array.
cudaError_t copy_run(cudaArray* array, std::size_t w_offset, std::size_t h_offset, void* linear,
                     std::size_t count, cudaMemcpyKind kind, bool into_array, const char* call) {
    if (!array) return record(cudaErrorInvalidValue);
    const std::size_t row = array->row_bytes();
    if (w_offset > row || h_offset > array->height ||
        h_offset * row + w_offset + count > row * array->height)
        return record(cudaErrorInvalidValue);
    std::size_t done = 0;
    while (done < count) {
        const std::size_t at = h_offset * row + w_offset + done;
        const std::size_t piece = std::min(count - done, row - at % row);
        if (cudaError_t e = copy_rectangle(array, at % row, at / row, static_cast<char*>(linear) + done,
                                           piece, piece, 1, kind, into_array, call))
            return e;
        done += piece;
    }
    return cudaSuccess;
}

}  // namespace

cudaError_t check_channel_format(const cudaChannelFormatDesc& desc, texel_format* out) {
    const int bits[4] = {desc.x, desc.y, desc.z, desc.w};
    int channels = 0;
    while (channels < 4 && bits[channels] != 0) ++channels;
    for (int c = channels; c < 4; ++c)
        if (bits[c] != 0) return record(cudaErrorInvalidChannelDescriptor);
    if (channels == 0 || channels == 3) return record(cudaErrorInvalidChannelDescriptor);
    for (int c = 1; c < channels; ++c)
        if (bits[c] != bits[0]) return record(cudaErrorInvalidChannelDescriptor);
    if (bits[0] != 8 && bits[0] != 16 && bits[0] != 32)
        return record(cudaErrorInvalidChannelDescriptor);
    switch (desc.f) {
        case cudaChannelFormatKindSigned:
        case cudaChannelFormatKindUnsigned:
            break;
        case cudaChannelFormatKindFloat:
            // 16 bits: half (IEEE binary16), widened to float when fetched.
            if (bits[0] == 8) return record(cudaErrorInvalidChannelDescriptor);
            break;
        default:
            return record(cudaErrorInvalidChannelDescriptor);
    }
    *out = texel_format{desc.f, bits[0] / 8, channels};
    return cudaSuccess;
}

cudaArray* find_array(cudaArray_const_t array) {
    std::lock_guard<std::mutex> hold(arrays_lock);
    return live_arrays().count(array) ? const_cast<cudaArray*>(array) : nullptr;
}

}  // namespace cuemu::detail

using namespace cuemu::detail;

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
    return cudaChannelFormatDesc{x, y, z, w, f};
}

namespace {

cudaError_t make_array(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                       unsigned int flags, const char* call) {
    if (cudaError_t e = context_status()) return e;
    if (!array || !desc) return record(cudaErrorInvalidValue);
    if (flags & cudaArrayLayered) {
        std::fprintf(stderr, "cuemu: %s: layered arrays (cudaArrayLayered) are not emulated; "
                             "build this program with nvcc for a GPU\n", call);
        return record(cudaErrorNotSupported);
    }
    const unsigned int known_flags = cudaArraySurfaceLoadStore | cudaArrayTextureGather;
    if (extent.width == 0 || (extent.height == 0 && extent.depth != 0) ||
        (flags & ~known_flags) != 0)
        return record(cudaErrorInvalidValue);
    texel_format format;
    if (cudaError_t e = check_channel_format(*desc, &format)) return e;
    const int dimensions = extent.depth != 0 ? 3 : extent.height != 0 ? 2 : 1;
    auto* made = new cudaArray{*desc, format, extent.width,
                               extent.height == 0 ? 1 : extent.height,
                               extent.depth == 0 ? 1 : extent.depth, dimensions, flags, {}};
    made->bytes.assign(made->slice_bytes() * made->depth, 0);
    {
        std::lock_guard<std::mutex> hold(arrays_lock);
        live_arrays().insert(made);
    }
    *array = made;
    return cudaSuccess;
}

}  // namespace

// The side's first byte and pitches, or false where the position and extent
// do not fit an array.
bool cuemu::detail::describe_side(cudaArray* array, const cudaPos& pos, const cudaPitchedPtr& ptr,
                   const cudaExtent& extent, std::size_t element_bytes, cudaMemcpyKind kind,
                   bool is_source, copy_side* out) {
    if (array) {
        if (pos.x + extent.width > array->width || pos.y + extent.height > array->height ||
            pos.z + extent.depth > array->depth)
            return false;
        out->row_pitch = array->row_bytes();
        out->slice_pitch = array->slice_bytes();
        out->first = array->bytes.data() + pos.z * out->slice_pitch + pos.y * out->row_pitch +
                     pos.x * array->format.element_bytes();
        out->on_device = false;  // an array lives in host memory (see the top)
        return true;
    }
    if (!ptr.ptr) return false;
    out->row_pitch = ptr.pitch;
    out->slice_pitch = ptr.pitch * ptr.ysize;
    out->first = static_cast<unsigned char*>(ptr.ptr) + pos.z * out->slice_pitch +
                 pos.y * out->row_pitch + pos.x * element_bytes;
    out->on_device = is_source ? is_device_kind_for_source(kind, ptr.ptr)
                               : is_device_kind_for_destination(kind, ptr.ptr);
    return true;
}

namespace {

cudaError_t copy_3d(const cudaMemcpy3DParms* p) {
    if (cudaError_t e = context_status()) return e;
    if (!p) return record(cudaErrorInvalidValue);
    if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    // Exactly one of the array and the pointer names each side.
    if ((p->srcArray != nullptr) == (p->srcPtr.ptr != nullptr) ||
        (p->dstArray != nullptr) == (p->dstPtr.ptr != nullptr))
        return record(cudaErrorInvalidValue);
    cudaArray* src_array = p->srcArray ? find_array(p->srcArray) : nullptr;
    cudaArray* dst_array = p->dstArray ? find_array(p->dstArray) : nullptr;
    if ((p->srcArray && !src_array) || (p->dstArray && !dst_array))
        return record(cudaErrorInvalidResourceHandle);
    if (src_array && dst_array &&
        src_array->format.element_bytes() != dst_array->format.element_bytes())
        return record(cudaErrorInvalidValue);
    // Where an array is involved, widths and x positions count its elements.
    const cudaArray* any_array = src_array ? src_array : dst_array;
    const std::size_t element_bytes = any_array ? any_array->format.element_bytes() : 1;
    const cudaExtent extent = p->extent;
    if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return cudaSuccess;
    copy_side src, dst;
    if (!describe_side(src_array, p->srcPos, p->srcPtr, extent, element_bytes, p->kind, true,
                       &src) ||
        !describe_side(dst_array, p->dstPos, p->dstPtr, extent, element_bytes, p->kind, false,
                       &dst))
        return record(cudaErrorInvalidValue);
    const std::size_t row_bytes = extent.width * element_bytes;
    if ((!src_array && row_bytes > src.row_pitch) || (!dst_array && row_bytes > dst.row_pitch))
        return record(cudaErrorInvalidPitchValue);
    const cudaMemcpyKind row_kind =
        src.on_device ? (dst.on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                      : (dst.on_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    for (std::size_t z = 0; z < extent.depth; ++z) {
        for (std::size_t y = 0; y < extent.height; ++y) {
            if (cudaError_t e = cudaMemcpy(dst.first + z * dst.slice_pitch + y * dst.row_pitch,
                                           src.first + z * src.slice_pitch + y * src.row_pitch,
                                           row_bytes, row_kind))
                return e;
        }
    }
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                            size_t width, size_t height, unsigned int flags) {
    return make_array(array, desc, cudaExtent{width, height, 0}, flags, "cudaMallocArray");
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned int flags) {
    return make_array(array, desc, extent, flags, "cudaMalloc3DArray");
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) { return copy_3d(p); }
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t) {
    if (inside_kernel()) return refuse_in_kernel("cudaMemcpy3DAsync");  // dynamic_parallelism.cpp
    return copy_3d(p);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
    if (cudaError_t e = context_status()) return e;
    if (!array) return cudaSuccess;
    {
        std::lock_guard<std::mutex> hold(arrays_lock);
        if (live_arrays().erase(array) == 0) return record(cudaErrorInvalidValue);
    }
    // Kernels still reading it finish first, as cudaFree waits on a GPU.
    cudaError_t e = synchronize_device("cudaFreeArray");
    forget_array(array);
    delete array;
    return e;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent,
                             unsigned int* flags, cudaArray_t array) {
    cudaArray* a = find_array(array);
    if (!a) return record(cudaErrorInvalidValue);
    if (desc) *desc = a->desc;
    if (extent)
        *extent = cudaExtent{a->width, a->dimensions >= 2 ? a->height : 0,
                             a->dimensions == 3 ? a->depth : 0};
    if (flags) *flags = a->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
    cudaArray* a = find_array(array);
    if (!a || !desc) return record(cudaErrorInvalidValue);
    *desc = a->desc;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset,
                                const void* src, size_t spitch, size_t width, size_t height,
                                cudaMemcpyKind kind) {
    return copy_rectangle(find_array(dst), w_offset, h_offset, const_cast<void*>(src), spitch,
                          width, height, kind, true, "cudaMemcpy2DToArray");
}
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src,
                                  size_t w_offset, size_t h_offset, size_t width, size_t height,
                                  cudaMemcpyKind kind) {
    return copy_rectangle(find_array(src), w_offset, h_offset, dst, dpitch, width, height, kind,
                          false, "cudaMemcpy2DFromArray");
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset,
                                     const void* src, size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t) {
    return copy_rectangle(find_array(dst), w_offset, h_offset, const_cast<void*>(src), spitch,
                          width, height, kind, true, "cudaMemcpy2DToArrayAsync");
}
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src,
                                       size_t w_offset, size_t h_offset, size_t width,
                                       size_t height, cudaMemcpyKind kind, cudaStream_t) {
    return copy_rectangle(find_array(src), w_offset, h_offset, dst, dpitch, width, height, kind,
                          false, "cudaMemcpy2DFromArrayAsync");
}
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                              size_t count, cudaMemcpyKind kind) {
    return copy_run(find_array(dst), w_offset, h_offset, const_cast<void*>(src), count, kind, true,
                    "cudaMemcpyToArray");
}
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset,
                                size_t h_offset, size_t count, cudaMemcpyKind kind) {
    return copy_run(find_array(src), w_offset, h_offset, dst, count, kind, false,
                    "cudaMemcpyFromArray");
}
