// Ends the renaming remove_cvref_renamed_begin.h started. No include guard.
#undef remove_cvref
#undef remove_cvref_t
