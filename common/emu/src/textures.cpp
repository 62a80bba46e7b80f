// textures.cpp - texture and surface objects: their creation on the host and
// the fetches kernels make through them (tex1Dfetch, tex1D, tex2D, tex3D,
// surf1D/2Dread and write).
//
// A fetch follows the CUDA C++ Programming Guide's appendix on texture
// fetching, with the details measured on an H200 where the guide leaves them
// open (scaled_normalized, split_for_filtering and the weights in fetch):
// coordinates are scaled when normalized; point filtering takes the texel
// floor(x); linear filtering blends the texels around x - 0.5 with weights
// in 256ths. Addresses outside the texture are wrapped, mirrored, clamped or
// replaced by the border colour.
// Wrap and mirror exist only for normalized coordinates; with texel
// coordinates a GPU clamps, and so does the emulator (a zeroed descriptor
// asks for wrap, so this is common).
//
// Handles count up from 1 and are never reused, so a destroyed object used
// in a kernel is found out and reported, not read; so is an object whose
// CUDA array was freed.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "cuemu/builtins.h"
#include "cuemu/fp_round.h"
#include "internal.h"
#include "texture_internal.h"

namespace cuemu::detail {
namespace {

constexpr std::size_t texture_alignment = 512;        // cudaDevAttrTextureAlignment
constexpr std::size_t texture_pitch_alignment = 32;  // cudaDevAttrTexturePitchAlignment

// What one object reads: rows of `width` elements, `pitch` bytes apart.
struct texel_source {
    unsigned char* base;
    std::size_t pitch;
    long long width;
    long long height;
    long long depth;
    std::size_t slice_pitch;
    int dimensions;  // 1: linear memory or a 1D array; 2: pitched memory or a 2D array; 3: a 3D array
    bool linear_memory;
    texel_format format;
    bool array_freed = false;  // cudaFreeArray took the array from under the object
};

struct texture_object {
    cudaResourceDesc resource;
    cudaTextureDesc description;
    texel_source source;
    bool returns_float;
};
struct surface_object {
    cudaResourceDesc resource;
    texel_source source;
};

std::shared_mutex objects_lock;
// Never destroyed, like the array set (cuda_arrays.cpp): a kernel still
// fetching while the process exits finds them whole.
using texture_table = std::map<unsigned long long, texture_object>;
using surface_table = std::map<unsigned long long, surface_object>;
texture_table& textures = *new texture_table;
surface_table& surfaces = *new surface_table;
unsigned long long last_handle = 0;
// Every change to the objects (made, destroyed, their array freed) counts
// one, under objects_lock held for writing. A fetch keeps the last object it
// looked up, per worker, with the count it saw: while the count is the same
// the copy is the object, and the fetch takes no lock. Taking the shared lock
// for every texel was more than half of NVIDIA's convolutionTexture sample's
// time with two workers (the lock's word bouncing between their cores).
std::atomic<std::uint64_t> objects_changed{0};
void note_objects_changed() { objects_changed.fetch_add(1, std::memory_order_release); }

template <class Object>
struct lookup_cache {
    unsigned long long handle = 0;
    std::uint64_t changes = ~std::uint64_t{0};
    bool found = false;
    unsigned long long newest = 0;
    Object object{};
};

// The object `handle` names, as `table` holds it now: from this worker's
// cache while nothing changed since it was filled.
template <class Object>
const lookup_cache<Object>& look_up(std::map<unsigned long long, Object>& table, lookup_cache<Object>& cache,
                                    unsigned long long handle) {
    const std::uint64_t changes = objects_changed.load(std::memory_order_acquire);
    if (cache.handle == handle && cache.changes == changes) return cache;
    std::shared_lock<std::shared_mutex> hold(objects_lock);
    cache.handle = handle;
    cache.changes = objects_changed.load(std::memory_order_relaxed);  // the lock keeps it still
    cache.newest = last_handle;
    const auto at = table.find(handle);
    cache.found = at != table.end();
    if (cache.found) cache.object = at->second;
    return cache;
}
thread_local lookup_cache<texture_object> texture_cache;
thread_local lookup_cache<surface_object> surface_cache;

// A texture's base must be textureAlignment-aligned. A GPU's allocations
// start at least that aligned; the emulator's start wherever their end meets
// a guard page, so the test is the offset from the allocation's start.
bool aligned_for_texture(const void* p, std::size_t alignment) {
    allocation_info where;
    if (!find_allocation(p, &where) || where.freed) return false;
    return static_cast<std::size_t>(static_cast<const char*>(p) - where.begin) % alignment == 0;
}

// Where the texels of an array are.
texel_source array_source(cudaArray* a) {
    return texel_source{a->bytes.data(), a->row_bytes(),
                        static_cast<long long>(a->width), static_cast<long long>(a->height),
                        static_cast<long long>(a->depth), a->slice_bytes(), a->dimensions,
                        false, a->format};
}

cudaError_t source_of(const cudaResourceDesc& r, texel_source* out) {
    switch (r.resType) {
        case cudaResourceTypeArray: {
            cudaArray* a = find_array(r.res.array.array);
            if (!a) return record(cudaErrorInvalidResourceHandle);
            *out = array_source(a);
            return cudaSuccess;
        }
        case cudaResourceTypeLinear: {
            const auto& l = r.res.linear;
            texel_format format;
            if (cudaError_t e = check_channel_format(l.desc, &format))
                return e;
            if (!l.devPtr || l.sizeInBytes == 0 ||
                !aligned_for_texture(l.devPtr, texture_alignment) ||
                !is_device_range(l.devPtr, l.sizeInBytes))
                return record(cudaErrorInvalidValue);
            *out = texel_source{static_cast<unsigned char*>(l.devPtr), l.sizeInBytes,
                                static_cast<long long>(l.sizeInBytes / format.element_bytes()),
                                1, 1, l.sizeInBytes, 1, true, format};
            return cudaSuccess;
        }
        case cudaResourceTypePitch2D: {
            const auto& p = r.res.pitch2D;
            texel_format format;
            if (cudaError_t e = check_channel_format(p.desc, &format))
                return e;
            if (!p.devPtr || p.width == 0 || p.height == 0 ||
                !aligned_for_texture(p.devPtr, texture_alignment) ||
                p.pitchInBytes % texture_pitch_alignment != 0 ||
                p.width * format.element_bytes() > p.pitchInBytes ||
                !is_device_range(p.devPtr, p.pitchInBytes * (p.height - 1) +
                                               p.width * format.element_bytes()))
                return record(cudaErrorInvalidValue);
            *out = texel_source{static_cast<unsigned char*>(p.devPtr), p.pitchInBytes,
                                static_cast<long long>(p.width), static_cast<long long>(p.height),
                                1, p.pitchInBytes * p.height, 2, false, format};
            return cudaSuccess;
        }
        case cudaResourceTypeMipmappedArray:
            std::fprintf(stderr,
                         "cuemu: cudaCreateTextureObject: mipmapped arrays are not emulated; "
                         "build this program with nvcc for a GPU\n");
            return record(cudaErrorNotSupported);
    }
    return record(cudaErrorInvalidValue);
}

// ---- reading one texel --------------------------------------------------------------------
long long load_integer(const unsigned char* at, const texel_format& f) {
    const bool is_signed = f.kind == cudaChannelFormatKindSigned;
    switch (f.channel_bytes) {
        case 1: {
            std::uint8_t v;
            std::memcpy(&v, at, 1);
            return is_signed ? static_cast<std::int8_t>(v) : v;
        }
        case 2: {
            std::uint16_t v;
            std::memcpy(&v, at, 2);
            return is_signed ? static_cast<std::int16_t>(v) : v;
        }
        default: {
            std::uint32_t v;
            std::memcpy(&v, at, 4);
            return is_signed ? static_cast<std::int32_t>(v) : static_cast<long long>(v);
        }
    }
}

// An integer channel as the normalized float read mode gives it: unsigned
// to [0, 1], signed to [-1, 1] (the most negative value also to -1).
float normalized(long long v, const texel_format& f) {
    const int bits = f.channel_bytes * 8;
    if (f.kind == cudaChannelFormatKindUnsigned)
        return static_cast<float>(v) / static_cast<float>((1ll << bits) - 1);
    const float scaled = static_cast<float>(v) / static_cast<float>((1ll << (bits - 1)) - 1);
    return scaled < -1.0f ? -1.0f : scaled;
}

void read_texel(const texture_object& t, long long x, long long y, long long z,
                texel::fetched* out) {
    const texel_source& s = t.source;
    const unsigned char* at =
        s.base + z * s.slice_pitch + y * s.pitch + x * s.format.element_bytes();
    for (int c = 0; c < 4; ++c) {
        out->f[c] = 0.0f;
        out->i[c] = 0;
    }
    for (int c = 0; c < s.format.channels; ++c) {
        const unsigned char* channel = at + c * s.format.channel_bytes;
        if (s.format.kind == cudaChannelFormatKindFloat && s.format.channel_bytes == 2) {
            // Half: promoted to float before any filtering (Programming
            // Guide, "16-Bit Floating-Point Textures"); every half is a float.
            std::uint16_t bits;
            std::memcpy(&bits, channel, 2);
            out->f[c] = static_cast<float>(fp::value_of(bits, fp::binary16));
        } else if (s.format.kind == cudaChannelFormatKindFloat) {
            std::memcpy(&out->f[c], channel, 4);
        } else {
            const long long v = load_integer(channel, s.format);
            out->i[c] = v;
            out->f[c] = normalized(v, s.format);
        }
    }
    out->is_float = t.returns_float;
}

void border_texel(const texture_object& t, texel::fetched* out) {
    for (int c = 0; c < 4; ++c) {
        out->f[c] = t.description.borderColor[c];
        out->i[c] = static_cast<long long>(t.description.borderColor[c]);
    }
    out->is_float = t.returns_float;
}

// Maps a texel index onto the texture by the address mode; false where the
// border colour stands instead.
// The address mode a coordinate gets: wrap and mirror exist only for
// normalized coordinates; with texel coordinates they clamp.
cudaTextureAddressMode effective_mode(cudaTextureAddressMode mode, bool normalized_coords) {
    if (!normalized_coords && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror))
        return cudaAddressModeClamp;
    return mode;
}

bool address(long long i, long long size, cudaTextureAddressMode mode, bool normalized_coords,
             long long* out) {
    switch (effective_mode(mode, normalized_coords)) {
        case cudaAddressModeWrap:
            *out = ((i % size) + size) % size;
            return true;
        case cudaAddressModeMirror: {
            const long long m = ((i % (2 * size)) + 2 * size) % (2 * size);
            *out = m < size ? m : 2 * size - 1 - m;
            return true;
        }
        case cudaAddressModeBorder:
            *out = i;
            return i >= 0 && i < size;
        default:
            *out = i < 0 ? 0 : (i >= size ? size - 1 : i);
            return true;
    }
}

void texel_at(const texture_object& t, long long i, long long j, long long k,
              texel::fetched* out) {
    const bool normalized_coords = t.description.normalizedCoords != 0;
    const cudaTextureAddressMode* modes = t.description.addressMode;
    long long x = 0, y = 0, z = 0;
    if (!address(i, t.source.width, modes[0], normalized_coords, &x) ||
        (t.source.dimensions >= 2 &&
         !address(j, t.source.height, modes[1], normalized_coords, &y)) ||
        (t.source.dimensions == 3 &&
         !address(k, t.source.depth, modes[2], normalized_coords, &z))) {
        border_texel(t, out);
        return;
    }
    read_texel(t, x, y, z, out);
}

// A coordinate kept where floor() of it is a valid texel index (NaN to 0).
float tame(float v) {
    if (!(v == v)) return 0.0f;
    return v < -1e9f ? -1e9f : (v > 1e9f ? 1e9f : v);
}

// A normalized coordinate as a texel coordinate. Measured on an H200
// (docs/gpu-runs/2026-11-30-h200.md, tests/emu/texture_fetch_dump.cu): the
// texture unit keeps the normalized coordinate in fixed point with 21
// fractional bits (truncated) and scales it by the size exactly. Wrap keeps
// the fraction there; mirror does not fold the coordinate at all: the texels
// it filters between are mirrored by address(), so that in a mirrored period
// the weights are still those of the unfolded coordinate (which decides
// which corner of a 2D fetch is rounded: the H200's 1D sweep through three
// mirrored periods matched only this way).
double scaled_normalized(float u, long long size, cudaTextureAddressMode mode) {
    constexpr long long one = 1ll << 21;
    long long q = static_cast<long long>(std::floor(static_cast<double>(u) * one));
    if (mode == cudaAddressModeWrap) q = ((q % one) + one) % one;
    return static_cast<double>(q) * static_cast<double>(size) / static_cast<double>(one);
}

// Linear filtering's split of a texel coordinate: the texel below x - 0.5 and
// the weight of the one above, in 256ths (rounded to nearest, halves up), as
// the texture unit keeps it: 9-bit fixed point, 8 bits of fraction.
void split_for_filtering(double x, long long* low, int* weight) {
    const double shifted = x - 0.5;
    long long i = static_cast<long long>(std::floor(shifted));
    int a = static_cast<int>(std::floor((shifted - static_cast<double>(i)) * 256.0 + 0.5));
    if (a == 256) {
        ++i;
        a = 0;
    }
    *low = i;
    *weight = a;
}

// The T of the fetch's template, from the signature the header recorded.
void result_type_of(const texel::fetch_site& site, char* out, std::size_t size) {
    const char* from = std::strstr(site.result_type, "T = ");
    if (!from) {
        std::snprintf(out, size, "T");
        return;
    }
    from += 4;
    std::size_t n = std::strcspn(from, ";]");
    std::snprintf(out, size, "%.*s", static_cast<int>(n), from);
}

// Stops the kernel; kernel_cannot_go_on does not return, so the caller holds
// no lock and nothing with a destructor when it calls this.
[[noreturn]] void refuse_fetch(const texel::fetch_site& site, const char* what,
                               const char* hint) {
    char type[128];
    result_type_of(site, type, sizeof type);
    char headline[256];
    std::snprintf(headline, sizeof headline, "%s<%s> refused", site.call, type);
    char indented[320];
    std::snprintf(indented, sizeof indented, "  %s", what);
    kernel_cannot_go_on(headline, indented, hint,
                        "the result is undefined or the kernel stops with an error", site.file,
                        site.line);
}

// Why a handle names no object; `newest` is the last handle made.
const char* gone_or_never(unsigned long long handle, unsigned long long newest) {
    return handle != 0 && handle <= newest ? "was destroyed" : "was never created";
}

}  // namespace

