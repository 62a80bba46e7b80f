// Not emulated: the emulator's CUB has the subset listed in common/emu/README.md ("CUB").
#error "<cub/block/block_histogram.cuh> is not part of the emulator's CUB (common/emu/README.md, section CUB, lists what is)"
