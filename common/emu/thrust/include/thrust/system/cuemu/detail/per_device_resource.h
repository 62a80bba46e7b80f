// Thrust includes this for the device system; its generic per device resource code serves
// the emulator (memory comes from malloc_and_free.h).
#pragma once
