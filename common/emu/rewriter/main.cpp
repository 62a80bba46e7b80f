// main.cpp - the cuemu-rewrite command: reads one .cu file, writes the C++
// file the emulator build compiles (see rewrite.h for what changes), and the
// rewritten copies of the project headers it includes.
//
//   cuemu-rewrite [-I DIR | -isystem DIR]... [-D NAME[=VALUE]]... [-U NAME]...
//                 [--headers DIR] [--depfile FILE] [--no-split] INPUT.cu OUTPUT.cpp
//
// -I, -isystem: the include folders, in the compiler's order. A header found
// first in a system folder (-isystem, or under /usr or /opt; an -I of a
// folder named by an earlier -isystem too) is not the user's: left alone.
// -D/-U: the command line's macros, so that #if branches the compiler skips
// are skipped here too. --headers: where
// the rewritten headers go (default OUTPUT.cpp.headers).
// --depfile: a make-style list of every file read, for the build system.
// --no-split: no kernel gets a version cut at its barriers (split_regions.h);
// bin/nvcc-emu rewrites with it when a program does not compile otherwise.
//
// Errors are printed as FILE:LINE:COL: error: MESSAGE, the format editors
// and IDEs jump to, naming the user's file. On any error OUTPUT is not left
// behind (not even an old one), so a build can never go on with a stale or
// half-written file.
#include <algorithm>
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
#include <vector>

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


// Writes `text` to `path` through a temporary file, so a reader never sees
// half a file. Returns an error message, or "".
// An unchanged file is left alone: a rewritten header the compiler already
// saw keeps its time, so nothing that includes it is recompiled for nothing.
std::string write_file(const fs::path& path, const std::string& text) {
    if (const std::optional<std::string> old = read_whole_file(path.string()); old && *old == text) return "";
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    fs::path temporary = path;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out) {
            remove_quietly(temporary);
            return "cannot write '" + temporary.string() + "'";
        }
    }
    fs::rename(temporary, path, ec);
    if (ec) {
        remove_quietly(temporary);
        return "cannot create '" + path.string() + "': " + ec.message();
    }
    return "";
}

// A path in a make rule: spaces and '#' escaped.
std::string make_escaped(const std::string& path) {
    std::string out;
    for (const char c : path) {
        if (c == ' ' || c == '#') out += '\\';
        if (c == '$') out += '$';
        out += c;
    }
    return out;
}

std::string absolute_normal(const std::string& path) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    return ec ? path : absolute.lexically_normal().generic_string();
}

int usage() {
    std::cerr << "usage: cuemu-rewrite [-I DIR | -isystem DIR]... [-D NAME[=VALUE]]... [-U NAME]... "
                 "[--headers DIR] [--depfile FILE] [--no-split] INPUT.cu OUTPUT.cpp\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> positional;
    std::vector<cuemu_rewrite::IncludeDir> include_dirs;
    std::string headers_dir, depfile;
    cuemu_rewrite::Options options;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        auto value = [&](const char* flag) -> std::optional<std::string> {
            const std::string f = flag;
            if (arg == f) {
                if (a + 1 >= argc) return std::nullopt;
                return std::string(argv[++a]);
            }
            return arg.substr(f.size());
        };
        std::optional<std::string> v;
        if (arg.rfind("-I", 0) == 0) {
            if (!(v = value("-I"))) return usage();
            const std::string dir = absolute_normal(*v);
            // System folders hold no code of the user's to rewrite.
            const bool system = dir.rfind("/usr/", 0) == 0 || dir.rfind("/opt/", 0) == 0 ||
                                std::any_of(include_dirs.begin(), include_dirs.end(),
                                            [&](const cuemu_rewrite::IncludeDir& d) { return d.system && d.path == dir; });
            include_dirs.push_back({dir, system});
        } else if (arg == "-isystem") {
            if (a + 1 >= argc) return usage();
            include_dirs.push_back({absolute_normal(argv[++a]), true});
        } else if (arg.rfind("-D", 0) == 0) {
            if (!(v = value("-D"))) return usage();
            const std::size_t eq = v->find('=');
            options.defines[v->substr(0, eq)] = eq == std::string::npos ? "1" : v->substr(eq + 1);
        } else if (arg.rfind("-U", 0) == 0) {
            if (!(v = value("-U"))) return usage();
            options.defines.erase(*v);
            options.undefines.push_back(*v);
        } else if (arg == "--no-split") {
            options.split_kernels = false;  // no kernel split at its barriers (split_regions.h)
        } else if (arg == "--headers" || arg == "--depfile") {
            if (a + 1 >= argc) return usage();
            (arg == "--headers" ? headers_dir : depfile) = argv[++a];
        } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
            return usage();
        } else {
            positional.push_back(arg);
        }
    }
    if (positional.size() != 2) return usage();
    const std::string input = positional[0];
    const fs::path output = positional[1];
    if (headers_dir.empty()) headers_dir = output.string() + ".headers";

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

    // The #line directives name absolute paths, so compiler messages and
    // __FILE__ point at the real files, not at the copies in the build tree.
    const std::string display_name = absolute_normal(input);
    const std::string absolute_output = absolute_normal(output.string());
    const std::string absolute_headers = absolute_normal(headers_dir);
    cuemu_rewrite::TreeResult result = cuemu_rewrite::rewrite_tree(
        display_name, absolute_output, absolute_headers, include_dirs, options, read_whole_file);
    if (!result.errors.empty()) {
        for (const cuemu_rewrite::FileDiagnostic& e : result.errors) {
            const std::string shown = e.file == display_name ? input : e.file;
            std::cerr << shown << ":" << e.where.line << ":" << e.where.column << ": error: " << e.where.message
                      << "\n";
        }
        remove_quietly(output);
        return 1;
    }

    for (std::size_t k = 1; k < result.files.size(); ++k) {
        const std::string problem = write_file(result.files[k].output, result.files[k].text);
        if (!problem.empty()) {
            std::cerr << "cuemu-rewrite: " << problem << "\n";
            remove_quietly(output);
            return 1;
        }
    }
    if (!depfile.empty()) {
        std::string rule = make_escaped(output.string()) + ":";
        for (const cuemu_rewrite::RewrittenFile& f : result.files) rule += " \\\n  " + make_escaped(f.original);
        const std::string problem = write_file(depfile, rule + "\n");
        if (!problem.empty()) {
            std::cerr << "cuemu-rewrite: " << problem << "\n";
            remove_quietly(output);
            return 1;
        }
    }
    // A program with a source that uses shared memory has the race check on
    // by default (cuemu/launch.h). The mark goes after the last line, so every
    // line of the user's file keeps its number.
    if (result.uses_shared_memory) {
        std::string& text = result.files[0].text;
        if (!text.empty() && text.back() != '\n') text += '\n';
        text += "CUEMU_SOURCE_USES_SHARED_MEMORY\n";
    }
    // The .cpp last: a build that sees it sees its headers too. It is always
    // new afterwards, even unchanged: make (unlike ninja) does not look again
    // and would rerun this rewrite at every build.
    std::string problem = write_file(output, result.files[0].text);
    std::error_code ec;
    if (problem.empty()) fs::last_write_time(output, fs::file_time_type::clock::now(), ec);
    if (!problem.empty()) {
        std::cerr << "cuemu-rewrite: " << problem << "\n";
        remove_quietly(output);
        return 1;
    }
    return 0;
}
