// Included just before Thrust 1.17's detail/reference.h, detail/pointer.h or
// detail/execute_with_dependencies.h is read (by #include_next, from the
// emulator's header of the same name): in that header's text only,
// thrust::remove_cvref(_t), which CUDA 13's Thrust removed and which are
// stand-ins here (type_traits/remove_cvref.h), become the names 1.17's own
// code keeps. remove_cvref_renamed_end.h takes the renaming away. Whoever
// includes this includes the header's own includes first, so that the renaming
// reaches no other file. No include guard: included once per header.
#define remove_cvref cuemu_thrust_1_17_remove_cvref
#define remove_cvref_t cuemu_thrust_1_17_remove_cvref_t
