# Build helpers shared by every lesson.
#
# cuemu_add_executable(target SOURCES a.cu b.cpp ...)
#   Builds CUDA sources for the CPU emulator: each .cu, with the headers of
#   the project it includes, goes through cuemu-rewrite (kernel launches
#   become ordinary calls, __CUDA_ARCH__ is resolved, line numbers kept) and
#   is compiled by the system C++ compiler with the emulator header
#   force-included. Other sources compile as they are.
#
# tutorial_lesson(SOURCES file.cu ... [LIBRARIES cublas | curand | target ...])
#   Called from lessons/NN-topic/CMakeLists.txt and solutions/NN-topic/...
#   LIBRARIES names the libraries the lesson calls: cublas links CUDA::cublas
#   in the nvcc build and the emulator's cuBLAS (cuemu::cublas, on the
#   system's BLAS) in the emulator build; curand links CUDA::curand and the
#   emulator's cuRAND (cuemu::curand; only the host API needs it, the device
#   API is header-only in both builds); nccl links the emulator's NCCL
#   (cuemu::nccl) in the emulator build and the real NCCL in the nvcc build
#   where one is installed (TUTORIAL_NCCL_FOUND, below); both builds define
#   TUTORIAL_HAVE_NCCL to 1 or 0, so that a lesson can skip its NCCL part
#   (loudly) in an nvcc build without NCCL; mpi links MPI (CMake's FindMPI,
#   MPI::MPI_CXX) in both builds, and the lesson's tests run under mpirun
#   with MPI_RANKS ranks (see below); without MPI the lesson is left out of
#   the build, saying so at configure time; any other name is an imported
#   target both builds link as it is (lesson 16: PNG::PNG, found in
#   TutorialDependencies.cmake).
#   Builds the lesson program and its test (tests/test_NN_topic.cpp) for the
#   emulator and, when nvcc was found, for the GPU. Targets and tests:
#   MPI_RANKS n [m ...] (with LIBRARIES mpi): the tests run under mpirun -np n,
#   and the solution's again as lessonNN.solution.<backend>.ranksM for each m,
#   with the environment ./tutorial check gives the lesson (emulator devices)
#   and Open MPI's settings for running as root and with more ranks than cores.
#     lessonNN_<exercise|solution>_<emu|nvcc>        the program (build/bin/)
#     test_lessonNN_<exercise|solution>_<emu|nvcc>   the doctest executable
#     ctest: lessonNN.solution.emu / .nvcc           must pass (nvcc: skipped
#                                                    when no GPU is usable)
#            lessonNN.exercise.emu.fails-as-shipped  must fail its test as
#                                                    shipped (see README)
#   In an exported assignment (TUTORIAL_ASSIGNMENT, set by the export's
#   CMakeLists.txt) ctest grades the student's work instead: the exercise's
#   test is lessonNN.exercise.emu / .nvcc and passes when the exercise is
#   right, as ./tutorial check NN does; there is no fails-as-shipped test.
#   A lesson whose sources are all plain C (lesson 01) builds one CPU program
#   instead: lessonNN_<variant>_cpu, test lessonNN.<variant>.cpu.

set(TUTORIAL_COMMON_DIR ${CMAKE_SOURCE_DIR}/common)
set(TUTORIAL_TESTS_DIR ${CMAKE_SOURCE_DIR}/tests)
set(CUEMU_FORCE_INCLUDE ${CMAKE_SOURCE_DIR}/common/emu/include/cuemu/cuemu.h)

# A test that hangs (a kernel that never finishes) must not hang the suite.
set(TUTORIAL_TEST_TIMEOUT 300 CACHE STRING "Seconds before one test is stopped")

# ctest treats this exit code as "skipped": an nvcc build with no usable GPU.
set(TUTORIAL_SKIP_CODE 77)

# Without a GPU the nvcc test programs cannot run: their tests only report
# "skipped". A CI machine without one (.ci/run asks nvidia-smi) sets this OFF:
# each lesson's nvcc program is still built, which proves nvcc compiles every
# .cu, and its test reports why it is skipped instead of building a second
# copy of the .cu (a fifth of CI's compile time went to these).
option(TUTORIAL_NVCC_TEST_PROGRAMS "Build the nvcc test programs (OFF: a machine with no GPU to run them)" ON)

