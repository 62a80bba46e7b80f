// Not emulated: the emulator's CUB has the subset listed in common/emu/README.md ("CUB").
#error "<cub/warp/warp_merge_sort.cuh> is not part of the emulator's CUB (common/emu/README.md, section CUB, lists what is)"
