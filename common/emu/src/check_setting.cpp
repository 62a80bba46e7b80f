// check_setting.cpp - CUEMU_CHECK, the optional checks a program runs under:
// "uninit" (memory_protection.cpp), "race" (race_detector.cpp), both as "uninit,race",
// or "none". Unset, the race check is on in a program with a source that uses
// __shared__ (race_detector.cpp); "none" turns that off too.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "internal.h"

namespace cuemu::detail {

bool check_requested(const char* name) {
    const char* text = std::getenv("CUEMU_CHECK");
    if (!text || !*text || std::strcmp(text, "none") == 0) return false;
    bool found = false;
    std::string list = text;
    for (std::size_t start = 0; start <= list.size();) {
        std::size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        const std::string item = list.substr(start, comma - start);
        if (item != "uninit" && item != "race") {
            std::fprintf(stderr,
                         "cuemu: CUEMU_CHECK must be 'none', or one or more of 'uninit' and 'race' "
                         "separated by commas, got '%s'\n",
                         text);
            std::exit(2);
        }
        found = found || item == name;
        start = comma + 1;
    }
    return found;
}

bool checks_turned_off() {
    const char* text = std::getenv("CUEMU_CHECK");
    return text && std::strcmp(text, "none") == 0;
}

}  // namespace cuemu::detail