# ./tutorial runs this nvcc-built probe before it chooses the GPU build, so a
# machine with nvcc but no usable GPU (no driver, a broken one) falls back to
# the emulator, and --gpu there fails instead of checking nothing.
if(TUTORIAL_HAVE_NVCC)
  add_executable(tutorial_gpu_probe ${TUTORIAL_COMMON_DIR}/gpu_probe.cu)
  target_link_libraries(tutorial_gpu_probe PRIVATE CUDA::cudart)
endif()

# The real NCCL for the nvcc build: found next to the CUDA toolkit (the
# toolkit's own copy, or a system package). Without it the nvcc build of a
# lesson that asks for nccl still builds, with TUTORIAL_HAVE_NCCL=0
# (-DTUTORIAL_NVCC_NCCL=OFF asks for that build on a machine that has NCCL).
option(TUTORIAL_NVCC_NCCL "link the real NCCL in the nvcc build where it is found" ON)
set(TUTORIAL_NCCL_FOUND OFF)
if(TUTORIAL_HAVE_NVCC AND NOT TUTORIAL_NVCC_NCCL)
  message(STATUS "NCCL for the nvcc build: off (TUTORIAL_NVCC_NCCL=OFF); lessons' NCCL parts "
                 "are skipped in the nvcc build (TUTORIAL_HAVE_NCCL=0)")
