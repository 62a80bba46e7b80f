# Dependencies come from the system's package manager and are found with
# find_package. When one is missing, configuration stops with one message that
# names the package to install, instead of a cryptic error later.

set(_tutorial_install_hint
    "  Debian/Ubuntu: sudo apt-get install cmake g++ libboost-context-dev doctest-dev libpng-dev zlib1g-dev\n"
    "  macOS (Homebrew): brew install cmake boost doctest libpng\n"
    "  or run ./tutorial setup, which installs them for you on Debian/Ubuntu.")

find_package(doctest CONFIG QUIET)
if(NOT doctest_FOUND)
  message(FATAL_ERROR "doctest (the test framework) was not found. Install it:\n"
          ${_tutorial_install_hint})
endif()

if(TUTORIAL_EMULATOR)
  find_package(Boost 1.70 QUIET CONFIG COMPONENTS context)
  if(NOT Boost_FOUND OR NOT TARGET Boost::context)
    message(FATAL_ERROR "Boost.Context (the emulator's fibers) was not found. Install it:\n"
            ${_tutorial_install_hint})
  endif()
endif()

# libpng: lesson 16 reads and writes pictures. tutorial_lesson() stops with
# the hint above when a lesson that links PNG::PNG is built without it.
find_package(PNG QUIET)
# zlib: lesson 20 reads Fashion-MNIST's gzip-compressed files (common/fashion_mnist.h).
find_package(ZLIB QUIET)

# cuBLAS on the emulator does its arithmetic with the system's BLAS, through
# its C interface (cblas_*): OpenBLAS where it is installed, else any BLAS
# CMake finds (BLA_VENDOR chooses another). Only lessons that call cuBLAS need
# it (tutorial_lesson(... LIBRARIES cublas) stops with this hint without it).
set(TUTORIAL_BLAS_HINT
    "cuBLAS on the emulator needs a BLAS library. Install it:\n"
    "  Debian/Ubuntu: sudo apt-get install libopenblas-dev\n"
    "  macOS: Apple's Accelerate is found without installing anything")
if(TUTORIAL_EMULATOR)
  if(NOT DEFINED BLA_VENDOR)
    set(BLA_VENDOR OpenBLAS)
    find_package(BLAS QUIET)
    unset(BLA_VENDOR)
  endif()
  if(NOT BLAS_FOUND)
    find_package(BLAS QUIET)
  endif()
endif()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

# MPI (lesson 26, and the emulator's NCCL tests under mpirun) is looked for
# where it is first needed, not here: an exported lesson that does not use it
# should not pay for the look. Each find_package(MPI) runs the MPI compiler
# wrapper and test builds again (1.4 to 2.0 s of a 8 s configure, measured
# three times over), so the first look is kept for the rest (its imported
# target made GLOBAL) and later calls only read it. Sets TUTORIAL_HAVE_MPI:
# MPI::MPI_CXX and an mpiexec to run ranks with.
macro(tutorial_find_mpi)
  get_property(_tutorial_mpi_looked GLOBAL PROPERTY TUTORIAL_MPI_LOOKED)
  if(NOT _tutorial_mpi_looked)
    find_package(MPI COMPONENTS CXX QUIET GLOBAL)
    set_property(GLOBAL PROPERTY TUTORIAL_MPI_LOOKED TRUE)
  endif()
  if(TARGET MPI::MPI_CXX AND MPIEXEC_EXECUTABLE)
    set(TUTORIAL_HAVE_MPI TRUE)
  else()
    set(TUTORIAL_HAVE_MPI FALSE)
  endif()
endmacro()
