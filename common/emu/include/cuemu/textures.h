// cuemu/textures.h - textures, surfaces and CUDA arrays (src/textures.cpp,
// src/cuda_arrays.cpp). Names, numbers and signatures are CUDA 13.0's.
//
// A texture object is a handle the host makes (cudaCreateTextureObject) and a
// kernel reads through (tex1Dfetch, tex1D, tex2D, tex3D): the fetch applies the
// addressing, filtering and read mode the descriptor chose, as the texture
// unit of a GPU does, including the 9-bit fixed-point weights of linear
// filtering. A surface object (cudaCreateSurfaceObject) reads and writes a
// CUDA array by byte coordinates (surf2Dread, surf2Dwrite).
//
// What the emulator does not have (layered textures, 3D surfaces, mipmaps, texture
// gather, the texture references CUDA 12 removed) is declared at the end so
// that a program using it stops at build time with a line naming it.
#ifndef CUEMU_TEXTURES_H
#define CUEMU_TEXTURES_H

#include <cstddef>
#include <type_traits>

#include "../vector_types.h"
#include "types.h"

// ---- channel formats and CUDA arrays -----------------------------------------------
enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc {
    int x, y, z, w;  // bits per channel, 0 for an absent channel
    cudaChannelFormatKind f;
};

typedef struct cudaArray* cudaArray_t;
typedef const struct cudaArray* cudaArray_const_t;
typedef struct cudaMipmappedArray* cudaMipmappedArray_t;

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

struct cudaExtent {
    size_t width, height, depth;
};
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }
struct cudaPos {
    size_t x, y, z;
};
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
// Linear memory seen as rows of `pitch` bytes, `ysize` rows a slice.
struct cudaPitchedPtr {
    void* ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
};
inline cudaPitchedPtr make_cudaPitchedPtr(void* d, size_t p, size_t xsz, size_t ysz) {
    return cudaPitchedPtr{d, p, xsz, ysz};
}
// One side of a copy is an array or pitched memory; positions and the extent's
// width count elements where an array is involved, bytes where none is.
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    cudaPos srcPos;
    cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    cudaPos dstPos;
    cudaPitchedPtr dstPtr;
    cudaExtent extent;
    cudaMemcpyKind kind;
};

// ---- texture and surface objects --------------------------------------------------
enum cudaResourceType {
    cudaResourceTypeArray = 0x00,
    cudaResourceTypeMipmappedArray = 0x01,
    cudaResourceTypeLinear = 0x02,
    cudaResourceTypePitch2D = 0x03
};
enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode {
    cudaBoundaryModeZero = 0,
    cudaBoundaryModeClamp = 1,
    cudaBoundaryModeTrap = 2
};

struct cudaResourceDesc {
    cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void* devPtr;
            cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void* devPtr;
            cudaChannelFormatDesc desc;
            size_t width;
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
};
struct cudaTextureDesc {
    cudaTextureAddressMode addressMode[3];
    cudaTextureFilterMode filterMode;
    cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};
struct cudaResourceViewDesc;  // views of arrays are not emulated: pass nullptr

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

// ---- host calls ---------------------------------------------------------------------
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height = 0, unsigned int flags = 0);
cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned int flags = 0);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p);
// 3D pitched memory (host_memory.cpp): depth slices of height rows of width
// bytes, each row starting every pitch bytes (cudaMallocPitch's rows).
cudaError_t cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent,
                         const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE());
cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent,
                         const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE());
cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitched, int value, cudaExtent extent,
                              cudaStream_t stream = 0, const char* cuemu_file = __builtin_FILE(),
                              int cuemu_line = __builtin_LINE());
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream = 0);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array);
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset,
                                const void* src, size_t spitch, size_t width, size_t height,
                                cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src,
                                  size_t w_offset, size_t h_offset, size_t width, size_t height,
                                  cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset,
                                     const void* src, size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src,
                                       size_t w_offset, size_t h_offset, size_t width,
                                       size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream = 0);