elseif(TUTORIAL_HAVE_NVCC)
  find_path(TUTORIAL_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(TUTORIAL_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(TUTORIAL_NCCL_INCLUDE_DIR AND TUTORIAL_NCCL_LIBRARY)
    set(TUTORIAL_NCCL_FOUND ON)
    if(NOT TARGET tutorial_real_nccl)
      add_library(tutorial_real_nccl UNKNOWN IMPORTED)
      set_target_properties(tutorial_real_nccl PROPERTIES IMPORTED_LOCATION ${TUTORIAL_NCCL_LIBRARY}
        INTERFACE_INCLUDE_DIRECTORIES ${TUTORIAL_NCCL_INCLUDE_DIR})
    endif()
    message(STATUS "NCCL for the nvcc build: ${TUTORIAL_NCCL_LIBRARY}")
  else()
    message(STATUS "NCCL for the nvcc build: NOT FOUND (no nccl.h and libnccl next to the CUDA "
                   "toolkit); lessons' NCCL parts are skipped in the nvcc build "
                   "(TUTORIAL_HAVE_NCCL=0). The emulator build has its own NCCL.")
  endif()
endif()

# Stops the configure when `source` includes <prefix...> and the library's
# headers were not found (dir_var), naming the package that has them.
function(cuemu_require_library_headers source shown prefix dir_var name version package)
  if(NOT ${dir_var} AND EXISTS ${source})
    file(STRINGS ${source} library_includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]${prefix}")
    if(library_includes)
      message(FATAL_ERROR "${shown} includes ${name}: the emulator needs ${version} headers, "
                          "which are not installed (Debian/Ubuntu: sudo apt-get install ${package})")
    endif()
  endif()
endfunction()

# The sources of `target` as the emulator compiles them: each .cu rewritten
# into the build tree (its kernels instrumented), other files as they are.
function(_cuemu_sources target out_var)
  # CUEMU_KERNEL_FLAGS (common/emu/CMakeLists.txt): the race check's instrumentation.
  # The rewritten source is regenerated when the .cu changes; the flags are
  # chosen here, at configure time.
  separate_arguments(CUEMU_KERNEL_FLAG_LIST UNIX_COMMAND "${CUEMU_KERNEL_FLAGS}")
  set(sources)
  foreach(src IN LISTS ARGN)
    get_filename_component(abs ${src} ABSOLUTE)
    if(abs MATCHES "\\.cu$")
      get_filename_component(name ${abs} NAME)
      get_filename_component(src_dir ${abs} DIRECTORY)
      set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}.emu/${name}.cpp)
      file(RELATIVE_PATH shown ${CMAKE_SOURCE_DIR} ${abs})
      # Thrust's and libcu++'s headers are the system's (common/emu/CMakeLists.txt
      # finds them; the emulator's own <cuda/barrier> and <cuda/pipeline> need
      # libcu++'s). A source generated at build time is not read here.
      cuemu_require_library_headers(${abs} ${shown} thrust/ CUEMU_THRUST_INCLUDE_DIR "Thrust" "Thrust 1.x" libthrust-dev)
      cuemu_require_library_headers(${abs} ${shown} cuda/ CUEMU_LIBCUDACXX_INCLUDE_DIR "libcu++ (<cuda/...>)"
                                    "libcu++ 1.x" libcu++-dev)
      # The headers of the project that the .cu includes are rewritten too,
      # into ${out}.headers; the depfile lists them, so editing a header
      # reruns the rewrite. The target's include folders and definitions
      # (read when the build is generated) resolve #include <...> and #if.
      set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
      set(definitions "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
      # Every kernel source is instrumented (the race check, the profiler);
      # its kernels' uninstrumented twins run unless one of them is on.
      set(kernel_flags "${CUEMU_KERNEL_FLAG_LIST}")
      add_custom_command(
        OUTPUT ${out}
        COMMAND cuemu-rewrite -isystem ${CMAKE_SOURCE_DIR}/common/emu/include
                -isystem ${CMAKE_SOURCE_DIR}/common/emu/libcudacxx/include
                -isystem ${CMAKE_SOURCE_DIR}/common/emu/cub/include  # the emulator's CUB is not the user's
                "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
                "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},;-D>>"
                --depfile ${out}.d ${abs} ${out}
        DEPENDS ${abs} cuemu-rewrite
        DEPFILE ${out}.d
        COMMENT "cuemu: rewriting kernel launches in ${shown}"
        COMMAND_EXPAND_LISTS
        VERBATIM)
      # The rewritten file lives in the build tree; -iquote lets its
      # #include "..." lines find headers next to the original .cu.
      set_source_files_properties(${out} PROPERTIES
        COMPILE_OPTIONS "-include;${CUEMU_FORCE_INCLUDE};-iquote;${src_dir};${kernel_flags}")
      if(CUEMU_FLOP_PLUGIN AND kernel_flags)
        # Rebuilt when the flop counter changes; never compiled before it exists.
        set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS ${CUEMU_FLOP_PLUGIN})
      endif()
      list(APPEND sources ${out})
    else()
      list(APPEND sources ${abs})
    endif()
  endforeach()
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()