void forget_array(const cudaArray* array) {
    std::unique_lock<std::shared_mutex> hold(objects_lock);
    auto over_array = [array](const cudaResourceDesc& r) {
        return r.resType == cudaResourceTypeArray && r.res.array.array == array;
    };
    for (auto& entry : textures)
        if (over_array(entry.second.resource)) entry.second.source.array_freed = true;
    for (auto& entry : surfaces)
        if (over_array(entry.second.resource)) entry.second.source.array_freed = true;
    note_objects_changed();
}

}  // namespace cuemu::detail

namespace cuemu::texel {

using namespace cuemu::detail;

void fetch(cudaTextureObject_t handle, int dimensions, bool integer_coordinates, float x, float y,
           float z, const fetch_site& site, fetched* out) {
    const lookup_cache<texture_object>& looked_up = look_up(textures, texture_cache, handle);
    const texture_object& t = looked_up.object;
    const unsigned long long newest = looked_up.newest;
    char what[256];
    if (!looked_up.found) {
        std::snprintf(what, sizeof what, "texture object %llu %s", handle, gone_or_never(handle, newest));
        refuse_fetch(site, what,
                     "create the texture object before the launch and destroy it only after "
                     "the kernels that read it have finished");
    }
    if (t.source.array_freed) {
        std::snprintf(what, sizeof what,
                      "the CUDA array of texture object %llu was freed (cudaFreeArray)", handle);
        refuse_fetch(site, what, "free the array only after destroying the objects over it");
    }
    if (site.result_is_float != t.returns_float)
        refuse_fetch(site,
                     t.returns_float ? "this texture returns floating point (a float texture, "
                                       "or the normalized float read mode), not integers"
                                     : "this texture returns the integers it stores "
                                       "(cudaReadModeElementType), not floating point",
                     "ask for float types from a float or normalized texture, integer types "
                     "otherwise");
    if (integer_coordinates != t.source.linear_memory)
        refuse_fetch(site,
                     integer_coordinates ? "tex1Dfetch reads only textures over linear memory "
                                           "(cudaResourceTypeLinear)"
                                         : "textures over linear memory are read with "
                                           "tex1Dfetch, by element index",
                     "match the fetch to the texture's resource type");
    if (dimensions != t.source.dimensions) {
        std::snprintf(what, sizeof what, "the texture has %d dimension(s), the fetch %d",
                      t.source.dimensions, dimensions);
        refuse_fetch(site, what,
                     "use tex1D for one-dimensional arrays, tex2D for two-dimensional ones and "
                     "pitched memory, tex3D for three-dimensional arrays");
    }
    if (integer_coordinates) {
        const long long index = static_cast<long long>(tame(x));
        if (index < 0 || index >= t.source.width) {
            // Outside the memory a linear texture reads zero.
            for (int c = 0; c < 4; ++c) {
                out->f[c] = 0.0f;
                out->i[c] = 0;
            }
            out->is_float = t.returns_float;
            return;
        }
        read_texel(t, index, 0, 0, out);
        return;
    }
    const float given[3] = {x, y, z};
    const long long sizes[3] = {t.source.width, t.source.height, t.source.depth};
    const cudaTextureAddressMode* modes = t.description.addressMode;
    double at[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < dimensions; ++d) {
        const float v = tame(given[d]);
        at[d] = t.description.normalizedCoords ? scaled_normalized(v, sizes[d], modes[d]) : v;
    }
    if (t.description.filterMode == cudaFilterModePoint) {
        texel_at(t, static_cast<long long>(std::floor(at[0])),
                 static_cast<long long>(std::floor(at[1])),
                 static_cast<long long>(std::floor(at[2])), out);
        return;
    }
    // Linear filtering: the 2, 4 or 8 texels around at - 0.5, weighted in
    // 256ths; the sum is kept exactly and rounded once to float.
    // In clamp mode the coordinate itself is clamped to the texel centres at
    // the edges first: the same texels either way, but in 3D the rounding of
    // the weights depends on it (measured on an H200).
    long long low[3] = {0, 0, 0};
    int weight[3] = {0, 0, 0};
    for (int d = 0; d < dimensions; ++d) {
        if (effective_mode(modes[d], t.description.normalizedCoords) == cudaAddressModeClamp)
            at[d] = std::min(std::max(at[d], 0.5), static_cast<double>(sizes[d]) - 0.5);
        split_for_filtering(at[d], &low[d], &weight[d]);
    }
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    auto add = [&](double w, const fetched& texel) {
        for (int c = 0; c < 4; ++c) sum[c] += w * texel.f[c];
    };
    if (dimensions <= 2) {
        // Measured on an H200: the four weights of a 2D fetch are the two
        // marginals a and b and the corner ab rounded to 256ths (halves up),
        // the others what is left: w11 = round(ab/256), w10 = a - w11,
        // w01 = b - w11, w00 = 256 - a - b + w11. A 1D array is filtered as a
        // row of a 2D texture read at y = 0, half way between its row and the
        // row below, which the address mode of y places: the row itself,
        // except in border mode, where the border colour takes half the weight.
        const int a = weight[0];
        const int b = dimensions == 2 ? weight[1] : 128;
        const int w11 = (a * b + 128) / 256;
        const int w[4] = {256 - a - b + w11, a - w11, b - w11, w11};
        const texel_format& format = t.source.format;
        if (dimensions == 2 && format.kind == cudaChannelFormatKindFloat && format.channel_bytes == 4 &&
            modes[0] != cudaAddressModeBorder && modes[1] != cudaAddressModeBorder) {
            // The usual float texture, without a border: its four texels read
            // in place (the same sums, in the same order, as the loop below).
            const bool normalized_coords = t.description.normalizedCoords != 0;
            long long xs[2], ys[2];
            for (int k = 0; k < 2; ++k) {
                address(low[0] + k, t.source.width, modes[0], normalized_coords, &xs[k]);
                address(low[1] + k, t.source.height, modes[1], normalized_coords, &ys[k]);
            }
            const long long element = format.element_bytes();
            const unsigned char* texels[4];
            for (int corner = 0; corner < 4; ++corner)
                texels[corner] = t.source.base + ys[corner >> 1] * t.source.pitch + xs[corner & 1] * element;
            auto channel_sum = [&](int c) {  // kept in a register across the corners
                double channel = 0.0;
                for (int corner = 0; corner < 4; ++corner) {
                    float f;
                    std::memcpy(&f, texels[corner] + 4 * c, 4);
                    channel += (w[corner] / 256.0) * f;
                }
                return channel;
            };
            for (int c = 0; c < format.channels; ++c) sum[c] = channel_sum(c);
            for (int c = 0; c < 4; ++c) {
                out->f[c] = static_cast<float>(sum[c]);
                out->i[c] = 0;
            }
            out->is_float = true;
            return;
        }
        for (int corner = 0; corner < 4; ++corner) {
            const long long i = low[0] + (corner & 1);
            fetched texel;
            if (dimensions == 2) {
                texel_at(t, i, low[1] + (corner >> 1), 0, &texel);
            } else if (corner < 2 && modes[1] == cudaAddressModeBorder) {
                border_texel(t, &texel);
            } else {
                texel_at(t, i, 0, 0, &texel);
            }
            add(w[corner] / 256.0, texel);
        }
    } else {
        // 3D, measured on an H200 (weights read off a texture of one
        // non-zero texel): x and z are paired first by the 2D rule, then each
        // of those four weights is split between the two y neighbours, the
        // lower one getting round(w (256 - b) / 256). This gives the GPU's
        // weights in 4781 of 4913 measured cases; in the others one pair of
        // corners differs by 1/256.
        const int a = weight[0], b = weight[1], c = weight[2];
        const int xz = (a * c + 128) / 256;
        const int paired[4] = {256 - a - c + xz, a - xz, c - xz, xz};  // (x, z): 00, 10, 01, 11
        for (int pair = 0; pair < 4; ++pair) {
            const int below = (paired[pair] * (256 - b) + 128) / 256;
            const int split[2] = {below, paired[pair] - below};
            for (int high_y = 0; high_y < 2; ++high_y) {
                fetched texel;
                texel_at(t, low[0] + (pair & 1), low[1] + high_y, low[2] + (pair >> 1), &texel);
                add(split[high_y] / 256.0, texel);
            }
        }
    }
    for (int c = 0; c < 4; ++c) {
        out->f[c] = static_cast<float>(sum[c]);
        out->i[c] = 0;
    }
    out->is_float = true;
}

void surface_access(cudaSurfaceObject_t handle, int x_bytes, int y, int dimensions,
                    cudaSurfaceBoundaryMode mode, void* value, bool is_write,
                    const fetch_site& site) {
    const lookup_cache<surface_object>& looked_up = look_up(surfaces, surface_cache, handle);
    const texel_source& s = looked_up.object.source;
    const unsigned long long newest = looked_up.newest;
    char what[256];
    if (!looked_up.found) {
        std::snprintf(what, sizeof what, "surface object %llu %s", handle, gone_or_never(handle, newest));
        refuse_fetch(site, what,
                     "create the surface object before the launch and destroy it only after "
                     "the kernels that use it have finished");
    }
    if (s.array_freed) {
        std::snprintf(what, sizeof what,
                      "the CUDA array of surface object %llu was freed (cudaFreeArray)", handle);
        refuse_fetch(site, what, "free the array only after destroying the objects over it");
    }
    const int element = s.format.element_bytes();
    if (site.result_bytes != element) {
        std::snprintf(what, sizeof what, "the array's elements are %d bytes, the type %d bytes",
                      element, site.result_bytes);
        refuse_fetch(site, what, "read and write a type of the array's element size");
    }
    if (dimensions != s.dimensions) {
        std::snprintf(what, sizeof what, "the surface's array has %d dimension(s), the access %d",
                      s.dimensions, dimensions);
        refuse_fetch(site, what,
                     "use surf1D* for one-dimensional arrays and surf2D* for two-dimensional");
    }
    if (x_bytes % element != 0) {
        std::snprintf(what, sizeof what, "x = %d is not a multiple of the %d-byte element",
                      x_bytes, element);
        refuse_fetch(site, what,
                     "a surface's x coordinate counts bytes: multiply the element index by "
                     "sizeof(element)");
    }
    long long x = x_bytes / element;
    long long row = y;
    const bool inside = x >= 0 && x < s.width && row >= 0 && row < s.height;
    if (!inside) {
        if (mode == cudaBoundaryModeZero) {
            if (!is_write) std::memset(value, 0, element);
            return;
        }
        if (mode == cudaBoundaryModeClamp) {
            x = x < 0 ? 0 : (x >= s.width ? s.width - 1 : x);
            row = row < 0 ? 0 : (row >= s.height ? s.height - 1 : row);
        } else {
            // stop_kernel_with keeps the headline's pointer beyond this frame,
            // which its jump abandons: a string literal for each call.
            static const char* const headlines[] = {
                "surf1Dread outside the surface", "surf1Dwrite outside the surface",
                "surf2Dread outside the surface", "surf2Dwrite outside the surface"};
            const char* headline = headlines[(dimensions == 2 ? 2 : 0) + (is_write ? 1 : 0)];
            std::snprintf(what, sizeof what,
                          "  (x = %d bytes, y = %d) is outside the array of %lld x %lld elements "
                          "of %d bytes",
                          x_bytes, y, s.width, s.height, element);
            // An H200 (CUDA 13.0) ends such a launch with cudaErrorIllegalAddress.
            detail::stop_kernel_with(cudaErrorIllegalAddress, headline, what,
                                     "keep x below width * sizeof(element) and y below height, or "
                                     "pass cudaBoundaryModeClamp or cudaBoundaryModeZero",
                                     "cudaBoundaryModeTrap stops the kernel with an illegal address error",
                                     site.file, site.line);
        }
    }
    unsigned char* at = s.base + row * s.pitch + x * element;
    if (is_write)
        std::memcpy(at, value, element);
    else
        std::memcpy(value, at, element);
}

}  // namespace cuemu::texel

