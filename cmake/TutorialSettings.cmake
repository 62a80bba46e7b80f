# Settings every build of the lessons shares: this repository's and the
# standalone assignments ./tutorial export writes (tools/export/). Included
# right after project().

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_CXX_STANDARD 17)          # nvcc 13's default dialect, so both builds agree
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  # -g keeps line numbers for the emulator's diagnostics; -O2 keeps it fast.
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
# build/compile_commands.json: what clangd (VS Code, see README) reads.
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

# How much debug information programs built for the emulator carry. The
# emulator's reports need only line tables (it asks addr2line for a faulting
# address's file, line and function), so "lines" (-g1) loses no report and
# compiles faster: about a quarter of each compile in the sanitizer build,
# measured on the 2-core CI machine; CI uses it. "full" (-g, the default) also
# lets a debugger show local variables.
set(TUTORIAL_DEBUG_INFO full CACHE STRING "Debug information of emulator builds: full (-g) or lines (-g1)")
set_property(CACHE TUTORIAL_DEBUG_INFO PROPERTY STRINGS full lines)
if(NOT TUTORIAL_DEBUG_INFO MATCHES "^(full|lines)$")
  message(FATAL_ERROR "TUTORIAL_DEBUG_INFO is '${TUTORIAL_DEBUG_INFO}': expected full or lines")
endif()

# The emulator can be left out on a GPU machine that lacks Boost.Context:
# then only the nvcc builds and their tests exist.
option(TUTORIAL_EMULATOR "Build the CPU emulator and the emulator builds of every lesson" ON)

# The sanitizer lane (tools/sanitizer-lane.sh; common/emu/README.md, "The sanitizer build"): the emulator, the
# lessons and the tests built with AddressSanitizer and UndefinedBehaviorSanitizer.
# Any undefined behaviour ends the program, so it fails its test. Emulator
# builds only: configure with -DTUTORIAL_NVCC=OFF.
option(TUTORIAL_SANITIZE "Build with -fsanitize=address,undefined (emulator builds only)" OFF)
if(TUTORIAL_SANITIZE)
  # -fno-sanitize=null: GCC 12 with -fstack-clash-protection (which emulator
  # builds use) reports a false "member access within null pointer" for
  # threadIdx/blockIdx read after __syncthreads. A null dereference still
  # faults and is reported by the emulator.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-sanitize=null -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