function(cuemu_add_executable target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  _cuemu_sources(${target} sources ${ARG_SOURCES})
  add_executable(${target} ${sources})
  target_link_libraries(${target} PRIVATE cuemu)
  target_include_directories(${target} PRIVATE ${TUTORIAL_COMMON_DIR})
endfunction()

# The same sources compiled once into an object library, for several
# executables to link (a lesson's program and its test).
function(cuemu_add_object_library target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  _cuemu_sources(${target} sources ${ARG_SOURCES})
  add_library(${target} OBJECT ${sources})
  target_link_libraries(${target} PUBLIC cuemu)
  target_include_directories(${target} PUBLIC ${TUTORIAL_COMMON_DIR})
endfunction()

function(_tutorial_register_test name target variant backend lesson)
  if(mpi_ranks)
    # An MPI lesson (LIBRARIES mpi): its test is a job of several ranks.
    list(GET mpi_ranks 0 ranks)
    _tutorial_register_mpi_test(${name} ${target} ${ranks})
  else()
    add_test(NAME ${name} COMMAND ${target})
  endif()
  set_tests_properties(${name} PROPERTIES
    LABELS "lesson${lesson};${variant};${backend}"
    TIMEOUT ${TUTORIAL_TEST_TIMEOUT}
    SKIP_RETURN_CODE ${TUTORIAL_SKIP_CODE})
  if(mpi_ranks AND variant STREQUAL "solution")
    list(SUBLIST mpi_ranks 1 -1 more_ranks)
    foreach(ranks IN LISTS more_ranks)
      _tutorial_register_mpi_test(${name}.ranks${ranks} ${target} ${ranks})
      set_tests_properties(${name}.ranks${ranks} PROPERTIES
        LABELS "lesson${lesson};${variant};${backend}"
        TIMEOUT ${TUTORIAL_TEST_TIMEOUT}
        SKIP_RETURN_CODE ${TUTORIAL_SKIP_CODE})
    endforeach()
  endif()
  if(variant STREQUAL "exercise" AND NOT TUTORIAL_ASSIGNMENT)
    # As shipped, an exercise must fail its own test: its assertions, not a
    # crash or a timeout. doctest ends a run with a failed check this way.
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "Status: FAILURE!")
  elseif(variant STREQUAL "exercise" AND backend STREQUAL "emu" AND NOT mpi_ranks)
    # A student's ctest must agree with ./tutorial check NN, which grades:
    # both run the emulator with the same checks and devices (an MPI
    # lesson's test has that environment already).
    _tutorial_check_environment(environment)
    if(environment)
      set_tests_properties(${name} PROPERTIES ENVIRONMENT "${environment}")
    endif()
  endif()
endfunction()

# A test program run as a job of `ranks` ranks under the mpirun CMake found.
# Open MPI refuses to start as root, and more ranks than cores, unless told
# (CI runs as root on 2 cores), and without its own dozen lines when a rank
# fails (as ./tutorial runs it); other MPIs ignore these variables. Open MPI
# gives its ranks a terminal, where doctest would colour "Status: FAILURE!". One
# emulator worker per rank: the ranks already share the cores.
function(_tutorial_register_mpi_test name target ranks)
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS} --no-colors)
  _tutorial_check_environment(environment)
  list(APPEND environment OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
       OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_orte_execute_quiet=1 CUEMU_WORKERS=1)
  if(TUTORIAL_SANITIZE)
    # Open MPI's own allocations outlive MPI_Finalize: LeakSanitizer counted
    # about 120 KB in 3000 blocks in a 2-rank job of four collectives and
    # nothing else (Debian's Open MPI 4.1), and fails every rank for them. The
    # other checks stay on; leaks of the lesson's own code go unchecked here.
    list(APPEND environment ASAN_OPTIONS=detect_leaks=0)
  endif()
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${environment}")
endfunction()

