# The profiler (CUEMU_PROFILE, docs/profiler.md): its part of the cuemu
# library, the GPU table embedded in it, and the GCC plugin that counts a
# kernel's floating-point operations. Included by common/emu/CMakeLists.txt.

target_sources(cuemu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/access_counts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/flops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_output.cpp)

# gpus.csv, one table for the emulator and tools/profile_report.py, becomes a
# string literal in the library.
set(_gpu_table ${CMAKE_CURRENT_LIST_DIR}/gpus.csv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_gpu_table})
file(READ ${_gpu_table} _gpu_table_text)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/profiler/gpus_table.inc.new "R\"cuemu_gpus(${_gpu_table_text})cuemu_gpus\"\n")
file(COPY_FILE ${CMAKE_CURRENT_BINARY_DIR}/profiler/gpus_table.inc.new
     ${CMAKE_CURRENT_BINARY_DIR}/profiler/gpus_table.inc ONLY_IF_DIFFERENT)
target_include_directories(cuemu PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/profiler)

# The flop counter: a plugin for the GCC that builds the programs, from the
# compiler's own plugin headers (Debian: gcc-12-plugin-dev). Without them the
# profiler still counts memory, and says that its flop counts are missing.
set(CUEMU_FLOP_PLUGIN "" CACHE INTERNAL "the profiler's flop counter (a GCC plugin), if built")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT TUTORIAL_SANITIZE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=plugin
                  OUTPUT_VARIABLE _gcc_plugin_dir OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(EXISTS ${_gcc_plugin_dir}/include/gcc-plugin.h)
    add_library(cuemu_flop_plugin MODULE ${CMAKE_CURRENT_LIST_DIR}/flop_plugin.cpp)
    target_include_directories(cuemu_flop_plugin SYSTEM PRIVATE ${_gcc_plugin_dir}/include)
    # GCC's own headers: no RTTI (GCC is built without it), no warnings of ours.
    target_compile_options(cuemu_flop_plugin PRIVATE -fno-rtti -fPIC -w)
    set_target_properties(cuemu_flop_plugin PROPERTIES PREFIX "" OUTPUT_NAME cuemu_flop_plugin SUFFIX ".so"
                          LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set(CUEMU_FLOP_PLUGIN ${CMAKE_CURRENT_BINARY_DIR}/cuemu_flop_plugin.so CACHE INTERNAL
        "the profiler's flop counter (a GCC plugin), if built")
    add_dependencies(cuemu cuemu_flop_plugin)
    target_compile_definitions(cuemu PRIVATE CUEMU_HAVE_FLOP_PLUGIN=1)
  else()
    string(REGEX MATCH "^[0-9]+" _gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
    message(STATUS "cuemu: no GCC plugin headers (${_gcc_plugin_dir}/include): the profiler will not count flops "
                   "(Debian: sudo apt-get install gcc-${_gcc_major}-plugin-dev)")
  endif()
endif()
