// Ends the renaming null_type_renamed_begin.h started. No include guard.
#undef null_type
