// Included just before one of Thrust 1.17's own headers is read (by
// #include_next, from the emulator's header of the same name): renames, in
// that header's text only, the names CUDA 13's Thrust removed, so that 1.17's
// own definitions and uses of them keep working under the new names while the
// names themselves are stand-ins that refuse a program using them
// (removed_in_cuda_13.h). removed_names_end.h takes the renaming away.
// Whoever includes this includes the header's own includes first, so that the
// renaming reaches no other file. No include guard: included once per header.
#define unary_function cuemu_thrust_1_17_unary_function
#define binary_function cuemu_thrust_1_17_binary_function
#define unary_negate cuemu_thrust_1_17_unary_negate
#define binary_negate cuemu_thrust_1_17_binary_negate
#define not1 cuemu_thrust_1_17_not1
#define not2 cuemu_thrust_1_17_not2
#define unary_traits cuemu_thrust_1_17_unary_traits
#define binary_traits cuemu_thrust_1_17_binary_traits
#define identity cuemu_thrust_1_17_identity