using namespace cuemu::detail;

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* texture, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* description,
                                    const cudaResourceViewDesc* view) {
    if (cudaError_t e = context_status()) return e;
    if (!texture || !resource || !description) return record(cudaErrorInvalidValue);
    if (view) {
        std::fprintf(stderr, "cuemu: cudaCreateTextureObject: resource views are not emulated; "
                             "pass nullptr\n");
        return record(cudaErrorNotSupported);
    }
    texture_object made{*resource, *description, {}, false};
    if (cudaError_t e = source_of(*resource, &made.source)) return e;
    const texel_format& f = made.source.format;
    const bool integer = f.kind != cudaChannelFormatKindFloat;
    if (integer && f.channel_bytes == 4 &&
        description->readMode == cudaReadModeNormalizedFloat)
        return record(cudaErrorInvalidNormSetting);
    made.returns_float = !integer || description->readMode == cudaReadModeNormalizedFloat;
    // Filtering blends values, so it needs floating-point results.
    if (description->filterMode == cudaFilterModeLinear && !made.returns_float)
        return record(cudaErrorInvalidFilterSetting);
    if (description->filterMode != cudaFilterModePoint &&
        description->filterMode != cudaFilterModeLinear)
        return record(cudaErrorInvalidValue);
    std::unique_lock<std::shared_mutex> hold(objects_lock);
    *texture = ++last_handle;
    textures.emplace(*texture, made);
    note_objects_changed();
    return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture) {
    if (cudaError_t e = context_status()) return e;
    std::unique_lock<std::shared_mutex> hold(objects_lock);
    if (textures.erase(texture) == 0) return record(cudaErrorInvalidValue);
    note_objects_changed();
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaTextureObject_t texture) {
    std::shared_lock<std::shared_mutex> hold(objects_lock);
    const auto found = textures.find(texture);
    if (!resource || found == textures.end()) return record(cudaErrorInvalidValue);
    *resource = found->second.resource;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* description,
                                            cudaTextureObject_t texture) {
    std::shared_lock<std::shared_mutex> hold(objects_lock);
    const auto found = textures.find(texture);
    if (!description || found == textures.end()) return record(cudaErrorInvalidValue);
    *description = found->second.description;
    return cudaSuccess;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* surface,
                                    const cudaResourceDesc* resource) {
    if (cudaError_t e = context_status()) return e;
    if (!surface || !resource) return record(cudaErrorInvalidValue);
    if (resource->resType != cudaResourceTypeArray) return record(cudaErrorInvalidValue);
    cudaArray* a = find_array(resource->res.array.array);
    if (!a) return record(cudaErrorInvalidResourceHandle);
    // Without cudaArraySurfaceLoadStore too: an H200 (CUDA 13.0) made such a
    // surface object (docs/gpu-runs/2026-11-30-h200.md). What its reads and
    // writes do there was not measured; here they work as on a flagged array.
    std::unique_lock<std::shared_mutex> hold(objects_lock);
    *surface = ++last_handle;
    surfaces.emplace(*surface, surface_object{*resource, array_source(a)});
    note_objects_changed();
    return cudaSuccess;
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surface) {
    if (cudaError_t e = context_status()) return e;
    std::unique_lock<std::shared_mutex> hold(objects_lock);
    if (surfaces.erase(surface) == 0) return record(cudaErrorInvalidValue);
    note_objects_changed();
    return cudaSuccess;
}

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* resource,
                                             cudaSurfaceObject_t surface) {
    std::shared_lock<std::shared_mutex> hold(objects_lock);
    const auto found = surfaces.find(surface);
    if (!resource || found == surfaces.end()) return record(cudaErrorInvalidValue);
    *resource = found->second.resource;
    return cudaSuccess;
}
