// main.cpp - the cuemu-rewrite command: reads one .cu file, writes the C++
// file the emulator build compiles (see rewrite.h for what changes).
//
//   cuemu-rewrite INPUT.cu OUTPUT.cpp
//
// Errors are printed as INPUT:LINE:COL: error: MESSAGE, the format editors
// and IDEs jump to. On any error OUTPUT is not left behind (not even an old
// one), so a build can never go on with a stale or half-written file.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

#include "rewrite.h"

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_whole_file(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
}

void remove_quietly(const fs::path& path) {
    std::error_code ignored;
    fs::remove(path, ignored);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: cuemu-rewrite INPUT.cu OUTPUT.cpp\n";
        return 2;
    }
    const std::string input = argv[1];
    const fs::path output = argv[2];

    errno = 0;
    const std::optional<std::string> source = read_whole_file(input);
    if (!source) {
        std::error_code ec;
        const bool exists = fs::exists(input, ec);
        std::cerr << "cuemu-rewrite: cannot read '" << input << "': "
                  << (!exists ? "no such file"
                      : fs::is_directory(input, ec) ? "it is a directory"
                      : errno ? std::strerror(errno)
                              : "read failed")
                  << "\n";
        remove_quietly(output);
        return 1;
    }

    // The #line directive names the absolute path, so compiler messages and
    // __FILE__ point at the real .cu file, not at the copy in the build tree.
    std::error_code ec;
    fs::path absolute = fs::absolute(input, ec);
    const std::string display_name =
        ec ? input : absolute.lexically_normal().generic_string();

    const cuemu_rewrite::Result result =
        cuemu_rewrite::rewrite(*source, display_name, read_whole_file);
    if (!result.errors.empty()) {
        for (const cuemu_rewrite::Diagnostic& d : result.errors) {
            std::cerr << input << ":" << d.line << ":" << d.column << ": error: " << d.message << "\n";
        }
        remove_quietly(output);
        return 1;
    }

    // Write next to the target, then rename: a reader never sees half a file.
    if (output.has_parent_path()) fs::create_directories(output.parent_path(), ec);
    fs::path temporary = output;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << result.output;
        out.close();
        if (!out) {
            std::cerr << "cuemu-rewrite: cannot write '" << temporary.string() << "'\n";
            remove_quietly(temporary);
            remove_quietly(output);
            return 1;
        }
    }
    fs::rename(temporary, output, ec);
    if (ec) {
        std::cerr << "cuemu-rewrite: cannot create '" << output.string() << "': " << ec.message() << "\n";
        remove_quietly(temporary);
        remove_quietly(output);
        return 1;
    }
    return 0;
}
