// cub_not_emulated.cu - a CUB header outside the emulator's subset must stop
// the build with a line naming it (emu.cub.not-emulated-header), instead of
// the system's CUB, which needs nvcc, mixing in.
#include <cub/block/block_adjacent_difference.cuh>

int main() { return 0; }