// Deprecated since CUDA 10.1 but still declared by CUDA 13: a copy of count
// bytes that fills the array's rows from (w_offset, h_offset) on.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                              size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset,
                                size_t h_offset, size_t count, cudaMemcpyKind kind);

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* texture, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* description,
                                    const cudaResourceViewDesc* view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaTextureObject_t texture);
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* description,
                                            cudaTextureObject_t texture);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* surface, const cudaResourceDesc* resource);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surface);
cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaSurfaceObject_t surface);

// ---- the channel format of a C++ type -------------------------------------------------
namespace cuemu {
namespace texel {

// What a texel type is made of: its element type and how many of them.
template <class T>
struct shape {
    using element = T;
    static constexpr int count = 1;
    static constexpr bool known = std::is_arithmetic<T>::value && sizeof(T) <= 4;
};
#define CUEMU_TEXEL_SHAPE(vector, scalar, n) \
    template <>                              \
    struct shape<vector> {                   \
        using element = scalar;              \
        static constexpr int count = n;      \
        static constexpr bool known = true;  \
    };
#define CUEMU_TEXEL_SHAPES(prefix, scalar) \
    CUEMU_TEXEL_SHAPE(prefix##1, scalar, 1) \
    CUEMU_TEXEL_SHAPE(prefix##2, scalar, 2) \
    CUEMU_TEXEL_SHAPE(prefix##4, scalar, 4)
CUEMU_TEXEL_SHAPES(char, signed char)
CUEMU_TEXEL_SHAPES(uchar, unsigned char)
CUEMU_TEXEL_SHAPES(short, short)
CUEMU_TEXEL_SHAPES(ushort, unsigned short)
CUEMU_TEXEL_SHAPES(int, int)
CUEMU_TEXEL_SHAPES(uint, unsigned int)
CUEMU_TEXEL_SHAPES(float, float)
#undef CUEMU_TEXEL_SHAPES
#undef CUEMU_TEXEL_SHAPE

template <class T>
constexpr cudaChannelFormatKind kind_of() {
    using E = typename shape<T>::element;
    if (std::is_floating_point<E>::value) return cudaChannelFormatKindFloat;
    return std::is_signed<E>::value ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned;
}

// The result of one fetch, before it becomes the caller's type: four floats
// when the texture returns floating point (a float texture, a normalized read,
// any filtered read), otherwise four integers as stored.
struct fetched {
    bool is_float;
    float f[4];
    long long i[4];
};

// Where a fetch comes from, for the report when it cannot go on.
struct fetch_site {
    const char* call;
    const char* file;
    int line;
    const char* result_type;
    bool result_is_float;
    int result_count;
    int result_bytes;
};

void fetch(cudaTextureObject_t texture, int dimensions, bool integer_coordinates, float x,
           float y, float z, const fetch_site& site, fetched* out);
void surface_access(cudaSurfaceObject_t surface, int x_bytes, int y, int dimensions,
                    cudaSurfaceBoundaryMode mode, void* value, bool is_write,
                    const fetch_site& site);

template <class T>
constexpr fetch_site site_for(const char* call, const char* file, int line) {
    return fetch_site{call, file, line, __PRETTY_FUNCTION__, std::is_floating_point<typename shape<T>::element>::value,
                      shape<T>::count, static_cast<int>(sizeof(T))};
}

template <class T>
T to_result(const fetched& r) {
    using E = typename shape<T>::element;
    E parts[4];
    for (int c = 0; c < 4; ++c) parts[c] = r.is_float ? static_cast<E>(r.f[c]) : static_cast<E>(r.i[c]);
    T out;
    static_assert(sizeof(T) == sizeof(E) * shape<T>::count, "texel layout");
    __builtin_memcpy(&out, parts, sizeof(T));
    return out;
}

template <class T>
constexpr void check_texel_type() {
    static_assert(shape<T>::known,
                  "cuemu: a texture or surface returns char, short, int, float (signed or "
                  "unsigned) or their 1-, 2- and 4-wide vectors");
}

}  // namespace texel

template <class T>
cudaChannelFormatDesc channel_desc_of() {
    using texel::shape;
    constexpr int bits = static_cast<int>(sizeof(typename shape<T>::element)) * 8;
    constexpr int n = shape<T>::count;
    return cudaCreateChannelDesc(bits, n > 1 ? bits : 0, n > 2 ? bits : 0, n > 3 ? bits : 0,
                                 texel::kind_of<T>());
}
}  // namespace cuemu

// A type that is no texel format gets cudaChannelFormatKindNone, as in CUDA.
// (No `if constexpr`: the emulator's headers stay C++14.)
template <class T, typename std::enable_if<::cuemu::texel::shape<T>::known, int>::type = 0>
cudaChannelFormatDesc cudaCreateChannelDesc() {
    return ::cuemu::channel_desc_of<T>();
}
template <class T, typename std::enable_if<!::cuemu::texel::shape<T>::known, int>::type = 0>
cudaChannelFormatDesc cudaCreateChannelDesc() {
    return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}

#define CUEMU_TEXEL_CALLER \
    const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE()

// 16-bit float (half) channels: arrays and textures of them are made, and a
// fetch returns float (float2, float4), each texel widened exactly.
inline cudaChannelFormatDesc cudaCreateChannelDescHalf() {
    return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1() { return cudaCreateChannelDescHalf(); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2() {
    return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4() {
    return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}

// ---- device fetches --------------------------------------------------------------------
// The coordinates are as in CUDA: tex1Dfetch takes an element index into
// linear memory; tex1D and tex2D take texel coordinates (texel centres at
// i + 0.5) or, with normalizedCoords, coordinates in [0, 1).
template <class T>
T tex1Dfetch(cudaTextureObject_t texture, int index, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    ::cuemu::texel::fetched r;
    ::cuemu::texel::fetch(texture, 1, true, static_cast<float>(index), 0.0f, 0.0f,
                          ::cuemu::texel::site_for<T>("tex1Dfetch", cuemu_file, cuemu_line), &r);
    return ::cuemu::texel::to_result<T>(r);
}
template <class T>
T tex1D(cudaTextureObject_t texture, float x, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    ::cuemu::texel::fetched r;
    ::cuemu::texel::fetch(texture, 1, false, x, 0.0f, 0.0f, ::cuemu::texel::site_for<T>("tex1D", cuemu_file, cuemu_line), &r);
    return ::cuemu::texel::to_result<T>(r);
}
template <class T>
T tex2D(cudaTextureObject_t texture, float x, float y, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    ::cuemu::texel::fetched r;
    ::cuemu::texel::fetch(texture, 2, false, x, y, 0.0f, ::cuemu::texel::site_for<T>("tex2D", cuemu_file, cuemu_line), &r);
    return ::cuemu::texel::to_result<T>(r);
}
template <class T>
T tex3D(cudaTextureObject_t texture, float x, float y, float z, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    ::cuemu::texel::fetched r;
    ::cuemu::texel::fetch(texture, 3, false, x, y, z,
                          ::cuemu::texel::site_for<T>("tex3D", cuemu_file, cuemu_line), &r);
    return ::cuemu::texel::to_result<T>(r);
}
template <class T>
void tex3D(T* result, cudaTextureObject_t texture, float x, float y, float z) {
    *result = tex3D<T>(texture, x, y, z);
}
template <class T>
void tex1Dfetch(T* result, cudaTextureObject_t texture, int index) {
    *result = tex1Dfetch<T>(texture, index);
}
template <class T>
void tex1D(T* result, cudaTextureObject_t texture, float x) {
    *result = tex1D<T>(texture, x);
}
template <class T>
void tex2D(T* result, cudaTextureObject_t texture, float x, float y) {
    *result = tex2D<T>(texture, x, y);
}

// ---- surfaces ----------------------------------------------------------------------------
// x counts bytes, y rows, as in CUDA.
template <class T>
T surf2Dread(cudaSurfaceObject_t surface, int x, int y,
             cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    T value;
    ::cuemu::texel::surface_access(surface, x, y, 2, mode, &value, false,
                                   ::cuemu::texel::site_for<T>("surf2Dread", cuemu_file, cuemu_line));
    return value;
}
template <class T>
void surf2Dread(T* result, cudaSurfaceObject_t surface, int x, int y,
                cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
    *result = surf2Dread<T>(surface, x, y, mode);
}
template <class T>
void surf2Dwrite(T value, cudaSurfaceObject_t surface, int x, int y,
                 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    ::cuemu::texel::surface_access(surface, x, y, 2, mode, &value, true,
                                   ::cuemu::texel::site_for<T>("surf2Dwrite", cuemu_file, cuemu_line));
}
template <class T>
T surf1Dread(cudaSurfaceObject_t surface, int x,
             cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    T value;
    ::cuemu::texel::surface_access(surface, x, 0, 1, mode, &value, false,
                                   ::cuemu::texel::site_for<T>("surf1Dread", cuemu_file, cuemu_line));
    return value;
}
template <class T>
void surf1Dwrite(T value, cudaSurfaceObject_t surface, int x,
                 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap, CUEMU_TEXEL_CALLER) {
    ::cuemu::texel::check_texel_type<T>();
    ::cuemu::texel::surface_access(surface, x, 0, 1, mode, &value, true,
                                   ::cuemu::texel::site_for<T>("surf1Dwrite", cuemu_file, cuemu_line));
}

// ---- refused at build time ----------------------------------------------------------------
#define CUEMU_TEXTURE_NOT_EMULATED(name, what)                                           \
    template <class T = void, class... A>                                                \
    T name(A&&...) {                                                                     \
        static_assert(sizeof(T*) == 0, "cuemu does not emulate " #name " (" what "); "   \
                                       "build this program with nvcc for a GPU");        \
        return T();                                                                      \
    }
CUEMU_TEXTURE_NOT_EMULATED(tex1DLayered, "layered textures")
CUEMU_TEXTURE_NOT_EMULATED(tex2DLayered, "layered textures")
CUEMU_TEXTURE_NOT_EMULATED(texCubemap, "cubemap textures")
CUEMU_TEXTURE_NOT_EMULATED(texCubemapLayered, "cubemap textures")
CUEMU_TEXTURE_NOT_EMULATED(tex2Dgather, "texture gather")
CUEMU_TEXTURE_NOT_EMULATED(tex1DLod, "mipmapped textures")
CUEMU_TEXTURE_NOT_EMULATED(tex2DLod, "mipmapped textures")
CUEMU_TEXTURE_NOT_EMULATED(tex3DLod, "mipmapped textures")
CUEMU_TEXTURE_NOT_EMULATED(tex1DGrad, "mipmapped textures")
CUEMU_TEXTURE_NOT_EMULATED(tex2DGrad, "mipmapped textures")
CUEMU_TEXTURE_NOT_EMULATED(tex3DGrad, "mipmapped textures")
CUEMU_TEXTURE_NOT_EMULATED(surf3Dread, "3D surfaces")
CUEMU_TEXTURE_NOT_EMULATED(surf3Dwrite, "3D surfaces")
CUEMU_TEXTURE_NOT_EMULATED(surf1DLayeredread, "layered surfaces")
CUEMU_TEXTURE_NOT_EMULATED(surf1DLayeredwrite, "layered surfaces")
CUEMU_TEXTURE_NOT_EMULATED(surf2DLayeredread, "layered surfaces")
CUEMU_TEXTURE_NOT_EMULATED(surf2DLayeredwrite, "layered surfaces")
#undef CUEMU_TEXTURE_NOT_EMULATED
#undef CUEMU_TEXEL_CALLER

// The texture and surface references of older CUDA (texture<float, 2> t;
// cudaBindTexture...): CUDA 12 removed them, so nvcc 13 refuses them too.
template <class T, int dimensions = 1, cudaTextureReadMode mode = cudaReadModeElementType>
struct texture {
    static_assert(sizeof(T*) == 0,
                  "texture references (texture<T, dim, mode>) were removed in CUDA 12 (nvcc 13 "
                  "refuses them too): use a texture object (cudaTextureObject_t, "
                  "cudaCreateTextureObject, tex1Dfetch<T>/tex2D<T>)");
};
template <class T, int dimensions = 1>
struct surface {
    static_assert(sizeof(T*) == 0,
                  "surface references (surface<void, dim>) were removed in CUDA 12 (nvcc 13 "
                  "refuses them too): use a surface object (cudaSurfaceObject_t, "
                  "cudaCreateSurfaceObject, surf2Dread/surf2Dwrite)");
};

#endif
