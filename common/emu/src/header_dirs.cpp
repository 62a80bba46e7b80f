// header_dirs.cpp - whether a source file is one of the emulator's own headers
// (its runtime, libcu++ and CUB folders in this tree), for reports that name
// the learner's line rather than ours (diagnostics.cpp). The folders are
// absolute paths that CMake gives to this file alone: every other source of
// the library compiles to the same object in any copy of the tree, so a
// compiler cache shares them between copies (the exported assignments that
// CI builds one after another).
#include <cstring>
#include <string>

#include "diagnostics.h"

namespace cuemu::detail {

bool is_emulator_header(const std::string& file) {
    for (const char* folder : {CUEMU_INCLUDE_DIR "/", CUEMU_LIBCUDACXX_HEADER_DIR "/", CUEMU_CUB_INCLUDE_DIR "/"}) {
        if (file.compare(0, std::strlen(folder), folder) == 0) return true;
    }
    return false;
}

}  // namespace cuemu::detail