# The environment ./tutorial check NN gives a lesson's test on the emulator,
# read from the sources of the lesson when the build is configured, by the
# same rules as the script's race_check_for and emulator_devices_for: the
# shared-memory race check where a source uses __shared__, and the number of
# devices a line "// tutorial: emulator devices N" names (lesson 21).
function(_tutorial_check_environment out_var)
  file(GLOB lesson_sources ${CMAKE_CURRENT_SOURCE_DIR}/*.cu ${CMAKE_CURRENT_SOURCE_DIR}/*.cuh)
  set(environment "")
  set(uses_shared FALSE)
  set(devices "")
  foreach(src IN LISTS lesson_sources)
    file(STRINGS ${src} shared_lines REGEX "__shared__")
    if(shared_lines)
      set(uses_shared TRUE)
    endif()
    file(STRINGS ${src} device_lines REGEX "^// tutorial: emulator devices [0-9]+$")
    if(device_lines AND NOT devices)
      list(GET device_lines 0 first)
      string(REGEX REPLACE "^// tutorial: emulator devices " "" devices "${first}")
    endif()
  endforeach()
  if(uses_shared)
    list(APPEND environment CUEMU_CHECK=race)
  endif()
  if(devices)
    list(APPEND environment CUEMU_DEVICES=${devices})
  endif()
  set(${out_var} "${environment}" PARENT_SCOPE)
endfunction()

# Bad flags must give one clear line and exit code 2 (tests/check_bad_input.sh).
function(_tutorial_register_bad_input_test program lesson backend)
  add_test(NAME lesson${lesson}.bad-input.${backend}
           COMMAND ${TUTORIAL_TESTS_DIR}/check_bad_input.sh $<TARGET_FILE:${program}>)
  set_tests_properties(lesson${lesson}.bad-input.${backend} PROPERTIES
    LABELS "lesson${lesson};${backend}" TIMEOUT ${TUTORIAL_TEST_TIMEOUT})
endfunction()

# tests/test_main.cpp, the main() of every lesson test, compiled once per
# backend into a small library: doctest's implementation takes seconds to
# compile, and every lesson's tests used to compile their own copy.
function(_tutorial_test_main backend)
  set(library tutorial_test_main_${backend})
  if(NOT TARGET ${library})
    string(TOUPPER ${backend} backend_macro)
    add_library(${library} STATIC ${TUTORIAL_TESTS_DIR}/test_main.cpp)
    target_compile_definitions(${library} PRIVATE TUTORIAL_BACKEND_${backend_macro})
    target_include_directories(${library} PRIVATE ${TUTORIAL_COMMON_DIR})  # check_mode.h
    target_link_libraries(${library} PRIVATE doctest::doctest)
    # doctest's implementation runs no test work: without optimisation it
    # compiled in 3.0 s instead of 5.0 s (user time, this 2-core machine), and
    # it is compiled in every build folder, export and script test.
    target_compile_options(${library} PRIVATE -O0)
    if(backend STREQUAL "emu")
      target_link_libraries(${library} PRIVATE cuemu)
    elseif(backend STREQUAL "nvcc")
      target_link_libraries(${library} PRIVATE CUDA::cudart)
    endif()
  endif()
endfunction()

# TUTORIAL_NVCC_TEST_PROGRAMS=OFF: the nvcc program alone (proof that nvcc
# compiles the lesson), its bad-input test, and a test that says why it
# skips. Reads the variables of _tutorial_lesson_backend.
function(_tutorial_nvcc_program_only)
  if(variant STREQUAL "exercise")
    # The exercise is the solution with gaps: nvcc's front end and device
    # compiler (--ptx) prove it is CUDA, and the solution's full build (host
    # compiler, ptxas, link) proves the rest for both. About half of an
    # exercise's nvcc time (lesson 22's library_way.cu: 16.6 CPU seconds
    # instead of 34.4 on the 2-core development machine).
    add_library(${program} OBJECT ${sources})
    set_target_properties(${program} PROPERTIES CUDA_PTX_COMPILATION ON)
  else()
    add_executable(${program} ${sources})
  endif()
  target_include_directories(${program} PRIVATE ${TUTORIAL_COMMON_DIR})
  target_link_libraries(${program} PRIVATE CUDA::cudart)
  foreach(library IN LISTS libraries)
    if(library STREQUAL "nccl")
      set(have_nccl 0)
      if(TUTORIAL_NCCL_FOUND)
        target_link_libraries(${program} PRIVATE tutorial_real_nccl)
        set(have_nccl 1)
      endif()
      target_compile_definitions(${program} PRIVATE TUTORIAL_HAVE_NCCL=${have_nccl})
    elseif(library STREQUAL "cublas" OR library STREQUAL "curand")
      target_link_libraries(${program} PRIVATE CUDA::${library})
    else()
      target_link_libraries(${program} PRIVATE ${library})
    endif()
  endforeach()
  set(name lesson${nn}.${variant}.nvcc${test_suffix})
  add_test(NAME ${name} COMMAND sh -c "echo 'not built: this build has no nvcc test programs \
(TUTORIAL_NVCC_TEST_PROGRAMS=OFF, chosen where no GPU can run them); ${program} shows that nvcc compiles the lesson'; exit ${TUTORIAL_SKIP_CODE}")
  set_tests_properties(${name} PROPERTIES LABELS "lesson${nn};${variant};nvcc"
                       SKIP_RETURN_CODE ${TUTORIAL_SKIP_CODE})
  if(variant STREQUAL "solution")
    _tutorial_register_bad_input_test(${program} ${nn} nvcc)
  endif()
endfunction()

# One backend's build of a lesson: the program lessonNN_<variant>_<backend>,
# its test executable, the test, and (for solutions) the bad-input test.
# backend is cpu (plain C), emu or nvcc. Called from tutorial_lesson(), whose
# variables (nn, variant, base, sources, libraries, test_sources, test_suffix) it reads.
function(_tutorial_lesson_backend backend)
  set(program ${base}_${backend})
  set(test test_${base}_${backend})
  if(backend STREQUAL "nvcc" AND NOT TUTORIAL_NVCC_TEST_PROGRAMS)
    _tutorial_nvcc_program_only()
    return()
  endif()
  _tutorial_test_main(${backend})
  # Where the lesson's libraries and definitions go: both programs, or (for
  # the emulator) the objects they share.
  set(users ${program} ${test})
  if(backend STREQUAL "emu")
    # The lesson's code is compiled once, for the program and its test: half
    # of the lessons' compile time on the emulator. Its main() is weak
    # (tests/weak_main.h): in the test, the test's own main (tests/test_main.cpp)
    # takes its place and makes a failed CUDA_CHECK throw (common/check_mode.h);
    # the code between #ifndef TUTORIAL_TEST_BUILD is linked into the test
    # too, and never called.
    set(code ${base}_emu_code)
    cuemu_add_object_library(${code} SOURCES ${sources})
    target_compile_options(${code} PRIVATE -include ${TUTORIAL_TESTS_DIR}/weak_main.h)
    add_executable(${program})
    cuemu_add_executable(${test} SOURCES ${test_source})
    target_link_libraries(${program} PRIVATE ${code})
    target_link_libraries(${test} PRIVATE ${code})
    set(users ${code})
  else()
    set(runtime m)
    if(backend STREQUAL "nvcc")
      set(runtime CUDA::cudart)
    endif()
    add_executable(${program} ${sources})
    add_executable(${test} ${test_sources})
    foreach(t ${program} ${test})
      target_include_directories(${t} PRIVATE ${TUTORIAL_COMMON_DIR})
      target_link_libraries(${t} PRIVATE ${runtime})
    endforeach()
  endif()
  foreach(library IN LISTS libraries)
    set(linked "")
    if(library STREQUAL "nccl")
      set(have_nccl 0)
      if(backend STREQUAL "emu")
        set(linked cuemu::nccl)
        set(have_nccl 1)
      elseif(backend STREQUAL "nvcc" AND TUTORIAL_NCCL_FOUND)
        set(linked tutorial_real_nccl)
        set(have_nccl 1)
      endif()
      foreach(user IN LISTS users)
        target_compile_definitions(${user} PUBLIC TUTORIAL_HAVE_NCCL=${have_nccl})
      endforeach()
    elseif(library STREQUAL "curand" AND backend STREQUAL "emu")
      set(linked cuemu::curand)
    elseif(library STREQUAL "curand")
      set(linked CUDA::curand)
    elseif(NOT library STREQUAL "cublas")
      set(linked ${library})  # an imported target, checked in tutorial_lesson()
    elseif(backend STREQUAL "emu")
      if(NOT TARGET cuemu::cublas)
        message(FATAL_ERROR "lesson ${nn} calls cuBLAS. " ${TUTORIAL_BLAS_HINT})
      endif()
      set(linked cuemu::cublas)
    elseif(backend STREQUAL "nvcc")
      set(linked CUDA::cublas)
    endif()
    if(linked)
      foreach(user IN LISTS users)
        target_link_libraries(${user} PUBLIC ${linked})
      endforeach()
    endif()
  endforeach()
  string(TOUPPER ${backend} backend_macro)
  target_include_directories(${test} PRIVATE ${TUTORIAL_TESTS_DIR})
  # TUTORIAL_SOURCE_DIR: where a test finds files of the tree (lesson 16's
  # pictures); not __FILE__, which a compiler cache may make relative.
  target_compile_definitions(${test} PRIVATE TUTORIAL_TEST_BUILD TUTORIAL_BACKEND_${backend_macro}
                                             TUTORIAL_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  target_link_libraries(${test} PRIVATE doctest::doctest tutorial_test_main_${backend})
  _tutorial_register_test(lesson${nn}.${variant}.${backend}${test_suffix}
                          ${test} ${variant} ${backend} ${nn})
  if(variant STREQUAL "solution")
    _tutorial_register_bad_input_test(${program} ${nn} ${backend})
  endif()
endfunction()

function(tutorial_lesson)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;MPI_RANKS" ${ARGN})
  set(libraries ${ARG_LIBRARIES})
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  get_filename_component(parent ${CMAKE_CURRENT_SOURCE_DIR} DIRECTORY)
  get_filename_component(parent ${parent} NAME)
  if(NOT folder MATCHES "^([0-9][0-9])-(.+)$")
    message(FATAL_ERROR "lesson folder '${folder}' is not named NN-topic")
  endif()
  set(nn ${CMAKE_MATCH_1})
  string(REPLACE "-" "_" topic ${CMAKE_MATCH_2})
  if(parent STREQUAL "lessons")
    set(variant exercise)
  elseif(parent STREQUAL "solutions")
    set(variant solution)
  else()
    message(FATAL_ERROR "tutorial_lesson() called outside lessons/ or solutions/")
  endif()
  set(test_source ${TUTORIAL_TESTS_DIR}/test_${nn}_${topic}.cpp)
  if(NOT EXISTS ${test_source})
    message(FATAL_ERROR "lesson ${folder} has no test: expected ${test_source}")
  endif()

  set(mpi_ranks "")
  if("mpi" IN_LIST libraries)
    # MPI is optional: without it this lesson is left out, the rest builds.
    tutorial_find_mpi()
    if(NOT TUTORIAL_HAVE_MPI)
      if(variant STREQUAL "exercise")
        message(STATUS "lesson ${folder}: NOT BUILT, its tests not registered: MPI was not found "
                       "(Debian/Ubuntu: sudo apt-get install openmpi-bin libopenmpi-dev; macOS: "
                       "brew install open-mpi)")
      endif()
      return()
    endif()
    set(mpi_ranks ${ARG_MPI_RANKS})
    if(NOT mpi_ranks)
      set(mpi_ranks 2)
    endif()
    # From here on MPI is an imported target like any other (both backends).
    list(TRANSFORM libraries REPLACE "^mpi$" "MPI::MPI_CXX")
  endif()
  foreach(lib IN LISTS libraries)
    if(NOT lib MATCHES "^(cublas|curand|nccl)$" AND NOT TARGET ${lib})
      message(FATAL_ERROR "lesson ${folder} needs ${lib}, which was not found. Install it:\n"
              ${_tutorial_install_hint})
    endif()
  endforeach()

  set(sources)
  set(all_c TRUE)
  foreach(src IN LISTS ARG_SOURCES)
    list(APPEND sources ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    if(NOT src MATCHES "\\.c$")
      set(all_c FALSE)
    endif()
  endforeach()
  set(test_sources ${test_source} ${sources})
  set(base lesson${nn}_${variant})
  set(test_suffix "")
  if(variant STREQUAL "exercise" AND NOT TUTORIAL_ASSIGNMENT)
    set(test_suffix ".fails-as-shipped")
  endif()

  if(all_c)
    _tutorial_lesson_backend(cpu)  # plain C: one CPU build, no GPU involved
    return()
  endif()
  # The emulator: always, unless configured out (TUTORIAL_EMULATOR=OFF). The
  # sanitizer lane builds no exercise: the main lane proves each fails its
  # test as shipped, and their test programs were an eighth of the lane's
  # compile time (204 of 1569 CPU seconds, measured on the 2-core CI machine).
  if(TUTORIAL_EMULATOR AND NOT (TUTORIAL_SANITIZE AND variant STREQUAL "exercise"))
    _tutorial_lesson_backend(emu)
  endif()
  # The GPU: when nvcc was found. Without a GPU these still compile and link
  # (proof that nvcc accepts every file); their tests report "skipped".
  if(TUTORIAL_HAVE_NVCC)
    _tutorial_lesson_backend(nvcc)
  endif()
endfunction()
