# The GPU side of the build: optional.
#
# TUTORIAL_NVCC=AUTO (default) builds every .cu with nvcc as well when a CUDA
# toolkit is found; ON insists on it; OFF builds for the emulator only.
#
# Architectures: a user's -DCMAKE_CUDA_ARCHITECTURES=... (or the CUDAARCHS
# environment variable) always wins. Otherwise "native" when a GPU is visible
# (it fails at configure time without one), else a portable default: PTX for
# compute capability 7.5, the oldest nvcc 13 supports (any newer GPU can
# JIT-compile it), plus ready-made code for Hopper (sm_90).
set(TUTORIAL_NVCC AUTO CACHE STRING "Build lessons with nvcc too: AUTO, ON or OFF")
set_property(CACHE TUTORIAL_NVCC PROPERTY STRINGS AUTO ON OFF)

set(TUTORIAL_HAVE_NVCC OFF)
if(NOT TUTORIAL_NVCC STREQUAL "OFF")
  # nvcc is often installed outside PATH; look where the toolkit installs it.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(_tutorial_nvcc nvcc
                 HINTS ENV CUDA_PATH ENV CUDA_HOME /usr/local/cuda
                 PATH_SUFFIXES bin)
    if(_tutorial_nvcc)
      set(CMAKE_CUDA_COMPILER ${_tutorial_nvcc} CACHE FILEPATH "nvcc")
    endif()
  endif()

  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _smi_rc
                      OUTPUT_VARIABLE _smi_out ERROR_QUIET)
      if(_smi_rc EQUAL 0 AND _smi_out MATCHES "GPU")
        set(CMAKE_CUDA_ARCHITECTURES native)
      else()
        set(CMAKE_CUDA_ARCHITECTURES 75-virtual 90-real)
      endif()
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(TUTORIAL_HAVE_NVCC ON)
    message(STATUS "nvcc: ${CMAKE_CUDA_COMPILER} (architectures: ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(TUTORIAL_NVCC STREQUAL "ON" OR NOT TUTORIAL_EMULATOR)
    message(FATAL_ERROR "nvcc is required (TUTORIAL_NVCC=ON or TUTORIAL_EMULATOR=OFF) but was not found. "
            "Set CUDACXX or -DCMAKE_CUDA_COMPILER to nvcc's path.")
  else()
    message(STATUS "nvcc: not found; lessons build for the CPU emulator only")
  endif()
endif()

# Recorded in the cache so that ./tutorial can tell whether GPU builds exist.
set(TUTORIAL_HAVE_NVCC ${TUTORIAL_HAVE_NVCC} CACHE INTERNAL "lessons are also built with nvcc")
