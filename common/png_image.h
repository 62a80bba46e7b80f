// png_image.h - grey pictures in and out of PNG files, for lesson 16, and a
// line chart drawn as such a picture, for lesson 20's loss curve.
//
// A picture here is width x height floats in [0, 1], row by row (0 black,
// 1 white). Reading accepts any PNG libpng reads (grey, colour, palette,
// 16-bit, with alpha) and turns it into 8-bit grey with libpng's own
// conversion; writing rounds each float to the nearest of 256 grey levels.
// Uses libpng's "simplified API" (png_image_*, libpng 1.6 and later), which
// handles every PNG variant in a few calls. Failures return false and put
// one line in *error; they never end the program.
#ifndef TUTORIAL_PNG_IMAGE_H
#define TUTORIAL_PNG_IMAGE_H

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

struct GreyPicture {
    int width = 0, height = 0;
    std::vector<float> pixels;  // width * height, row-major, 0 (black) to 1 (white)
};

// The largest side this tutorial accepts: a 16384 x 16384 picture is already
// a gigabyte of floats.
const int kMaxPictureSide = 16384;

inline bool read_png_grey(const char* path, GreyPicture* picture, std::string* error) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        *error = std::string("cannot read ") + path + ": " + image.message;
        return false;
    }
    if (image.width < 1 || image.height < 1 || image.width > (png_uint_32)kMaxPictureSide ||
        image.height > (png_uint_32)kMaxPictureSide) {
        *error = std::string(path) + " is " + std::to_string(image.width) + " x " +
                 std::to_string(image.height) + " pixels; this program takes sides of 1 to " +
                 std::to_string(kMaxPictureSide);
        png_image_free(&image);
        return false;
    }
    image.format = PNG_FORMAT_GRAY;  // libpng converts colour to grey and drops alpha
    std::vector<png_byte> bytes(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, bytes.data(), 0, nullptr)) {
        *error = std::string("cannot decode ") + path + ": " + image.message;
        return false;
    }
    picture->width = (int)image.width;
    picture->height = (int)image.height;
    picture->pixels.resize(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) picture->pixels[i] = bytes[i] / 255.0f;
    return true;
}

// The grey level (0 to 255) a float in [0, 1] is written as: out-of-range
// values are clamped, the rest rounded to the nearest level.
inline png_byte grey_level(float value) {
    float clamped = std::min(std::max(value, 0.0f), 1.0f);
    return (png_byte)std::lround(clamped * 255.0f);
}

inline bool write_png_grey(const char* path, const GreyPicture& picture, std::string* error) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)picture.width;
    image.height = (png_uint_32)picture.height;
    image.format = PNG_FORMAT_GRAY;
    std::vector<png_byte> bytes(picture.pixels.size());
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = grey_level(picture.pixels[i]);
    if (!png_image_write_to_file(&image, path, 0, bytes.data(), 0, nullptr)) {
        *error = std::string("cannot write ") + path + ": " + image.message;
        return false;
    }
    return true;
}

// A line chart of values[0..n) (n >= 1) as a width x height picture: white
// ground, black axes along the left and bottom, light grey lines at a
// quarter, a half and three quarters of the largest value, the values joined
// by a black line from left to right. The vertical axis runs from 0 to the
// largest value (a loss curve is positive); the caller says in words what the
// axes mean. Negative values are drawn at 0.
inline GreyPicture draw_line_chart(const std::vector<float>& values, int width, int height) {
    GreyPicture chart;
    chart.width = width;
    chart.height = height;
    chart.pixels.assign((size_t)width * height, 1.0f);
    const int margin = 8;  // blank space around the plot
    const int left = margin, right = width - 1 - margin, bottom = height - 1 - margin, top = margin;
    if (values.empty() || right <= left || bottom <= top) return chart;
    auto set = [&](int x, int y, float level) {
        if (x >= 0 && x < width && y >= 0 && y < height) chart.pixels[(size_t)y * width + x] = level;
    };
    float largest = 0.0f;
    for (float v : values) largest = std::max(largest, v);
    if (!(largest > 0.0f)) largest = 1.0f;
    for (int quarter = 1; quarter <= 3; ++quarter)
        for (int x = left; x <= right; x += 2) set(x, bottom - (bottom - top) * quarter / 4, 0.75f);
    for (int x = left; x <= right; ++x) set(x, bottom, 0.0f);
    for (int y = top; y <= bottom; ++y) set(left, y, 0.0f);
    // The point of value i, in pixels.
    auto px = [&](size_t i) {
        return values.size() == 1 ? (double)left
                                  : left + (double)(right - left) * i / (values.size() - 1);
    };
    auto py = [&](size_t i) {
        double v = std::max(values[i], 0.0f) / largest;
        return bottom - (bottom - top) * v;
    };
    for (size_t i = 0; i + 1 < values.size() || i == 0; ++i) {
        const size_t j = values.size() == 1 ? 0 : i + 1;
        // Enough steps that neighbouring dots touch.
        const double dx = px(j) - px(i), dy = py(j) - py(i);
        const int steps = 1 + (int)std::ceil(std::max(std::fabs(dx), std::fabs(dy)));
        for (int k = 0; k <= steps; ++k) {
            double t = (double)k / steps;
            set((int)std::lround(px(i) + dx * t), (int)std::lround(py(i) + dy * t), 0.0f);
        }
        if (values.size() == 1) break;
    }
    return chart;
}

#endif
