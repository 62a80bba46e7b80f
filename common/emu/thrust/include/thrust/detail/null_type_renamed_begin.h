// Included just before one of Thrust 1.17's headers that define or use
// thrust::null_type is read (by #include_next, from the emulator's header of
// the same name: tuple.h, detail/raw_reference_cast.h and the
// detail/functional/ headers): in that header's text only, null_type, which
// CUDA 13's Thrust removed and which is a stand-in here
// (system/cuemu/detail/removed_null_type.h), becomes the name 1.17's own code
// keeps. null_type_renamed_end.h takes the renaming away. Whoever includes
// this includes the header's own includes first, so that the renaming reaches
// no other file. No include guard: included once per header.
#define null_type cuemu_thrust_1_17_null_type
