// <thrust/system/cuda/pointer.h>: not emulated (not_emulated.h says why).
#pragma once

#include <thrust/system/cuda/not_emulated.h>
