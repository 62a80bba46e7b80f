// shared_variables.cpp - where a worker's __shared__ variables lie, and their
// names, for the race detector.
//
// __shared__ is `static thread_local` here (builtins.h), so a block's shared
// variables are the running worker thread's copies of the program's
// thread-local variables. The program's symbol table (/proc/self/exe, the
// .symtab that every -g build keeps) lists each one with its offset in the
// thread-local block; the emulator's own thread-locals (the `cuemu::`
// ones, such as threadIdx's) and the C++ library's are left out.
#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cuemu/builtins.h"
#include "shared_variables.h"

namespace cuemu::detail {
namespace {

struct tls_symbol {
    std::uintptr_t offset;  // in the executable's thread-local block
    std::size_t size;
    std::string mangled;
};

struct symbol_table {
    std::vector<tls_symbol> shared;  // sorted by offset
    std::uintptr_t anchor_offset = 0;  // cuemu::tls_thread_idx's
    bool anchor_found = false;
};

bool starts_with(const char* s, const char* prefix) {
    return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

// Thread-locals that are not the program's __shared__ variables.
bool is_emulator_or_library(const char* name) {
    return starts_with(name, "_ZN5cuemu") || starts_with(name, "_ZZN5cuemu") ||
           starts_with(name, "_ZSt") || starts_with(name, "_ZNSt") || starts_with(name, "_ZZNSt") ||
           starts_with(name, "_ZN9__gnu_cxx") || starts_with(name, "_ZN7doctest") ||
           starts_with(name, "_ZZN7doctest") || starts_with(name, "__") ||
           starts_with(name, "_ZGV");  // a guard variable: the compiler's, set once per thread
}

void read_symbols(symbol_table& table) {
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    void* map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr)))
        map = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return;
    const auto* base = static_cast<const unsigned char*>(map);
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
    const std::size_t file_size = static_cast<std::size_t>(st.st_size);
    const bool is_elf64 = std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
                          eh->e_ident[EI_CLASS] == ELFCLASS64 &&
                          eh->e_shoff + std::size_t(eh->e_shnum) * sizeof(Elf64_Shdr) <= file_size;
    if (is_elf64) {
        const auto* sections = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
        for (unsigned i = 0; i < eh->e_shnum; ++i) {
            const Elf64_Shdr& sh = sections[i];
            if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= eh->e_shnum) continue;
            const Elf64_Shdr& strings = sections[sh.sh_link];
            if (sh.sh_offset + sh.sh_size > file_size || strings.sh_offset + strings.sh_size > file_size)
                continue;
            const auto* symbols = reinterpret_cast<const Elf64_Sym*>(base + sh.sh_offset);
            const char* names = reinterpret_cast<const char*>(base + strings.sh_offset);
            for (std::size_t s = 0; s < sh.sh_size / sizeof(Elf64_Sym); ++s) {
                const Elf64_Sym& sym = symbols[s];
                if (ELF64_ST_TYPE(sym.st_info) != STT_TLS || sym.st_name >= strings.sh_size) continue;
                const char* name = names + sym.st_name;
                if (std::strcmp(name, "_ZN5cuemu14tls_thread_idxE") == 0) {
                    table.anchor_offset = sym.st_value;
                    table.anchor_found = true;
                }
                if (sym.st_size == 0 || is_emulator_or_library(name)) continue;
                table.shared.push_back({sym.st_value, sym.st_size, name});
            }
        }
    }
    munmap(map, file_size);
    std::sort(table.shared.begin(), table.shared.end(),
              [](const tls_symbol& a, const tls_symbol& b) { return a.offset < b.offset; });
}

const symbol_table& symbols() {
    // Never destroyed: it is first read during a launch, after the device
    // queue registered its exit handler, so a static here would be destroyed
    // at exit before the launches still queued have run (queue.cpp,
    // finish_at_exit), while a worker may still read it.
    static symbol_table& table = *new symbol_table;
    static std::once_flag once;
    std::call_once(once, [] { read_symbols(table); });
    return table;
}

// The start of the calling thread's thread-local block, found from a variable
// of the emulator whose offset the symbol table gives.
std::uintptr_t tls_block_start() {
    return reinterpret_cast<std::uintptr_t>(&::cuemu::tls_thread_idx) - symbols().anchor_offset;
}

}  // namespace

bool shared_variable_layout(shared_layout* out) {
    const symbol_table& table = symbols();
    if (!table.anchor_found || table.shared.empty()) return false;
    const std::uintptr_t start = tls_block_start();
    out->begin = start + table.shared.front().offset;
    out->end = out->begin;
    for (const tls_symbol& s : table.shared) out->end = std::max(out->end, start + s.offset + s.size);
    out->variables.clear();
    for (const tls_symbol& s : table.shared)
        out->variables.push_back({start + s.offset, start + s.offset + s.size});
    return true;
}

std::string shared_variable_name(std::uintptr_t address, std::uintptr_t* variable_start) {
    const symbol_table& table = symbols();
    const std::uintptr_t start = tls_block_start();
    for (const tls_symbol& s : table.shared) {
        if (address < start + s.offset || address >= start + s.offset + s.size) continue;
        *variable_start = start + s.offset;
        int status = 0;
        char* demangled = abi::__cxa_demangle(s.mangled.c_str(), nullptr, nullptr, &status);
        std::string name = status == 0 && demangled ? demangled : s.mangled;
        std::free(demangled);
        return name;
    }
    return "";
}

}  // namespace cuemu::detail
